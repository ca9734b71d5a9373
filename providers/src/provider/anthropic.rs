//! Anthropic Messages: `tools` with `input_schema`, `tool_use` blocks in,
//! `tool_result` blocks out, SSE with typed events.

use super::{AdapterError, ApiModule, BodyKeys, Item, Request, Step, TurnState, err, input_object, str_field};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use toolwright_contracts::Content;
use toolwright_contracts::Provider;
use toolwright_contracts::StreamEvent;
use toolwright_contracts::{ToolCall, ToolResult};

const P: &str = "Anthropic";
/// The `anthropic-version` every request must carry.
pub const VERSION: &str = "2023-06-01";

pub(crate) struct Module;

impl ApiModule for Module {
    fn name(&self) -> &'static str {
        "anthropic"
    }
    fn provider(&self) -> Provider {
        Provider::Anthropic { strict: false, cache_control: true }
    }
    fn path(&self) -> &'static str {
        "/v1/messages"
    }
    fn default_base_url(&self) -> &'static str {
        "https://api.anthropic.com"
    }
    fn env_vars(&self) -> (&'static str, &'static str) {
        ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")
    }
    fn auth_headers(&self, key: &str) -> Vec<(&'static str, String)> {
        vec![("x-api-key", key.to_owned()), ("anthropic-version", VERSION.to_owned())]
    }
    fn request(&self, request: &Request<'_>) -> Value {
        let keys = BodyKeys { max_tokens: "max_tokens", system: Some("system"), items: "messages" };
        let mut items = request.conversation.items().to_vec();
        for &at in request.cache_breakpoints {
            if let Some(message) = items.get_mut(at) {
                mark_cache_breakpoint(message);
            }
        }
        request.body(keys, Value::Array(items))
    }
    /// `message_start` carries the input counts (`message.usage`), `message_delta`
    /// the output so far (`usage.output_tokens`, cumulative).
    fn usage(&self, event: &Value, usage: &mut super::Usage) {
        const KEYS: toolwright_contracts::usage::UsageKeys = toolwright_contracts::usage::UsageKeys {
            input: &["input_tokens"],
            output: &["output_tokens"],
            cache_creation: Some(&["cache_creation_input_tokens"]),
            cache_read: &["cache_read_input_tokens"],
            cache_inside_input: false,
        };
        let found = match event.get("type").and_then(Value::as_str) {
            Some("message_start") => event.get("message").and_then(|m| m.get("usage")),
            Some("message_delta") => event.get("usage"),
            _ => None,
        };
        if let Some(found) = found {
            usage.take(found, &KEYS);
        }
    }
    fn push_results(&self, items: &mut Vec<Value>, results: &[ToolResult]) {
        if !results.is_empty() {
            items.push(results_message(results, []));
        }
    }
    fn turn(&self) -> Box<dyn TurnState> {
        Box::<Turn>::default()
    }
    fn recognizes(&self, stream: &str) -> bool {
        stream.contains("\"type\":\"message_start\"") || stream.contains("event: message_start")
    }
}

/// One tool in a request's `tools`.
pub(crate) fn definition(name: Value, description: Value, input: &Value, strict: bool) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("name".into(), name);
    tool.insert("description".into(), description);
    tool.insert("input_schema".into(), input.clone());
    if strict {
        tool.insert("strict".into(), Value::Bool(true));
    }
    tool
}

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
        .flat_map(|block| match block {
            Content::Image { media_type, data } => {
                vec![json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})]
            }
            // The document itself, after the line saying what it is (its pages).
            Content::Document { media_type, data, text } => vec![
                json!({"type": "text", "text": text.lines().next().unwrap_or("A document:")}),
                json!({"type": "document", "source": {"type": "base64", "media_type": media_type, "data": data}}),
            ],
            other => vec![json!({"type": "text", "text": other.to_model_text()})],
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

