//! Subagents end to end: the real binary's `agent` command against a scripted
//! Anthropic server on 127.0.0.1 that answers each request by the agent it comes
//! from (its system prompt), in a workspace with `.claude/agents/*.md` and settings.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/common/procs.rs"]
mod procs;

use common::scripted::{Logged, Reply, serve, text_of};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const MAIN: &str = "You are a coding agent";

/// A workspace with agent files and settings, and a HOME of its own.
struct Workspace {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Workspace {
    fn new(agents: &[(&str, &str)], settings: Value) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let claude = dir.path().join(".claude/agents");
        std::fs::create_dir_all(&claude).unwrap();
        for (name, text) in agents {
            std::fs::write(claude.join(format!("{name}.md")), text).unwrap();
        }
        std::fs::write(dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
        Workspace { dir, home }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn command(&self, url: &str, extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .args(["agent", "--provider", "anthropic", "--json", "--trust-workspace", "--workspace"])
            .arg(self.path())
            .args(extra)
            .arg("Do the task.")
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("ANTHROPIC_BASE_URL", url)
            .env("HOME", self.home.path())
            .env_remove("CLAUDE_CONFIG_DIR");
        command
    }

    fn run(&self, url: &str, extra: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Value>) {
        let mut command = self.command(url, extra);
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let events = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect();
        (out, events)
    }

    /// Every subagent transcript written under HOME.
    fn transcripts(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![self.home.path().join(".toolwright/transcripts")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.parent().is_some_and(|p| p.ends_with("subagents")) {
                    found.push(path);
                }
            }
        }
        found
    }
}

fn agent_file(name: &str, extra: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} agent\n{extra}---\n{body}\n")
}

fn of<'a>(log: &'a [Logged], marker: &str) -> Vec<&'a Logged> {
    log.iter().filter(|l| l.system().contains(marker)).collect()
}

fn show(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn events<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[test]
fn children_get_the_narrowed_tools_run_together_and_report_back() {
    let ws = Workspace::new(
        &[("reader", &agent_file("reader", "tools: Read, Grep\n", "You are the reader."))],
        json!({"permissions": {"allow": []}}),
    );
    let (url, log) = serve(|req| {
        let system = req.system();
        if system.contains(MAIN) {
            return match req.messages().len() {
                1 => Reply::calls(vec![
                    (
                        "Agent",
                        json!({"description": "read notes", "prompt": "Read notes.txt (first)", "subagent_type": "reader"}),
                    ),
                    (
                        "Agent",
                        json!({"description": "read notes", "prompt": "Read notes.txt (second)", "subagent_type": "reader"}),
                    ),
                ]),
                _ => Reply::text("Both readers reported."),
            };
        }
        match req.messages().len() {
            // The reader tries a tool outside its limits, then reads.
            1 => Reply::calls(vec![("shell", json!({"command": "touch outside"}))]).after(Duration::from_millis(400)),
            3 => Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))]),
            _ => Reply::text(format!(
                "The notes say 42 ({}).",
                if req.prompt().contains("first") { "first" } else { "second" }
            )),
        }
    });
    let (out, events_seen) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();

    // Each child was shown only what its definition allows (and never the agent
    // tools' output retrieval).
    let children = of(&log, "You are the reader.");
    assert_eq!(children.len(), 6, "three requests per reader: {}", show(&out));
    for child in &children {
        let mut tools = child.tool_names();
        tools.sort();
        assert_eq!(tools, ["grep", "read_file"], "{tools:?}");
    }
    // The call outside them was refused at dispatch, with why.
    let refused: Vec<_> = children.iter().filter(|c| c.messages().len() == 3).flat_map(|c| c.results()).collect();
    assert_eq!(refused.len(), 2);
    for (_, text, is_error) in &refused {
        assert!(*is_error && text.contains("not available to this agent"), "{text}");
    }
    assert!(!ws.path().join("outside").exists());
    // The two first requests overlapped: the children ran at the same time.
    let firsts: Vec<_> = children.iter().filter(|c| c.messages().len() == 1).collect();
    assert!(firsts[0].start < firsts[1].end && firsts[1].start < firsts[0].end, "the children ran one after the other");

    // The main agent got each report with the id and a usage trailer, in call order.
    let main = of(&log, MAIN);
    assert_eq!(main.len(), 2);
    let results = main[1].results();
    assert_eq!(results.len(), 2);
    assert!(results[0].1.starts_with("The notes say 42 (first)"), "{}", results[0].1);
    assert!(results[1].1.starts_with("The notes say 42 (second)"), "{}", results[1].1);
    for (_, text, is_error) in &results {
        assert!(!is_error, "{text}");
        assert!(text.contains("agentId: a") && text.contains("<usage>total_tokens: 330"), "{text}");
        assert!(text.contains("Refused in this agent's run:") && text.contains("shell"), "{text}");
    }

    // Each child kept its own transcript beside the parent's.
    let transcripts = ws.transcripts();
    assert_eq!(transcripts.len(), 2, "{transcripts:?}");
    for path in &transcripts {
        let lines = std::fs::read_to_string(path).unwrap();
        assert!(lines.lines().count() >= 6, "{lines}");
        assert!(path.file_name().unwrap().to_string_lossy().starts_with("agent-a"));
    }

    // Usage adds up: 110 tokens a response, 2 main and 6 child responses.
    let usage = events(&events_seen, "usage");
    assert_eq!(usage.len(), 1, "{}", show(&out));
    assert_eq!(usage[0]["subagents"]["input_tokens"], 600);
    assert_eq!(usage[0]["subagents"]["output_tokens"], 60);
    assert_eq!(usage[0]["total"]["input_tokens"], 800);
    // Every child event is tagged with the agent.
    let finished = events(&events_seen, "subagent_finished");
    assert_eq!(finished.len(), 2);
    for event in finished {
        assert_eq!(event["agent_type"], "reader");
        assert_eq!(event["depth"], 1);
        assert_eq!(event["status"], "completed");
        assert_eq!(event["tool_calls"], 2);
    }
}

