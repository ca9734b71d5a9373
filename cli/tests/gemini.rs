//! `agent --provider gemini` against a local stand-in for Gemini's
//! `streamGenerateContent` (SSE): the request as the API documents it (the model in
//! the path, the key header, `systemInstruction`, function declarations beside
//! `google_search`), a call run and answered with a `functionResponse`, the model's
//! parts (a `thoughtSignature` included) sent back as they came, and the grounding
//! of a search shown in the trace.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::http::{Seen, read_request};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A stand-in answering the n-th request with `replies[n]`'s chunks as SSE; the
/// requests seen.
fn stand_in(replies: Vec<Vec<Value>>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().flatten().enumerate() {
            log.lock().unwrap().push(read_request(&stream));
            let chunks = replies.get(n).cloned().unwrap_or_default();
            let body: String = chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect();
            let mut out = stream;
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

#[test]
fn gemini_runs_a_call_keeps_its_signature_and_shows_its_google_search() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let call_part =
        json!({"functionCall": {"name": "list_dir", "args": {"path": "."}}, "thoughtSignature": "c2lnbmF0dXJl"});
    let first = vec![
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me "}]}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "look."}, call_part.clone()]},
            "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20}}),
    ];
    let grounding = json!({
        "webSearchQueries": ["tokio 2.0 release"],
        "groundingChunks": [{"web": {"uri": "https://tokio.rs/blog/2026-tokio-2", "title": "tokio.rs"}}],
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 17, "text": "Tokio 2.0 is out."}, "groundingChunkIndices": [0]}]
    });
    let second = vec![json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Tokio 2.0 is out."}]},
        "finishReason": "STOP", "groundingMetadata": grounding}],
        "usageMetadata": {"promptTokenCount": 150, "candidatesTokenCount": 10, "cachedContentTokenCount": 50}})];
    let (url, seen) = stand_in(vec![first, second]);
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "gemini", "--model", "gemini-3-flash", "--json", "--web-search", "--workspace"])
        .arg(dir.path())
        .arg("What is in the folder, and what is new in tokio?")
        .env("GEMINI_API_KEY", "gemini-secret")
        .env("GEMINI_BASE_URL", &url)
        .env("HOME", home.path())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let (path, headers, body) = (&seen[0].path, &seen[0].headers, &seen[0].body);
    assert_eq!(path, "/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse");
    assert!(headers.iter().any(|h| h == "x-goog-api-key: gemini-secret"), "{headers:?}");
    assert!(body["systemInstruction"]["parts"][0]["text"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(
        body["contents"][0],
        json!({"role": "user", "parts": [{"text": "What is in the folder, and what is new in tokio?"}]})
    );
    let tools = body["tools"].as_array().unwrap();
    let declared: Vec<&str> =
        tools[0]["functionDeclarations"].as_array().unwrap().iter().filter_map(|d| d["name"].as_str()).collect();
    assert!(declared.contains(&"list_dir"), "{declared:?}");
    assert!(tools[0]["functionDeclarations"][0].get("parametersJsonSchema").is_some());
    assert_eq!(tools.last().unwrap(), &json!({"google_search": {}}));
    assert!(body["generationConfig"]["maxOutputTokens"].as_u64().is_some());
    assert!(body.get("model").is_none() && body.get("stream").is_none(), "the model is in the path");
    // The second request: the model's turn as it came, then the result.
    let contents = seen[1].body["contents"].as_array().unwrap().clone();
    assert_eq!(contents[1], json!({"role": "model", "parts": [{"text": "Let me look."}, call_part]}));
    assert_eq!(contents[2]["role"], "user");
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "list_dir");
    assert!(response["response"]["output"].as_str().unwrap().contains("notes.txt"), "{response}");
    assert!(response.get("id").is_none(), "an id Gemini did not give is not sent");
    // The search, and what it found, in the trace.
    assert!(shown.contains("\"type\":\"server_tool\"") && shown.contains("tokio 2.0 release"), "{shown}");
    assert!(
        shown.contains("\"type\":\"server_tool_result\"") && shown.contains("https://tokio.rs/blog/2026-tokio-2"),
        "{shown}"
    );
    // Settings google_search does not take are refused before anything is sent.
    let refused = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args([
            "agent",
            "--provider",
            "gemini",
            "--web-search",
            "--web-search-allowed-domain",
            "tokio.rs",
            "--workspace",
        ])
        .arg(dir.path())
        .arg("x")
        .env("GEMINI_API_KEY", "k")
        .env("GEMINI_BASE_URL", "http://127.0.0.1:9")
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("gemini's web search takes no domain lists"));
}
