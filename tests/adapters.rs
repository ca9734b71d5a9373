//! Provider adapters: real response shapes in, calls executed, results rendered in
//! each provider's format.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::adapters::{anthropic, gemini, openai_chat, openai_responses};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, ToolResult, TurnContext};

/// Add two numbers.
#[tool(read_only, pure, concurrency_safe)]
pub struct Add {
    pub a: i64,
    pub b: i64,
}
impl Tool for Add {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok((self.a + self.b).to_string())
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Stats {
    pub files: u32,
}

/// Report stats.
#[tool(read_only, pure)]
pub struct Report;
impl Tool for Report {
    type Output = Json<Stats>;
    async fn call(self, _cx: &ToolContext) -> Result<Json<Stats>, ToolError> {
        Ok(Json(Stats { files: 3 }))
    }
}

/// Return a picture.
#[tool(read_only, pure)]
pub struct Picture;
impl Tool for Picture {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            content: vec![
                Content::Text("a dot".into()),
                Content::Image { media_type: "image/png".into(), data: "iVBORw0K".into() },
            ],
            ..ToolOutput::default()
        })
    }
}

async fn execute_all(calls: &[ToolCall]) -> Vec<ToolResult> {
    let ex = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let mut results = Vec::new();
    for call in calls {
        results.push(ex.execute(call, &turn).await);
    }
    results
}

#[tokio::test]
async fn anthropic_round_trip() {
    let message = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Let me add those."},
            {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 3}},
            {"type": "tool_use", "id": "toolu_02", "name": "add", "input": {"a": "two"}},
            {"type": "tool_use", "id": "toolu_03", "name": "picture", "input": {}}
        ]
    });
    let calls = anthropic::tool_calls(&message).unwrap();
    assert_eq!(calls.iter().map(|c| &*c.id).collect::<Vec<_>>(), ["toolu_01", "toolu_02", "toolu_03"]);
    let results = execute_all(&calls).await;
    let next = anthropic::results_message(&results, [json!({"type": "text", "text": "also, hurry"})]);
    assert_eq!(next["role"], "user");
    let content = next["content"].as_array().unwrap();
    assert_eq!(
        content[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_01", "content": [{"type": "text", "text": "5"}]})
    );
    assert_eq!(content[1]["is_error"], json!(true));
    assert_eq!(
        content[1]["content"][0]["text"],
        "add: invalid input: a: expected an integer from -9223372036854775808 to 9223372036854775807, got a string \"two\""
    );
    assert_eq!(
        content[2]["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}})
    );
    assert_eq!(content[3]["type"], "text", "results come first, other content after");
    let bad = anthropic::tool_calls(&json!({"content": [{"type": "tool_use", "name": "add"}]})).unwrap_err();
    assert_eq!(bad.to_string(), "Anthropic response: content[0]: `id` is missing or not a string");
}

#[tokio::test]
async fn openai_chat_round_trip() {
    let choice = json!({
        "index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1,\"b\":2}"}},
            {"id": "call_b", "type": "function", "function": {"name": "report", "arguments": ""}},
            {"id": "call_c", "type": "function", "function": {"name": "picture", "arguments": "{}"}}
        ]}
    });
    let calls = openai_chat::tool_calls(&choice).unwrap();
    assert_eq!(calls[1].input, "", "empty arguments are accepted as no parameters");
    let results = execute_all(&calls).await;
    let messages = openai_chat::tool_messages(&results);
    assert_eq!(messages[0], json!({"role": "tool", "tool_call_id": "call_a", "content": "3"}));
    assert_eq!(messages[1], json!({"role": "tool", "tool_call_id": "call_b", "content": "{\"files\":3}"}));
    assert_eq!(messages[2]["content"], "a dot\n[image omitted: image/png, 8 bytes base64]");
    let bad = json!({"tool_calls": [{"id": "x", "function": {"name": "add", "arguments": {"a": 1}}}]});
    assert_eq!(
        openai_chat::tool_calls(&bad).unwrap_err().to_string(),
        "OpenAI chat response: tool_calls[0].function.arguments is not a JSON string"
    );
    assert!(openai_chat::tool_calls(&json!({"role": "assistant", "content": "hi"})).unwrap().is_empty());
}

#[tokio::test]
async fn openai_responses_round_trip() {
    let response = json!({
        "id": "resp_1", "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "add", "arguments": "{\"a\":40,\"b\":2}"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_10", "name": "subtract", "arguments": "{}"}
        ]
    });
    let calls = openai_responses::function_calls(&response).unwrap();
    let results = execute_all(&calls).await;
    let items = openai_responses::function_call_outputs(&results);
    assert_eq!(items[0], json!({"type": "function_call_output", "call_id": "call_9", "output": "42"}));
    assert_eq!(items[1]["output"], "unknown tool `subtract`");
}

#[tokio::test]
async fn gemini_round_trip() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Adding."},
        {"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}},
        {"functionCall": {"id": "fc-7", "name": "report", "args": {}}},
        {"functionCall": {"name": "add", "args": {"a": 1}}}
    ]}}]});
    let calls = gemini::function_calls(&response).unwrap();
    assert_eq!(calls.iter().map(|c| &*c.id).collect::<Vec<_>>(), ["gemini-call-1", "fc-7", "gemini-call-3"]);
    let results = execute_all(&calls).await;
    let next = gemini::function_responses(&results);
    let parts = next["parts"].as_array().unwrap();
    assert_eq!(parts[0], json!({"functionResponse": {"name": "add", "response": {"output": "2"}}}));
    assert_eq!(parts[1], json!({"functionResponse": {"id": "fc-7", "name": "report", "response": {"files": 3}}}));
    assert_eq!(
        parts[2]["functionResponse"]["response"],
        json!({"error": "add: invalid input: missing field `b`: expected an object with fields `a`, `b` (all required), got {\"a\":1}"})
    );
    assert_eq!(next["role"], Value::from("user"));
}

/// Return a PDF.
#[tool(read_only)]
pub struct Scan;
impl Tool for Scan {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            content: vec![Content::Document {
                media_type: "application/pdf".into(),
                data: "JVBERi0x".into(),
                text: "PDF `a.pdf`: 1 page\n\n--- page 1 ---\nHello.".into(),
            }],
            ..ToolOutput::default()
        })
    }
}

/// A PDF goes to Anthropic as a document block after its header line; the others,
/// which take no document in a tool result, read its text.
#[tokio::test]
async fn a_document_is_a_document_block_for_anthropic_and_text_elsewhere() {
    let results = execute_all(&[ToolCall::new("c1", "scan", "{}")]).await;
    let block = anthropic::tool_result(&results[0]);
    assert_eq!(
        block["content"],
        json!([
            {"type": "text", "text": "PDF `a.pdf`: 1 page"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}}
        ])
    );
    let chat = openai_chat::tool_messages(&results);
    assert!(chat[0]["content"].as_str().unwrap().contains("--- page 1 ---\nHello."), "{chat:?}");
    let responses = openai_responses::function_call_outputs(&results);
    assert!(responses[0]["output"].as_str().unwrap().contains("Hello."), "{responses:?}");
    let parts = gemini::function_responses(&results);
    assert!(parts["parts"][0]["functionResponse"]["response"]["output"].as_str().unwrap().contains("Hello."));
    assert!(!parts.to_string().contains("JVBERi0x"), "no base64 where it is not read");
}