/// An agent file whose agent starts another `worker` until told otherwise.
fn worker() -> String {
    agent_file("worker", "", "You are the worker.")
}

#[test]
fn deny_rules_and_questions_reach_grandchildren() {
    let ws = Workspace::new(
        &[("worker", &worker())],
        json!({"permissions": {"deny": ["Bash(touch forbidden*)"], "ask": ["Bash(touch asked*)"]}}),
    );
    let (url, log) = serve(|req| {
        let depth = if req.system().contains(MAIN) { 0 } else { req.prompt().matches("deeper").count() };
        match (depth, req.messages().len()) {
            (0, 1) => Reply::calls(vec![(
                "Agent",
                json!({"description": "go", "prompt": "deeper", "subagent_type": "worker"}),
            )]),
            (1, 1) => Reply::calls(vec![(
                "Agent",
                json!({"description": "go", "prompt": "deeper deeper", "subagent_type": "worker"}),
            )]),
            (2, 1) => Reply::calls(vec![
                ("shell", json!({"command": "touch forbidden"})),
                ("shell", json!({"command": "touch asked"})),
            ]),
            (_, _) => Reply::text("done"),
        }
    });
    // --deny answers every question no: the grandchild's question is asked and
    // labelled with it, not dropped.
    let (out, events_seen) = ws.run(&url, &["--deny"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!ws.path().join("forbidden").exists() && !ws.path().join("asked").exists());
    let log = log.lock().unwrap().clone();
    let grandchild = log
        .iter()
        .find(|l| l.prompt() == "deeper deeper" && l.messages().len() == 3)
        .expect("the grandchild's second request");
    let results = grandchild.results();
    assert!(results[0].2 && results[0].1.contains("permission denied"), "{:?}", results[0]);
    assert!(results[1].2 && results[1].1.contains("--deny"), "{:?}", results[1]);
    let notes: Vec<&str> = events(&events_seen, "note").iter().filter_map(|e| e["text"].as_str()).collect();
    assert!(
        notes.iter().any(|n| n.contains("[agent worker") && n.contains("(depth 2)") && n.contains("→ no")),
        "the question names the agent: {notes:?}"
    );
    // The denials are listed in the reports up the tree.
    let child_report = log.iter().find(|l| l.prompt() == "deeper" && l.messages().len() == 3).unwrap().results();
    assert!(child_report[0].1.contains("done"), "{:?}", child_report);
    let finished = events(&events_seen, "subagent_finished");
    let grand = finished.iter().find(|e| e["depth"] == 2).unwrap();
    assert_eq!(grand["denied"].as_array().unwrap().len(), 2, "{grand}");
    assert_eq!(grand["parent_id"], finished.iter().find(|e| e["depth"] == 1).unwrap()["agent_id"]);
}

#[test]
fn a_model_that_keeps_spawning_is_held_to_depth_and_running_limits() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    // Every agent asks for four more workers in each response, forever.
    let (url, log) = serve(|req| {
        let spawns = (0..4)
            .map(|i| ("Agent", json!({"description": "more", "prompt": format!("{} {i}", req.prompt()), "subagent_type": "worker"})))
            .collect();
        if req.messages().len() >= 5 {
            return Reply::text("giving up");
        }
        Reply::calls(spawns).after(Duration::from_millis(30))
    });
    let env = [("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", "2"), ("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", "5")];
    let (out, events_seen) = ws.run(&url, &["--max-turns", "3"], &env);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    // Depth: nobody deeper than 2; the depth-2 agents were not offered the agent tool.
    let started = events(&events_seen, "subagent_started");
    assert!(!started.is_empty());
    assert!(started.iter().all(|e| e["depth"].as_u64().unwrap() <= 2), "{started:?}");
    for request in log.iter().filter(|l| !l.system().contains(MAIN)) {
        // "Do the task." has two spaces; each level adds one.
        let depth = request.prompt().matches(' ').count() - 2;
        if depth == 2 {
            assert!(!request.tool_names().iter().any(|t| t == "agent"), "depth 2 was offered the agent tool");
        }
    }
    // Running: at most 5 children had a request open at once.
    let mut spans: Vec<(std::time::Instant, i32)> = Vec::new();
    for l in log.iter().filter(|l| !l.system().contains(MAIN)) {
        spans.push((l.start, 1));
        spans.push((l.end, -1));
    }
    spans.sort();
    let (mut open, mut most) = (0, 0);
    for (_, d) in spans {
        open += d;
        most = most.max(open);
    }
    assert!(most <= 5, "{most} children asked the model at once");
    // The starts beyond the limits were answered with why.
    let refusals: Vec<String> = log.iter().flat_map(|l| l.results()).map(|r| r.1).collect();
    assert!(refusals.iter().any(|r| r.contains("agents are running, the most allowed at once")), "{refusals:?}");
    assert!(
        refusals
            .iter()
            .any(|r| r.contains("not available to this agent") && r.contains("the depth limit for subagents")),
        "an agent at the depth limit is told why: {refusals:?}"
    );
}

