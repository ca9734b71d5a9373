//! `replay` exporting its spans over OTLP/HTTP to a receiver on 127.0.0.1 when the
//! standard variables say where: names, attributes and parent links as the GenAI
//! conventions draw them, and the export drawn again as a timeline.

#[path = "../../tests/common/http.rs"]
mod http;

use serde_json::Value;
use std::io::Write;
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// Each export received: its path and its JSON body.
type Received = Arc<Mutex<Vec<(String, Value)>>>;

/// An OTLP/HTTP JSON receiver: every body posted to /v1/traces.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let got: Received = Arc::default();
    let kept = Arc::clone(&got);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let seen = http::read_request(&stream);
            // The protocol asked for: JSON, not protobuf.
            if seen.headers.iter().any(|h| h == "content-type: application/json") {
                kept.lock().unwrap().push((seen.path, seen.body));
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
            );
        }
    });
    (url, got)
}

fn spans(bodies: &[(String, Value)]) -> Vec<Value> {
    bodies
        .iter()
        .flat_map(|(_, b)| b["resourceSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["spans"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn attr<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"].as_array()?.iter().find(|a| a["key"] == key).map(|a| &a["value"])
}

#[test]
fn spans_go_to_the_otlp_endpoint_in_the_genai_conventions() {
    let (url, got) = receiver();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "trouble", "--deny"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all = got.lock().unwrap().clone();
    let bodies: Vec<(String, Value)> = all.iter().filter(|(path, _)| path == "/v1/traces").cloned().collect();
    assert!(!bodies.is_empty(), "no spans exported: {:?}", all.iter().map(|b| &b.0).collect::<Vec<_>>());
    // The conventions' duration metric, per operation.
    let metrics: Vec<&Value> = all.iter().filter(|(path, _)| path == "/v1/metrics").map(|(_, b)| b).collect();
    let text = serde_json::to_string(&metrics).unwrap();
    assert!(text.contains("\"gen_ai.client.operation.duration\""), "{text}");
    for operation in ["execute_tool", "chat"] {
        assert!(text.contains(&format!("{{\"stringValue\":\"{operation}\"}}")), "{operation}: {text}");
    }
    let resource = &bodies[0].1["resourceSpans"][0]["resource"];
    assert!(resource.to_string().contains("\"toolwright\""), "service.name: {resource}");
    let spans = spans(&bodies);
    assert!(!serde_json::to_string(&spans).unwrap().contains("histogram"), "metric events are not span events");
    let run = spans.iter().find(|s| s["name"] == "invoke_agent main").expect("the run's span");
    let calls: Vec<&Value> = spans
        .iter()
        .filter(|s| attr(s, "gen_ai.operation.name").is_some_and(|v| v["stringValue"] == "execute_tool"))
        .collect();
    assert_eq!(calls.len(), 5, "one span per call");
    for call in &calls {
        let tool = attr(call, "gen_ai.tool.name").unwrap()["stringValue"].as_str().unwrap();
        assert_eq!(call["name"], format!("execute_tool {tool}"));
        assert_eq!(call["parentSpanId"], run["spanId"], "a call is the run's child");
        assert_eq!(call["kind"], 1, "internal");
        assert!(attr(call, "gen_ai.tool.call.id").is_some());
        assert!(attr(call, "gen_ai.tool.call.arguments").is_none(), "no content unless opted in");
    }
    let denied: Vec<_> =
        calls.iter().filter(|c| attr(c, "error.type").is_some_and(|v| v["stringValue"] == "denied")).collect();
    assert_eq!(denied.len(), 2);
    assert!(denied.iter().all(|c| c["status"]["code"] == 2), "an error status");
    let chats: Vec<_> = spans.iter().filter(|s| s["name"].as_str().is_some_and(|n| n.starts_with("chat "))).collect();
    assert!(!chats.is_empty() && chats.iter().all(|c| c["parentSpanId"] == run["spanId"] && c["kind"] == 3));

    // The export is a trace `toolwright timeline` draws.
    let export = serde_json::json!({"resourceSpans": bodies.iter().flat_map(|(_, b)| b["resourceSpans"].as_array().cloned().unwrap_or_default()).collect::<Vec<_>>()});
    std::fs::write(dir.path().join("export.json"), export.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["timeline", "export.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("export.html")).unwrap();
    assert_eq!(html.matches("class=\"bar call ").count(), 5);
    assert_eq!(html.matches("data-status=\"denied\"").count(), 2);
}
