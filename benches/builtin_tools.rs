//! Built-in tools against the real tools, on the same corpus: the crate sources in
//! the cargo registry cache that this build downloaded (real code no one here wrote).
//! - grep (`files_with_matches`) against `rg -l --no-require-git` (target: at most 1.3x);
//! - glob `**/*.rs` against `find -name '*.rs'` (`fd` is not installed here; target
//!   at most 1.5x);
//! - read_file of 2,000 lines at line 1,000,000 of a generated 128 MB and a 1 GB file
//!   (target: the time does not depend on the file size).
//!
//! Run: `cargo bench --bench builtin_tools`. Results: BENCHMARKS.md. Needs `rg` on the
//! PATH (`cargo install ripgrep`); without it the grep comparison is skipped with a
//! message, and the run says so.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use toolwright::builtin::tools::{Glob, Grep, ReadFile};
use toolwright::{ToolContext, ToolOutput, call_typed};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// The registry's unpacked crate sources (one index directory).
fn corpus() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let src = home.join("registry/src");
    std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("no crate sources at {}: {e}", src.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .max_by_key(|p| std::fs::read_dir(p).map(|d| d.count()).unwrap_or(0))
        .expect("an index directory")
}

fn corpus_size(dir: &Path) -> (usize, u64) {
    let (mut files, mut bytes) = (0, 0);
    for entry in ignore::WalkBuilder::new(dir).build().filter_map(Result::ok) {
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            files += 1;
            bytes += meta.len();
        }
    }
    (files, bytes)
}

fn ok(out: ToolOutput) -> String {
    assert!(!out.is_error, "{}", out.text_content());
    out.text_content()
}

/// `rounds` rounds of one run of `a` and one of `b`, which goes first alternating
/// round by round, so machine noise hits both alike: the medians of each, and the
/// median and quartiles of the per-round ratios `a / b`.
struct Alternated {
    a: Duration,
    b: Duration,
    ratio: f64,
    quartiles: (f64, f64),
}