#[test]
fn a_long_report_is_cut_with_a_marker_and_read_whole_with_task_output() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    let long: String = (0..400).map(|i| format!("line {i:04} of the report\n")).collect();
    let report = long.clone();
    let (url, log) = serve(move |req| {
        if !req.system().contains(MAIN) {
            return Reply::text(report.clone());
        }
        match req.messages().len() {
            1 => Reply::calls(vec![(
                "Agent",
                json!({"description": "report", "prompt": "write", "subagent_type": "worker"}),
            )]),
            3 => {
                let text = &req.results()[0].1;
                let id = text.split("agentId: ").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
                let offset: usize =
                    text.split("\"offset\": ").nth(1).unwrap().split('}').next().unwrap().trim().parse().unwrap();
                Reply::calls(vec![("TaskOutput", json!({"task_id": id, "offset": offset, "block": false}))])
            }
            _ => Reply::text("read it all"),
        }
    });
    let (out, _) = ws.run(&url, &[], &[("TOOLWRIGHT_SUBAGENT_REPORT_CHARS", "5000")]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let main = of(&log, MAIN);
    let first = &main[1].results()[0].1;
    assert!(first.starts_with(&long[..5000]), "the first page is the report's start: {}", &first[4900..]);
    let total = long.len();
    assert!(first.contains(&format!("[report cut: characters 0 to 5000 of {total} shown")), "{first}");
    let rest = &main[2].results()[0].1;
    assert!(rest.contains(&format!("characters 5000 to {total} of {total}")) && rest.contains(&long[5000..]), "{rest}");
    assert!(!rest.contains("[report cut"), "the last page has no marker");
    // The child ran once: the rest came from its kept report.
    assert_eq!(log.iter().filter(|l| !l.system().contains(MAIN)).count(), 1);
}

