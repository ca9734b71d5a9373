//! The MCP project's conformance suite (`@modelcontextprotocol/conformance`, its
//! `--suite all` run) against `examples/conformance_server.rs`: the suite's fixture
//! tools, each a `#[tool]`, served by `McpServer` over streamable HTTP. Every tools,
//! logging, progress, sampling and elicitation scenario must pass, and the generic
//! ones (initialize, ping, SSE streams, DNS rebinding); the example serves no prompts
//! or resources, and its tools' schemas are rendered (`$schema` and `$defs` dropped),
//! so those scenarios are not asked of it.

mod common;

use common::peers;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// The scenarios the example must pass.
const REQUIRED: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

#[test]
fn the_suites_tool_logging_progress_and_elicitation_scenarios_pass() {
    peers::ensure_installed();
    // target/<profile>/deps/mcp_conformance-<hash> -> target/<profile>/examples/
    let exe = std::env::current_exe().unwrap();
    let example = exe.parent().unwrap().parent().unwrap().join("examples/conformance_server");
    assert!(example.exists(), "{} is not built (cargo test builds examples)", example.display());
    let mut server = Command::new(&example).arg("127.0.0.1:0").stdout(Stdio::piped()).spawn().unwrap();
    let mut url = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut url).unwrap();
    let url = url.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "the example printed {url:?}");

    let suite = peers::root().join("tests/peers/conformance/node_modules");
    let results = tempfile::tempdir().unwrap();
    let out = Command::new(suite.join(".bin/node"))
        .arg(suite.join("@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--suite", "all", "--url", &url])
        .current_dir(results.path())
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for scenario in REQUIRED {
        let line = stdout.lines().find(|l| l.contains(&format!(" {scenario}:"))).unwrap_or("");
        assert!(line.contains('✓'), "scenario {scenario} did not pass: {line:?}\n{stdout}");
    }
}
