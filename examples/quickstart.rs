//! Define a tool, register it, render its schema, call it.
//!
//! Run: `cargo run --example quickstart`

use std::sync::Arc;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

/// Add two numbers.
///
/// Use it for exact arithmetic instead of doing sums in your head.
#[tool(read_only, pure, concurrency_safe, idempotent)]
pub struct Add {
    /// The first number.
    pub a: f64,
    /// The second number.
    pub b: f64,
}

impl Tool for Add {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok((self.a + self.b).to_string())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Arc::new(Registry::builder().register::<Add>().build()?);
    println!("Anthropic tools: {}", registry.definitions(Provider::ANTHROPIC)?);
    println!("OpenAI strict:   {}", registry.definitions(Provider::OpenAiChat { strict: true })?);

    let executor = Executor::new(registry);
    let turn = TurnContext::new(".");
    let sum = executor.execute(&ToolCall::new("call_1", "add", r#"{"a": 2, "b": 40}"#), &turn).await;
    println!("add(2, 40) = {}", sum.output.text_content());

    // A model's mistake is a result it can act on, not a crash.
    let bad = executor.execute(&ToolCall::new("call_2", "add", r#"{"a": "two"}"#), &turn).await;
    println!("bad call: {}", bad.output.text_content());
    Ok(())
}
