//! write_file, edit_file, multi_edit, replace_in_file, grep, list_dir, todo_write and
//! the workspace guard, through the real pipeline on real files in temp dirs.
#![allow(missing_docs)]

mod common;

use common::Session;
use serde_json::json;
use std::fs;
use toolwright_builtin::tools::TodoList;
use toolwright_core::TurnContext;

#[test]
fn write_creates_files_and_directories_with_usual_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let out = s.ok("write_file", json!({"path": "src/deep/new.txt", "content": "one\ntwo\n"}));
    assert_eq!(out, "Created `src/deep/new.txt` (2 lines, 8 bytes).");
    assert_eq!(fs::read_to_string(dir.path().join("src/deep/new.txt")).unwrap(), "one\ntwo\n");
    let mode = fs::metadata(dir.path().join("src/deep/new.txt")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
    // No temporary file is left behind.
    let names: Vec<_> = fs::read_dir(dir.path().join("src/deep")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["new.txt"]);
    // A file it wrote itself may be overwritten without a read.
    assert!(s.ok("write_file", json!({"path": "src/deep/new.txt", "content": "three\n"})).contains("-one"));
}

#[test]
fn a_path_ending_in_a_slash_is_a_directory_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    for path in ["newdir/", "newdir/.", "src/sub/"] {
        let e = s.err("write_file", json!({"path": path, "content": "x"}));
        assert!(e.contains("names a directory (it ends with `/`)"), "{path}: {e}");
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was created");
}

#[test]
fn overwriting_needs_a_fresh_read_and_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.sh");
    fs::write(&file, "echo old\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = Session::new(dir.path());
    let e = s.err("write_file", json!({"path": "run.sh", "content": "echo new\n"}));
    assert!(e.contains("has not been read in this session; read it with read_file first"), "{e}");
    s.ok("read_file", json!({"path": "run.sh"}));
    // Someone else changes it after the read.
    fs::write(&file, "echo theirs\n").unwrap();
    let e = s.err("write_file", json!({"path": "run.sh", "content": "echo new\n"}));
    assert!(e.contains("has changed since it was last read"), "{e}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "echo theirs\n", "nothing lost");
    s.ok("read_file", json!({"path": "run.sh"}));
    let out = s.ok("write_file", json!({"path": "run.sh", "content": "echo new\n"}));
    assert!(out.contains("-echo theirs") && out.contains("+echo new"), "{out}");
    assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o755);
}

#[test]
fn a_touched_but_unchanged_file_is_still_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    fs::write(&file, "same\n").unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "a.txt"}));
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(&file, "same\n").unwrap(); // new mtime, same content
    s.ok("edit_file", json!({"path": "a.txt", "old_string": "same", "new_string": "changed"}));
    assert_eq!(fs::read_to_string(&file).unwrap(), "changed\n");
}

#[test]
fn edit_replaces_a_unique_string_and_keeps_crlf_and_bom() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("win.txt");
    fs::write(&file, "\u{feff}alpha\r\nbeta\r\ngamma\r\n").unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "win.txt"}));
    let out = s.ok("edit_file", json!({"path": "win.txt", "old_string": "beta\ngamma", "new_string": "BETA\ngamma"}));
    assert!(out.starts_with("Edited `win.txt`: 1 replacement.") && out.contains("-beta\n+BETA"), "{out}");
    assert_eq!(fs::read(&file).unwrap(), "\u{feff}alpha\r\nBETA\r\ngamma\r\n".as_bytes());
}