/// Stream decoding to [`StreamEvent`]s: `content_block_start` (tool_use),
/// `content_block_delta` (`input_json_delta`), `content_block_stop`.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    tool_blocks: BTreeSet<usize>,
}

impl StreamDecoder {
    /// The events in one SSE payload.
    pub fn push(&mut self, event: &Value) -> Vec<StreamEvent> {
        let index = event.get("index").and_then(Value::as_u64).map(|i| i as usize);
        match (event.get("type").and_then(Value::as_str), index) {
            (Some("content_block_start"), Some(slot)) => {
                let block = &event["content_block"];
                if block["type"] != "tool_use" {
                    return Vec::new();
                }
                self.tool_blocks.insert(slot);
                let id = block["id"].as_str().unwrap_or_default().to_owned();
                let name = block["name"].as_str().unwrap_or_default().to_owned();
                vec![StreamEvent::Start { slot, id, name }]
            }
            (Some("content_block_delta"), Some(slot)) if self.tool_blocks.contains(&slot) => {
                match event["delta"]["partial_json"].as_str() {
                    Some(json) if !json.is_empty() => vec![StreamEvent::Delta { slot, json: json.to_owned() }],
                    _ => Vec::new(),
                }
            }
            (Some("content_block_stop"), Some(slot)) if self.tool_blocks.remove(&slot) => {
                vec![StreamEvent::End { slot }]
            }
            _ => Vec::new(),
        }
    }

    /// The stream ended: a block it left open (no `content_block_stop`) was cut
    /// off, and is never run.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        std::mem::take(&mut self.tool_blocks).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
    }
}

/// One response as it streams: its blocks by index.
#[derive(Debug, Default)]
pub(crate) struct Turn {
    decoder: StreamDecoder,
    blocks: Vec<Option<Block>>,
}

/// One content block of a response: how it started, and what its deltas added.
#[derive(Debug, Clone)]
struct Block {
    kind: String,
    start: Value,
    /// Text, thinking, or a call's input JSON, as the deltas sent it.
    accumulated: String,
    /// A thinking block's signature, which must go back with it unchanged.
    signature: String,
    /// A text block's citations (of the web search's results), sent back with it.
    citations: Vec<Value>,
}

impl TurnState for Turn {
    fn event(&mut self, value: &Value, items: &mut Vec<Item>) -> Step {
        let index = value["index"].as_u64().map(|i| i as usize);
        let mut step = Step::Going;
        match (value["type"].as_str(), index) {
            (Some("content_block_start"), Some(i)) => {
                let block = &value["content_block"];
                let kind = block["type"].as_str().unwrap_or_default().to_owned();
                if self.blocks.len() <= i {
                    self.blocks.resize(i + 1, None);
                }
                let text = block["text"].as_str().unwrap_or_default().to_owned();
                if !text.is_empty() {
                    items.push(Item::Text(text.clone()));
                }
                if kind == "web_search_tool_result" {
                    items.push(Item::Server(super::server_tools::ServerToolEvent::from_anthropic_result(block)));
                }
                self.blocks[i] = Some(Block {
                    kind,
                    start: block.clone(),
                    accumulated: text,
                    signature: String::new(),
                    citations: Vec::new(),
                });
            }
            (Some("content_block_delta"), Some(i)) => {
                if let Some(Some(block)) = self.blocks.get_mut(i) {
                    let delta = &value["delta"];
                    if let Some(text) = delta["text"].as_str() {
                        block.accumulated.push_str(text);
                        items.push(Item::Text(text.to_owned()));
                    }
                    for key in ["partial_json", "thinking"] {
                        if let Some(more) = delta[key].as_str() {
                            block.accumulated.push_str(more);
                        }
                    }
                    if let Some(signature) = delta["signature"].as_str() {
                        block.signature.push_str(signature);
                    }
                    if delta["type"] == "citations_delta" {
                        block.citations.push(delta["citation"].clone());
                    }
                }
            }
            // A server tool's input is whole when its block ends.
            (Some("content_block_stop"), Some(i)) => {
                if let Some(Some(block)) = self.blocks.get(i)
                    && block.kind == "server_tool_use"
                {
                    let input = match block.accumulated.is_empty() {
                        true => block.start["input"].clone(),
                        false => input_object(&block.accumulated),
                    };
                    let name = block.start["name"].as_str().unwrap_or("server tool").to_owned();
                    items.push(Item::Server(super::server_tools::ServerToolEvent::Used { name, input }));
                }
            }
            (Some("message_delta"), _) => {
                if let Some(reason) = value["delta"]["stop_reason"].as_str() {
                    step = Step::Stop(reason.to_owned());
                }
            }
            (Some("message_stop"), _) => step = Step::Done,
            _ => {}
        }
        items.extend(self.decoder.push(value).into_iter().map(Item::Call));
        step
    }