/// Exits within 15 s, or the test fails (the process is killed first).
fn exits_soon(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("toolwright did not exit after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_signal_stops_the_whole_tree_and_leaves_no_process_behind() {
    let ws = Workspace::new(&[("worker", &worker())], json!({"permissions": {"allow": ["Bash(sleep *)"]}}));
    let marker = procs::marker(300);
    let sleep = format!("sleep {marker}");
    // The main agent starts a background worker and a foreground one; the foreground
    // one starts a grandchild; all three run a long command.
    let (url, log) = serve(move |req| {
        let prompt = req.prompt();
        if req.system().contains(MAIN) {
            return Reply::calls(vec![
                (
                    "Agent",
                    json!({"description": "bg", "prompt": "background", "subagent_type": "worker", "run_in_background": true}),
                ),
                ("Agent", json!({"description": "fg", "prompt": "foreground", "subagent_type": "worker"})),
            ]);
        }
        match (prompt.as_str(), req.messages().len()) {
            ("foreground", 1) => Reply::calls(vec![
                ("Agent", json!({"description": "gc", "prompt": "grandchild", "subagent_type": "worker"})),
                ("shell", json!({"command": sleep})),
            ]),
            (_, 1) => Reply::calls(vec![("shell", json!({"command": sleep}))]),
            _ => Reply::text("done"),
        }
    });
    let mut child =
        ws.command(&url, &[]).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    // (The foreground worker's own command waits for its grandchild: an agent call
    // and a command that may change things do not run together.)
    let running = procs::wait_for_marked(&marker, 2, Duration::from_secs(20));
    assert!(running.len() >= 2, "the background worker's and the grandchild's sleeps should run: {running:?}");
    let status = Command::new("kill").args(["-s", "INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    exits_soon(&mut child);
    assert!(procs::marked_gone_soon(&marker), "a command outlived the stop: {:?}", procs::marked(&marker));
    // Nothing asked the model after the stop.
    let asked = log.lock().unwrap().len();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(log.lock().unwrap().len(), asked);
}

#[test]
fn hooks_see_subagents_and_a_subagent_stop_hook_keeps_a_child_going() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    let root = ws.path();
    let save = |name: &str| format!("cat >> '{}'; echo >> '{}'", root.join(name).display(), root.join(name).display());
    let stop_once = format!(
        "input=$(cat); echo \"$input\" >> '{}'; echo >> '{}'; case \"$input\" in *'\"stop_hook_active\":false'*) echo '{{\"decision\": \"block\", \"reason\": \"Check once more.\"}}';; esac",
        root.join("stop.json").display(),
        root.join("stop.json").display()
    );
    let settings = json!({"hooks": {
        "SubagentStart": [{"matcher": "worker", "hooks": [{"type": "command", "command": format!("{}; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"SubagentStart\", \"additionalContext\": \"Be brief.\"}}}}'", save("start.json"))}]}],
        "SubagentStop": [{"matcher": "worker", "hooks": [{"type": "command", "command": stop_once}]}],
        "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": save("pre.json")}]}],
    }});
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    let (url, log) = serve(|req| {
        if req.system().contains(MAIN) {
            return match req.messages().len() {
                1 => Reply::calls(vec![(
                    "Agent",
                    json!({"description": "read", "prompt": "Read the notes.", "subagent_type": "worker"}),
                )]),
                _ => Reply::text("ok"),
            };
        }
        match req.messages().len() {
            1 => Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))]),
            3 => Reply::text("first answer"),
            _ => Reply::text(format!("second answer after: {}", req.last_user_text())),
        }
    });
    let (out, _) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(root.join(name))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let start = read("start.json");
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["hook_event_name"], "SubagentStart");
    assert_eq!(start[0]["agent_type"], "worker");
    let id = start[0]["agent_id"].as_str().unwrap().to_owned();
    let pre = read("pre.json");
    assert_eq!(pre.len(), 1);
    assert_eq!((pre[0]["agent_id"].as_str(), pre[0]["agent_type"].as_str()), (Some(id.as_str()), Some("worker")));
    let stops = read("stop.json");
    assert_eq!(stops.len(), 2, "blocked once, then let it finish");
    assert_eq!(stops[0]["stop_hook_active"], false);
    assert_eq!(stops[1]["stop_hook_active"], true);
    assert_eq!(stops[0]["last_assistant_message"], "first answer");
    let transcript = stops[0]["agent_transcript_path"].as_str().unwrap();
    assert!(transcript.ends_with(&format!("subagents/agent-{id}.jsonl")) && Path::new(transcript).exists());
    let log = log.lock().unwrap().clone();
    // The start hook's context reached the child; the stop hook's reason too.
    let child: Vec<_> = log.iter().filter(|l| !l.system().contains(MAIN)).collect();
    assert!(child[0].prompt().contains("Read the notes.") && child[0].prompt().contains("Be brief."));
    let report = &of(&log, MAIN)[1].results()[0].1;
    assert!(report.starts_with("second answer after: Check once more."), "{report}");
}

