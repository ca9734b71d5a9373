//! `toolwright agent` end to end over the wire: the real binary talks HTTP to a
//! server on 127.0.0.1 that answers each request with the next recorded streamed
//! response, and the test checks what the agent sent back.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::http::{Seen, read_request};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The responses of a recorded session, one HTTP body each.
fn responses(file: &str, end: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions").join(file)).unwrap();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(end) {
        let stop = at + end.len();
        out.push(rest[..stop].to_owned());
        rest = &rest[stop..];
    }
    out
}

/// Serves `bodies` in order as `text/event-stream`, in small chunks; records requests.
fn serve(bodies: Vec<String>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (body, stream) in bodies.into_iter().zip(listener.incoming()) {
            let mut stream = stream.unwrap();
            log.lock().unwrap().push(read_request(&stream));
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n")
                .unwrap();
            for chunk in body.as_bytes().chunks(97) {
                // A client may stop reading once the response says it is done.
                if stream.write_all(chunk).and_then(|()| stream.flush()).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    });
    (url, seen)
}

fn sample_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "explore", "--workspace"])
        .arg(&ws)
        .output()
        .unwrap();
    assert!(out.status.success());
    // `replay explore` only reads: the sample is as bundled.
    dir
}

fn agent(provider: &str, key_var: &str, base_var: &str, base: &str, ws: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", provider, "--yes", "--workspace"])
        .arg(ws)
        .arg("Fix the failing test.")
        .env(key_var, "test-key")
        .env(base_var, base)
        .env("HOME", ws)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "agent failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn anthropic_agent_loop_fixes_the_test_over_a_local_sse_server() {
    let dir = sample_workspace();
    let ws = dir.path().join("ws");
    let bodies = responses("fix-failing-test.anthropic.sse", "{\"type\":\"message_stop\"}\n\n");
    assert_eq!(bodies.len(), 5);
    let (url, seen) = serve(bodies);
    let out = agent("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", &url, &ws);
    assert!(out.contains("the model stopped (end_turn)"), "{out}");
    let tests = Command::new("python3").args(["-m", "unittest", "-q"]).current_dir(&ws).output().unwrap();
    assert!(tests.status.success(), "{out}\n{}", String::from_utf8_lossy(&tests.stderr));

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 5, "one request per model response");
    let first = &seen[0];
    assert_eq!(first.path, "/v1/messages");
    assert!(first.headers.iter().any(|h| h.eq_ignore_ascii_case("x-api-key: test-key")));
    assert!(first.headers.iter().any(|h| h.eq_ignore_ascii_case("anthropic-version: 2023-06-01")));
    assert_eq!(first.body["stream"], true);
    let tools = first.body["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "edit_file"));
    assert_eq!(tools.last().unwrap()["cache_control"]["type"], "ephemeral");
    // The second request carries the first response back and the test run's result.
    let messages = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[1]["content"][1]["input"]["command"], "python3 -m unittest -q");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_replay_01_0");
    assert_eq!(result["is_error"], true, "the tests failed at first: {result}");
    // The last request holds the passing run.
    let last = seen[4].body["messages"].as_array().unwrap().last().unwrap().clone();
    let text = last["content"][0]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("OK"), "{text}");
}

#[test]
fn openai_agent_loop_streams_chat_chunks_over_a_local_server() {
    let dir = sample_workspace();
    let ws = dir.path().join("ws");
    let bodies = responses("explore.openai.sse", "data: [DONE]\n\n");
    assert_eq!(bodies.len(), 3);
    let (url, seen) = serve(bodies);
    let out = agent("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", &url, &ws);
    assert!(out.contains("the model stopped (stop)"), "{out}");
    assert!(out.contains("(4 calls together"), "{out}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].path, "/chat/completions");
    assert!(seen[0].headers.iter().any(|h| h.eq_ignore_ascii_case("authorization: bearer test-key")));
    let messages = seen[1].body["messages"].as_array().unwrap();
    // system, user, assistant with 4 tool_calls, then 4 tool messages in call order.
    assert_eq!(messages.len(), 7);
    assert_eq!(messages[2]["tool_calls"].as_array().unwrap().len(), 4);
    let ids: Vec<&str> = messages[3..].iter().map(|m| m["tool_call_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["call_replay_01_0", "call_replay_01_1", "call_replay_01_2", "call_replay_01_3"]);
    assert!(messages[6]["content"].as_str().unwrap().contains("sample project"));
}

#[test]
fn without_a_key_it_says_so_and_points_to_replay() {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "openai", "hello"])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("OPENAI_API_KEY is not set") && stderr.contains("toolwright replay"), "{stderr}");
}

#[test]
fn an_api_error_status_is_one_clear_line() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut buf = [0u8; 65536];
        let _ = stream.read(&mut buf);
        let body = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
        let _ = write!(
            stream,
            "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "anthropic", "--workspace"])
        .arg(dir.path())
        .arg("hello")
        .env("ANTHROPIC_API_KEY", "bad")
        .env("ANTHROPIC_BASE_URL", &url)
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("401") && stderr.contains("invalid x-api-key"), "{stderr}");
}
