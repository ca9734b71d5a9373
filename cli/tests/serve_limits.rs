//! `toolwright serve` answers every request, one over its size or depth limit with a
//! JSON-RPC error naming the limit, on stdio and HTTP alike; the next request is
//! served as usual. Mounted servers connect in the background: a silent one never
//! delays serving.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::peers;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn serve(ws: &std::path::Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command.arg("serve").arg("--cwd").arg(ws).args(extra).env("HOME", ws);
    command
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn initialize(id: u64) -> String {
    request(
        id,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    )
}

fn read_call(id: u64, pad: usize) -> String {
    // The padding rides in `_meta`, which the server ignores.
    let params = json!({"name": "read_file", "arguments": {"path": "a.txt"}, "_meta": {"pad": "x".repeat(pad)}});
    request(id, "tools/call", params)
}

/// `levels` levels of arrays inside a tool call's arguments.
fn deep_call(id: u64, levels: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"read_file","arguments":{{"path":{}1{}}}}},"id":{id}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

struct StdioServe {
    child: Child,
    lines: std::sync::mpsc::Receiver<Value>,
}

impl StdioServe {
    fn start(ws: &std::path::Path, extra: &[&str]) -> StdioServe {
        let mut child =
            serve(ws, extra).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if send.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        StdioServe { child, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The answer to `id`, within 30 s.
    fn answer(&self, id: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no answer to request {id}"));
            if message["id"] == id {
                return message;
            }
        }
    }
}

impl Drop for StdioServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.txt"), "alpha\n").unwrap();
    ws
}

#[test]
fn stdio_answers_oversized_and_overdeep_requests_and_goes_on() {
    let ws = workspace();
    let mut server = StdioServe::start(ws.path(), &["--max-message-bytes", "65536"]);
    server.send(&initialize(1));
    assert!(server.answer(1)["result"]["serverInfo"].is_object());
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    // 20 MB, well past the limit: answered with the id, never held.
    server.send(&read_call(2, 20 << 20));
    let too_large = server.answer(2);
    assert_eq!(too_large["error"]["code"], -32600, "{too_large}");
    assert_eq!(too_large["error"]["data"]["max"], 65536);
    assert!(too_large["error"]["message"].as_str().unwrap().contains("limit of 65536 bytes"), "{too_large}");

    // 10,000 levels deep (20 KB): answered too (the default limit is 64 levels).
    server.send(&deep_call(3, 10_000));
    let too_deep = server.answer(3);
    assert_eq!(too_deep["error"]["data"]["limit"], "max_depth", "{too_deep}");
    assert!(too_deep["error"]["message"].as_str().unwrap().contains("limit of 64 levels"), "{too_deep}");

    // Not JSON, with an id that can still be read: a parse error for that id.
    server.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"#);
    assert_eq!(server.answer(4)["error"]["code"], -32700);

    // And the session goes on.
    server.send(&read_call(5, 10));
    let ok = server.answer(5);
    assert!(ok["result"]["content"][0]["text"].as_str().unwrap().contains("alpha"), "{ok}");
}

#[test]
fn serve_refuses_limits_it_cannot_keep() {
    let ws = workspace();
    for (flag, value, says) in [("--max-depth", "1000", "--max-depth"), ("--max-message-bytes", "10", "at least")] {
        let out = serve(ws.path(), &[flag, value]).stdin(Stdio::null()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{flag} {value}: {stderr}");
    }
}

/// One HTTP/1.1 POST to `/mcp`; the status and the body.
fn post(addr: &str, body: &[u8], session: Option<&str>) -> (u16, String, Option<String>) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer before taking the whole body; that is allowed.
    let _ = stream.write_all(body);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let session = response
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id: ").map(|_| l[16..].trim().to_owned()));
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body, session)
}

#[test]
fn http_answers_oversized_and_overdeep_bodies_with_a_json_rpc_error() {
    let ws = workspace();
    let mut child = serve(ws.path(), &["--http", "127.0.0.1:0", "--max-message-bytes", "100000"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("toolwright: serving MCP at http://").unwrap().trim_end_matches("/mcp");
    let addr = url.to_owned();

    let (status, body, session) = post(&addr, initialize(1).as_bytes(), None);
    assert_eq!(status, 200, "{body}");
    let session = session.expect("a session id");

    let (status, body, _) = post(&addr, read_call(2, 300_000).as_bytes(), Some(&session));
    assert_eq!(status, 413, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((error["id"].clone(), error["error"]["data"]["max"].clone()), (json!(2), json!(100000)), "{body}");

    let (status, body, _) = post(&addr, deep_call(3, 5_000).as_bytes(), Some(&session));
    assert_eq!(status, 400, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["id"], 3);
    assert!(error["error"]["message"].as_str().unwrap().contains("limit of 64 levels"), "{body}");

    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_silent_mounted_server_never_delays_serving() {
    let ws = workspace();
    let script = peers::peer_script("raw_server.py");
    let config = ws.path().join("mcp.json");
    let server = |env: Value| json!({"command": peers::python(), "args": [&script], "env": env});
    let servers = json!({"mcpServers": {"silent": server(json!({"RAW_NO_INIT": "1"})), "raw": server(json!({}))}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let start = Instant::now();
    let mut serve = StdioServe::start(ws.path(), &["--mcp-config", config.to_str().unwrap()]);
    serve.send(&initialize(1));
    serve.answer(1);
    assert!(start.elapsed() < Duration::from_secs(5), "initialize waited {:?}", start.elapsed());
    serve.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    // The good server's tools appear once it has mounted.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut id = 2;
    loop {
        serve.send(&request(id, "tools/list", json!({})));
        let listed = serve.answer(id);
        let names: Vec<&str> =
            listed["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        if names.contains(&"mcp__raw__echo") {
            assert!(!names.iter().any(|n| n.starts_with("mcp__silent__")), "{names:?}");
            break;
        }
        assert!(Instant::now() < deadline, "the raw server's tools never appeared: {names:?}");
        std::thread::sleep(Duration::from_millis(200));
        id += 1;
    }
}
