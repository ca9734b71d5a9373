//! One streamed model response, decoded from the provider's wire format: the
//! assistant's text, its tool calls as stream events, how it stopped, and the
//! assistant message to put back into the conversation.

use serde_json::{Map, Value, json};
use toolwright::streaming::StreamEvent;
use toolwright::streaming::decode;
use toolwright::streaming::sse::{SseEvent, SseParser};

/// Which streaming format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages SSE.
    Anthropic,
    /// OpenAI Chat Completions chunks.
    OpenAiChat,
}

impl Wire {
    /// The format of a recorded session: Anthropic's streams start with `message_start`.
    pub fn detect(text: &str) -> Wire {
        if text.contains("event: message_start") || text.contains("\"type\":\"message_start\"") {
            Wire::Anthropic
        } else {
            Wire::OpenAiChat
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wire::Anthropic => "anthropic",
            Wire::OpenAiChat => "openai",
        }
    }
}

/// What a response carries, in stream order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A piece of the assistant's text.
    Text(String),
    /// A tool call event for the streaming executor.
    Call(StreamEvent),
}

/// Decodes one response at a time from SSE bytes.
pub struct TurnDecoder {
    wire: Wire,
    sse: SseParser,
    anthropic: decode::Anthropic,
    openai: decode::OpenAiChat,
    /// The response is complete (`message_stop`, `[DONE]`).
    pub done: bool,
    /// `stop_reason` / `finish_reason`.
    pub stop: Option<String>,
    /// Anthropic content blocks by index: text, or tool_use with its JSON so far.
    blocks: Vec<(String, Value, String)>,
    /// OpenAI: text, and tool calls (id, name, arguments) by index.
    text: String,
    calls: Vec<(String, String, String)>,
}

impl TurnDecoder {
    pub fn new(wire: Wire) -> TurnDecoder {
        TurnDecoder {
            wire,
            sse: SseParser::default(),
            anthropic: decode::Anthropic::default(),
            openai: decode::OpenAiChat::default(),
            done: false,
            stop: None,
            blocks: Vec::new(),
            text: String::new(),
            calls: Vec::new(),
        }
    }

    /// The items in `bytes`; stops taking events once the response is done.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Item>, String> {
        let events = self.sse.push(bytes);
        self.events(events)
    }

    /// The end of the byte stream.
    pub fn finish(&mut self) -> Result<Vec<Item>, String> {
        let events: Vec<SseEvent> = self.sse.finish().into_iter().collect();
        let mut items = self.events(events)?;
        if !self.done {
            // A stream cut short: end the calls it left open.
            items.extend(self.anthropic.finish().into_iter().map(Item::Call));
            items.extend(self.openai.finish().into_iter().map(Item::Call));
        }
        Ok(items)
    }

    fn events(&mut self, events: Vec<SseEvent>) -> Result<Vec<Item>, String> {
        let mut items = Vec::new();
        for event in events {
            if self.done {
                break;
            }
            if event.data == "[DONE]" {
                self.done = true;
                items.extend(self.openai.finish().into_iter().map(Item::Call));
                continue;
            }
            let value: Value = serde_json::from_str(&event.data)
                .map_err(|e| format!("a {} stream event is not JSON ({e}): {}", self.wire.name(), clip(&event.data)))?;
            if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
                let message =
                    error.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_owned);
                return Err(format!("the API streamed an error: {message}"));
            }
            match self.wire {
                Wire::Anthropic => self.anthropic_event(&value, &mut items),
                Wire::OpenAiChat => self.openai_chunk(&value, &mut items),
            }
        }
        Ok(items)
    }

    fn anthropic_event(&mut self, value: &Value, items: &mut Vec<Item>) {
        let index = value["index"].as_u64().map(|i| i as usize);
        match (value["type"].as_str(), index) {
            (Some("content_block_start"), Some(i)) => {
                let block = &value["content_block"];
                let kind = block["type"].as_str().unwrap_or_default().to_owned();
                if self.blocks.len() <= i {
                    self.blocks.resize(i + 1, (String::new(), Value::Null, String::new()));
                }
                self.blocks[i] = (kind, block.clone(), String::new());
            }
            (Some("content_block_delta"), Some(i)) => {
                if let Some(block) = self.blocks.get_mut(i) {
                    if let Some(text) = value["delta"]["text"].as_str() {
                        block.2.push_str(text);
                        items.push(Item::Text(text.to_owned()));
                    }
                    if let Some(json) = value["delta"]["partial_json"].as_str() {
                        block.2.push_str(json);
                    }
                }
            }
            (Some("message_delta"), _) => {
                self.stop = value["delta"]["stop_reason"].as_str().map(str::to_owned);
            }
            (Some("message_stop"), _) => self.done = true,
            _ => {}
        }
        items.extend(self.anthropic.push(value).into_iter().map(Item::Call));
    }

    fn openai_chunk(&mut self, value: &Value, items: &mut Vec<Item>) {
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
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.stop = Some(reason.to_owned());
        }
        items.extend(self.openai.push(value).into_iter().map(Item::Call));
    }

    /// The assistant message for the conversation history.
    pub fn assistant_message(&self) -> Value {
        match self.wire {
            Wire::Anthropic => {
                let content: Vec<Value> = self
                    .blocks
                    .iter()
                    .filter_map(|(kind, start, accumulated)| match kind.as_str() {
                        "text" => Some(json!({"type": "text", "text": accumulated})),
                        "tool_use" => {
                            let input: Value = if accumulated.trim().is_empty() {
                                json!({})
                            } else {
                                serde_json::from_str(accumulated).unwrap_or_else(|_| json!({}))
                            };
                            Some(json!({"type": "tool_use", "id": start["id"], "name": start["name"], "input": input}))
                        }
                        _ => None,
                    })
                    .collect();
                json!({"role": "assistant", "content": content})
            }
            Wire::OpenAiChat => {
                let mut message = Map::new();
                message.insert("role".into(), json!("assistant"));
                message.insert("content".into(), if self.text.is_empty() { Value::Null } else { json!(self.text) });
                if !self.calls.is_empty() {
                    let calls: Vec<Value> = self
                        .calls
                        .iter()
                        .map(|(id, name, arguments)| {
                            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
                        })
                        .collect();
                    message.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(message)
            }
        }
    }
}

fn clip(text: &str) -> String {
    let mut end = text.len().min(120);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() { format!("{}…", &text[..end]) } else { text.to_owned() }
}

/// One recorded response: its items in stream order.
pub type RecordedTurn = Vec<Item>;

/// A recorded session split into its responses, each decoded.
pub fn recorded_turns(text: &str) -> Result<(Wire, Vec<RecordedTurn>), String> {
    let wire = Wire::detect(text);
    let mut turns = Vec::new();
    let mut decoder = TurnDecoder::new(wire);
    let mut items = Vec::new();
    let mut parser = SseParser::default();
    let mut events = parser.push(text.as_bytes());
    events.extend(parser.finish());
    for event in events {
        // One decoder per response: the parsed events go to it directly.
        items.extend(decoder.events(vec![event])?);
        if decoder.done {
            turns.push(std::mem::take(&mut items));
            decoder = TurnDecoder::new(wire);
        }
    }
    items.extend(decoder.finish()?);
    if !items.is_empty() {
        turns.push(items);
    }
    if turns.is_empty() {
        return Err("the session holds no model responses (expected Anthropic SSE events or OpenAI chat chunks)".into());
    }
    Ok((wire, turns))
}
