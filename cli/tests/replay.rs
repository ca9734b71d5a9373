//! `toolwright replay`: each bundled session, run by the real binary against the
//! sample workspace, ends where it should.

use std::path::Path;
use std::process::{Command, Output};

fn replay(args: &[&str], workspace: &Path) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .arg("replay")
        .args(args)
        .arg("--workspace")
        .arg(workspace)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "replay {args:?} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    (out, stdout)
}

fn unittest(dir: &Path) -> Output {
    Command::new("python3").args(["-m", "unittest", "-q"]).current_dir(dir).output().unwrap()
}

#[test]
fn fix_failing_test_leaves_the_tests_passing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&["fix-failing-test"], &ws);
    // The sample starts broken, and the recorded session's edit fixes it.
    assert!(out.contains("FAILED (failures=1, errors=1)") || out.contains("ERROR: test_mean_of_one"), "{out}");
    assert!(out.contains("✓ edit calc.py"), "{out}");
    assert!(out.contains("summary: 5 calls in 4 batches, 1 error;"), "{out}");
    let tests = unittest(&ws);
    assert!(tests.status.success(), "{}", String::from_utf8_lossy(&tests.stderr));
    assert!(std::fs::read_to_string(ws.join("calc.py")).unwrap().contains("sum(values) / len(values)"));
}

#[test]
fn explore_runs_its_reads_in_parallel_batches() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&["explore"], &ws);
    assert_eq!(out.matches("(4 calls together").count(), 2, "{out}");
    assert!(out.contains("summary: 8 calls in 2 batches, 0 errors"), "{out}");
    assert!(out.contains("x from running calls together"), "{out}");
    // Reading changes nothing: the sample's test still fails.
    assert!(!unittest(&ws).status.success());
}

#[test]
fn trouble_gets_an_error_result_for_each_kind_of_trouble() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&["trouble", "--deny"], &ws);
    for expected in [
        "[unknown_tool]",
        "unknown tool `run_tests`",
        "[invalid_input]",
        "unknown field `file`",
        "denied by the rule `Bash(rm -rf *)`",
        "→ no (--deny)",
        "Timed out after 1.0 s",
        "summary: 5 calls in 5 batches, 5 errors",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in:\n{out}");
    }
    assert!(!ws.join(".git").exists(), "--deny must keep `git init` from running");

    let ws = dir.path().join("ws2");
    let (_, out) = replay(&["trouble", "--yes"], &ws);
    assert!(out.contains("→ yes (--yes)"), "{out}");
    assert!(ws.join(".git").is_dir(), "--yes runs `git init`");
    assert!(out.contains("summary: 5 calls in 5 batches, 4 errors"), "{out}");
    assert!(!out.contains("from running calls together"), "one call a batch: no speed-up to speak of\n{out}");
}

#[test]
fn json_events_are_one_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let session = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/explore.openai.sse");
    let (_, out) = replay(&[session.to_str().unwrap(), "--json"], &dir.path().join("ws"));
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).expect(l)).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"start"));
    assert_eq!(kinds.iter().filter(|k| **k == "finished").count(), 8);
    assert_eq!(kinds.iter().filter(|k| **k == "batch").count(), 2);
    let summary = events.iter().find(|e| e["type"] == "summary").unwrap();
    assert_eq!(summary["calls"], 8);
    assert_eq!(summary["errors"], 0);
}

#[test]
fn bad_cli_input_is_one_line_and_a_failure() {
    for (args, expected) in [
        (vec!["replay", "no-such-session"], "no-such-session: No such file or directory"),
        (vec!["replay", "--yes", "--deny"], "cannot be used with"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolwright")).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x"), "").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "--workspace"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.lines().count() == 1 && stderr.contains("not empty"), "{stderr}");
}