impl Alternated {
    fn run(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Alternated {
        let time = |f: &mut dyn FnMut()| {
            let start = Instant::now();
            f();
            start.elapsed()
        };
        let (mut ta, mut tb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
        for round in 0..rounds {
            if round % 2 == 0 {
                ta.push(time(&mut a));
                tb.push(time(&mut b));
            } else {
                tb.push(time(&mut b));
                ta.push(time(&mut a));
            }
        }
        let mut ratios: Vec<f64> = ta.iter().zip(&tb).map(|(x, y)| x.as_secs_f64() / y.as_secs_f64()).collect();
        ratios.sort_by(f64::total_cmp);
        ta.sort();
        tb.sort();
        Alternated {
            a: ta[rounds / 2],
            b: tb[rounds / 2],
            ratio: ratios[rounds / 2],
            quartiles: (ratios[rounds / 4], ratios[3 * rounds / 4]),
        }
    }

    /// `a {..} ms, b {..} ms, ratio {..} (quartiles ..)`, with the sides' names.
    fn line(&self, a: &str, b: &str) -> String {
        format!(
            "{a} {:.1} ms, {b} {:.1} ms, ratio {:.2} (per-round quartiles {:.2}-{:.2})",
            self.a.as_secs_f64() * 1e3,
            self.b.as_secs_f64() * 1e3,
            self.ratio,
            self.quartiles.0,
            self.quartiles.1
        )
    }
}

const PATTERN: &str = r"unsafe\s+fn\s+\w+";

fn grep_vs_rg(c: &mut Criterion) {
    let rt = runtime();
    let dir = corpus();
    let (files, bytes) = corpus_size(&dir);
    println!("corpus: {} ({files} files, {:.0} MB, ignore rules applied)", dir.display(), bytes as f64 / 1e6);
    let ours = || {
        let grep: Grep = serde_json::from_value(serde_json::json!({"pattern": PATTERN, "head_limit": 100000})).unwrap();
        ok(rt.block_on(call_typed(grep, &ToolContext::new(&dir))))
    };
    let rg_available = Command::new("rg").arg("--version").output().is_ok_and(|o| o.status.success());
    let rg = || {
        let out = Command::new("rg").args(["-l", "--no-require-git", PATTERN]).arg(&dir).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let found = ours().lines().count();
    let mut group = c.benchmark_group("grep_registry_sources");
    group.sample_size(10);
    group.bench_function("toolwright_grep", |b| b.iter(ours));
    if rg_available {
        assert_eq!(rg().lines().count(), found, "both find the same files");
        group.bench_function("baseline_rg", |b| b.iter(rg));
    }
    group.finish();
    if rg_available {
        let alternated = Alternated::run(15, || drop(ours()), || drop(rg()));
        println!("grep/interleaved: {} ({found} files match)", alternated.line("toolwright", "rg"));
    } else {
        println!("grep: `rg` is not on the PATH; install it (`cargo install ripgrep`) for the comparison");
    }
}

fn glob_vs_find(c: &mut Criterion) {
    let rt = runtime();
    let dir = corpus();
    let ours = || {
        let glob = Glob { pattern: "**/*.rs".into(), path: None, limit: Some(100) };
        ok(rt.block_on(call_typed(glob, &ToolContext::new(&dir))))
    };
    let find = || {
        let out = Command::new("find").arg(&dir).args(["-name", "*.rs", "-type", "f"]).output().unwrap();
        out.stdout.iter().filter(|&&b| b == b'\n').count()
    };
    let mut group = c.benchmark_group("glob_registry_sources");
    group.sample_size(10);
    group.bench_function("toolwright_glob", |b| b.iter(ours));
    group.bench_function("baseline_find", |b| b.iter(find));
    group.finish();
    let alternated = Alternated::run(
        15,
        || drop(ours()),
        || {
            find();
        },
    );
    println!("glob/interleaved: {} (find matches {} files)", alternated.line("toolwright", "find"), find());
}

/// A file of `lines` numbered lines of 64 bytes (plus any bytes to reach `size`).
fn generate(path: &Path, size: u64) {
    if std::fs::metadata(path).is_ok_and(|m| m.len() == size) {
        return;
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    let mut n = 0u64;
    while written < size {
        n += 1;
        let line = format!("{n:>12} the quick brown fox jumps over the lazy dog, again.\n");
        let take = (size - written).min(line.len() as u64) as usize;
        out.write_all(&line.as_bytes()[..take]).unwrap();
        written += take as u64;
    }
    out.flush().unwrap();
}

fn read_deep(c: &mut Criterion) {
    let rt = runtime();
    let dir = std::env::temp_dir().join("toolwright-bench-read");
    std::fs::create_dir_all(&dir).unwrap();
    let sizes = [("128mb.txt", 128u64 << 20), ("1gb.txt", 1u64 << 30)];
    for (name, size) in sizes {
        generate(&dir.join(name), size);
    }
    let read = |name: &str| {
        let read = ReadFile { path: name.into(), offset: Some(1_000_000), limit: Some(2000), pages: None };
        let text = ok(rt.block_on(call_typed(read, &ToolContext::new(&dir))));
        assert!(text.starts_with("1000000\t") || text.trim_start().starts_with("1000000\t"), "{}", &text[..40]);
    };
    let mut group = c.benchmark_group("read_2000_lines_at_line_1000000");
    group.sample_size(10);
    for (name, _) in sizes {
        group.bench_function(name, |b| b.iter(|| read(name)));
    }
    group.finish();
    let alternated = Alternated::run(15, || read(sizes[1].0), || read(sizes[0].0));
    println!("read/interleaved: {}", alternated.line("1 GB file", "128 MB file"));
}

criterion_group!(benches, grep_vs_rg, glob_vs_find, read_deep);
criterion_main!(benches);
