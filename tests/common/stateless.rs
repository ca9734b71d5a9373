//! Requests of the 2026-07-28 revision over raw HTTP: no session, each one with
//! its version and the client's capabilities in `_meta`.

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One 2026-07-28 request (`method`, `params`), as a client on that revision sends
/// it: the version header, `Mcp-Method`, and the version and capabilities in
/// `_meta`. The status and the JSON-RPC message answered.
pub fn request(addr: &str, method: &str, params: Value, extra: &[(&str, &str)]) -> (u16, Value) {
    request_as(addr, method, params, extra, json!({}))
}

/// [`request`] from a client with `capabilities`.
pub fn request_as(
    addr: &str,
    method: &str,
    mut params: Value,
    extra: &[(&str, &str)],
    capabilities: Value,
) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    // `Mcp-Name`: the tool of a call, the task of a `tasks/*` request.
    if let Some(name) = params.get("name").or_else(|| params.get("taskId")).and_then(Value::as_str) {
        head.push_str(&format!("Mcp-Name: {name}\r\n"));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(format!("{head}\r\n{body}").as_bytes()).unwrap();
    let mut text = String::new();
    let mut chunk = [0u8; 8192];
    // Until the answer to id 7 is in (an SSE stream may stay open a moment).
    while !text.contains("\"id\":7") || !text.ends_with('\n') {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&chunk[..n])),
        }
    }
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let message = text
        .lines()
        .map(|l| l.strip_prefix("data: ").unwrap_or(l))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("id") == Some(&json!(7)))
        .unwrap_or_else(|| panic!("no answer in {text}"));
    (status, message)
}
