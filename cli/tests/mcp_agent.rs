//! MCP servers under the agent, end to end: the real binary's `agent` command against
//! a scripted Anthropic server on 127.0.0.1, with MCP servers mounted from `.mcp.json`
//! that serve the tool lists of 37 real servers
//! (`tool-core/tests/data/tool_search/servers/`): which tools the model is offered,
//! what it receives in its first request when they are deferred (the catalogue in
//! `tool_search`'s description, its size, the same bytes across runs and re-mounts), a
//! search that loads a tool and a call of it, and Claude Code's `ENABLE_TOOL_SEARCH`.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::scripted::{Logged, Reply, serve, text_of};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn lists() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-core/tests/data/tool_search/servers")
}

fn peer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/peers/listed_server.py")
}

/// Every saved server's name, sorted.
fn all_servers() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(lists())
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
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

    /// A `helper` subagent ("You are the helper.") and calls allowed to `allow`.
    fn with_helper(&self, allow: &[&str]) {
        let agents = self.dir.path().join(".claude/agents");
        std::fs::create_dir_all(&agents).unwrap();
        let helper = "---\nname: helper\ndescription: Helps\n---\nYou are the helper.\n";
        std::fs::write(agents.join("helper.md"), helper).unwrap();
        let settings = json!({"permissions": {"allow": allow}});
        std::fs::write(self.dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
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
fn the_first_request_carries_a_catalogue_that_fits_and_keeps_its_bytes() {
    let servers = all_servers();
    assert!(servers.len() >= 30, "{servers:?}");
    let ws = Workspace::new(&servers);
    let (out, log) = ws.script(vec![], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let first = &log[0];
    // Hundreds of MCP tools are over 10% of the context window: none is sent, the
    // search tool is, with the catalogue.
    assert_eq!(mcp_tools(first), 0, "{:?}", first.tool_names());
    assert!(String::from_utf8_lossy(&out.stdout).contains("543 tools wait behind tool_search"), "{}", show(&out));
    let search = tool(first, "tool_search").expect("tool_search is offered");
    let description = search["description"].as_str().unwrap();
    assert!(description.contains("deferred tools can be loaded, by MCP server:"), "{description}");
    for server in &servers {
        assert!(description.contains(&format!("\n- {server} (")), "no line for {server}: {description}");
    }
    assert!(description.contains("- github (26 tools): "), "{description}");
    assert!(description.contains("`+word`") && description.contains("server:NAME"), "{description}");
    // About 4 bytes a token: within the 1,000-token budget (the search's own text included).
    assert!(description.len() <= 4 * 1_000, "{} bytes: {description}", description.len());

    // The same servers again, then listed in the other order: the same bytes.
    let (again, log_again) = ws.script(vec![], &[], &[]);
    assert!(again.status.success(), "{}", show(&again));
    assert_eq!(log_again[0].body["tools"], first.body["tools"], "a second run sends the same tools");
    let reversed: Vec<String> = servers.iter().rev().cloned().collect();
    ws.mount(&reversed);
    let (remounted, log_remounted) = ws.script(vec![], &[], &[]);
    assert!(remounted.status.success(), "{}", show(&remounted));
    assert_eq!(
        tool(&log_remounted[0], "tool_search").unwrap()["description"],
        search["description"],
        "a re-mount in another order sends the same catalogue"
    );
}

#[test]
fn a_search_loads_a_tool_the_next_request_sends_and_the_model_calls() {
    let ws = Workspace::new(&["github".to_owned(), "slack".to_owned()]);
    let calls = vec![
        ("tool_search", json!({"query": "+github open an issue about the crash"})),
        ("mcp__github__create_issue", json!({"owner": "o", "repo": "r", "title": "It crashes"})),
    ];
    // Claude Code's setting: always on, however few the tools.
    let (out, log) = ws.script(calls, &[], &[("ENABLE_TOOL_SEARCH", "true")]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(log.len(), 3, "{}", show(&out));
    assert_eq!(mcp_tools(&log[0]), 0, "{:?}", log[0].tool_names());
    let (_, found, error) = log[1].results().remove(0);
    assert!(!error && found.contains("mcp__github__create_issue"), "{found}");
    assert!(!found.contains("mcp__slack__"), "+github keeps slack's tools out: {found}");
    // Loaded tools follow the ones sent before: the earlier bytes are a prefix.
    let loaded = tool(&log[1], "mcp__github__create_issue").expect("the search loaded it");
    assert!(loaded["input_schema"]["properties"]["title"].is_object(), "{loaded}");
    let before = log[0].body["tools"].as_array().unwrap();
    assert_eq!(&log[1].body["tools"].as_array().unwrap()[..before.len()], &before[..]);
    let (_, called, error) = log[2].results().remove(0);
    assert!(!error, "{called}");
    assert!(
        called.contains(r#"called create_issue with {"owner": "o", "repo": "r", "title": "It crashes"}"#),
        "{called}"
    );
}

#[test]
fn enable_tool_search_and_the_flag_decide_what_is_deferred() {
    let few = Workspace::new(&["slack".to_owned()]);
    // auto (the default): eight tools are far under 10% of the window.
    let (out, log) = few.script(vec![], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(mcp_tools(&log[0]), 8, "{:?}", log[0].tool_names());
    assert!(tool(&log[0], "tool_search").is_none());
    // auto:0 defers whatever there is; the flag wins over the variable.
    let (out, log) = few.script(vec![], &["--tool-search", "auto:0"], &[("ENABLE_TOOL_SEARCH", "false")]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(mcp_tools(&log[0]), 0, "{:?}", log[0].tool_names());
    assert!(tool(&log[0], "tool_search").is_some());

    // Claude Code's settings `env` says it too, below the process's environment.
    let settings = json!({"env": {"ENABLE_TOOL_SEARCH": "true"}});
    std::fs::write(few.dir.path().join(".claude/settings.local.json"), settings.to_string()).unwrap();
    let (out, log) = few.script(vec![], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(mcp_tools(&log[0]), 0, "{:?}", log[0].tool_names());
    let (_, log) = few.script(vec![], &[], &[("ENABLE_TOOL_SEARCH", "false")]);
    assert_eq!(mcp_tools(&log[0]), 8, "{:?}", log[0].tool_names());
    let settings = json!({"env": {"ENABLE_TOOL_SEARCH": "often"}});
    std::fs::write(few.dir.path().join(".claude/settings.local.json"), settings.to_string()).unwrap();
    let (out, _) = few.script(vec![], &[], &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ENABLE_TOOL_SEARCH in the settings' env") && stderr.contains("`often`"), "{stderr}");
    std::fs::remove_file(few.dir.path().join(".claude/settings.local.json")).unwrap();

    // false: every tool, however many, and no search.
    let many = Workspace::new(&all_servers());
    let (out, log) = many.script(vec![], &[], &[("ENABLE_TOOL_SEARCH", "false")]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(mcp_tools(&log[0]) > 500, "{}", mcp_tools(&log[0]));
    assert!(tool(&log[0], "tool_search").is_none());

    // A value it cannot read stops the run before any request, naming it.
    let (url, log) = serve(|_| Reply::text("Done."));
    let out = few.run(&url, &[], &[("ENABLE_TOOL_SEARCH", "sometimes")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ENABLE_TOOL_SEARCH") && stderr.contains("`sometimes`"), "{stderr}");
    let out = few.run(&url, &["--tool-search", "auto:101"], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("auto:101"), "{}", show(&out));
    assert!(log.lock().unwrap().is_empty(), "no request was made");
}

#[test]
fn an_anthropic_agent_keeps_the_tools_only_other_providers_cannot_take() {
    // google_calendar's create-event has an object without declared properties
    // (Gemini's subset cannot say it); sequential_thinking's schema refers to one
    // property from another (zod's way), which is inlined.
    let ws = Workspace::new(&["google_calendar".to_owned(), "sequential_thinking".to_owned()]);
    let (out, log) = ws.script(vec![], &["--tool-search", "false"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let names = log[0].tool_names();
    assert!(names.iter().any(|n| n == "mcp__google_calendar__create-event"), "{names:?}");
    assert_eq!(mcp_tools(&log[0]), 14, "every tool of both servers: {names:?}");
    let thinking = tool(&log[0], "mcp__sequential_thinking__sequentialthinking").expect("mounted");
    assert!(!thinking.to_string().contains("$ref"), "{thinking}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("skipped"), "{}", show(&out));
}

#[test]
fn a_subagent_searches_and_loads_in_a_session_of_its_own() {
    let ws = Workspace::new(&["github".to_owned(), "slack".to_owned()]);
    ws.with_helper(&["mcp__github", "mcp__slack"]);
    let (url, log) = serve(|req| {
        let child = req.system().contains("You are the helper.");
        match (child, req.messages().len()) {
            (false, 1) => Reply::calls(vec![("tool_search", json!({"query": "select:mcp__github__create_issue"}))]),
            (false, 3) => Reply::calls(vec![(
                "Agent",
                json!({"description": "post", "prompt": "Tell the channel.", "subagent_type": "helper"}),
            )]),
            (false, _) => Reply::text("Done."),
            (true, 1) => Reply::calls(vec![("tool_search", json!({"query": "server:slack post a message"}))]),
            (true, 3) => {
                Reply::calls(vec![("mcp__slack__slack_post_message", json!({"channel_id": "C1", "text": "hi"}))])
            }
            (true, _) => Reply::text("Posted."),
        }
    });
    let out = ws.run(&url, &[], &[("ENABLE_TOOL_SEARCH", "true")]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let (main, child): (Vec<&Logged>, Vec<&Logged>) =
        log.iter().partition(|l| !l.system().contains("You are the helper."));
    assert_eq!(child.len(), 3, "{}", show(&out));
    // The child starts with nothing loaded: not the parent's github tool.
    assert!(tool(child[0], "tool_search").is_some(), "{:?}", child[0].tool_names());
    assert_eq!(mcp_tools(child[0]), 0, "{:?}", child[0].tool_names());
    // Its search loads slack's tool into its own requests, and the call reaches the server.
    assert!(tool(child[1], "mcp__slack__slack_post_message").is_some(), "{:?}", child[1].tool_names());
    let (_, posted, error) = child[2].results().remove(0);
    assert!(!error && posted.contains("called slack_post_message"), "{posted}");
    // The parent keeps its own load and never gets the child's.
    let last = main.last().unwrap();
    assert!(tool(last, "mcp__github__create_issue").is_some(), "{:?}", last.tool_names());
    assert!(tool(last, "mcp__slack__slack_post_message").is_none(), "{:?}", last.tool_names());
}

#[test]
fn a_fork_goes_on_with_what_its_parent_loaded() {
    let ws = Workspace::new(&["github".to_owned(), "slack".to_owned()]);
    let (url, log) = serve(|req| {
        let fork = req.messages().iter().any(|m| text_of(m) == "side task");
        match (fork, req.messages().len()) {
            (false, 1) => Reply::calls(vec![("tool_search", json!({"query": "select:mcp__github__create_issue"}))]),
            (false, 3) => Reply::calls(vec![(
                "Agent",
                json!({"description": "side", "prompt": "side task", "subagent_type": "fork"}),
            )]),
            (false, _) => Reply::text("Done."),
            // The fork calls the tool its parent loaded, as the tools it was shown say it may.
            (true, n) if req.results().is_empty() && n % 2 == 0 => {
                Reply::calls(vec![("mcp__github__create_issue", json!({"owner": "o", "repo": "r", "title": "t"}))])
            }
            (true, _) => Reply::text("side done"),
        }
    });
    let out = ws.run(&url, &[], &[("ENABLE_TOOL_SEARCH", "true")]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let fork: Vec<&Logged> = log.iter().filter(|l| l.messages().iter().any(|m| text_of(m) == "side task")).collect();
    assert!(fork.len() >= 2, "{}", show(&out));
    assert!(tool(fork[0], "mcp__github__create_issue").is_some(), "{:?}", fork[0].tool_names());
    let (_, called, error) = fork[1].results().remove(0);
    assert!(!error && called.contains("called create_issue"), "{called}");
}

#[test]
fn a_resumed_subagent_keeps_what_its_searches_loaded() {
    let ws = Workspace::new(&["slack".to_owned()]);
    ws.with_helper(&["mcp__slack"]);
    let (url, log) = serve(|req| {
        if !req.system().contains("You are the helper.") {
            return match req.messages().len() {
                1 => Reply::calls(vec![(
                    "Agent",
                    json!({"description": "find", "prompt": "Find the post tool.", "subagent_type": "helper",
                           "run_in_background": true, "name": "poster"}),
                )]),
                3 => {
                    let launched = req.results().remove(0).1;
                    let id = launched.split("Agent ").nth(1).unwrap().split_whitespace().next().unwrap();
                    Reply::calls(vec![("TaskOutput", json!({"task_id": id, "block": true, "timeout": 10000}))])
                }
                5 => Reply::calls(vec![("SendMessage", json!({"to": "poster", "message": "Now post it."}))]),
                _ => Reply::text("Done."),
            };
        }
        match req.messages().len() {
            1 => Reply::calls(vec![("tool_search", json!({"query": "server:slack post a message"}))]),
            3 => Reply::text("Found it."),
            5 => Reply::calls(vec![("mcp__slack__slack_post_message", json!({"channel_id": "C1", "text": "hi"}))]),
            _ => Reply::text("Posted."),
        }
    });
    let out = ws.run(&url, &[], &[("ENABLE_TOOL_SEARCH", "true")]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let child: Vec<&Logged> = log.iter().filter(|l| l.system().contains("You are the helper.")).collect();
    let resumed = child.iter().find(|l| l.messages().len() == 5).expect("the resumed run's request");
    assert!(tool(resumed, "mcp__slack__slack_post_message").is_some(), "{:?}", resumed.tool_names());
    let posted = child.iter().find(|l| l.messages().len() == 7).expect("the call's answer");
    let (_, text, error) = posted.results().remove(0);
    assert!(!error && text.contains("called slack_post_message"), "{text}");
}
