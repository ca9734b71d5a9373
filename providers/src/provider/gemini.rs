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

/// Gemini's `streamGenerateContent` as an agent loop's API (`Api::Gemini`).
pub(crate) struct Module;

/// The documented base URL, and where a key and another base URL are read from.
const BASE_URL: &str = "https://generativelanguage.googleapis.com";
const ENV_VARS: (&str, &str) = ("GEMINI_API_KEY", "GEMINI_BASE_URL");

impl super::ApiModule for Module {
    fn name(&self) -> &'static str {
        "gemini"
    }
    fn provider(&self) -> toolwright_contracts::Provider {
        toolwright_contracts::Provider::GeminiJsonSchema
    }
    fn path(&self) -> &'static str {
        "/v1beta/models/{model}:streamGenerateContent?alt=sse"
    }
    fn default_base_url(&self) -> &'static str {
        BASE_URL
    }
    fn env_vars(&self) -> (&'static str, &'static str) {
        ENV_VARS
    }
    fn auth_headers(&self, key: &str) -> Vec<(&'static str, String)> {
        vec![("x-goog-api-key", key.to_owned())]
    }
    /// `contents` (a plain `{role, content}` message becomes `{role, parts}`), the
    /// system prompt as `systemInstruction`, the tools without an empty declaration
    /// list, the token limit in `generationConfig`. The model is in the URL.
    fn request(&self, request: &super::Request<'_>) -> Value {
        let contents: Vec<Value> = request.conversation.items().iter().map(as_content).collect();
        let mut body = Map::new();
        body.insert("contents".into(), Value::Array(contents));
        if !request.system.is_empty() {
            body.insert("systemInstruction".into(), json!({"parts": [{"text": request.system}]}));
        }
        let tools: Vec<Value> = request
            .tools
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| !t.get("functionDeclarations").and_then(Value::as_array).is_some_and(Vec::is_empty))
            .cloned()
            .collect();
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
        }
        body.insert("generationConfig".into(), json!({"maxOutputTokens": request.max_tokens}));
        Value::Object(body)
    }
    /// `usageMetadata`, in every chunk, the last one complete; the cached tokens are
    /// counted inside the prompt's.
    fn usage(&self, event: &Value, usage: &mut super::Usage) {
        const KEYS: toolwright_contracts::usage::UsageKeys = toolwright_contracts::usage::UsageKeys {
            input: &["promptTokenCount"],
            output: &["candidatesTokenCount"],
            cache_creation: None,
            cache_read: &["cachedContentTokenCount"],
            cache_inside_input: true,
        };
        if let Some(found) = event.get("usageMetadata").filter(|u| u.is_object()) {
            usage.take(found, &KEYS);
        }
    }
    fn push_results(&self, items: &mut Vec<Value>, results: &[ToolResult]) {
        items.push(function_responses(results));
    }
    fn turn(&self) -> Box<dyn super::TurnState> {
        Box::<Turn>::default()
    }
    fn recognizes(&self, stream: &str) -> bool {
        stream.contains("\"candidates\"")
    }
}

/// A conversation item as Gemini `content`: `{role, content: text}` (the task, a
/// follow-up) becomes `{role, parts: [{text}]}`; the rest is Gemini's already.
fn as_content(item: &Value) -> Value {
    match item.get("content").and_then(Value::as_str) {
        Some(text) => {
            let role = if item["role"] == "assistant" { "model" } else { "user" };
            json!({"role": role, "parts": [{"text": text}]})
        }
        None => item.clone(),
    }
}

/// One streamed response: each chunk's parts kept as they came (a call's
/// `thoughtSignature` must go back with it), calls reported whole, and the
/// grounding of a `google_search` reported once.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    parts: Vec<Value>,
    calls: usize,
    text: bool,
    queries_seen: usize,
    pages_seen: usize,
}

impl super::TurnState for Turn {
    fn event(&mut self, value: &Value, items: &mut Vec<super::Item>) -> super::Step {
        use super::{Item, Step};
        use toolwright_contracts::StreamEvent;
        let candidate = &value["candidates"][0];
        for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                let slot = self.calls;
                self.calls += 1;
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("{SYNTHETIC_ID}{slot}"), str::to_owned);
                let name = call["name"].as_str().unwrap_or_default().to_owned();
                let json = call.get("args").filter(|a| a.is_object()).map_or_else(|| "{}".to_owned(), Value::to_string);
                items.push(Item::Call(StreamEvent::Start { slot, id, name }));
                items.push(Item::Call(StreamEvent::Delta { slot, json }));
                items.push(Item::Call(StreamEvent::End { slot }));
                self.parts.push(part.clone());
                continue;
            }
            let is_thought = part.get("thought").and_then(Value::as_bool) == Some(true);
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                if !is_thought && !text.is_empty() {
                    self.text = true;
                    items.push(Item::Text(text.to_owned()));
                }
                // Plain text continues the last plain text part; a part with a
                // signature (or a thought) is kept whole.
                let plain = part.as_object().is_some_and(|p| p.len() == 1);
                if plain
                    && let Some(last) = self
                        .parts
                        .last_mut()
                        .filter(|l| l.as_object().is_some_and(|p| p.len() == 1) && l.get("text").is_some())
                {
                    let joined = last["text"].as_str().unwrap_or_default().to_owned() + text;
                    last["text"] = json!(joined);
                    continue;
                }
            }
            self.parts.push(part.clone());
        }
        self.grounding(&candidate["groundingMetadata"], items);
        match candidate.get("finishReason").and_then(Value::as_str) {
            Some(reason) if !reason.is_empty() => Step::Finished(reason.to_owned()),
            _ => Step::Going,
        }
    }

    fn cut(&mut self) -> Vec<toolwright_contracts::StreamEvent> {
        // Calls come whole: none is ever left open.
        Vec::new()
    }

    fn has_output(&self) -> bool {
        self.text || self.calls > 0
    }

    fn assistant_items(&self) -> Vec<Value> {
        if self.parts.is_empty() {
            return Vec::new();
        }
        vec![json!({"role": "model", "parts": self.parts})]
    }
}

impl Turn {
    /// `google_search` at work: each new query as a use, the sources found as results.
    fn grounding(&mut self, metadata: &Value, items: &mut Vec<super::Item>) {
        use super::Item;
        use super::server_tools::ServerToolEvent;
        let queries = metadata["webSearchQueries"].as_array().map(Vec::as_slice).unwrap_or_default();
        for query in queries.iter().skip(self.queries_seen) {
            items.push(Item::Server(ServerToolEvent::Used {
                name: "google_search".into(),
                input: json!({"query": query}),
            }));
        }
        self.queries_seen = self.queries_seen.max(queries.len());
        let chunks = metadata["groundingChunks"].as_array().map(Vec::as_slice).unwrap_or_default();
        if chunks.len() > self.pages_seen {
            let pages = chunks[self.pages_seen..]
                .iter()
                .filter_map(|c| c.get("web"))
                .map(|web| {
                    let url = web["uri"].as_str().unwrap_or_default().to_owned();
                    (web["title"].as_str().unwrap_or(&url).to_owned(), url)
                })
                .collect();
            items.push(Item::Server(ServerToolEvent::Results { name: "google_search".into(), pages, error: None }));
            self.pages_seen = chunks.len();
        }
    }
}
