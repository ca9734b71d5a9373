//! Google Gemini: `functionDeclarations` (OpenAPI subset or `parametersJsonSchema`),
//! `functionCall` parts in, `functionResponse` parts out.

use super::{AdapterError, err, str_field, text_only};
use serde_json::{Map, Value, json};
use toolwright_contracts::{ToolCall, ToolResult};

const P: &str = "Gemini";
const SYNTHETIC_ID: &str = "gemini-call-";

/// One function declaration. `json_schema` puts the schema in
/// `parametersJsonSchema` (the newer API); otherwise in `parameters`, left out for a
/// tool without parameters (Gemini rejects an object with no properties).
pub(crate) fn definition(name: Value, description: Value, input: &Value, json_schema: bool) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("name".into(), name);
    tool.insert("description".into(), description);
    if json_schema {
        tool.insert("parametersJsonSchema".into(), input.clone());
    } else if input.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()) {
        tool.insert("parameters".into(), input.clone());
    }
    tool
}

/// The list's wrapper: `[{"functionDeclarations": [..]}]`.
pub(crate) const LIST_OPEN: &str = "[{\"functionDeclarations\":[";
pub(crate) const LIST_CLOSE: &str = "]}]";

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
