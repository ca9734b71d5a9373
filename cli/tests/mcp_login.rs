//! `toolwright mcp login|logout|list`: OAuth logins to mounted HTTP servers, checked
//! by the MCP project's own conformance suite (`@modelcontextprotocol/conformance`,
//! its authorization server and MCP server per scenario, with `toolwright mcp login`
//! as the client), and a server that wants a login failing alone, at once, with
//! the command to run. And `toolwright serve --http` through the same suite's
//! server scenarios that need no fixture tools.

#[path = "../../tests/common/peers.rs"]
#[allow(dead_code)]
mod peers;
#[path = "support/serve.rs"]
mod serve;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn toolwright(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("TOOLWRIGHT_MCP_CREDENTIALS", dir.join("credentials.json"))
        .env_remove("BROWSER")
        .output()
        .unwrap()
}

#[test]
fn the_conformance_suites_auth_scenarios_pass_with_mcp_login_as_the_client() {
    peers::ensure_installed();
    let suite = peers::root().join("tests/peers/conformance/node_modules");
    let script = peers::root().join("cli/tests/support/conformance_client.sh");
    // The 2025-11-25 scenarios (14 in 0.1.16, step-up included), the 2025-03-26 ones
    // (no protected resource metadata), the draft's (a resource mismatch refused,
    // offline access), and the extension's client credentials grant with a secret.
    for (kind, name, scenarios) in [
        ("--suite", "auth", 14),
        ("--suite", "backcompat", 2),
        ("--suite", "draft", 3),
        ("--scenario", "auth/client-credentials-basic", 1),
    ] {
        let results = tempfile::tempdir().unwrap();
        let out = Command::new(suite.join(".bin/node"))
            .arg(suite.join("@modelcontextprotocol/conformance/dist/index.js"))
            .args(["client", kind, name, "--command"])
            .arg(&script)
            .current_dir(results.path())
            .env("TOOLWRIGHT", env!("CARGO_BIN_EXE_toolwright"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let summary = stdout.split("=== SUITE SUMMARY ===").nth(1).unwrap_or(&stdout);
        assert!(out.status.success(), "{name}:\n{summary}\n{}", String::from_utf8_lossy(&out.stderr));
        let passed = match kind {
            "--suite" => summary.lines().filter(|l| l.trim_start().starts_with('✓')).count(),
            // One scenario reports on stderr.
            _ => usize::from(String::from_utf8_lossy(&out.stderr).contains("OVERALL: PASSED")),
        };
        assert!(passed >= scenarios, "{name}: {passed} of {scenarios} passed\n{summary}");
        // No token reached the output: the suite's tokens all start with `test-`.
        assert!(!stdout.contains("Bearer test-") && !String::from_utf8_lossy(&out.stderr).contains("Bearer test-"));
    }
}

/// A server that answers every request with 401 and a Bearer challenge.
fn wants_a_login() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let metadata = format!("http://{addr}/.well-known/oauth-protected-resource");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 8192];
            let _ = stream.read(&mut buf);
            let answer = format!(
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"{metadata}\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    addr
}

#[test]
fn a_server_that_wants_a_login_fails_alone_at_once_and_names_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let addr = wants_a_login();
    let config = serde_json::json!({"mcpServers": {
        "remote": {"type": "http", "url": format!("http://{addr}/mcp")},
        "local": {"command": "python3", "args": ["-c", "import sys; sys.exit(3)"]},
    }});
    std::fs::write(dir.path().join("servers.json"), config.to_string()).unwrap();

    let listing = toolwright(&["mcp", "list", "--mcp-config", "servers.json"], dir.path());
    let stdout = String::from_utf8_lossy(&listing.stdout);
    assert!(listing.status.success(), "{}", String::from_utf8_lossy(&listing.stderr));
    assert!(
        stdout.contains("remote\thttp") && stdout.contains("needs login: `toolwright mcp login remote`"),
        "{stdout}"
    );
    assert!(stdout.contains("local\tstdio `python3`"), "{stdout}");

    // A headless command mounts, meets the 401 and goes on without waiting for anyone.
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["search", "anything", "--mcp-config", "servers.json"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("TOOLWRIGHT_MCP_CREDENTIALS", dir.path().join("credentials.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(60), "a server that wants a login held the run");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.contains("`remote`") || l.contains("remote:")).unwrap_or_default();
    assert!(line.contains("needs a login: run `toolwright mcp login remote`"), "{stderr}");

    // Logging in to it with no browser and a short wait fails with why, and keeps nothing.
    let login = toolwright(
        &["mcp", "login", "remote", "--mcp-config", "servers.json", "--no-browser", "--timeout", "2"],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&login.stderr);
    assert!(!login.status.success(), "{stderr}");
    assert!(stderr.contains("toolwright: "), "{stderr}");
    assert!(!dir.path().join("credentials.json").exists());

    // A stdio server takes no login; logging out of a server never logged in says so.
    let stdio = toolwright(&["mcp", "login", "local", "--mcp-config", "servers.json"], dir.path());
    assert!(String::from_utf8_lossy(&stdio.stderr).contains("`local` is a stdio server"), "{stdio:?}");
    let logout = toolwright(&["mcp", "logout", "remote"], dir.path());
    assert!(String::from_utf8_lossy(&logout.stdout).contains("no login for `remote`"), "{logout:?}");
}

/// The suite's server scenarios that ask for no fixture tool, prompt or resource: the
/// reference server passes these too.
const GENERIC: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

#[test]
fn serve_passes_the_suites_generic_server_scenarios() {
    peers::ensure_installed();
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = serve::HttpServe::start(ws.path(), home.path(), &["--no-mcp"]);
    let suite = peers::root().join("tests/peers/conformance/node_modules");
    let out = Command::new(suite.join(".bin/node"))
        .arg(suite.join("@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--suite", "all", "--url", &server.url()])
        .current_dir(ws.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for scenario in GENERIC {
        let line = stdout.lines().find(|l| l.contains(&format!(" {scenario}:"))).unwrap_or("");
        assert!(line.contains('✓'), "scenario {scenario} did not pass: {line:?}\n{stdout}");
    }
}