#[test]
fn edit_errors_show_candidates_or_line_numbers_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.rs");
    let text = "fn main() {\n    let x = 1;\n    let y = 2;\n    let x = 1;\n}\n";
    fs::write(&file, text).unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "m.rs"}));
    let e = s.err("edit_file", json!({"path": "m.rs", "old_string": "let x = 1;", "new_string": "let x = 3;"}));
    assert!(e.contains("occurs 2 times") && e.contains("lines 2, 4"), "{e}");
    let e = s.err("edit_file", json!({"path": "m.rs", "old_string": "let z = 2;", "new_string": "let z = 3;"}));
    assert!(e.contains("the closest lines are:") && e.contains("     3\t    let y = 2;"), "{e}");
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    let out = s.ok(
        "edit_file",
        json!({"path": "m.rs", "old_string": "let x = 1;", "new_string": "let x = 3;", "replace_all": true}),
    );
    assert!(out.contains("2 replacements"), "{out}");
    let e = s.err("edit_file", json!({"path": "src", "old_string": "a", "new_string": "b"}));
    assert!(e.contains("does not exist"), "{e}");
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.txt");
    fs::write(&file, "a\nb\nc\n").unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "c.txt"}));
    let e = s.err(
        "multi_edit",
        json!({"path": "c.txt", "edits": [
            {"old_string": "a", "new_string": "A"},
            {"old_string": "zzz", "new_string": "Z"}
        ]}),
    );
    assert!(e.contains("edit 2 of 2: `old_string` was not found"), "{e}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "a\nb\nc\n");
    // Each edit sees the result of the one before.
    s.ok(
        "multi_edit",
        json!({"path": "c.txt", "edits": [
            {"old_string": "a\n", "new_string": "x\n"},
            {"old_string": "x\nb", "new_string": "x\ny"}
        ]}),
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "x\ny\nc\n");
}

#[test]
fn replace_in_file_takes_clines_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.py");
    fs::write(&file, "def f():\n    return 1\n\ndef g():\n    return 2\n").unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "app.py"}));
    let diff = "------- SEARCH\ndef f():\n    return 1\n=======\ndef f():\n    return 10\n+++++++ REPLACE\n\n------- SEARCH\n    return 2\n=======\n    return 20\n+++++++ REPLACE\n";
    s.ok("replace_in_file", json!({"path": "app.py", "diff": diff}));
    assert_eq!(fs::read_to_string(&file).unwrap(), "def f():\n    return 10\n\ndef g():\n    return 20\n");
    let e = s.err("replace_in_file", json!({"path": "app.py", "diff": "just text"}));
    assert!(e.contains("`diff`: line 1: expected `------- SEARCH`"), "{e}");
}

#[test]
fn grep_modes_context_filters_and_paging() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/a.rs"), "fn main() {}\n// TODO one\nlet x = 1;\n").unwrap();
    fs::write(dir.path().join("src/b.py"), "# todo two\nprint(1)\n").unwrap();
    fs::write(dir.path().join("notes.md"), "TODO three\nTODO four\n").unwrap();
    fs::write(dir.path().join(".gitignore"), "ignored.txt\n").unwrap();
    fs::write(dir.path().join("ignored.txt"), "TODO hidden\n").unwrap();
    let mut s = Session::new(dir.path());
    assert_eq!(s.ok("grep", json!({"pattern": "TODO"})), "notes.md\nsrc/a.rs");
    assert_eq!(s.ok("grep", json!({"pattern": "todo", "-i": true})), "notes.md\nsrc/a.rs\nsrc/b.py");
    assert_eq!(s.ok("grep", json!({"pattern": "TODO", "output_mode": "count"})), "notes.md:2\nsrc/a.rs:1");
    assert_eq!(
        s.ok("grep", json!({"pattern": "TODO", "output_mode": "content", "-C": 1, "glob": "*.rs"})),
        "src/a.rs-1-fn main() {}\nsrc/a.rs:2:// TODO one\nsrc/a.rs-3-let x = 1;"
    );
    assert_eq!(s.ok("grep", json!({"pattern": "todo", "-i": true, "type": "py"})), "src/b.py");
    let paged = s.ok("grep", json!({"pattern": "TODO", "output_mode": "content", "head_limit": 1, "offset": 1}));
    assert_eq!(
        paged,
        "notes.md:2:TODO four\n(showing lines 2-2 of 3 in 2 files; use `offset` and `head_limit` for more)"
    );
    assert_eq!(
        s.ok("grep", json!({"pattern": "main\\(\\) \\{\\}\\n// TODO", "multiline": true, "output_mode": "content"})),
        "src/a.rs:1:fn main() {}\nsrc/a.rs:2:// TODO one"
    );
    assert_eq!(s.ok("grep", json!({"pattern": "nothing here"})), "No matches for `nothing here` in `.`.");
}

