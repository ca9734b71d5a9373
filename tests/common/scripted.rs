//! A scripted Anthropic-compatible model server on 127.0.0.1: each request (from any
//! agent, concurrently) is answered by a script that sees the request's body, and
//! every request is logged with when it came and when its answer ended.
#![allow(dead_code)]

use super::http::read_request;
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One block of a scripted response.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    /// A tool call: name and input.
    Call(String, Value),
    /// Any other block, as it starts, then its deltas (a server tool's blocks, text
    /// with citations).
    Raw(Value, Vec<Value>),
}

/// A scripted response: its blocks, and how long to wait before the last event.
#[derive(Clone, Debug)]
pub struct Reply {
    pub blocks: Vec<Block>,
    pub delay: Duration,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Reply {
        Reply { blocks: vec![Block::Text(text.into())], delay: Duration::ZERO, input_tokens: 100, output_tokens: 10 }
    }

    pub fn calls(calls: Vec<(&str, Value)>) -> Reply {
        Reply {
            blocks: calls.into_iter().map(|(n, v)| Block::Call(n.to_owned(), v)).collect(),
            delay: Duration::ZERO,
            input_tokens: 100,
            output_tokens: 10,
        }
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub body: Value,
    pub start: Instant,
    pub end: Instant,
}

impl Logged {
    pub fn system(&self) -> String {
        match &self.body["system"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"),
            _ => String::new(),
        }
    }

    pub fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The first user message's text.
    pub fn prompt(&self) -> String {
        let first = &self.messages()[0]["content"];
        match first {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"),
            _ => String::new(),
        }
    }

    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|t| t.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    /// Every tool result of the last user message, as (tool_use_id, text, is_error).
    pub fn results(&self) -> Vec<(String, String, bool)> {
        let Some(last) = self.messages().last() else { return Vec::new() };
        let Some(blocks) = last["content"].as_array() else { return Vec::new() };
        blocks
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(parts) => {
                        parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
                    }
                    _ => String::new(),
                };
                (b["tool_use_id"].as_str().unwrap_or("").to_owned(), text, b["is_error"] == true)
            })
            .collect()
    }

    /// The text of the last user message, when it is plain text.
    pub fn last_user_text(&self) -> String {
        self.messages().last().map(text_of).unwrap_or_default()
    }
}

/// A message's text: its string content, or its text blocks (a message that is a
/// prompt-cache breakpoint is one text block with `cache_control`); "" when it holds
/// other blocks (tool results).
pub fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) if blocks.iter().all(|b| b["type"] == "text") => {
            blocks.iter().filter_map(|b| b["text"].as_str()).collect()
        }
        _ => String::new(),
    }
}

type Script = dyn Fn(&Logged) -> Reply + Send + Sync;

/// Serves every connection on its own thread with `script`; returns the base URL and
/// the log.
pub fn serve(script: impl Fn(&Logged) -> Reply + Send + Sync + 'static) -> (String, Arc<Mutex<Vec<Logged>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let script: Arc<Script> = Arc::new(script);
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (script, log) = (Arc::clone(&script), Arc::clone(&kept));
            std::thread::spawn(move || {
                let seen = read_request(&stream);
                let start = Instant::now();
                let mut logged = Logged { body: seen.body, start, end: start };
                let reply = script(&logged);
                let body = sse(&reply);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
                );
                let (head, tail) = body.split_at(body.rfind("event: message_delta").unwrap_or(body.len()));
                let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.flush());
                std::thread::sleep(reply.delay);
                let _ = stream.write_all(tail.as_bytes()).and_then(|()| stream.flush());
                logged.end = Instant::now();
                log.lock().unwrap().push(logged);
            });
        }
    });
    (url, log)
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The reply as Anthropic's stream.
pub fn sse(reply: &Reply) -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_s", "type": "message", "role": "assistant",
            "model": "scripted", "content": [], "stop_reason": null,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": 1}}}),
    );
    let mut calls = false;
    for (i, block) in reply.blocks.iter().enumerate() {
        match block {
            Block::Text(text) => {
                out += &event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
                );
                out += &event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": text}}),
                );
            }
            Block::Raw(start, deltas) => {
                out += &event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i, "content_block": start}),
                );
                for delta in deltas {
                    out += &event(
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": i, "delta": delta}),
                    );
                }
            }
            Block::Call(name, input) => {
                calls = true;
                let id = format!("toolu_s{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
                out += &event(
                    "content_block_start",
                    json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                );
                out += &event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
                );
            }
        }
        out += &event("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    let stop = if calls { "tool_use" } else { "end_turn" };
    out += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": reply.output_tokens}}),
    );
    out += &event("message_stop", json!({"type": "message_stop"}));
    out
}

/// `toolwright agent --provider anthropic` (the binary at `bin`) in `workspace` with
/// `HOME` at `home`, against the scripted server at `url`, with `extra` arguments.
pub fn run_agent(
    bin: &str,
    url: &str,
    workspace: &std::path::Path,
    home: &std::path::Path,
    extra: &[&str],
    task: &str,
) -> std::process::Output {
    std::process::Command::new(bin)
        .args(["agent", "--provider", "anthropic", "--workspace"])
        .arg(workspace)
        .args(extra)
        .arg(task)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", url)
        .env("HOME", home)
        .output()
        .unwrap()
}
