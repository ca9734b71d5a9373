//! What 100 background children cost in memory while they all wait on their model:
//! the live heap (dhat) with them running against the heap before they started, and
//! after they ended and the runtime was dropped (nothing kept).
//!
//! Run: `cargo bench --bench subagents_memory`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use toolwright::agent::{Agent, Body, Model, ModelError, RecordedModel, RetryPolicy};
use toolwright::orchestrate::Orchestrator;
use toolwright::provider::Api;
use toolwright::subagents::{ChildRequest, Limits, Subagents};
use toolwright::{BoxFuture, TurnContext};

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// One Anthropic response: `calls` as tool_use blocks, or `text` alone.
fn response(text: &str, calls: &[(&str, Value)]) -> String {
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "r",
            "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    if calls.is_empty() {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        );
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        );
        out += &event("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
    }
    for (i, (name, input)) in calls.iter().enumerate() {
        out += &event(
            "content_block_start",
            json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": name, "input": {}}}),
        );
        out += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
        );
        out += &event("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    let stop = if calls.is_empty() { "end_turn" } else { "tool_use" };
    out += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}),
    );
    out + &event("message_stop", json!({"type": "message_stop"}))
}

/// The live heap, in kB.
fn heap_kb() -> u64 {
    dhat::HeapStats::get().curr_bytes as u64 / 1024
}

/// A recorded model whose answers wait for `gate` to open.
struct Gated {
    inner: RecordedModel,
    gate: tokio::sync::watch::Receiver<bool>,
}

impl Model for Gated {
    fn api(&self) -> Api {
        self.inner.api()
    }
    fn name(&self) -> &str {
        "gated"
    }
    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>> {
        Box::pin(async move {
            let mut gate = self.gate.clone();
            let _ = gate.wait_for(|open| *open).await;
            self.inner.send(body).await
        })
    }
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor =
        toolwright::Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let orchestrator = Arc::new(Orchestrator::new(Arc::new(executor)));
    let read = ("read_file", json!({"path": "notes.txt"}));
    println!("-- 100 background children waiting on their model");
    for round in 1..=3 {
        let (open, gate) = tokio::sync::watch::channel(false);
        let calls: Vec<(&str, Value)> = (0..100)
            .map(|i| {
                (
                    "Agent",
                    json!({"description": format!("c{i}"), "prompt": "Read notes.txt", "run_in_background": true}),
                )
            })
            .collect();
        let main_session = response("", &calls) + &response("started", &[]);
        let child_session = response("", std::slice::from_ref(&read)) + &response("42", &[]);
        let models = move |_: &ChildRequest<'_>| -> Result<Arc<dyn Model>, String> {
            let inner = RecordedModel::from_session(&child_session).unwrap();
            Ok(Arc::new(Gated { inner, gate: gate.clone() }))
        };
        let main: Arc<dyn Model> = Arc::new(RecordedModel::from_session(&main_session).unwrap());
        let subagents = Subagents::builder(Arc::clone(&orchestrator), Arc::clone(&main))
            .models(models)
            .limits(Limits::default().max_running(200))
            .build();
        subagents.install(&registry).unwrap();
        let agent = Agent::new_shared(main, Arc::clone(&orchestrator)).retry(RetryPolicy::none());
        let mut turn =
            TurnContext::new(dir.path()).with_extensions(subagents.extensions(toolwright::builtin::session()));
        let before = heap_kb();
        rt.block_on(agent.run("t", &mut turn, &mut ())).unwrap();
        assert_eq!(subagents.running(), 100);
        let during = heap_kb();
        open.send(true).unwrap();
        rt.block_on(async {
            while subagents.running() > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        assert!(subagents.reports().iter().all(|r| r.text == "42"));
        drop(agent);
        drop(turn);
        drop(subagents);
        let after = heap_kb();
        println!(
            "round {round}: live heap {before} kB before, {during} kB with 100 running: +{} kB, {:.1} kB a child; {after} kB once they ended and the runtime was dropped",
            during.saturating_sub(before),
            during.saturating_sub(before) as f64 / 100.0
        );
    }
}
