//! Streaming execution: calls start while the model is still streaming. An
//! Anthropic SSE stream (inline here; `toolwright replay` plays whole sessions) is
//! decoded into stream events and run by the orchestrator as inputs complete.
//!
//! Run: `cargo run --example streaming`

use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::orchestrate::{CallEvent, Orchestrator};
use toolwright::permission::AllowAll;
use toolwright::streaming::decode;
use toolwright::streaming::sse::SseParser;
use toolwright::{Executor, TurnContext};

const STREAM: &str = r#"event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"list_dir","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \".\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"glob","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"**/*.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_3","name":"shell","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"echo done\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("a.txt"), "a")?;
    let registry = Arc::new(toolwright::registry()?);
    let orchestrator = Orchestrator::new(Arc::new(Executor::builder(registry).policy(AllowAll).build()));
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    // The "network": SSE bytes in small pieces, 20 ms apart.
    let feeder = tokio::spawn(async move {
        let (mut sse, mut decoder) = (SseParser::default(), decode::Anthropic::default());
        for piece in STREAM.as_bytes().chunks(64) {
            tokio::time::sleep(Duration::from_millis(20)).await;
            for event in sse.push(piece) {
                let json: serde_json::Value = serde_json::from_str(&event.data).expect("the stream above is JSON");
                for stream_event in decoder.push(&json) {
                    let _ = tx.send(stream_event).await;
                }
            }
        }
    });
    let started = Instant::now();
    let mut turn = TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let results = orchestrator
        .run_streaming(rx, &mut turn, None, |event| {
            let at = started.elapsed().as_millis();
            match event {
                CallEvent::Queued { index, call } => {
                    println!("{at:>5} ms  call {index} input complete: {}", call.summary_line())
                }
                CallEvent::Started { index, call, concurrency_safe, .. } => {
                    println!("{at:>5} ms  call {index} ({}) started (concurrency-safe: {concurrency_safe})", call.name)
                }
                CallEvent::Finished { index, result, .. } => {
                    println!("{at:>5} ms  call {index} finished: {}", result.result_line())
                }
                _ => {}
            }
        })
        .await;
    feeder.await?;
    println!("\n{} results, in call order:", results.len());
    for result in &results {
        println!("  {} {}", result.tool, result.output.text_content().replace('\n', " | "));
    }
    Ok(())
}
