//! read_file and glob on real files in temp dirs.
#![allow(missing_docs)]

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};
use toolwright_builtin::tools::{Glob, ReadFile};
use toolwright_core::{ToolContext, ToolOutput, call_typed};

fn run<F: std::future::Future<Output = ToolOutput>>(f: F) -> ToolOutput {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
}

fn read(dir: &Path, path: &str, offset: Option<u64>, limit: Option<u32>) -> ToolOutput {
    run(call_typed(ReadFile { path: path.into(), offset, limit, pages: None }, &ToolContext::new(dir)))
}

fn glob(dir: &Path, pattern: &str, path: Option<&str>, limit: Option<u32>) -> ToolOutput {
    run(call_typed(Glob { pattern: pattern.into(), path: path.map(Into::into), limit }, &ToolContext::new(dir)))
}

fn ok(out: ToolOutput) -> String {
    assert!(!out.is_error, "unexpected error: {}", out.text_content());
    out.text_content()
}

fn err(out: ToolOutput) -> String {
    assert!(out.is_error, "expected an error, got: {}", out.text_content());
    out.text_content()
}

#[test]
fn numbers_lines_and_pages_with_offset_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=10).map(|i| format!("line {i}\r\n")).collect();
    fs::write(dir.path().join("a.txt"), text).unwrap();
    assert_eq!(ok(read(dir.path(), "a.txt", Some(9), None)), "     9\tline 9\n    10\tline 10");
    assert_eq!(
        ok(read(dir.path(), "a.txt", Some(2), Some(2))),
        "     2\tline 2\n     3\tline 3\n(showing lines 2-3; the file continues: call again with offset=4)"
    );
    assert!(
        err(read(dir.path(), "a.txt", Some(11), None))
            .contains("`offset` 11 is past the end of `a.txt`, which has 10 lines")
    );
    assert!(err(read(dir.path(), "a.txt", Some(0), None)).contains("1-based"));
}

#[test]
fn long_lines_are_cut_and_bad_utf8_is_shown_lossily() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("long.txt"), format!("{}\n", "é".repeat(2500))).unwrap();
    let out = ok(read(dir.path(), "long.txt", None, None));
    assert!(out.ends_with("… [line cut: 500 more characters]"), "{}", &out[out.len() - 60..]);
    // A line far longer than what is shown streams past: its length is still counted
    // (here 3 MB of two-byte characters, cut inside one), and the next line is read.
    fs::write(dir.path().join("huge.txt"), format!("{}\nnext\n", "é".repeat(3_000_000))).unwrap();
    let out = ok(read(dir.path(), "huge.txt", None, None));
    assert!(out.contains("… [line cut: 2998000 more characters]\n     2\tnext"), "{}", &out[out.len() - 80..]);
    fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
    assert_eq!(
        ok(read(dir.path(), "latin1.txt", None, None)),
        "     1\tcaf\u{FFFD}\n(some bytes were not valid UTF-8 and are shown as \u{FFFD})"
    );
    fs::write(dir.path().join("empty.txt"), b"").unwrap();
    assert_eq!(ok(read(dir.path(), "empty.txt", None, None)), "(`empty.txt` is empty)");
}

#[test]
fn refuses_binaries_directories_and_missing_files_clearly() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("blob.bin"), [0u8, 1, 2, 3]).unwrap();
    assert!(err(read(dir.path(), "blob.bin", None, None)).contains("`blob.bin` is a binary file (4 bytes)"));
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    assert!(err(read(dir.path(), "src", None, None)).contains("`src` is a directory"));
    assert_eq!(
        err(read(dir.path(), "src/mian.rs", None, None)),
        "`src/mian.rs` does not exist; did you mean `src/main.rs`?"
    );
}

