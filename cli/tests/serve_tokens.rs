//! `toolwright serve --http` with static bearer tokens: every request needs one
//! (`401` and `WWW-Authenticate: Bearer` without, `400` for one in the query
//! string), the caller's name reaches the hooks on stdin and one audit line per call,
//! and the token itself is never printed.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/serve.rs"]
mod serve;

use serve::status;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SECRET: &str = "ci-secret-0123456789abcdef";

/// `toolwright serve --http` with the token of `ci` from the environment; its
/// stderr is collected as it comes.
struct Serve {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Serve {
    fn start(ws: &Path, home: &Path) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--no-mcp", "--token-env", "ci=TW_SERVE_TOKEN", "--cwd"])
            .arg(ws)
            .env("HOME", home)
            .env("TW_SERVE_TOKEN", SECRET)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let addr =
            line.trim().strip_prefix("toolwright: serving MCP at http://").unwrap().strip_suffix("/mcp").unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                kept.lock().unwrap().push_str(&(line + "\n"));
            }
        });
        Serve { child, addr: addr.to_owned(), stderr }
    }

    /// An `initialize` POST to `path` with `auth` as the Authorization header.
    fn initialize(&self, path: &str, auth: Option<&str>) -> String {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        serve::initialize(&self.addr, path, &self.addr, &headers)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_request_needs_a_listed_bearer_token_in_the_header() {
    let (ws, home) = common::workspace();
    let serve = Serve::start(ws.path(), home.path());

    let none = serve.initialize("/mcp", None);
    assert_eq!(status(&none), 401, "{none}");
    assert!(none.to_ascii_lowercase().contains("www-authenticate: bearer"), "{none}");
    assert!(none.contains("\"jsonrpc\":\"2.0\""), "a JSON-RPC error: {none}");

    let wrong = serve.initialize("/mcp", Some("Bearer ci-secret-0123456789abcdeX"));
    assert_eq!(status(&wrong), 401);
    assert!(wrong.contains("error=\"invalid_token\""), "{wrong}");
    let basic = serve.initialize("/mcp", Some("Basic Y2k6c2VjcmV0"));
    assert_eq!(status(&basic), 401);
    assert!(basic.contains("error=\"invalid_request\""), "{basic}");

    let in_query = serve.initialize(&format!("/mcp?access_token={SECRET}"), None);
    assert_eq!(status(&in_query), 400, "{in_query}");
    assert!(in_query.contains("query string"), "{in_query}");

    assert_eq!(status(&serve.initialize("/mcp", Some(&format!("Bearer {SECRET}")))), 200);
    // The secret is never logged.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!serve.stderr.lock().unwrap().contains(SECRET), "{}", serve.stderr.lock().unwrap());
}

#[test]
fn the_caller_reaches_the_hooks_and_the_audit_line() {
    let (ws, home) = common::workspace();
    let seen = tempfile::tempdir().unwrap();
    let hook_log = seen.path().join("hook.json");
    let settings = serde_json::json!({
        "permissions": {"allow": ["Read"]},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": format!("cat > {}", hook_log.display())}]}]}
    });
    std::fs::write(ws.path().join(".claude/settings.json"), settings.to_string()).unwrap();
    let serve = Serve::start(ws.path(), home.path());

    // toolwright's own client mounts it with the token from its environment and calls
    // a tool through it.
    let client = tempfile::tempdir().unwrap();
    let config = serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": format!("http://{}/mcp", serve.addr),
        "headers": {"Authorization": "Bearer ${TW_CLIENT_TOKEN}"}}}});
    std::fs::write(client.path().join("servers.json"), config.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "mcp__remote__read_file", r#"{"path": "hello.txt"}"#, "--yes", "--json", "--mcp-config"])
        .arg(client.path().join("servers.json"))
        .current_dir(client.path())
        .env("HOME", home.path())
        .env("TW_CLIENT_TOKEN", SECRET)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("hello from the workspace"), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));

    let hook: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&hook_log).unwrap()).unwrap();
    assert_eq!(hook["caller"]["subject"], "ci", "{hook}");
    assert_eq!(hook["tool_name"], "Read");

    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stderr = serve.stderr.lock().unwrap().clone();
        if let Some(line) = stderr.lines().find(|l| l.starts_with("toolwright: audit: ")) {
            let record: serde_json::Value =
                serde_json::from_str(line.trim_start_matches("toolwright: audit: ")).unwrap();
            assert_eq!(record["caller"], "ci");
            assert_eq!(record["tool"], "read_file");
            assert_eq!(record["decision"], "allowed");
            assert_eq!(record["outcome"], "ok");
            assert!(!stderr.contains(SECRET), "{stderr}");
            break;
        }
        assert!(Instant::now() < deadline, "no audit line in:\n{stderr}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_token_that_cannot_be_used_is_one_clear_error() {
    let (ws, home) = common::workspace();
    for (args, says) in [
        (vec!["--token-env", "ci=TW_NOT_SET_ANYWHERE"], "TW_NOT_SET_ANYWHERE"),
        (vec!["--token-env", "ci"], "NAME=VAR"),
        (vec!["--token-file", "ci=/nonexistent/token"], "/nonexistent/token"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--cwd"])
            .arg(ws.path())
            .args(&args)
            .env("HOME", home.path())
            .env_remove("TW_NOT_SET_ANYWHERE")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{args:?}: {stderr}");
    }
}