#[test]
fn grep_shows_where_a_regex_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let e = s.err("grep", json!({"pattern": "fn (main"}));
    assert!(e.contains("invalid regex") && e.contains("unclosed group") && e.contains('^'), "{e}");
    let e = s.err("grep", json!({"pattern": "x", "glob": "a{b"}));
    assert!(e.contains("invalid glob `a{b`"), "{e}");
}

#[test]
fn list_dir_draws_a_tree_to_a_depth() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src/bin")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    fs::write(dir.path().join("src/bin/main.rs"), "").unwrap();
    fs::write(dir.path().join("Cargo.toml"), "").unwrap();
    fs::write(dir.path().join(".toolwrightignore"), "secret/\n").unwrap();
    fs::create_dir_all(dir.path().join("secret")).unwrap();
    fs::write(dir.path().join("secret/key"), "k").unwrap();
    let mut s = Session::new(dir.path());
    assert_eq!(s.ok("list_dir", json!({})), "./\n  Cargo.toml\n  src/\n    bin/\n    lib.rs");
    assert_eq!(s.ok("list_dir", json!({"path": "src", "depth": 5})), "src/\n  bin/\n    main.rs\n  lib.rs");
    assert!(s.err("list_dir", json!({"path": "Cargo.toml"})).contains("is a file, not a directory"));
}

#[test]
fn the_ignore_file_blocks_paths_and_walks_skip_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".toolwrightignore"), "*.env\nsecret/\n").unwrap();
    fs::write(dir.path().join("prod.env"), "KEY=1").unwrap();
    fs::create_dir_all(dir.path().join("secret/deeper")).unwrap();
    fs::write(dir.path().join("secret/deeper/k.txt"), "KEY=2").unwrap();
    fs::write(dir.path().join("ok.txt"), "KEY=3").unwrap();
    let mut s = Session::new(dir.path());
    assert!(s.err("read_file", json!({"path": "prod.env"})).contains("`prod.env` is blocked by .toolwrightignore"));
    assert!(s.err("read_file", json!({"path": "secret/deeper/k.txt"})).contains("blocked by .toolwrightignore"));
    assert!(s.err("write_file", json!({"path": "secret/new.txt", "content": "x"})).contains("blocked"));
    assert!(!dir.path().join("secret/new.txt").exists());
    assert_eq!(s.ok("grep", json!({"pattern": "KEY"})), "ok.txt");
    assert_eq!(s.ok("glob", json!({"pattern": "**/*"})), "ok.txt");
}

#[test]
fn writes_cannot_leave_the_workspace() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
    let mut s = Session::new(dir.path());
    for path in ["../x.txt", "escape/x.txt", "/etc/x.txt", "a/../../x.txt"] {
        let e = s.err("write_file", json!({"path": path, "content": "x"}));
        assert!(e.contains("outside the workspace"), "{path}: {e}");
    }
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn additional_directories_are_allowed() {
    let extra = tempfile::tempdir().unwrap();
    fs::write(extra.path().join("shared.txt"), "shared\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let workspace = toolwright_builtin::Workspace::new(dir.path()).unwrap().with_additional_dir(extra.path()).unwrap();
    let mut extensions = toolwright_builtin::session();
    extensions.insert(workspace);
    s.turn = TurnContext::new(dir.path()).with_extensions(extensions);
    let path = extra.path().join("shared.txt");
    assert!(s.ok("read_file", json!({"path": path})).contains("shared"));
}

#[test]
fn todo_write_validates_and_keeps_the_list_in_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let e = s.err(
        "todo_write",
        json!({"todos": [
            {"id": "1", "content": "a", "status": "in_progress"},
            {"id": "2", "content": "b", "status": "in_progress"}
        ]}),
    );
    assert!(e.contains("2 tasks are in_progress (1, 2)"), "{e}");
    let e = s.err(
        "todo_write",
        json!({"todos": [{"id": "1", "content": "a", "status": "pending"}, {"id": "1", "content": "b", "status": "pending"}]}),
    );
    assert!(e.contains("the id `1` is used twice"), "{e}");
    let out = s.ok(
        "todo_write",
        json!({"todos": [
            {"id": "1", "content": "Read the code", "status": "completed"},
            {"id": "2", "content": "Fix the bug", "status": "in_progress"},
            {"id": "3", "content": "Run the tests", "status": "pending"}
        ]}),
    );
    assert_eq!(out, "Todo list (1/3 done):\n[x] Read the code (1)\n[~] Fix the bug (2)\n[ ] Run the tests (3)");
    let list = s.turn.extensions().get::<TodoList>().expect("kept in the context");
    assert_eq!(list.0.len(), 3);
    assert_eq!(list.0[1].content, "Fix the bug");
}

