//! MCP servers under the agent, end to end: the real binary's `agent` command against
//! a scripted Anthropic server on 127.0.0.1, with MCP servers mounted from `.mcp.json`
//! that serve the tool lists of real servers
//! (`tool-core/tests/data/tool_search/servers/`): which tools the model is offered.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::scripted::{Logged, Reply, serve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn lists() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-core/tests/data/tool_search/servers")
}

fn peer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/peers/listed_server.py")
}

struct Workspace {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Workspace {
    /// A workspace mounting `servers` in that order, calls to github's tools allowed.
    fn new(servers: &[String]) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let ws = Workspace { dir, home };
        ws.mount(servers);
        std::fs::create_dir_all(ws.dir.path().join(".claude")).unwrap();
        let settings = json!({"permissions": {"allow": ["mcp__github"]}});
        std::fs::write(ws.dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
        ws
    }

    /// Writes `.mcp.json` with `servers`, keys in the order given.
    fn mount(&self, servers: &[String]) {
        let entries: Vec<String> = servers
            .iter()
            .map(|name| {
                let config = json!({"command": "python3", "args": [peer(), lists().join(format!("{name}.json"))]});
                format!("{}: {config}", Value::String(name.clone()))
            })
            .collect();
        let text = format!("{{\"mcpServers\": {{{}}}}}", entries.join(", "));
        std::fs::write(self.dir.path().join(".mcp.json"), text).unwrap();
    }

    fn run(&self, url: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .args(["agent", "--provider", "anthropic", "--json", "--trust-workspace", "--workspace"])
            .arg(self.dir.path())
            .args(extra)
            .arg("Do the task.")
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("ANTHROPIC_BASE_URL", url)
            .env("HOME", self.home.path())
            .env_remove("ENABLE_TOOL_SEARCH")
            .env_remove("CLAUDE_CONFIG_DIR");
        for (k, v) in env {
            command.env(k, v);
        }
        command.output().unwrap()
    }

    /// Runs a model that makes `calls`, one a response, then stops; the log.
    fn script(&self, calls: Vec<(&'static str, Value)>, extra: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Logged>) {
        let (url, log) = serve(move |req| {
            let step = req.messages().len() / 2;
            match calls.get(step) {
                Some((name, input)) => Reply::calls(vec![(name, input.clone())]),
                None => Reply::text("Done."),
            }
        });
        let out = self.run(&url, extra, env);
        let log = log.lock().unwrap().clone();
        (out, log)
    }
}

fn show(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn tool<'l>(request: &'l Logged, name: &str) -> Option<&'l Value> {
    request.body["tools"].as_array()?.iter().find(|t| t["name"] == name)
}

fn mcp_tools(request: &Logged) -> usize {
    request.tool_names().iter().filter(|n| n.starts_with("mcp__")).count()
}

#[test]
fn an_anthropic_agent_keeps_the_tools_only_other_providers_cannot_take() {
    // google_calendar's create-event has an object without declared properties
    // (Gemini's subset cannot say it); sequential_thinking's schema refers to one
    // property from another (zod's way), which is inlined.
    let ws = Workspace::new(&["google_calendar".to_owned(), "sequential_thinking".to_owned()]);
    let (out, log) = ws.script(vec![], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let names = log[0].tool_names();
    assert!(names.iter().any(|n| n == "mcp__google_calendar__create-event"), "{names:?}");
    assert_eq!(mcp_tools(&log[0]), 14, "every tool of both servers: {names:?}");
    let thinking = tool(&log[0], "mcp__sequential_thinking__sequentialthinking").expect("mounted");
    assert!(!thinking.to_string().contains("$ref"), "{thinking}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("skipped"), "{}", show(&out));
}
