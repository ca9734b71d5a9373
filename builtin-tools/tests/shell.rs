//! The shell tool with real processes: exit codes, a persistent working directory,
//! timeouts and cancellation that kill the whole process group, merged and cut
//! output, and background commands.
#![allow(missing_docs)]

mod common;
#[path = "../../tests/common/procs.rs"]
mod procs;

use common::Session;
use procs::{marked, marked_gone_soon, marker};
use serde_json::json;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};
use toolwright_core::{ErrorKind, ToolCall};

/// A command that starts two grandchildren (a subshell's sleeps of `marker` seconds)
/// and waits.
fn spawn_grandchildren(marker: &str) -> String {
    format!("(sleep {marker} & sleep {marker} & wait) & echo started; wait")
}

fn wait_for_marked(marker: &str, n: usize) -> Vec<u32> {
    procs::wait_for_marked(marker, n, Duration::from_secs(10))
}

/// A session of each kind: commands sandboxed (the default), and unconfined.
fn sessions(dir: &Path) -> [Session; 2] {
    [Session::new(dir), Session::unconfined(dir)]
}

#[test]
fn output_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    assert_eq!(s.ok("shell", json!({"command": "echo out; echo err >&2"})), "out\nerr");
    let e = s.err("shell", json!({"command": "echo failing; exit 3"}));
    assert!(e.ends_with("failing\n\nExit code: 3"), "{e}");
    assert_eq!(s.ok("shell", json!({"command": "true"})), "(no output)");
}

#[test]
fn the_working_directory_persists_inside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("sub/inner")).unwrap();
    let mut s = Session::new(dir.path());
    s.ok("shell", json!({"command": "cd sub/inner"}));
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(s.ok("shell", json!({"command": "pwd -P"})), root.join("sub/inner").display().to_string());
    // Other tools resolve relative paths from there too.
    fs::write(dir.path().join("sub/inner/f.txt"), "here\n").unwrap();
    assert!(s.ok("read_file", json!({"path": "f.txt"})).contains("here"));
    let out = s.ok("shell", json!({"command": "cd /"}));
    assert!(out.contains("stays") && out.contains("outside the workspace"), "{out}");
    assert_eq!(s.ok("shell", json!({"command": "pwd -P"})), root.join("sub/inner").display().to_string());
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    for mut s in sessions(dir.path()) {
        let m = marker(60);
        let start = Instant::now();
        let e = s.err("shell", json!({"command": spawn_grandchildren(&m), "timeout": 700}));
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(e.contains("started") && e.contains("Timed out after"), "{e}");
        assert!(marked_gone_soon(&m), "grandchildren survived: {:?}", marked(&m));
    }
}

#[test]
fn cancelling_the_turn_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    for mut s in sessions(dir.path()) {
        let m = marker(60);
        let token = s.turn.cancellation().clone();
        let watcher = {
            let m = m.clone();
            std::thread::spawn(move || {
                let seen = wait_for_marked(&m, 2);
                token.cancel();
                seen
            })
        };
        let result = s.call("shell", json!({"command": spawn_grandchildren(&m)}));
        let seen = watcher.join().unwrap();
        assert_eq!(result.error, Some(ErrorKind::Cancelled), "{}", result.output.text_content());
        assert_eq!(seen.len(), 2, "the grandchildren ran");
        assert!(marked_gone_soon(&m), "grandchildren survived: {:?}", marked(&m));
    }
}

#[test]
fn processes_that_leave_the_group_are_stopped_and_never_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    for mut s in sessions(dir.path()) {
        let m = marker(60);
        let _ = fs::remove_file(dir.path().join("a"));
        let _ = fs::remove_file(dir.path().join("b"));
        // One escapes into a session of its own holding the output pipe; one
        // double-forks away with its output elsewhere; the command itself ends at once.
        let command = format!(
            "setsid sh -c 'touch a; exec sleep {m}' & (setsid sh -c 'touch b; exec sleep {m}' > /dev/null 2>&1 &); \
             sleep 0.2; echo done"
        );
        let start = Instant::now();
        let out = s.ok("shell", json!({"command": command}));
        assert!(start.elapsed() < Duration::from_secs(5), "the call waited for the escaped pipe holder");
        assert_eq!(out, "done");
        assert!(dir.path().join("a").exists() && dir.path().join("b").exists(), "both escaped");
        assert!(marked_gone_soon(&m), "escaped processes survived: {:?}", marked(&m));
    }
}

