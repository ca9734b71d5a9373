//! OpenAI Responses: flat `type: function` tools, `function_call` items in,
//! `function_call_output` items out, streamed as typed SSE events.

use super::{
    AdapterError, ApiModule, BodyKeys, Item, Request, Step, TurnState, err, openai_chat, str_field, text_only,
};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use toolwright_contracts::Provider;
use toolwright_contracts::StreamEvent;
use toolwright_contracts::{ToolCall, ToolResult};

const P: &str = "OpenAI responses";
pub(crate) struct Module;

impl ApiModule for Module {
    fn name(&self) -> &'static str {
        "openai-responses"
    }
    fn provider(&self) -> Provider {
        Provider::OpenAiResponses { strict: false }
    }
    fn path(&self) -> &'static str {
        "/responses"
    }
    fn default_base_url(&self) -> &'static str {
        openai_chat::BASE_URL
    }
    fn env_vars(&self) -> (&'static str, &'static str) {
        openai_chat::ENV_VARS
    }
    fn auth_headers(&self, key: &str) -> Vec<(&'static str, String)> {
        openai_chat::auth_headers(key)
    }
    fn request(&self, request: &Request<'_>) -> Value {
        let keys = BodyKeys { max_tokens: "max_output_tokens", system: Some("instructions"), items: "input" };
        request.body(keys, json!(request.conversation.items()))
    }
    /// `response.completed` (and `response.incomplete`) carry `response.usage`; cached
    /// tokens are counted inside the input's.
    fn usage(&self, event: &Value, usage: &mut super::Usage) {
        const KEYS: toolwright_contracts::usage::UsageKeys = toolwright_contracts::usage::UsageKeys {
            input: &["input_tokens"],
            output: &["output_tokens"],
            cache_creation: None,
            cache_read: &["input_tokens_details", "cached_tokens"],
            cache_inside_input: true,
        };
        if let Some(found) = event.get("response").and_then(|r| r.get("usage")).filter(|u| u.is_object()) {
            usage.take(found, &KEYS);
        }
    }
    fn push_results(&self, items: &mut Vec<Value>, results: &[ToolResult]) {
        items.extend(function_call_outputs(results));
    }
    fn turn(&self) -> Box<dyn TurnState> {
        Box::<Turn>::default()
    }
    fn recognizes(&self, stream: &str) -> bool {
        stream.contains("\"type\":\"response.")
    }
}

/// One tool in a request's `tools`.
pub(crate) fn definition(name: Value, description: Value, input: &Value, strict: bool) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("type".into(), json!("function"));
    tool.insert("name".into(), name);
    tool.insert("description".into(), description);
    tool.insert("parameters".into(), input.clone());
    tool.insert("strict".into(), Value::Bool(strict));
    tool
}

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

/// Stream decoding to [`StreamEvent`]s: `response.output_item.added`
/// (function_call), `response.function_call_arguments.delta` and `.done`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    open: BTreeSet<usize>,
    streamed: BTreeSet<usize>,
}

impl StreamDecoder {
    /// The events in one server-sent event.
    pub fn push(&mut self, event: &Value) -> Vec<StreamEvent> {
        let slot = event["output_index"].as_u64().map(|i| i as usize);
        match (event["type"].as_str(), slot) {
            (Some("response.output_item.added"), Some(slot)) if event["item"]["type"] == "function_call" => {
                self.open.insert(slot);
                let id = event["item"]["call_id"].as_str().unwrap_or_default().to_owned();
                let name = event["item"]["name"].as_str().unwrap_or_default().to_owned();
                vec![StreamEvent::Start { slot, id, name }]
            }
            (Some("response.function_call_arguments.delta"), Some(slot)) if self.open.contains(&slot) => {
                self.streamed.insert(slot);
                let json = event["delta"].as_str().unwrap_or_default().to_owned();
                vec![StreamEvent::Delta { slot, json }]
            }
            (Some("response.function_call_arguments.done"), Some(slot)) if self.open.remove(&slot) => {
                let mut out = Vec::new();
                // Arguments that arrived only whole, in `done`.
                if !self.streamed.remove(&slot)
                    && let Some(json) = event["arguments"].as_str()
                {
                    out.push(StreamEvent::Delta { slot, json: json.to_owned() });
                }
                out.push(StreamEvent::End { slot });
                out
            }
            _ => Vec::new(),
        }
    }

    /// The stream ended: a call it left open (no `.done`) was cut off, and is
    /// never run.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        self.streamed.clear();
        std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
    }
}

/// One response as it streams: its output items by index, each as last seen (a
/// function call's arguments growing with its deltas), and which are done.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    decoder: StreamDecoder,
    output: BTreeMap<usize, (Value, bool)>,
    text: bool,
}

impl TurnState for Turn {
    fn event(&mut self, value: &Value, items: &mut Vec<Item>) -> Step {
        let index = value["output_index"].as_u64().map(|i| i as usize);
        let mut step = Step::Going;
        match (value["type"].as_str(), index) {
            (Some("response.output_item.added"), Some(i)) => {
                self.output.insert(i, (value["item"].clone(), false));
            }
            (Some("response.output_text.delta"), _) => {
                if let Some(text) = value["delta"].as_str().filter(|t| !t.is_empty()) {
                    self.text = true;
                    items.push(Item::Text(text.to_owned()));
                }
            }
            (Some("response.function_call_arguments.delta"), Some(i)) => {
                if let Some((item, _)) = self.output.get_mut(&i)
                    && let Some(delta) = value["delta"].as_str()
                {
                    let arguments = item["arguments"].as_str().unwrap_or_default().to_owned() + delta;
                    item["arguments"] = json!(arguments);
                }
            }
            (Some("response.output_item.done"), Some(i)) => {
                if value["item"]["type"] == "web_search_call" {
                    let input = value["item"]["action"].clone();
                    items.push(Item::Server(super::server_tools::ServerToolEvent::Used {
                        name: "web_search".into(),
                        input,
                    }));
                }
                self.output.insert(i, (value["item"].clone(), true));
            }
            (Some("response.completed"), _) => step = Step::Done,
            (Some("response.incomplete"), _) => {
                let reason = value["response"]["incomplete_details"]["reason"].as_str().unwrap_or("incomplete");
                step = Step::Stop(reason.to_owned());
                items.extend(self.decoder.push(value).into_iter().map(Item::Call));
                return step;
            }
            (Some("response.failed"), _) => {
                let error = value["response"]["error"].clone();
                return Step::Failed(if error.is_null() { json!({"message": "the response failed"}) } else { error });
            }
            (Some("error"), _) => return Step::Failed(value.clone()),
            _ => {}
        }
        items.extend(self.decoder.push(value).into_iter().map(Item::Call));
        step
    }

    fn cut(&mut self) -> Vec<StreamEvent> {
        self.decoder.finish()
    }

    fn has_output(&self) -> bool {
        self.text || self.output.values().any(|(item, _)| item["type"] == "function_call")
    }

    fn assistant_items(&self) -> Vec<Value> {
        self.output
            .values()
            .filter_map(|(item, done)| match item["type"].as_str() {
                // Every call is kept, so its output has a call to answer.
                Some("function_call") => {
                    let mut item = item.clone();
                    let arguments = item["arguments"].as_str().unwrap_or_default();
                    if !serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()) {
                        item["arguments"] = json!("{}");
                    }
                    Some(item)
                }
                _ if *done => Some(item.clone()),
                _ => None,
            })
            .collect()
    }
}
