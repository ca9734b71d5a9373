//! `toolwright serve --http 127.0.0.1:0` as a child process, killed on drop.
#![allow(dead_code)] // each test file uses a part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct HttpServe {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl HttpServe {
    /// Serves the workspace `ws` with `home` as HOME, with `extra` flags.
    pub fn start(ws: &Path, home: &Path, extra: &[&str]) -> HttpServe {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--cwd"])
            .arg(ws)
            .args(extra)
            .env("HOME", home)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("toolwright: serving MCP at ").unwrap_or_else(|| panic!("{line}"));
        let addr = url.strip_prefix("http://").and_then(|u| u.strip_suffix("/mcp")).unwrap().to_owned();
        HttpServe { child, addr }
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    #[allow(dead_code)]
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An MCP `initialize` POST to `addr` with `Host: host` and `headers`, over raw
/// HTTP (so the test decides every header): the response's head and the start of
/// its body (an accepted request's SSE stream may stay open).
pub fn initialize(addr: &str, path: &str, host: &str, headers: &[(&str, &str)]) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("\r\n\r\n{") && !String::from_utf8_lossy(&got).contains("data:") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// The status code of a response [`initialize`] read.
pub fn status(response: &str) -> u16 {
    response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status in {response:?}"))
}
