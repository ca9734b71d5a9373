//! What the shell's OS sandbox costs a trivial command: `true` through the shell
//! tool, unconfined and confined (bubblewrap's namespaces, the Landlock ruleset and
//! seccomp filter, the spawning thread, the command's temporary directory), against
//! bubblewrap run by hand with the same profile (`bwrap <namespaces and mounts> bash
//! -c true`) and plain `bash -c true`, all four in alternating blocks in one loop so
//! they see the same machine. Target: at most 5 ms added at the median, and what
//! toolwright adds over bubblewrap's own cost small.
//!
//! Run: `cargo bench --bench sandbox`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::builtin::tools::Shell;
use toolwright::sandbox::Sandbox;
use toolwright::{ToolContext, call_typed};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `bash -c true`, by hand: under bubblewrap with the profile the sandbox gives a
/// workspace `ws` and a temporary directory `tmp`, or plain.
fn by_hand(bwrap: bool, ws: &Path, tmp: &Path) -> Duration {
    let started = Instant::now();
    let mut command = if bwrap {
        let mut command = std::process::Command::new("bwrap");
        command.args([
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--new-session",
            "--disable-userns",
            "--ro-bind",
            "/",
            "/",
        ]);
        command.arg("--bind-try").arg(ws).arg(ws).arg("--bind-try").arg(tmp).arg(tmp);
        command.args(["--dev", "/dev", "--proc", "/proc", "--", "bash", "-c", "true"]);
        command
    } else {
        let mut command = std::process::Command::new("bash");
        command.args(["-c", "true"]);
        command
    };
    let status = command.current_dir(ws).status().unwrap();
    assert!(status.success());
    started.elapsed()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let run = |sandbox: Sandbox| {
        let cx = ToolContext::new(dir.path()).with_sandbox(Arc::new(sandbox));
        let started = Instant::now();
        let out = rt.block_on(call_typed(Shell::new("true"), &cx));
        assert!(!out.is_error, "{}", out.text_content());
        started.elapsed()
    };
    // Warm up every path (the Landlock and bubblewrap probes run once).
    for _ in 0..5 {
        run(Sandbox::off());
        run(Sandbox::default());
        by_hand(true, dir.path(), tmp.path());
        by_hand(false, dir.path(), tmp.path());
    }
    let rounds = 3;
    let per_block = 40;
    for round in 1..=rounds {
        let (mut plain, mut confined, mut bwrap, mut bash) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for block in 0..10 {
            for _ in 0..per_block / 10 {
                if block % 2 == 0 {
                    plain.push(run(Sandbox::off()));
                    confined.push(run(Sandbox::default()));
                    bwrap.push(by_hand(true, dir.path(), tmp.path()));
                    bash.push(by_hand(false, dir.path(), tmp.path()));
                } else {
                    bash.push(by_hand(false, dir.path(), tmp.path()));
                    bwrap.push(by_hand(true, dir.path(), tmp.path()));
                    confined.push(run(Sandbox::default()));
                    plain.push(run(Sandbox::off()));
                }
            }
        }
        let (p, c, w, b) = (median(plain), median(confined), median(bwrap), median(bash));
        println!(
            "round {round}: `true` through the shell tool unconfined {:.2} ms, confined {:.2} ms (added {:.2} ms); \
             by hand: bash {:.2} ms, bwrap with the same profile {:.2} ms (added {:.2} ms); toolwright's sandbox \
             adds {:.2} ms over bubblewrap's (median of {per_block})",
            ms(p),
            ms(c),
            ms(c) - ms(p),
            ms(b),
            ms(w),
            ms(w) - ms(b),
            (ms(c) - ms(p)) - (ms(w) - ms(b)),
        );
    }
}
