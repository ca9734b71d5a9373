//! `replay` exporting its spans and the duration metric over OTLP/gRPC
//! (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) to a receiver on 127.0.0.1: an HTTP/2
//! server that decodes each export as the collector's service would.

use bytes::Bytes;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use std::sync::{Arc, Mutex};

/// Each gRPC call received: its method path and its message.
type Received = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// An OTLP/gRPC receiver (HTTP/2 with prior knowledge, as gRPC without TLS is).
fn receiver() -> (String, Received) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let got: Received = Arc::default();
    let kept = Arc::clone(&got);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((tcp, _)) = listener.accept().await {
                let kept = Arc::clone(&kept);
                tokio::spawn(async move {
                    let Ok(mut connection) = h2::server::handshake(tcp).await else { return };
                    while let Some(Ok((request, respond))) = connection.accept().await {
                        tokio::spawn(answer(request, respond, Arc::clone(&kept)));
                    }
                });
            }
        });
    });
    (url, got)
}

/// Reads one unary call and answers it with an empty message and `grpc-status: 0`.
async fn answer(request: http::Request<h2::RecvStream>, mut respond: h2::server::SendResponse<Bytes>, kept: Received) {
    let path = request.uri().path().to_owned();
    let grpc = request.headers().get("content-type").is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    let mut body = request.into_body();
    let mut bytes = Vec::new();
    while let Some(Ok(chunk)) = body.data().await {
        let _ = body.flow_control().release_capacity(chunk.len());
        bytes.extend_from_slice(&chunk);
    }
    // A gRPC message: an uncompressed flag, its length, then the protobuf.
    if grpc && bytes.len() >= 5 && bytes[0] == 0 {
        let length = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]) as usize;
        if let Some(message) = bytes.get(5..5 + length) {
            kept.lock().unwrap().push((path, message.to_vec()));
        }
    }
    let response = http::Response::builder().status(200).header("content-type", "application/grpc").body(()).unwrap();
    let Ok(mut stream) = respond.send_response(response, false) else { return };
    let _ = stream.send_data(Bytes::from_static(&[0, 0, 0, 0, 0]), false);
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
    let _ = stream.send_trailers(trailers);
}

/// Every span of every trace export received.
fn spans(got: &Received) -> Vec<Span> {
    got.lock()
        .unwrap()
        .iter()
        .filter(|(path, _)| path == "/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        .map(|(_, message)| ExportTraceServiceRequest::decode(message.as_slice()).unwrap())
        .flat_map(|t| t.resource_spans)
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect()
}

fn attr<'a>(span: &'a Span, key: &str) -> Option<&'a Any> {
    span.attributes.iter().find(|a| a.key == key)?.value.as_ref()?.value.as_ref()
}

fn text<'a>(span: &'a Span, key: &str) -> Option<&'a str> {
    match attr(span, key)? {
        Any::StringValue(s) => Some(s),
        _ => None,
    }
}

#[test]
fn spans_and_the_metric_go_over_grpc_when_the_protocol_says_so() {
    let (url, got) = receiver();
    let dir = tempfile::tempdir().unwrap();
    let out = super::replay_exporting(dir.path(), &url, "grpc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let all = got.lock().unwrap().clone();
    let spans = spans(&got);
    assert!(!spans.is_empty(), "no spans exported: {:?}", all.iter().map(|c| &c.0).collect::<Vec<_>>());
    let run = spans.iter().find(|s| s.name == "invoke_agent main").expect("the run's span");
    let calls: Vec<&Span> = spans.iter().filter(|s| text(s, "gen_ai.operation.name") == Some("execute_tool")).collect();
    assert_eq!(calls.len(), 5, "one span per call");
    for call in &calls {
        let tool = text(call, "gen_ai.tool.name").unwrap();
        assert_eq!(call.name, format!("execute_tool {tool}"));
        assert_eq!(call.parent_span_id, run.span_id, "a call is the run's child");
        assert_eq!(call.trace_id, run.trace_id);
    }
    assert_eq!(calls.iter().filter(|c| text(c, "error.type") == Some("denied")).count(), 2);

    let metrics: Vec<String> = all
        .iter()
        .filter(|(path, _)| path == "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export")
        .map(|(_, message)| ExportMetricsServiceRequest::decode(message.as_slice()).unwrap())
        .flat_map(|m| m.resource_metrics)
        .flat_map(|r| r.scope_metrics)
        .flat_map(|s| s.metrics)
        .map(|m| m.name)
        .collect();
    assert!(metrics.iter().any(|m| m == "gen_ai.client.operation.duration"), "{metrics:?}");
}

#[test]
fn a_stop_signal_still_sends_the_spans_so_far_over_grpc() {
    let (url, got) = receiver();
    let dir = tempfile::tempdir().unwrap();
    let status = super::replay_stopped(dir.path(), &url, "grpc");
    assert_eq!(status.code(), Some(143), "{status:?}");
    let names: Vec<String> = spans(&got).into_iter().map(|s| s.name).collect();
    assert!(names.iter().any(|n| n.starts_with("execute_tool ")), "no call spans sent before exiting: {names:?}");
}