/// The directory the permission check runs in, when this binary was started again
/// as an unprivileged user.
const PERMISSION_DIR_ENV: &str = "TOOLWRIGHT_TEST_PERMISSION_DIR";

fn check_permission_errors(dir: &std::path::Path) {
    let mut s = Session::new(dir);
    let e = s.err("read_file", json!({"path": "locked.txt"}));
    assert!(e.contains("cannot") && e.contains("locked.txt") && e.contains("ermission denied"), "{e}");
    let e = s.err("write_file", json!({"path": "locked_dir/new.txt", "content": "x"}));
    assert!(e.contains("locked_dir") && e.contains("ermission denied"), "{e}");
}

#[test]
fn os_permission_errors_are_reported() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let locked = dir.path().join("locked.txt");
    fs::write(&locked, "secret").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::create_dir(dir.path().join("locked_dir")).unwrap();
    fs::set_permissions(dir.path().join("locked_dir"), fs::Permissions::from_mode(0o555)).unwrap();
    if fs::metadata("/proc/self").unwrap().uid() != 0 {
        return check_permission_errors(dir.path());
    }
    // Root reads anything: run the check again as `nobody`, where the OS says no.
    let status = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "permission_errors_as_an_unprivileged_user", "--nocapture"])
        .env(PERMISSION_DIR_ENV, dir.path())
        .status()
        .expect("setpriv (util-linux) runs the check as an unprivileged user");
    assert!(status.success());
}

/// Runs only when started by `os_permission_errors_are_reported`.
#[test]
fn permission_errors_as_an_unprivileged_user() {
    if let Some(dir) = std::env::var_os(PERMISSION_DIR_ENV) {
        check_permission_errors(std::path::Path::new(&dir));
    }
}

#[test]
fn files_too_large_to_edit_and_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = fs::File::create(dir.path().join("big.log")).unwrap();
    big.set_len(17 * 1024 * 1024).unwrap();
    fs::create_dir(dir.path().join("folder")).unwrap();
    let mut s = Session::new(dir.path());
    let e = s.err("edit_file", json!({"path": "big.log", "old_string": "a", "new_string": "b"}));
    assert!(e.contains("cannot be edited whole"), "{e}");
    let e = s.err("edit_file", json!({"path": "folder", "old_string": "a", "new_string": "b"}));
    assert!(e.contains("`folder` is a directory"), "{e}");
    let e = s.err("write_file", json!({"path": "folder", "content": "x"}));
    assert!(e.contains("`folder` is a directory"), "{e}");
}

#[test]
fn images_come_back_as_image_blocks() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d];
    fs::write(dir.path().join("pic.PNG"), png).unwrap();
    let mut s = Session::new(dir.path());
    let result = s.call("read_file", json!({"path": "pic.PNG"}));
    assert!(result.error.is_none());
    match &result.output.content[..] {
        [toolwright_core::Content::Image { media_type, data }] => {
            assert_eq!(media_type, "image/png");
            assert_eq!(base64::engine::general_purpose::STANDARD.decode(data).unwrap(), png);
        }
        other => panic!("expected one image block, got {other:?}"),
    }
}

