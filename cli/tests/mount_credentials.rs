//! Remote MCP servers mounted with credentials, as Claude Code reads `.mcp.json`:
//! `headers` with `${VAR}` expansion, a `headersHelper` command, and a `401` that
//! says what to set. The server is `toolwright serve --http` behind a proxy on
//! 127.0.0.1 that answers `401` to any request without the right bearer token.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/serve.rs"]
mod serve;

use serve::HttpServe;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::thread;

const TOKEN: &str = "Bearer s3cret-token";

/// `toolwright serve --http` and, in front of it, a proxy that wants `TOKEN`: the
/// proxy's address.
fn guarded_server(ws: &Path, home: &Path) -> (HttpServe, String) {
    let serve = HttpServe::start(ws, home, &["--no-mcp"]);
    let upstream = serve.addr.clone();
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = proxy.local_addr().unwrap().to_string();
    thread::spawn(move || {
        for client in proxy.incoming().flatten() {
            let upstream = upstream.clone();
            thread::spawn(move || relay(client, &upstream));
        }
    });
    (serve, addr)
}

/// One connection: the first request's head is checked for the token; without it
/// the answer is `401`, with it the bytes go both ways to the server.
fn relay(mut client: TcpStream, upstream: &str) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match client.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    if !text.contains(&format!("authorization: {}", TOKEN.to_ascii_lowercase())) {
        let _ = client.write_all(
            b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    }
    let Ok(mut server) = TcpStream::connect(upstream) else { return };
    let _ = server.write_all(&head);
    let (mut client_r, mut server_w) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    thread::spawn(move || {
        let _ = std::io::copy(&mut client_r, &mut server_w);
    });
    let _ = std::io::copy(&mut server, &mut client);
}

/// `toolwright search` over the tools the config mounts.
fn search_with(config: &serde_json::Value, dir: &Path, home: &Path, env: &[(&str, &str)]) -> Output {
    std::fs::write(dir.join("servers.json"), config.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["search", "read a file", "--limit", "30", "--mcp-config"])
        .arg(dir.join("servers.json"))
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("TW_TEST_TOKEN")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn mounted(out: &Output) -> bool {
    String::from_utf8_lossy(&out.stdout).contains("mcp__remote__read_file")
}

#[test]
fn headers_from_the_environment_and_a_helper_reach_the_server() {
    let (ws, home) = common::workspace();
    let (_serve, proxy) = guarded_server(ws.path(), home.path());
    let url = format!("http://{proxy}/mcp");
    let dir = tempfile::tempdir().unwrap();

    // `${VAR}` in a header, from the environment.
    let config = serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": url,
        "headers": {"Authorization": "Bearer ${TW_TEST_TOKEN}"}}}});
    let out = search_with(&config, dir.path(), home.path(), &[("TW_TEST_TOKEN", "s3cret-token")]);
    assert!(mounted(&out), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));

    // The variable not set: the server is skipped with a warning naming it, and no
    // empty token goes out.
    let out = search_with(&config, dir.path(), home.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!mounted(&out));
    assert!(stderr.contains("remote") && stderr.contains("TW_TEST_TOKEN") && stderr.contains("not set"), "{stderr}");

    // A helper prints the header; it runs in the config's directory and is told
    // which server it is for.
    std::fs::write(
        dir.path().join("token.sh"),
        format!(
            "test \"$CLAUDE_CODE_MCP_SERVER_NAME\" = remote || exit 3\nprintf '{{\"Authorization\": \"{TOKEN}\"}}'\n"
        ),
    )
    .unwrap();
    let config =
        serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": url, "headersHelper": "sh token.sh"}}});
    let out = search_with(&config, dir.path(), home.path(), &[]);
    assert!(mounted(&out), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_refused_token_or_a_failing_helper_is_a_warning_that_says_what_to_set() {
    let (ws, home) = common::workspace();
    let (_serve, proxy) = guarded_server(ws.path(), home.path());
    let url = format!("http://{proxy}/mcp");
    let dir = tempfile::tempdir().unwrap();

    let config = serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": url}}});
    let out = search_with(&config, dir.path(), home.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!mounted(&out));
    assert!(stderr.contains("remote") && stderr.contains("401") && stderr.contains("headers"), "{stderr}");

    let config = serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": url,
        "headersHelper": "echo no token here >&2; exit 7"}}});
    let out = search_with(&config, dir.path(), home.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!mounted(&out));
    assert!(stderr.contains("headersHelper") && stderr.contains("no token here"), "{stderr}");

    let config = serde_json::json!({"mcpServers": {"remote": {"type": "http", "url": url,
        "headersHelper": "echo '[1, 2]'"}}});
    let out = search_with(&config, dir.path(), home.path(), &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("JSON object"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_codex_config_mounts_with_its_bearer_token_env_var() {
    let (ws, home) = common::workspace();
    let (_serve, proxy) = guarded_server(ws.path(), home.path());
    let dir = tempfile::tempdir().unwrap();
    let search = |toml: &str, token: Option<&str>| {
        std::fs::write(dir.path().join("config.toml"), toml).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .args(["search", "read a file", "--limit", "30", "--mcp-config"])
            .arg(dir.path().join("config.toml"))
            .current_dir(dir.path())
            .env("HOME", home.path())
            .env_remove("TW_CODEX_TOKEN");
        if let Some(token) = token {
            command.env("TW_CODEX_TOKEN", token);
        }
        command.output().unwrap()
    };
    let toml = format!(
        "[mcp_servers.remote]\nurl = \"http://{proxy}/mcp\"\nbearer_token_env_var = \"TW_CODEX_TOKEN\"\nhttp_headers = {{ \"X-Client\" = \"toolwright-test\" }}\n"
    );
    let out = search(&toml, Some("s3cret-token"));
    assert!(mounted(&out), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let out = search(&toml, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!mounted(&out) && stderr.contains("TW_CODEX_TOKEN") && stderr.contains("mcp_servers.remote"), "{stderr}");
}
