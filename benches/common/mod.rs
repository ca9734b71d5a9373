//! The no-op tool and the hand-written baseline that the pipeline benchmarks share.
// Each bench uses the part it needs.
#![allow(dead_code)]

use toolwright::adapters::anthropic;
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

/// A typical small input.
pub const INPUT: &str = r#"{"value": 7}"#;

/// What a hand-rolled agent would write: match the name, parse, call, render.
pub async fn baseline(name: &str, id: &str, input: &str, cx: &ToolContext) -> String {
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

/// The same through toolwright: execute, then render with the Anthropic adapter.
pub async fn toolwright_call(ex: &Executor, turn: &TurnContext, call: &ToolCall) -> String {
    let result = ex.execute(call, turn).await;
    serde_json::to_string(&anthropic::tool_result(&result)).unwrap()
}

/// A current-thread runtime with the timer.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The hand-written limit: match the name, parse, call, the output as JSON text.
pub async fn hand_match(name: &str, input: &str, cx: &ToolContext) -> String {
    let out = match name {
        "noop" => match serde_json::from_str::<Noop>(input) {
            Ok(args) => args.call(cx).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        },
        other => Err(format!("unknown tool {other}")),
    };
    serde_json::to_string(&out.unwrap_or_else(|e| e)).unwrap()
}

/// The hand-written match with the one cost no registry of type-erased tools can
/// avoid: the tool's call as a boxed `dyn Future` (what `DynTool`, rmcp's router and
/// rig's tool set all pay). The floor for `resolve` + `call_raw`.
pub async fn hand_erased(name: &str, input: &str, cx: &ToolContext) -> String {
    let out = match name {
        "noop" => match serde_json::from_str::<Noop>(input) {
            Ok(args) => {
                let call: BoxedCall<'_> = Box::pin(args.call(cx));
                // Opaque, so the compiler can neither see through the box nor drop it.
                std::hint::black_box(call).await.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        },
        other => Err(format!("unknown tool {other}")),
    };
    serde_json::to_string(&out.unwrap_or_else(|e| e)).unwrap()
}

type BoxedCall<'a> = std::pin::Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + 'a>>;

/// [`hand_erased`] and the two clock reads a result's documented `duration` takes:
/// the floor for `execute`, whatever else the pipeline does.
pub async fn hand_erased_timed(name: &str, input: &str, cx: &ToolContext) -> String {
    let start = std::time::Instant::now();
    let text = hand_erased(name, input, cx).await;
    std::hint::black_box(start.elapsed());
    text
}

/// `Executor::execute` alone, its output's text as JSON text.
pub async fn execute_text(ex: &Executor, turn: &TurnContext, call: &ToolCall) -> String {
    let result = ex.execute(call, turn).await;
    json_text(&result.output)
}

/// `Registry::resolve` + `call_raw`, the output's text as JSON text.
pub async fn resolve_call(registry: &Registry, name: &str, input: &str, cx: &ToolContext) -> String {
    let output = match registry.resolve(name) {
        Ok(resolved) => toolwright::call_raw(resolved.tool().as_ref(), input.as_bytes(), cx).await,
        Err(e) => toolwright::ToolOutput::error(e.to_string()),
    };
    json_text(&output)
}

fn json_text(output: &toolwright::ToolOutput) -> String {
    match output.content.as_slice() {
        [toolwright::Content::Text(text)] => serde_json::to_string(text).unwrap(),
        _ => serde_json::to_string(&output.text_content()).unwrap(),
    }
}