#[test]
fn searches_skip_what_the_permission_rules_deny_reading() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("secrets")).unwrap();
    fs::write(root.join("secrets/key.txt"), "TOKEN=abc").unwrap();
    fs::write(root.join(".env"), "TOKEN=def").unwrap();
    fs::write(root.join("app.txt"), "TOKEN=placeholder").unwrap();
    // Nothing is wired by hand: the executor installs the policy's read filter.
    let policy = toolwright_permissions::RulePolicy::new().deny("Read(./secrets/**)").deny("Read(./.env)");
    let mut s = Session::with_policy(&root, policy);
    assert_eq!(
        s.ok("grep", json!({"pattern": "TOKEN", "output_mode": "content", "-n": false})),
        "app.txt:TOKEN=placeholder"
    );
    // Neither a `glob` or `type` filter nor a match list reaches a denied or ignored file.
    fs::write(root.join(".toolwrightignore"), "hidden.txt\n").unwrap();
    fs::write(root.join("hidden.txt"), "TOKEN=ignored").unwrap();
    fs::write(root.join("secrets/key.rs"), "const TOKEN: &str = \"abc\";").unwrap();
    for input in [
        json!({"pattern": "TOKEN", "glob": "*"}),
        json!({"pattern": "TOKEN", "glob": "**/*"}),
        json!({"pattern": "TOKEN", "glob": "secrets/*"}),
        json!({"pattern": "TOKEN", "glob": "*.txt"}),
        json!({"pattern": "TOKEN", "glob": "hidden.txt"}),
        json!({"pattern": "TOKEN", "type": "rust"}),
        json!({"pattern": "TOKEN", "output_mode": "files_with_matches"}),
        json!({"pattern": "TOKEN", "output_mode": "count"}),
        json!({"pattern": "abc", "output_mode": "count", "glob": "**"}),
    ] {
        let out = s.ok("grep", input.clone());
        assert!(!out.contains("secrets") && !out.contains("hidden") && !out.contains(".env"), "{input}: {out}");
    }
    assert_eq!(s.ok("grep", json!({"pattern": "TOKEN", "output_mode": "files_with_matches"})), "app.txt");
    assert!(s.ok("grep", json!({"pattern": "TOKEN", "type": "rust"})).starts_with("No matches"));
    assert_eq!(s.ok("glob", json!({"pattern": "**/*"})), "app.txt");
    assert_eq!(s.ok("list_dir", json!({})), "./\n  app.txt\n  secrets/");
    let e = s.err("read_file", json!({"path": "secrets/key.txt"}));
    assert!(e.contains("permission denied") && e.contains("`Read(./secrets/**)`"), "{e}");
}

#[test]
fn rewriting_a_large_file_gives_a_bounded_diff() {
    let dir = tempfile::tempdir().unwrap();
    let before: String = (0..400_000).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("big.txt"), &before).unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "big.txt", "limit": 1}));
    let after: String = (0..400_000).map(|i| format!("new {i}\n")).collect();
    let started = std::time::Instant::now();
    let out = s.ok("write_file", json!({"path": "big.txt", "content": after}));
    eprintln!("a 4.7 MB full rewrite took {:?} and reported {} bytes", started.elapsed(), out.len());
    assert!(out.len() < 100_000, "{} bytes", out.len());
    assert!(out.contains("lines removed and") || out.contains("cut from the middle"), "{}", &out[out.len() - 300..]);
    assert_eq!(fs::read_to_string(dir.path().join("big.txt")).unwrap(), after);
}

#[test]
fn an_edit_of_many_occurrences_is_quick_and_its_report_bounded() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("occ.txt"), "ab\n".repeat(20_000)).unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "occ.txt", "limit": 1}));
    let e = s.err("edit_file", json!({"path": "occ.txt", "old_string": "ab", "new_string": "cd"}));
    assert!(e.len() < 2_000, "{} bytes: {}", e.len(), &e[..300]);
    let started = std::time::Instant::now();
    let out =
        s.ok("edit_file", json!({"path": "occ.txt", "old_string": "ab", "new_string": "cd", "replace_all": true}));
    eprintln!("20,000 replacements took {:?}, reported {} bytes", started.elapsed(), out.len());
    assert!(out.len() < 100_000, "{} bytes", out.len());
    assert_eq!(fs::read_to_string(dir.path().join("occ.txt")).unwrap(), "cd\n".repeat(20_000));
}

