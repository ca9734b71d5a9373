//! `toolwright serve` driven by real clients: the official Python SDK (stdio and
//! HTTP) and toolwright's own mount over HTTP; `call` mounting `.mcp.json`.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/serve.rs"]
mod support_serve;

use common::peers;
use serde_json::json;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use support_serve::HttpServe;
use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
use toolwright::rules::RulePolicy;
use toolwright::{Executor, Registry, ToolCall, TurnContext};

fn run_python_client(args: &[&std::ffi::OsStr], home: &Path, workspace: &Path) {
    let out = Command::new(peers::python())
        .arg(peers::peer_script("py_client.py"))
        .args(args)
        .env("HOME", home)
        .env("WORKSPACE", workspace)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all checks passed"),
        "Python MCP client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("ok notifications/cancelled killed the command"), "{stdout}");
}

#[test]
fn python_sdk_client_drives_toolwright_serve_over_stdio() {
    let (ws, home) = common::workspace();
    let bin = env!("CARGO_BIN_EXE_toolwright");
    run_python_client(&["stdio".as_ref(), bin.as_ref(), ws.path().as_os_str()], home.path(), ws.path());
}

#[test]
fn python_sdk_client_drives_toolwright_serve_over_http() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &[]);
    run_python_client(&["http".as_ref(), serve.url().as_ref()], home.path(), ws.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolwright_mounts_a_toolwright_server_over_http() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &[]);
    let config = McpConfig::parse(
        &json!({"mcpServers": {"tw": {"type": "http", "url": serve.url(), "trusted": true}}}).to_string(),
        "t.json".as_ref(),
    )
    .unwrap();
    let registry = Arc::new(Registry::builder().build().unwrap());
    let mounts = McpMounts::mount(Arc::clone(&registry), &config, MountOptions::default()).await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let read_file = registry.get("mcp__tw__read_file").expect("mounted");
    assert!(read_file.spec().flags.read_only, "trusted server's readOnlyHint");
    // An MCP tool asks unless a rule allows it: here one naming the server.
    let executor = Executor::new(Arc::clone(&registry));
    let asked = executor
        .execute(&ToolCall::new("0", "mcp__tw__read_file", r#"{"path":"hello.txt"}"#), &TurnContext::new(ws.path()))
        .await;
    assert!(asked.output.text_content().contains("needs approval"), "{asked:?}");
    let executor = Executor::builder(Arc::clone(&registry)).policy(RulePolicy::new().allow("mcp__tw")).build();
    let result = executor
        .execute(&ToolCall::new("1", "mcp__tw__read_file", r#"{"path":"hello.txt"}"#), &TurnContext::new(ws.path()))
        .await;
    assert!(result.output.text_content().contains("hello from the workspace"), "{result:?}");
}

#[test]
fn the_cli_mounts_the_workspace_mcp_json_once_trusted_unless_told_not_to() {
    let ws = tempfile::tempdir().unwrap();
    // One good server and one entry that cannot be used: a warning, not an error.
    let config = json!({"mcpServers": {
        "raw": {"command": peers::python(), "args": [peers::peer_script("raw_server.py")]},
        "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
    }});
    std::fs::write(ws.path().join(".mcp.json"), config.to_string()).unwrap();
    let call = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["call", "mcp__raw__echo", r#"{"text": "through .mcp.json"}"#, "--yes"])
            .args(extra)
            .current_dir(ws.path())
            .env("HOME", ws.path())
            .output()
            .unwrap();
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    // Its stdio servers are commands run on this machine: not started untrusted.
    let (ok, stdout, stderr) = call(&[]);
    assert!(!ok && stdout.contains("unknown tool"), "{stdout}\n{stderr}");
    assert!(stderr.contains(".mcp.json: not mounted until this workspace is trusted"), "{stderr}");
    let (ok, stdout, stderr) = call(&["--trust-workspace"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "through .mcp.json");
    assert!(stderr.contains("mcpServers.legacy") && stderr.contains("skipped"), "{stderr}");
    let (ok, stdout, _) = call(&["--no-mcp", "--trust-workspace"]);
    assert!(!ok && stdout.contains("unknown tool"), "{stdout}");
}

#[test]
fn serve_passes_on_mounted_tools_only_a_model_provider_could_not_take() {
    // google_calendar's create-event has a free-form object Gemini's subset cannot
    // say; served over MCP, it goes on.
    let (ws, home) = common::workspace();
    let list =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-core/tests/data/tool_search/servers/google_calendar.json");
    let config = json!({"mcpServers": {"calendar": {"command": peers::python(), "args": [peers::peer_script("listed_server.py"), list]}}});
    std::fs::write(ws.path().join(".mcp.json"), config.to_string()).unwrap();
    let serve = HttpServe::start(ws.path(), home.path(), &["--trust-workspace"]);
    // The servers mount in the background: list until they are there.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut listed = String::new();
    while std::time::Instant::now() < deadline && !listed.contains("mcp__calendar__list-events") {
        listed = common::stateless::request(&serve.addr, "tools/list", json!({}), &[]).1.to_string();
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(listed.contains("mcp__calendar__list-events"), "{listed}");
    assert!(listed.contains(r#""mcp__calendar__create-event""#), "{listed}");
}
