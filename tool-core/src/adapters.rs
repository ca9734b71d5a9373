//! Provider adapters: tool calls out of each provider's response, results into each
//! provider's next request. Plain `serde_json` values in and out; no HTTP client.

use crate::call::{ToolCall, ToolResult};
use crate::output::{Content, ToolOutput};
use serde_json::{Map, Value, json};

/// A response that does not have the shape the provider documents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider} response: {message}")]
#[non_exhaustive]
pub struct AdapterError {
    /// Which adapter.
    pub provider: &'static str,
    /// What was wrong, and where.
    pub message: String,
}

fn err(provider: &'static str, message: impl Into<String>) -> AdapterError {
    AdapterError { provider, message: message.into() }
}

fn str_field<'a>(provider: &'static str, obj: &'a Value, key: &str, at: &str) -> Result<&'a str, AdapterError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| err(provider, format!("{at}: `{key}` is missing or not a string")))
}

/// The text a model reads for outputs whose format has no image slot.
fn text_only(output: &ToolOutput) -> String {
    let mut parts = Vec::new();
    for block in &output.content {
        parts.push(block.to_model_text().into_owned());
    }
    let text = parts.join("\n");
    if text.is_empty() { "(no output)".to_owned() } else { text }
}

/// Anthropic Messages API: `tool_use` blocks in, `tool_result` blocks out.
pub mod anthropic {
    use super::*;
    const P: &str = "Anthropic";

    /// The `tool_use` blocks of an assistant message (the message, or its `content`).
    pub fn tool_calls(message: &Value) -> Result<Vec<ToolCall>, AdapterError> {
        let content = message.get("content").unwrap_or(message);
        let blocks = content.as_array().ok_or_else(|| err(P, "`content` is not an array of blocks"))?;
        let mut calls = Vec::new();
        for (i, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let at = format!("content[{i}]");
            let input = block.get("input").map_or_else(|| "{}".to_owned(), Value::to_string);
            calls.push(ToolCall::new(str_field(P, block, "id", &at)?, str_field(P, block, "name", &at)?, input));
        }
        Ok(calls)
    }

    /// One result as a `tool_result` block.
    pub fn tool_result(result: &ToolResult) -> Value {
        let mut blocks: Vec<Value> = result
            .output
            .content
            .iter()
            .map(|block| match block {
                Content::Image { media_type, data } => {
                    json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
                }
                other => json!({"type": "text", "text": other.to_model_text()}),
            })
            .collect();
        if blocks.is_empty() {
            blocks.push(json!({"type": "text", "text": "(no output)"}));
        }
        let mut out = Map::new();
        out.insert("type".into(), json!("tool_result"));
        out.insert("tool_use_id".into(), json!(&*result.call_id));
        out.insert("content".into(), Value::Array(blocks));
        if result.output.is_error {
            out.insert("is_error".into(), json!(true));
        }
        Value::Object(out)
    }

    /// The next user message: every result first, in call order, then `extra` blocks
    /// (text the user typed meanwhile). Anthropic rejects a turn in which a
    /// `tool_use` has no result, or results come after other content.
    pub fn results_message(results: &[ToolResult], extra: impl IntoIterator<Item = Value>) -> Value {
        let content: Vec<Value> = results.iter().map(tool_result).chain(extra).collect();
        json!({"role": "user", "content": content})
    }
}

/// OpenAI Chat Completions: `tool_calls` in, `role: tool` messages out.
pub mod openai_chat {
    use super::*;
    const P: &str = "OpenAI chat";

