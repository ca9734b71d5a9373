//! What a subagent costs: a task done by a child against the same task done by a
//! direct call, on recorded models with no latency, alternating in one loop (the
//! memory of background children: `benches/subagents_memory.rs`).
//!
//! Run: `cargo bench --bench subagents`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::TurnContext;
use toolwright::agent::{Agent, RecordedModel, RetryPolicy};
use toolwright::orchestrate::Orchestrator;
use toolwright::subagents::{RecordedTree, Subagents};

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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor =
        toolwright::Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let orchestrator = Arc::new(Orchestrator::new(Arc::new(executor)));
    let read = ("read_file", json!({"path": "notes.txt"}));
    let direct_session = response("", std::slice::from_ref(&read)) + &response("42", &[]);
    let delegated = format!(
        "--- agent: main\n{}{}--- agent: read\n{}{}",
        response("", &[("Agent", json!({"description": "read", "prompt": "Read notes.txt"}))]),
        response("42", &[]),
        response("", std::slice::from_ref(&read)),
        response("42", &[])
    );

    let direct = || {
        let model = RecordedModel::from_session(&direct_session).unwrap();
        let agent = Agent::new(model, Arc::clone(&orchestrator)).retry(RetryPolicy::none());
        let mut turn = TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
        let started = Instant::now();
        let outcome = rt.block_on(agent.run("t", &mut turn, &mut ())).unwrap();
        assert_eq!(outcome.text, "42");
        started.elapsed()
    };
    let child = || {
        let tree = RecordedTree::parse(&delegated).unwrap();
        let main = tree.main();
        let subagents = Subagents::builder(Arc::clone(&orchestrator), main.clone()).models(tree).build();
        subagents.install(&registry).unwrap();
        let agent = Agent::new_shared(main, Arc::clone(&orchestrator)).retry(RetryPolicy::none());
        let mut turn =
            TurnContext::new(dir.path()).with_extensions(subagents.extensions(toolwright::builtin::session()));
        let started = Instant::now();
        let outcome = rt.block_on(agent.run("t", &mut turn, &mut ())).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(outcome.text, "42");
        assert_eq!(subagents.reports()[0].tool_calls, 1);
        elapsed
    };
    for _ in 0..20 {
        direct();
        child();
    }
    println!("-- a task by a child against the same task by a direct call (recorded models, no latency)");
    for round in 1..=3 {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..200 {
            a.push(direct());
            b.push(child());
        }
        let (a, b) = (median(a), median(b));
        println!(
            "round {round}: direct {:.1} us, by a child {:.1} us: the child adds {:.1} us ({:.2}x)",
            us(a),
            us(b),
            us(b) - us(a),
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}