#[test]
fn long_output_keeps_head_and_tail_and_bad_utf8_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let out = s.ok("shell", json!({"command": "seq 1 200000"}));
    assert!(out.starts_with("1\n2\n3\n"), "{}", &out[..50]);
    assert!(out.ends_with("199999\n200000"));
    assert!(out.contains("cut from the middle"));
    assert!(out.len() < 31_000, "{}", out.len());
    let out = s.ok("shell", json!({"command": "printf 'ok \\377\\376 end'"}));
    assert!(out.starts_with("ok \u{FFFD}\u{FFFD} end") && out.contains("not valid UTF-8"), "{out}");
}

#[test]
fn timeouts_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let e = s.err("shell", json!({"command": "true", "timeout": 600_001}));
    assert!(e.contains("timeout: expected an integer from 1 to 600000, or null, got 600001"), "{e}");
}

#[test]
fn background_commands_report_new_output_and_can_be_killed() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let started = s
        .ok("shell", json!({"command": "for i in 1 2 3; do echo tick $i; sleep 0.1; done", "run_in_background": true}));
    assert!(started.starts_with("Started in the background as `shell_1`"), "{started}");
    // Read until it has exited (under load the three ticks take longer than 0.3 s);
    // what came before stays in the output read so far.
    let mut first = String::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !first.contains("exited") && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        first.push_str(&s.ok("shell_output", json!({"id": "shell_1"})));
        first.push('\n');
    }
    assert!(first.contains("exited with code 0"), "{first}");
    let ticks: Vec<&str> = first.lines().filter_map(|l| l.strip_prefix("tick ")).collect();
    assert_eq!(ticks, ["1", "2", "3"], "each line once, in order: {first}");
    let again = s.ok("shell_output", json!({"id": "shell_1"}));
    assert!(again.ends_with("(no new output)"), "{again}");

    let m = marker(60);
    s.ok("shell", json!({"command": spawn_grandchildren(&m), "run_in_background": true}));
    assert_eq!(wait_for_marked(&m, 2).len(), 2, "the grandchildren ran");
    let running = s.ok("shell_output", json!({"id": "shell_2"}));
    assert!(running.contains("running for") && running.contains("started"), "{running}");
    let killed = s.ok("shell_output", json!({"id": "shell_2", "kill": true}));
    assert!(killed.contains("killed"), "{killed}");
    assert!(marked_gone_soon(&m), "grandchildren survived: {:?}", marked(&m));
    let e = s.err("shell_output", json!({"id": "shell_9"}));
    assert!(e.contains("no background command `shell_9`; the running ones are: shell_1, shell_2"), "{e}");
}

#[test]
fn read_only_commands_are_concurrency_safe_and_others_are_not() {
    let registry = toolwright_builtin::registry().unwrap();
    let shell = registry.get("shell").unwrap();
    let flags = |command: &str| shell.prepare(json!({ "command": command }).to_string().as_bytes()).unwrap().flags();
    for ro in ["ls -la", "git status && git diff", "rg TODO | head -5"] {
        assert!(flags(ro).concurrency_safe && flags(ro).read_only, "{ro}");
    }
    for rw in ["rm x", "ls > out", "echo $(touch x)", "git push", "cd sub"] {
        assert!(!flags(rw).concurrency_safe && !flags(rw).read_only, "{rw}");
    }
}

#[test]
fn shell_calls_that_write_never_run_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let calls: Vec<ToolCall> = (0..3)
        .map(|i| ToolCall::new(format!("c{i}"), "shell", json!({"command": "sleep 0.2; touch f"}).to_string()))
        .collect();
    let start = Instant::now();
    let Session { orchestrator, turn, rt, .. } = &mut s;
    let results = rt.block_on(orchestrator.run(&calls, turn));
    assert!(results.iter().all(|r| r.error.is_none()));
    assert!(start.elapsed() >= Duration::from_millis(600), "serial: {:?}", start.elapsed());
}