#[test]
fn stays_inside_the_workspace() {
    let outer = tempfile::tempdir().unwrap();
    let ws = outer.path().join("ws");
    fs::create_dir(&ws).unwrap();
    fs::write(outer.path().join("secret.txt"), "secret").unwrap();
    assert!(err(read(&ws, "../secret.txt", None, None)).contains("is outside the workspace"));
    assert!(
        err(read(&ws, outer.path().join("secret.txt").to_str().unwrap(), None, None))
            .contains("is outside the workspace")
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), ws.join("link.txt")).unwrap();
        assert!(err(read(&ws, "link.txt", None, None)).contains("is a link to"));
    }
    fs::write(ws.join("inside.txt"), "ok\n").unwrap();
    let absolute = ws.join("inside.txt");
    assert_eq!(ok(read(&ws, absolute.to_str().unwrap(), None, None)), "     1\tok");
}

#[test]
fn reads_a_range_without_reading_the_rest() {
    // A 64 MiB file whose tail is not valid text: reading the first lines must not
    // reach it (and so must not report the lossy-UTF-8 note).
    let dir = tempfile::tempdir().unwrap();
    let mut data: Vec<u8> = (1..=3000).flat_map(|i| format!("row {i}\n").into_bytes()).collect();
    data.resize(64 << 20, 0xff);
    fs::write(dir.path().join("big.log"), &data).unwrap();
    let out = ok(read(dir.path(), "big.log", Some(2000), Some(3)));
    assert_eq!(
        out,
        "  2000\trow 2000\n  2001\trow 2001\n  2002\trow 2002\n(showing lines 2000-2002; the file continues: call again with offset=2003)"
    );
}

fn touch(path: &Path, age_secs: u64) {
    fs::write(path, "x").unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age_secs)).unwrap();
}

#[test]
fn glob_sorts_newest_first_and_respects_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir_all(d.join("src/deep")).unwrap();
    fs::create_dir_all(d.join("target")).unwrap();
    touch(&d.join("src/old.rs"), 300);
    touch(&d.join("src/deep/new.rs"), 10);
    touch(&d.join("src/mid.rs"), 100);
    touch(&d.join("target/gen.rs"), 1);
    touch(&d.join("notes.md"), 1);
    fs::write(d.join(".gitignore"), "target/\n").unwrap();
    assert_eq!(ok(glob(d, "**/*.rs", None, None)), "src/deep/new.rs\nsrc/mid.rs\nsrc/old.rs");
    assert_eq!(ok(glob(d, "*.rs", Some("src"), None)), "src/mid.rs\nsrc/old.rs", "`*` stays in one directory");
    assert_eq!(
        ok(glob(d, "**/*.rs", None, Some(2))),
        "src/deep/new.rs\nsrc/mid.rs\n(showing 2 of 3 matches, newest first; narrow the pattern or raise `limit`)"
    );
    assert_eq!(ok(glob(d, "**/*.py", None, None)), "No files match `**/*.py` in `.`.");
}

#[test]
fn glob_keeps_only_the_newest_it_shows_and_breaks_ties_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let same = SystemTime::now() - Duration::from_secs(50);
    for i in (0..200).rev() {
        let path = d.join(format!("f{i:03}.txt"));
        fs::write(&path, "x").unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(same).unwrap();
    }
    touch(&d.join("z-newest.txt"), 1);
    let out = ok(glob(d, "*.txt", None, Some(3)));
    assert_eq!(
        out,
        "z-newest.txt\nf000.txt\nf001.txt\n(showing 3 of 201 matches, newest first; narrow the pattern or raise `limit`)"
    );
}

#[test]
fn glob_reports_bad_patterns_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let e = err(glob(dir.path(), "src/[a-", None, None));
    assert!(e.starts_with("invalid glob `src/[a-`: unclosed character class"), "{e}");
    assert!(err(glob(dir.path(), "*", Some("../.."), None)).contains("is outside the workspace"));
    assert!(err(glob(dir.path(), "  ", None, None)).contains("`pattern` is empty"));
}
