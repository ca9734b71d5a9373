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
        HttpServe::start_with_env(ws, home, extra, &[])
    }

    /// [`HttpServe::start`] with `env` set for the server.
    pub fn start_with_env(ws: &Path, home: &Path, extra: &[&str], env: &[(&str, &str)]) -> HttpServe {
        HttpServe::spawn(ws, home, "127.0.0.1:0", extra, env)
    }

    /// [`HttpServe::start`] bound at `bind` instead of 127.0.0.1.
    pub fn start_bound(ws: &Path, home: &Path, bind: &str, extra: &[&str]) -> HttpServe {
        HttpServe::spawn(ws, home, bind, extra, &[])
    }

    fn spawn(ws: &Path, home: &Path, bind: &str, extra: &[&str], env: &[(&str, &str)]) -> HttpServe {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", bind, "--cwd"])
            .arg(ws)
            .args(extra)
            .env("HOME", home)
            .envs(env.iter().copied())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("toolwright: serving MCP at ").unwrap_or_else(|| panic!("{line}"));
        let addr = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"))
            .and_then(|u| u.strip_suffix("/mcp"))
            .unwrap()
            .to_owned();
        HttpServe { child, addr }
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    #[allow(dead_code)]
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// `toolwright serve --http BIND --cwd ws` with `extra`, which must fail: its stderr.
pub fn refused(ws: &Path, home: &Path, bind: &str, extra: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--http", bind, "--cwd"])
        .arg(ws)
        .args(extra)
        .env("HOME", home)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(!out.status.success(), "serve started with {extra:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
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
    post(addr, path, host, headers, body)
}

/// A POST of `body` (JSON) to `addr`: the response's head and the start of its
/// body.
pub fn post(addr: &str, path: &str, host: &str, headers: &[(&str, &str)], body: &str) -> String {
    post_until(addr, path, host, headers, body, None)
}

/// [`post`], reading on until the response holds `until` (a call's result in an SSE
/// stream), when given.
pub fn post_until(
    addr: &str,
    path: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &str,
    until: Option<&str>,
) -> String {
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
    loop {
        let text = String::from_utf8_lossy(&got);
        let head_done = text.contains("\r\n\r\n");
        let enough = match until {
            Some(until) => text.contains(until) || (head_done && !text.starts_with("HTTP/1.1 200")),
            None => {
                text.contains("\r\n\r\n{") || text.contains("data:") || (head_done && text.starts_with("HTTP/1.1 202"))
            }
        };
        if enough {
            break;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// A header's value in a response [`post`] read.
pub fn header<'r>(response: &'r str, name: &str) -> Option<&'r str> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// The status code of a response [`initialize`] read.
pub fn status(response: &str) -> u16 {
    response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status in {response:?}"))
}