    fn cut(&mut self) -> Vec<StreamEvent> {
        self.decoder.finish()
    }

    fn has_output(&self) -> bool {
        self.blocks.iter().flatten().any(|b| b.kind == "tool_use" || b.kind == "text" && !b.accumulated.is_empty())
    }

    /// The assistant message to send back: every block as Anthropic needs it in
    /// the history. Calls get their streamed input; thinking keeps its signature;
    /// server-side blocks (`server_tool_use`, the tool search's and web search's
    /// results, redacted thinking) go back as they came, so the server's own tool
    /// calls and what they loaded stay in the conversation.
    fn assistant_items(&self) -> Vec<Value> {
        let content: Vec<Value> = self.blocks.iter().flatten().filter_map(Block::for_history).collect();
        if content.is_empty() {
            return Vec::new();
        }
        vec![json!({"role": "assistant", "content": content})]
    }
}

impl Block {
    fn for_history(&self) -> Option<Value> {
        let mut block = self.start.clone();
        match self.kind.as_str() {
            // Anthropic refuses an empty text block.
            "text" if self.accumulated.is_empty() => return None,
            "text" => {
                let mut text = json!({"type": "text", "text": self.accumulated});
                let mut citations = self.start["citations"].as_array().cloned().unwrap_or_default();
                citations.extend(self.citations.iter().cloned());
                if !citations.is_empty() {
                    text["citations"] = Value::Array(citations);
                }
                return Some(text);
            }
            "tool_use" => {
                return Some(json!({
                    "type": "tool_use", "id": self.start["id"], "name": self.start["name"],
                    "input": input_object(&self.accumulated),
                }));
            }
            // A server tool's input streams like a call's, or comes whole at the start.
            "server_tool_use" | "mcp_tool_use" if !self.accumulated.is_empty() => {
                block["input"] = input_object(&self.accumulated);
            }
            "thinking" => {
                block["thinking"] = json!(self.accumulated);
                if !self.signature.is_empty() {
                    block["signature"] = json!(self.signature);
                }
            }
            "" => return None,
            _ => {}
        }
        Some(block)
    }
}

/// Puts `cache_control` on the last block of `message` that may carry one (not a
/// thinking block, not empty text); a string content becomes one text block.
fn mark_cache_breakpoint(message: &mut Value) {
    let Some(content) = message.get_mut("content") else { return };
    if let Some(text) = content.as_str() {
        if text.is_empty() {
            return;
        }
        *content = json!([{"type": "text", "text": text}]);
    }
    let Some(blocks) = content.as_array_mut() else { return };
    let usable = |block: &Value| {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
        let empty_text = kind == "text" && block.get("text").and_then(Value::as_str).is_none_or(str::is_empty);
        !(empty_text || matches!(kind, "thinking" | "redacted_thinking"))
    };
    if let Some(block) = blocks.iter_mut().rev().find(|b| usable(b)).and_then(Value::as_object_mut) {
        block.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
}
