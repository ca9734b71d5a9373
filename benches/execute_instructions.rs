//! The per-call loop that `benches/instructions.sh` runs under callgrind: instruction
//! counts are repeatable on a noisy machine, where wall-clock ratios move 10-20%.
//! `BASELINE=1` runs the hand-written match + parse + render; `N` sets the calls.
#![allow(missing_docs)]

use std::sync::Arc;
use toolwright::adapters::anthropic;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

/// Do nothing.
#[tool(read_only, concurrency_safe)]
pub struct Noop {
    pub value: u32,
}
impl Tool for Noop {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("got {}", self.value))
    }
}

async fn baseline(name: &str, id: &str, input: &str, cx: &ToolContext) -> String {
    let (text, is_error) = match name {
        "noop" => match serde_json::from_str::<Noop>(input) {
            Ok(args) => match args.call(cx).await {
                Ok(out) => (out, false),
                Err(e) => (e.to_string(), true),
            },
            Err(e) => (e.to_string(), true),
        },
        other => (format!("unknown tool {other}"), true),
    };
    let mut block =
        serde_json::json!({"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": text}]});
    if is_error {
        block["is_error"] = serde_json::Value::Bool(true);
    }
    serde_json::to_string(&block).unwrap()
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ex =
        Executor::builder(Arc::new(Registry::builder().register::<Noop>().build().unwrap())).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let call = ToolCall::new("toolu_01", "noop", r#"{"value": 7}"#);
    let cx = ToolContext::new(".");
    let base = std::env::var("BASELINE").is_ok_and(|v| v == "1");
    rt.block_on(async {
        let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        for _ in 0..n {
            if base {
                std::hint::black_box(baseline("noop", "toolu_01", r#"{"value": 7}"#, &cx).await);
            } else {
                let r = ex.execute(&call, &turn).await;
                std::hint::black_box(serde_json::to_string(&anthropic::tool_result(&r)).unwrap());
            }
        }
    });
}
