//! `replay` exporting its spans over OTLP/HTTP to a receiver on 127.0.0.1 when the
//! standard variables say where: names, attributes and parent links as the GenAI
//! conventions draw them, and the export drawn again as a timeline.

#[path = "otlp_export/grpc.rs"]
mod grpc;
#[path = "../../tests/common/http.rs"]
mod http;

use serde_json::Value;
use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output};
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

/// `replay trouble --deny` (five calls, two denied) exporting to `url`.
fn replay_exporting(dir: &std::path::Path, url: &str, protocol: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "trouble", "--deny"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .output()
        .unwrap()
}

/// `replay --pace 200` exporting to `url`, stopped by SIGTERM while it runs; its
/// exit status.
fn replay_stopped(dir: &std::path::Path, url: &str, protocol: &str) -> std::process::ExitStatus {
    use std::io::BufRead as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "--pace", "200"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    // The first batch has run and ended; the replay is far from done.
    let mut line = String::new();
    while !line.contains("batch 1:") {
        line.clear();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the replay ended before its first batch");
    }
    let killed = Command::new("kill").args(["-s", "TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("replay did not exit within 10 s of SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
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
    let out = replay_exporting(dir.path(), &url, "http/json");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all = got.lock().unwrap().clone();
    let bodies: Vec<(String, Value)> = all.iter().filter(|(path, _)| path == "/v1/traces").cloned().collect();
    assert!(!bodies.is_empty(), "no spans exported: {:?}", all.iter().map(|b| &b.0).collect::<Vec<_>>());
    // The conventions' duration metric, per operation.
    let metrics: Vec<&Value> = all.iter().filter(|(path, _)| path == "/v1/metrics").map(|(_, b)| b).collect();
    let text = serde_json::to_string(&metrics).unwrap();
    assert!(text.contains("\"gen_ai.client.operation.duration\""), "{text}");
    // Its unit and the buckets the conventions advise.
    let duration = metrics
        .iter()
        .flat_map(|b| b["resourceMetrics"].as_array().cloned().unwrap_or_default())
        .flat_map(|r| r["scopeMetrics"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["metrics"].as_array().cloned().unwrap_or_default())
        .find(|m| m["name"] == "gen_ai.client.operation.duration")
        .unwrap();
    assert_eq!(duration["unit"], "s", "{duration}");
    let bounds = &duration["histogram"]["dataPoints"][0]["explicitBounds"];
    assert_eq!(bounds[0], 0.01, "{duration}");
    assert_eq!(bounds[13], 81.92, "{duration}");
    for operation in ["execute_tool", "chat"] {
        assert!(text.contains(&format!("{{\"stringValue\":\"{operation}\"}}")), "{operation}: {text}");
    }
    let resource = &bodies[0].1["resourceSpans"][0]["resource"];
    assert!(resource.to_string().contains("\"toolwright\""), "service.name: {resource}");
    let spans = spans(&bodies);
    let text = serde_json::to_string(&spans).unwrap();
    assert!(!text.contains("histogram"), "metric events are not span events");
    // No content without opting in, not even through another crate's debug events
    // (the shell parser's tokens of `rm -rf build`).
    assert!(!text.contains("-rf"), "a command reached the export: {text}");
    assert!(!text.contains("busy_ns"), "no attributes outside the conventions");
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
    // Counts are the conventions' ints, not their text.
    for span in chats.iter().copied().chain([run]) {
        for key in ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"] {
            let value = attr(span, key).unwrap_or_else(|| panic!("{key} on {}", span["name"]));
            assert!(value["intValue"].as_str().is_some_and(|n| n.parse::<i64>().is_ok()), "{key}: {value}");
        }
    }
    assert!(chats.iter().all(|c| attr(c, "gen_ai.request.max_tokens").is_some_and(|v| v.get("intValue").is_some())));
    // And why the model stopped is the conventions' string array.
    for chat in &chats {
        let reasons = attr(chat, "gen_ai.response.finish_reasons").expect("finish reasons");
        let values = reasons["arrayValue"]["values"].as_array().unwrap_or_else(|| panic!("not an array: {reasons}"));
        assert!(!values.is_empty() && values.iter().all(|v| v["stringValue"].is_string()), "{reasons}");
    }

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

#[test]
fn a_stop_signal_still_sends_the_spans_so_far() {
    let (url, got) = receiver();
    let dir = tempfile::tempdir().unwrap();
    let status = replay_stopped(dir.path(), &url, "http/json");
    assert_eq!(status.code(), Some(143), "{status:?}");
    let bodies: Vec<(String, Value)> =
        got.lock().unwrap().iter().filter(|(path, _)| path == "/v1/traces").cloned().collect();
    let spans = spans(&bodies);
    assert!(
        spans.iter().any(|s| s["name"].as_str().is_some_and(|n| n.starts_with("execute_tool "))),
        "no call spans sent before exiting: {spans:?}"
    );
}

#[test]
fn a_collector_that_never_answers_is_a_warning_not_a_hang() {
    // It takes connections and says nothing.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["replay", "trouble", "--deny"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The export's own timeouts bound the exit (5 s, spans and metrics side by side).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "replay hung on a silent collector");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("warning: exporting the last spans"), "{stderr}");
}

#[test]
fn each_signal_goes_where_its_own_variables_say() {
    let run = |env: &[(&str, &str)]| -> Vec<String> {
        let (url, got) = receiver();
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command.args(["replay", "trouble", "--deny"]).current_dir(dir.path()).env("HOME", dir.path());
        command.env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
        for (name, value) in env {
            command.env(name, value.replace("{url}", &url));
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut paths: Vec<String> = got.lock().unwrap().iter().map(|(path, _)| path.clone()).collect();
        paths.sort();
        paths.dedup();
        paths
    };
    assert_eq!(run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "{url}")]), ["/v1/metrics", "/v1/traces"]);
    assert_eq!(run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "{url}"), ("OTEL_METRICS_EXPORTER", "none")]), ["/v1/traces"]);
    assert_eq!(
        run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "{url}"), ("OTEL_TRACES_EXPORTER", "none")]),
        ["/v1/metrics"],
        "the metric is recorded on spans that are not exported"
    );
    // A signal's own endpoint is its whole URL; the other signal has none.
    assert_eq!(run(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "{url}/custom/traces")]), ["/custom/traces"]);
    assert_eq!(run(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "{url}"), ("OTEL_SDK_DISABLED", "true")]), Vec::<String>::new());
}