#[test]
fn a_background_agent_is_read_with_task_output_and_resumed_with_send_message() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    let (url, log) = serve(|req| {
        if req.system().contains(MAIN) {
            let results = req.results();
            return match req.messages().len() {
                1 => Reply::calls(vec![(
                    "Agent",
                    json!({"description": "slow", "prompt": "count", "subagent_type": "worker", "run_in_background": true, "name": "counter"}),
                )]),
                3 => {
                    assert!(results[0].1.contains("launched in the background"), "{}", results[0].1);
                    let id = results[0].1.split("Agent ").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
                    Reply::calls(vec![("TaskOutput", json!({"task_id": id, "block": true, "timeout": 10000}))])
                }
                5 => Reply::calls(vec![("SendMessage", json!({"to": "counter", "message": "And one more."}))]),
                _ => Reply::text("all done"),
            };
        }
        match req.messages().len() {
            1 => Reply::text("counted to three").after(Duration::from_millis(300)),
            _ => Reply::text(format!("counted to four ({})", req.last_user_text())),
        }
    });
    let (out, events_seen) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let main = of(&log, MAIN);
    // task_output waited for the end (no polling: one call) and read the report.
    let waited = &main[2].results()[0].1;
    assert!(waited.contains("completed") && waited.contains("counted to three"), "{waited}");
    let sent = &main[3].results()[0].1;
    assert!(sent.contains("resumed"), "{sent}");
    // The resumed agent kept its context, and the model was told when it ended.
    let resumed =
        log.iter().find(|l| !l.system().contains(MAIN) && l.messages().len() == 3).expect("a resumed request");
    assert_eq!(resumed.messages()[1]["content"][0]["text"], "counted to three");
    let told = main.iter().any(|m| {
        m.last_user_text().contains("<task-notification>")
            && m.last_user_text().contains("counted to four (And one more.)")
    });
    assert!(told, "the main agent hears of the resumed run's end");
    assert_eq!(events(&events_seen, "subagent_finished").len(), 2);
}

#[test]
fn task_stop_ends_an_agent_and_its_commands_and_keeps_its_output() {
    let ws = Workspace::new(&[("worker", &worker())], json!({"permissions": {"allow": ["Bash(sleep *)"]}}));
    let marker = procs::marker(300);
    let sleep = format!("sleep {marker}");
    let (url, log) = serve(move |req| {
        if req.system().contains(MAIN) {
            let results = req.results();
            return match req.messages().len() {
                1 => Reply::calls(vec![(
                    "Agent",
                    json!({"description": "bg", "prompt": "wait", "subagent_type": "worker", "run_in_background": true}),
                )]),
                3 => {
                    let id = results[0].1.split("Agent ").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
                    // Give the child time to start its command.
                    std::thread::sleep(Duration::from_millis(1500));
                    Reply::calls(vec![("TaskStop", json!({"task_id": id}))])
                }
                5 => {
                    let id = results[0].1.split("agent ").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
                    Reply::calls(vec![("TaskOutput", json!({"task_id": id, "block": false}))])
                }
                _ => Reply::text("stopped it"),
            };
        }
        match req.messages().len() {
            1 => Reply::calls(vec![("shell", json!({"command": sleep}))]),
            _ => Reply::text("woke up"),
        }
    });
    let (out, _) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(procs::marked_gone_soon(&marker), "the stopped agent's command is still running");
    let log = log.lock().unwrap().clone();
    let main = of(&log, MAIN);
    let stopped = &main[2].results()[0].1;
    assert!(stopped.contains("are stopped"), "{stopped}");
    let output = &main[3].results()[0].1;
    assert!(output.contains(": stopped (stopped by task_stop)"), "{output}");
    // It never asked the model again after the stop.
    assert_eq!(log.iter().filter(|l| !l.system().contains(MAIN)).count(), 1);
}

