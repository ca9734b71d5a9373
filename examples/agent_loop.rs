//! The agent loop with toolwright's pieces: tool definitions for the request, the
//! model's calls parsed from its message, run by the orchestrator (safe calls
//! together), results rendered back. The "model" here is scripted so the example
//! runs anywhere; `toolwright agent` does the same against the real APIs.
//!
//! Run: `cargo run --example agent_loop`

use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::adapters::anthropic;
use toolwright::orchestrate::Orchestrator;
use toolwright::permission::AllowAll;
use toolwright::{Executor, Provider, TurnContext};

/// A stand-in for the Messages API: the next assistant message for a conversation.
fn model(messages: &[Value]) -> Value {
    match messages.len() {
        1 => json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me look around."},
            {"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": {"path": "."}},
            {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "todo.txt"}},
        ]}),
        3 => json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_3", "name": "edit_file",
             "input": {"path": "todo.txt", "old_string": "- [ ] write the example", "new_string": "- [x] write the example"}},
        ]}),
        _ => json!({"role": "assistant", "content": [{"type": "text", "text": "Done: the item is ticked."}]}),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("todo.txt"), "- [ ] write the example\n")?;
    let registry = Arc::new(toolwright::registry()?);
    // What the request's `tools` holds, rendered once and cached.
    let tools = registry.definitions(Provider::Anthropic { strict: false, cache_control: true })?;
    println!("request carries {} bytes of tool definitions", tools.as_str().len());

    let orchestrator = Orchestrator::new(Arc::new(Executor::builder(registry).policy(AllowAll).build()));
    let mut turn = TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let mut messages = vec![json!({"role": "user", "content": "Tick the item in todo.txt."})];
    loop {
        let reply = model(&messages);
        let calls = anthropic::tool_calls(&reply)?;
        messages.push(reply);
        if calls.is_empty() {
            println!("assistant: {}", messages.last().unwrap()["content"][0]["text"].as_str().unwrap_or_default());
            break;
        }
        let results = orchestrator.run(&calls, &mut turn).await;
        for (call, result) in calls.iter().zip(&results) {
            println!("{} -> {}", result.summary_line(call), result.result_line());
        }
        messages.push(anthropic::results_message(&results, []));
    }
    println!("todo.txt now: {}", std::fs::read_to_string(dir.path().join("todo.txt"))?.trim());
    Ok(())
}