    /// The `tool_calls` of an assistant message (the message, or a choice holding it).
    pub fn tool_calls(message: &Value) -> Result<Vec<ToolCall>, AdapterError> {
        let message = message.get("message").unwrap_or(message);
        let Some(calls) = message.get("tool_calls") else { return Ok(Vec::new()) };
        let calls = calls.as_array().ok_or_else(|| err(P, "`tool_calls` is not an array"))?;
        calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let at = format!("tool_calls[{i}]");
                let function = call.get("function").ok_or_else(|| err(P, format!("{at}: no `function`")))?;
                let arguments = match function.get("arguments") {
                    Some(Value::String(s)) => s.clone(),
                    None | Some(Value::Null) => String::new(),
                    Some(_) => return Err(err(P, format!("{at}.function.arguments is not a JSON string"))),
                };
                Ok(ToolCall::new(
                    str_field(P, call, "id", &at)?,
                    str_field(P, function, "name", &format!("{at}.function"))?,
                    arguments,
                ))
            })
            .collect()
    }

    /// One `role: tool` message per result, in call order.
    pub fn tool_messages(results: &[ToolResult]) -> Vec<Value> {
        results
            .iter()
            .map(|r| json!({"role": "tool", "tool_call_id": &*r.call_id, "content": text_only(&r.output)}))
            .collect()
    }
}

/// OpenAI Responses API: `function_call` items in, `function_call_output` items out.
pub mod openai_responses {
    use super::*;
    const P: &str = "OpenAI responses";

    /// The `function_call` items of a response (the response, or its `output` array).
    pub fn function_calls(response: &Value) -> Result<Vec<ToolCall>, AdapterError> {
        let items = response.get("output").unwrap_or(response);
        let items = items.as_array().ok_or_else(|| err(P, "`output` is not an array of items"))?;
        let mut calls = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if item.get("type").and_then(Value::as_str) != Some("function_call") {
                continue;
            }
            let at = format!("output[{i}]");
            let arguments = item.get("arguments").and_then(Value::as_str).unwrap_or_default();
            calls.push(ToolCall::new(str_field(P, item, "call_id", &at)?, str_field(P, item, "name", &at)?, arguments));
        }
        Ok(calls)
    }

    /// One `function_call_output` item per result, in call order.
    pub fn function_call_outputs(results: &[ToolResult]) -> Vec<Value> {
        results
            .iter()
            .map(|r| json!({"type": "function_call_output", "call_id": &*r.call_id, "output": text_only(&r.output)}))
            .collect()
    }
}

/// Google Gemini: `functionCall` parts in, `functionResponse` parts out.
pub mod gemini {
    use super::*;
    const P: &str = "Gemini";
    const SYNTHETIC_ID: &str = "gemini-call-";

    /// The `functionCall` parts of a response (a `GenerateContentResponse`, a
    /// candidate, or a `content`). Calls without an `id` (older API versions) get
    /// `gemini-call-<index>`, which is not sent back.
    pub fn function_calls(response: &Value) -> Result<Vec<ToolCall>, AdapterError> {
        let content = response.pointer("/candidates/0/content").or_else(|| response.get("content")).unwrap_or(response);
        let parts = content.get("parts").and_then(Value::as_array).ok_or_else(|| err(P, "no `parts` array"))?;
        let mut calls = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let Some(call) = part.get("functionCall") else { continue };
            let at = format!("parts[{i}].functionCall");
            let id = call.get("id").and_then(Value::as_str).map_or_else(|| format!("{SYNTHETIC_ID}{i}"), str::to_owned);
            let args = call.get("args").map_or_else(|| "{}".to_owned(), Value::to_string);
            calls.push(ToolCall::new(id, str_field(P, call, "name", &at)?, args));
        }
        Ok(calls)
    }

    /// The next `user` content: one `functionResponse` part per result, in call order.
    /// Structured output is sent as the response object; text as `{"output": ..}` or
    /// `{"error": ..}`.
    pub fn function_responses(results: &[ToolResult]) -> Value {
        let parts: Vec<Value> = results
            .iter()
            .map(|r| {
                let response = match (&r.output.structured, r.output.is_error) {
                    (Some(Value::Object(structured)), false) => Value::Object(structured.clone()),
                    (_, false) => json!({"output": text_only(&r.output)}),
                    (_, true) => json!({"error": text_only(&r.output)}),
                };
                let mut f = Map::new();
                if !r.call_id.starts_with(SYNTHETIC_ID) {
                    f.insert("id".into(), json!(&*r.call_id));
                }
                f.insert("name".into(), json!(&*r.tool));
                f.insert("response".into(), response);
                json!({"functionResponse": f})
            })
            .collect();
        json!({"role": "user", "parts": parts})
    }
}