#[test]
fn a_worktree_child_changes_a_copy_kept_only_when_it_changed_something() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    let root = ws.path();
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(&root).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&["-c", "user.email=t@t", "-c", "user.name=t", "add", "notes.txt"]);
    git(&["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "start"]);
    let (url, log) = serve(|req| {
        if req.system().contains(MAIN) {
            return match req.messages().len() {
                1 => Reply::calls(vec![
                    (
                        "Agent",
                        json!({"description": "writer", "prompt": "write", "subagent_type": "worker", "isolation": "worktree"}),
                    ),
                    (
                        "Agent",
                        json!({"description": "reader", "prompt": "read", "subagent_type": "worker", "isolation": "worktree"}),
                    ),
                ]),
                _ => Reply::text("ok"),
            };
        }
        match (req.prompt().as_str(), req.messages().len()) {
            ("write", 1) => {
                Reply::calls(vec![("write_file", json!({"path": "new.txt", "content": "made in a worktree\n"}))])
            }
            ("read", 1) => Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))]),
            _ => Reply::text("done"),
        }
    });
    let (out, _) = ws.run(&url, &["--yes"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!root.join("new.txt").exists(), "the write went to the workspace");
    let log = log.lock().unwrap().clone();
    let results = of(&log, MAIN)[1].results();
    let kept: Vec<&str> = results[0].1.split("git worktree ").nth(1).unwrap().split_whitespace().take(1).collect();
    let kept = PathBuf::from(kept[0]);
    assert_eq!(std::fs::read_to_string(kept.join("new.txt")).unwrap(), "made in a worktree\n");
    assert!(!results[1].1.contains("git worktree"), "the unchanged worktree is not named: {}", results[1].1);
    // Only the changed one is left.
    let list = git(&["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 2, "{list}");
    git(&["worktree", "remove", "--force", kept.to_str().unwrap()]);
}

#[test]
fn a_worktree_child_outside_a_repository_is_refused_with_why() {
    let ws = Workspace::new(&[("worker", &worker())], json!({}));
    let (url, log) = serve(|req| match req.messages().len() {
        1 => Reply::calls(vec![("Agent", json!({"description": "w", "prompt": "p", "isolation": "worktree"}))]),
        _ => Reply::text("ok"),
    });
    let (out, _) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let result = &of(&log, MAIN)[1].results()[0];
    assert!(result.2 && result.1.contains("`isolation: worktree` needs a git repository"), "{}", result.1);
}

#[test]
fn a_definitions_own_hooks_apply_to_that_child_only() {
    let guarded = "---\nname: guarded\ndescription: An agent with hooks of its own\nhooks:\n  PreToolUse:\n    - matcher: Read\n      hooks:\n        - type: command\n          command: \"cat >/dev/null; echo 'guarded agents do not read' >&2; exit 2\"\n  Stop:\n    - hooks:\n        - type: command\n          command: \"grep -q '\\\"stop_hook_active\\\":false' && echo '{\\\"decision\\\": \\\"block\\\", \\\"reason\\\": \\\"Say goodbye.\\\"}' || true\"\n---\nYou are guarded.\n";
    let ws = Workspace::new(&[("guarded", guarded)], json!({}));
    let (url, log) = serve(|req| {
        if req.system().contains(MAIN) {
            return match req.messages().len() {
                1 => Reply::calls(vec![
                    ("read_file", json!({"path": "notes.txt"})),
                    ("Agent", json!({"description": "g", "prompt": "read", "subagent_type": "guarded"})),
                ]),
                _ => Reply::text("ok"),
            };
        }
        match req.messages().len() {
            1 => Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))]),
            3 => Reply::text("could not read"),
            _ => Reply::text(format!("goodbye after: {}", req.last_user_text())),
        }
    });
    let (out, _) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let main = of(&log, MAIN);
    let results = main[1].results();
    assert!(
        !results[0].2 && results[0].1.contains("the answer is 42"),
        "the main agent's read is not hooked: {:?}",
        results[0]
    );
    let child = log.iter().find(|l| l.system().contains("You are guarded.") && l.messages().len() == 3).unwrap();
    let blocked = &child.results()[0];
    assert!(blocked.2 && blocked.1.contains("guarded agents do not read"), "{blocked:?}");
    // Its `Stop` hook ran as SubagentStop: blocked once, then let it finish.
    assert!(results[1].1.starts_with("goodbye after: Say goodbye."), "{}", results[1].1);
}

