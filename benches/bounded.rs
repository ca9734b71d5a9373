//! Bounded by what is returned (issue 16): peak memory of the calls whose input is
//! huge but whose result is small, and the time of a diff that used to be quadratic.
//! - read_file of the line after a 2 GB line: peak RSS growth, against the
//!   same call on a 1 KB file in the same process (target: under 50 MB);
//! - grep `content` over 100 MB where every line matches, `head_limit` 20, and the
//!   largest page a model may ask for (`head_limit` 4,294,967,295): peak RSS growth
//!   against a 1 MB file (target: under 50 MB);
//! - write_file rewriting every line of a 4 MB file, diff included: time (target:
//!   under 1 s), against writing a new 4 MB file (no diff) in the same process.
//!
//! Peak RSS is VmHWM of this process after resetting it (`/proc/self/clear_refs`),
//! shown with the RSS before the call. Run: `cargo bench --bench bounded`. The files
//! (2.1 GB) are made once under `target/tmp` and kept for the next run.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::{Executor, ToolCall, TurnContext};

struct AllowAll;
impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bounded-bench");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `size` bytes of `unit` repeated, then `tail`, written once.
fn generate(path: &Path, size: u64, unit: &[u8], tail: &[u8]) {
    if std::fs::metadata(path).is_ok_and(|m| m.len() == size + tail.len() as u64) {
        return;
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let chunk: Vec<u8> = unit.iter().copied().cycle().take((1 << 20) / unit.len() * unit.len()).collect();
    let mut written = 0u64;
    while written < size {
        let take = (size - written).min(chunk.len() as u64) as usize;
        out.write_all(&chunk[..take]).unwrap();
        written += take as u64;
    }
    out.write_all(tail).unwrap();
    out.flush().unwrap();
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The process's peak RSS while `f` ran, and its RSS before, in MB.
struct Peak {
    peak: f64,
    before: f64,
}

fn peak_of(f: impl FnOnce()) -> Peak {
    std::fs::write("/proc/self/clear_refs", "5").expect("resetting the peak RSS (/proc/self/clear_refs)");
    let before = status_kb("VmRSS:");
    f();
    Peak { peak: status_kb("VmHWM:") as f64 / 1024.0, before: before as f64 / 1024.0 }
}

impl std::fmt::Display for Peak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "peak RSS {:.1} MB (+{:.1} over the {:.1} MB before)",
            self.peak,
            self.peak - self.before,
            self.before
        )
    }
}

struct Bench {
    rt: tokio::runtime::Runtime,
    executor: Executor,
    turn: TurnContext,
}

impl Bench {
    fn new(dir: &Path) -> Bench {
        let registry = Arc::new(toolwright::registry().unwrap());
        let executor = Executor::builder(registry).policy(AllowAll).build();
        let turn = TurnContext::new(dir).with_extensions(toolwright::builtin::session());
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        Bench { rt, executor, turn }
    }

    fn ok(&self, tool: &str, input: serde_json::Value) -> String {
        let result = self.rt.block_on(self.executor.execute(&ToolCall::new("b", tool, input.to_string()), &self.turn));
        let text = result.output.text_content();
        assert!(!result.output.is_error, "{tool}: {text}");
        text
    }
}

fn memory(_c: &mut Criterion) {
    let dir = dir();
    // One long line, then the line that is read: the whole line is passed over.
    generate(&dir.join("line-2gb.txt"), 2 << 30, b"abcdefghij", b"\nthe end\n");
    generate(&dir.join("line-1kb.txt"), 1 << 10, b"abcdefghij", b"\nthe end\n");
    generate(&dir.join("matches-100mb.txt"), 100 << 20, b"every line matches here\n", b"");
    generate(&dir.join("matches-1mb.txt"), 1 << 20, b"every line matches here\n", b"");
    let bench = Bench::new(&dir);
    let read = |name: &str| {
        let text = bench.ok("read_file", json!({"path": name, "offset": 2, "limit": 1}));
        assert!(text.contains("the end"), "{text}");
    };
    let grep = |name: &str| {
        bench.ok("grep", json!({"pattern": "matches", "path": name, "output_mode": "content", "head_limit": 20}))
    };
    // Warm up what is allocated once (the registry's caches, the regex).
    read("line-1kb.txt");
    grep("matches-1mb.txt");
    // The whole process's peak, this bench's own memory included: what a user's
    // agent would see. The small case is the baseline in the same process.
    for round in 1..=3 {
        let base = peak_of(|| read("line-1kb.txt"));
        let big = peak_of(|| read("line-2gb.txt"));
        println!("bounded/read_file end of a 2 GB line, round {round}: {big}; 1 KB line: {base}");
        let base = peak_of(|| drop(grep("matches-1mb.txt")));
        let big = peak_of(|| drop(grep("matches-100mb.txt")));
        println!("bounded/grep 100 MB all matching, round {round}: {big}; 1 MB: {base}");
        let largest = |name: &str| {
            let page = json!({"pattern": "matches", "path": name, "output_mode": "content", "head_limit": u32::MAX});
            drop(bench.ok("grep", page))
        };
        let base = peak_of(|| largest("matches-1mb.txt"));
        let big = peak_of(|| largest("matches-100mb.txt"));
        println!("bounded/grep 100 MB all matching, largest page, round {round}: {big}; 1 MB: {base}");
    }
}

fn rewrite(c: &mut Criterion) {
    let dir = dir();
    let bench = Bench::new(&dir);
    let version = |word: &str| -> String { (0..400_000).map(|i| format!("{word} {i:>5}\n")).collect() };
    let (a, b) = (version("old"), version("new"));
    println!("bounded/rewrite: {:.1} MB, every line changes", a.len() as f64 / 1e6);
    std::fs::write(dir.join("rewrite.txt"), &a).unwrap();
    bench.ok("read_file", json!({"path": "rewrite.txt", "limit": 1}));
    let mut flip = false;
    let mut group = c.benchmark_group("bounded_rewrite_4mb");
    group.sample_size(10);
    group.bench_function("toolwright_rewrite_with_diff", |bencher| {
        bencher.iter(|| {
            flip = !flip;
            bench.ok("write_file", json!({"path": "rewrite.txt", "content": if flip { &b } else { &a }}))
        })
    });
    let mut n = 0;
    group.bench_function("baseline_new_file", |bencher| {
        bencher.iter(|| {
            n += 1;
            let name = format!("new-{n}.txt");
            let out = bench.ok("write_file", json!({"path": name, "content": &a}));
            let _ = std::fs::remove_file(dir.join(name));
            out
        })
    });
    group.finish();
}

criterion_group!(benches, memory, rewrite);
criterion_main!(benches);
