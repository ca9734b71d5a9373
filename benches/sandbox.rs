//! What the shell's OS sandbox costs a trivial command: `true` through the shell
//! tool, unconfined and confined (Landlock ruleset, seccomp filter, the spawning
//! thread, the command's temporary directory), the two in alternating blocks in one
//! loop so both see the same machine. Target: at most 5 ms more at the median.
//!
//! Run: `cargo bench --bench sandbox`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::builtin::tools::Shell;
use toolwright::sandbox::Sandbox;
use toolwright::{ToolContext, call_typed};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let run = |sandbox: Sandbox| {
        let cx = ToolContext::new(dir.path()).with_sandbox(Arc::new(sandbox));
        let started = Instant::now();
        let out = rt.block_on(call_typed(Shell::new("true"), &cx));
        assert!(!out.is_error, "{}", out.text_content());
        started.elapsed()
    };
    // Warm up both paths (the Landlock probe runs once).
    for _ in 0..5 {
        run(Sandbox::off());
        run(Sandbox::default());
    }
    let rounds = 3;
    let per_block = 40;
    for round in 1..=rounds {
        let (mut plain, mut confined) = (Vec::new(), Vec::new());
        for block in 0..10 {
            for _ in 0..per_block / 10 {
                if block % 2 == 0 {
                    plain.push(run(Sandbox::off()));
                    confined.push(run(Sandbox::default()));
                } else {
                    confined.push(run(Sandbox::default()));
                    plain.push(run(Sandbox::off()));
                }
            }
        }
        let (p, c) = (median(plain), median(confined));
        println!(
            "round {round}: `true` unconfined {:.2} ms, confined {:.2} ms, added {:.2} ms (median of {per_block})",
            p.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3,
            (c.as_secs_f64() - p.as_secs_f64()) * 1e3
        );
    }
}
