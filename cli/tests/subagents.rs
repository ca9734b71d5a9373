//! Subagents end to end: the real binary's `agent` command against a scripted
//! Anthropic server on 127.0.0.1 that answers each request by the agent it comes
//! from (its system prompt), in a workspace with `.claude/agents/*.md` and settings.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/common/procs.rs"]
mod procs;

use common::scripted::{Logged, Reply, serve};
use serde_json::{Value, json};
use std::path::PathBuf;
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