#[test]
fn cline_style_tools_follow_the_definition_files_request_by_request() {
    let ws = Workspace::new(
        &[
            ("code-reviewer", &agent_file("code-reviewer", "tools: Read\n", "You review.")),
            ("docs", &agent_file("docs", "", "You write docs.")),
        ],
        json!({}),
    );
    let agents = ws.path().join(".claude/agents");
    let (url, log) = serve(move |req| {
        if req.system().contains(MAIN) {
            return match req.messages().len() {
                1 => Reply::calls(vec![("use_subagent_code_reviewer", json!({"prompt": "Review notes.txt"}))]),
                _ => Reply::text("ok"),
            };
        }
        // While the child runs, one definition goes and another comes.
        std::fs::remove_file(agents.join("docs.md")).unwrap();
        std::fs::write(agents.join("tester.md"), agent_file("tester", "", "You test.")).unwrap();
        Reply::text("looks fine")
    });
    let (out, _) = ws.run(&url, &["--cline-tools"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let main = of(&log, MAIN);
    let per_definition =
        |l: &Logged| -> Vec<String> { l.tool_names().into_iter().filter(|t| t.starts_with("use_subagent_")).collect() };
    assert_eq!(per_definition(main[0]), ["use_subagent_code_reviewer", "use_subagent_docs"]);
    assert_eq!(per_definition(main[1]), ["use_subagent_code_reviewer", "use_subagent_tester"]);
    let result = &main[1].results()[0];
    assert!(!result.2 && result.1.starts_with("looks fine"), "{result:?}");
    // The child was the reviewer, with the reviewer's tools (and no agent tools of
    // its own kind beyond what its definition allows).
    let child = log.iter().find(|l| l.system().contains("You review.")).unwrap();
    assert_eq!(child.tool_names(), ["read_file"]);
}

#[test]
fn a_fork_sends_its_parents_prefix_byte_for_byte_and_is_still_narrowed() {
    let ws = Workspace::new(&[], json!({}));
    let (url, log) = serve(|req| {
        let fork = req.last_user_text() == "side task";
        if req.system().contains(MAIN) && !fork && req.messages().iter().all(|m| text_of(m) != "side task") {
            return match req.messages().len() {
                1 => Reply::calls(vec![(
                    "Agent",
                    json!({"description": "side", "prompt": "side task", "subagent_type": "fork"}),
                )]),
                _ => Reply::text("ok"),
            };
        }
        match req.messages().len() {
            // The fork is shown its parent's tools, task_output included, but may not call it.
            2 => Reply::calls(vec![("task_output", json!({"task_id": "x"}))]),
            _ => Reply::text("side done"),
        }
    });
    let (out, _) = ws.run(&url, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let parent = log.iter().find(|l| l.messages().len() == 1).unwrap();
    let fork = log.iter().find(|l| l.last_user_text() == "side task").expect("the fork's first request");
    assert_eq!(fork.body["system"], parent.body["system"]);
    assert_eq!(fork.body["tools"].to_string(), parent.body["tools"].to_string(), "the tools differ");
    assert_eq!(fork.body["model"], parent.body["model"]);
    assert_eq!(fork.messages()[0], parent.messages()[0]);
    // The parent's request made its conversation's end a cache breakpoint; the fork
    // keeps one there (the end of the shared prefix) and one at its own end, within
    // Anthropic's limit of four with the tools'.
    let marked =
        |m: &Value| m["content"].as_array().is_some_and(|b| b.iter().any(|b| b.get("cache_control").is_some()));
    assert!(marked(&parent.messages()[0]), "{}", parent.messages()[0]);
    assert!(marked(&fork.messages()[0]) && marked(&fork.messages()[1]), "{:?}", fork.messages());
    let breakpoints = fork.body.to_string().matches("cache_control").count();
    assert!(breakpoints <= 4, "{breakpoints} breakpoints");
    let second = log.iter().find(|l| l.messages().len() == 4 && text_of(&l.messages()[1]) == "side task").unwrap();
    let refused = &second.results()[0];
    assert!(refused.2 && refused.1.contains("not available to this agent"), "{refused:?}");
    let report =
        log.iter().find(|l| l.messages().len() == 3 && l.results().iter().any(|r| r.1.starts_with("side done")));
    assert!(report.is_some(), "the parent got the fork's report");
}