#[test]
fn a_file_too_large_to_diff_is_replaced_after_a_streamed_check() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.log");
    fs::write(&big, "x\n".repeat(9 * 1024 * 1024)).unwrap();
    let mut s = Session::new(dir.path());
    s.ok("read_file", json!({"path": "big.log", "limit": 5}));
    let out = s.ok("write_file", json!({"path": "big.log", "content": "short\n"}));
    assert!(out.contains("no diff is shown for files over 16 MB"), "{out}");
    assert_eq!(fs::read_to_string(&big).unwrap(), "short\n");
    // Changed behind the session's back: refused, as for any file.
    fs::write(&big, "y\n".repeat(9 * 1024 * 1024)).unwrap();
    let e = s.err("write_file", json!({"path": "big.log", "content": "again\n"}));
    assert!(e.contains("has changed since it was last read"), "{e}");
}

#[test]
fn grep_keeps_a_page_of_a_file_where_every_line_matches() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.log"), "hit\n".repeat(100_000)).unwrap();
    fs::write(dir.path().join("b.log"), "hit once\n\nhit twice").unwrap();
    let mut s = Session::new(dir.path());
    let out = s.ok("grep", json!({"pattern": "hit", "output_mode": "content", "head_limit": 3}));
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.starts_with("a.log:1:hit\na.log:2:hit\na.log:3:hit\n"), "{out}");
    assert!(out.ends_with("(showing lines 1-3 of 100002 in 2 files; use `offset` and `head_limit` for more)"), "{out}");
    // The last page comes from the file that sorts last.
    let out = s.ok("grep", json!({"pattern": "hit", "output_mode": "content", "head_limit": 3, "offset": 99_999}));
    assert!(out.starts_with("a.log:100000:hit\nb.log:1:hit once\nb.log:3:hit twice\n"), "{out}");
}

#[test]
fn grep_pages_stop_at_8_mib_and_deep_pages_are_searched_again() {
    let dir = tempfile::tempdir().unwrap();
    // 24 MiB of lines that all match, 64 bytes each.
    let line = format!("{}\n", "m".repeat(63));
    fs::write(dir.path().join("big.log"), line.repeat(24 * 1024 * 1024 / 64)).unwrap();
    fs::write(dir.path().join("small.log"), "m tail\n").unwrap();
    let mut s = Session::new(dir.path());
    let total = 24 * 1024 * 1024 / 64 + 1;
    // The largest page a model may ask for is cut at 8 MiB, and says so.
    let out = s.ok("grep", json!({"pattern": "m", "output_mode": "content", "head_limit": u32::MAX}));
    assert!(out.len() <= 8 * 1024 * 1024 + 200, "{} bytes", out.len());
    let last = out.lines().last().unwrap();
    assert!(
        last.contains("the page stops at 8 MiB of text") && last.contains(&format!("of {total} in 2 files")),
        "{last}"
    );
    let shown = out.lines().count() - 1;
    // Past what the first pass kept: the page's lines are searched for again, in order.
    let out = s.ok("grep", json!({"pattern": "m", "output_mode": "content", "offset": total - 2, "head_limit": 5}));
    let expected_line = total - 1;
    assert!(out.starts_with(&format!("big.log:{expected_line}:mmm")), "{}", &out[..out.len().min(300)]);
    assert!(out.contains("small.log:1:m tail"), "{out}");
    // And from where the cut page stopped.
    let out = s.ok("grep", json!({"pattern": "m", "output_mode": "content", "offset": shown, "head_limit": 1}));
    assert!(out.starts_with(&format!("big.log:{}:", shown + 1)), "{}", &out[..out.len().min(300)]);
}
