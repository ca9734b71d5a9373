//! OpenAI Chat Completions: `tools` of `type: function`, `tool_calls` in, `role: tool`
//! messages out, streamed as chunks ending in `[DONE]`.

use super::{AdapterError, ApiModule, BodyKeys, Item, Request, Step, TurnState, err, str_field, text_only};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use toolwright_contracts::Provider;
use toolwright_contracts::StreamEvent;
use toolwright_contracts::{ToolCall, ToolResult};

const P: &str = "OpenAI chat";
/// Where OpenAI's APIs are.
pub(crate) const BASE_URL: &str = "https://api.openai.com/v1";
pub(crate) const ENV_VARS: (&str, &str) = ("OPENAI_API_KEY", "OPENAI_BASE_URL");

pub(crate) fn auth_headers(key: &str) -> Vec<(&'static str, String)> {
    vec![("authorization", format!("Bearer {key}"))]
}

pub(crate) struct Module;

impl ApiModule for Module {
    fn name(&self) -> &'static str {
        "openai-chat"
    }
    fn provider(&self) -> Provider {
        Provider::OpenAiChat { strict: false }
    }
    fn path(&self) -> &'static str {
        "/chat/completions"
    }
    fn default_base_url(&self) -> &'static str {
        BASE_URL
    }
    fn env_vars(&self) -> (&'static str, &'static str) {
        ENV_VARS
    }
    fn auth_headers(&self, key: &str) -> Vec<(&'static str, String)> {
        auth_headers(key)
    }
    fn request(&self, request: &Request<'_>) -> Value {
        let mut messages = Vec::with_capacity(request.conversation.items().len() + 1);
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        messages.extend(request.conversation.items().iter().cloned());
        let keys = BodyKeys { max_tokens: "max_completion_tokens", system: None, items: "messages" };
        let mut body = request.body(keys, Value::Array(messages));
        // Without it a streamed completion reports no usage.
        body["stream_options"] = json!({"include_usage": true});
        body
    }
    fn push_results(&self, items: &mut Vec<Value>, results: &[ToolResult]) {
        items.extend(tool_messages(results));
    }
    /// The last chunk carries `usage` when the request asked for it
    /// (`stream_options.include_usage`); cached tokens are counted inside the prompt's.
    fn usage(&self, event: &Value, usage: &mut super::Usage) {
        const KEYS: toolwright_contracts::usage::UsageKeys = toolwright_contracts::usage::UsageKeys {
            input: &["prompt_tokens"],
            output: &["completion_tokens"],
            cache_creation: None,
            cache_read: &["prompt_tokens_details", "cached_tokens"],
            cache_inside_input: true,
        };
        if let Some(found) = event.get("usage").filter(|u| u.is_object()) {
            usage.take(found, &KEYS);
        }
    }
    fn turn(&self) -> Box<dyn TurnState> {
        Box::<Turn>::default()
    }
    /// Chat chunks have no `type`: the fallback when no other API claims a stream.
    fn recognizes(&self, _stream: &str) -> bool {
        false
    }
}

/// One tool in a request's `tools`.
pub(crate) fn definition(name: Value, description: Value, input: &Value, strict: bool) -> Map<String, Value> {
    let mut function = Map::new();
    function.insert("name".into(), name);
    function.insert("description".into(), description);
    function.insert("parameters".into(), input.clone());
    function.insert("strict".into(), Value::Bool(strict));
    let mut tool = Map::new();
    tool.insert("type".into(), json!("function"));
    tool.insert("function".into(), Value::Object(function));
    tool
}

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

/// Stream decoding to [`StreamEvent`]s from `choices[0].delta.tool_calls[i]`
/// fragments. A call is complete when a later one starts, or the choice finishes.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    open: BTreeSet<usize>,
}

impl StreamDecoder {
    /// The events in one chunk.
    pub fn push(&mut self, chunk: &Value) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        let choice = &chunk["choices"][0];
        for call in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
            let Some(slot) = call["index"].as_u64().map(|i| i as usize) else { continue };
            if !self.open.contains(&slot) && call.get("id").is_some() {
                // Calls stream one after another: a new one completes the earlier.
                out.extend(std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::End { slot }));
                self.open.insert(slot);
                let id = call["id"].as_str().unwrap_or_default().to_owned();
                let name = call["function"]["name"].as_str().unwrap_or_default().to_owned();
                out.push(StreamEvent::Start { slot, id, name });
            }
            if let Some(json) = call["function"]["arguments"].as_str().filter(|s| !s.is_empty()) {
                out.push(StreamEvent::Delta { slot, json: json.to_owned() });
            }
        }
        // A normal finish completes the last call; running out of tokens or a
        // filter cuts it off.
        match choice["finish_reason"].as_str() {
            Some("length" | "content_filter") => out.extend(self.finish()),
            Some(_) => out.extend(std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::End { slot })),
            None => {}
        }
        out
    }

    /// The stream ended without a finish: the call it left open was cut off, and
    /// is never run.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
    }
}

/// One response as it streams: its text, and its calls (id, name, arguments) by
/// index.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    decoder: StreamDecoder,
    text: String,
    calls: Vec<(String, String, String)>,
}

impl TurnState for Turn {
    fn event(&mut self, value: &Value, items: &mut Vec<Item>) -> Step {
        let choice = &value["choices"][0];
        if let Some(text) = choice["delta"]["content"].as_str().filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            items.push(Item::Text(text.to_owned()));
        }
        for call in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
            let Some(i) = call["index"].as_u64().map(|i| i as usize) else { continue };
            if self.calls.len() <= i {
                self.calls.resize(i + 1, Default::default());
            }
            let slot = &mut self.calls[i];
            if let Some(id) = call["id"].as_str() {
                slot.0 = id.to_owned();
            }
            if let Some(name) = call["function"]["name"].as_str() {
                slot.1.push_str(name);
            }
            if let Some(arguments) = call["function"]["arguments"].as_str() {
                slot.2.push_str(arguments);
            }
        }
        items.extend(self.decoder.push(value).into_iter().map(Item::Call));
        match choice["finish_reason"].as_str() {
            Some(reason) => Step::Stop(reason.to_owned()),
            None => Step::Going,
        }
    }

    fn cut(&mut self) -> Vec<StreamEvent> {
        self.decoder.finish()
    }

    fn has_output(&self) -> bool {
        !self.text.is_empty() || !self.calls.is_empty()
    }

    fn assistant_items(&self) -> Vec<Value> {
        if !self.has_output() {
            return Vec::new();
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), if self.text.is_empty() { Value::Null } else { json!(self.text) });
        let calls: Vec<Value> = self
            .calls
            .iter()
            .filter(|(id, _, _)| !id.is_empty())
            .map(|(id, name, arguments)| {
                // A cut call's arguments may not parse; the API wants a JSON object.
                let arguments = if serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()) {
                    arguments.clone()
                } else {
                    "{}".to_owned()
                };
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        if !calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        vec![Value::Object(message)]
    }
}