#[test]
fn a_recording_cut_off_mid_call_runs_nothing_of_that_call() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    // A response whose stream ends after the command's input, before its block closes.
    let session = dir.path().join("cut.anthropic.sse");
    let events = [
        r#"{"type":"message_start","message":{"id":"msg_cut","type":"message","role":"assistant","content":[],"stop_reason":null}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_cut","name":"shell","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"touch ran.txt\"}"}}"#,
    ];
    let text: String = events.iter().map(|e| format!("event: x\ndata: {e}\n\n")).collect();
    std::fs::write(&session, text).unwrap();
    let (_, out) = replay(&[session.to_str().unwrap(), "--yes"], &ws);
    assert!(!ws.join("ran.txt").exists(), "the cut call ran:\n{out}");
    assert!(out.contains("ended before this call's arguments were complete"), "{out}");
}

#[test]
fn delegate_runs_two_explorers_together_a_worker_that_edits_and_refuses_a_child() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&["delegate", "--json"], &ws);
    let events: Vec<serde_json::Value> = out.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let of = |kind: &str| events.iter().filter(|e| e["type"] == kind).collect::<Vec<_>>();
    let started = of("subagent_started");
    let finished = of("subagent_finished");
    assert_eq!(started.len(), 3, "{out}");
    assert_eq!(finished.len(), 3, "{out}");
    // The two explorers overlapped: both started before either finished.
    let position = |e: &serde_json::Value| events.iter().position(|x| x == e).unwrap();
    let explorers: Vec<_> = started.iter().filter(|e| e["agent_type"] == "Explore").collect();
    assert_eq!(explorers.len(), 2);
    let first_end = finished.iter().map(|e| position(e)).min().unwrap();
    assert!(explorers.iter().all(|e| position(e) < first_end), "the explorers ran one after the other:\n{out}");
    // An explorer's edit was refused at dispatch and listed; the worker's edit ran.
    let refused: Vec<_> = finished.iter().flat_map(|e| e["denied"].as_array().unwrap().clone()).collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].as_str().unwrap().starts_with("edit_file: this tool is not available to this agent"));
    assert!(finished.iter().all(|e| e["status"] == "completed"));
    let tests = unittest(&ws);
    assert!(tests.status.success(), "{}", String::from_utf8_lossy(&tests.stderr));
}

#[test]
fn a_recording_with_an_unknown_child_answers_the_agent_call_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.sse");
    let delegate =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/delegate.anthropic.sse")).unwrap();
    std::fs::write(&session, delegate.replace("--- agent: map the tests", "--- agent: something else")).unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&[session.to_str().unwrap()], &ws);
    assert!(out.contains("no responses for an agent described as `map the tests`"), "{out}");
}

#[test]
fn plan_loads_a_skill_asks_plans_tracks_tasks_and_fixes_in_a_worktree() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (_, out) = replay(&["plan"], &ws);
    assert!(out.contains("✓ skill fix-a-bug mean() gives the wrong result"), "{out}");
    assert!(out.contains("→ Only mean() (Recommended) (the recording's answer)"), "{out}");
    assert!(out.contains("Entered plan mode"), "{out}");
    assert!(out.contains("approve the plan → yes, and accept edits"), "{out}");
    assert!(out.contains("#1 [completed] Fix the divisor in mean()"), "{out}");
    assert!(out.contains("summary: 18 calls in 17 batches, 1 error;"), "{out}");
    // The fix is in the worktree, on its branch; the main checkout is untouched.
    let worktree = ws.join(".claude/worktrees/fix-mean");
    assert!(std::fs::read_to_string(worktree.join("calc.py")).unwrap().contains("sum(values) / len(values)"));
    assert!(unittest(&worktree).status.success());
    assert!(std::fs::read_to_string(ws.join("calc.py")).unwrap().contains("(len(values) - 1)"));
    // --deny keeps planning: nothing is changed anywhere.
    let denied = dir.path().join("denied");
    let (_, out) = replay(&["plan", "--deny"], &denied);
    assert!(out.contains("plan mode changes nothing") && out.contains("plan mode does not change files"), "{out}");
    assert!(!denied.join(".claude/worktrees/fix-mean").exists());
    assert!(std::fs::read_to_string(denied.join("calc.py")).unwrap().contains("(len(values) - 1)"));
}
