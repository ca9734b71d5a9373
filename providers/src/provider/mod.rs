//! One module per model API, holding what toolwright knows about it: how a tool
//! definition is wrapped, how calls come out of a response and results go back, how a
//! streamed response decodes (call events for the streaming executor, the text, the
//! assistant message to keep), and how a request is built. Plain JSON in and out; the
//! facade's `agent` module sends the requests.
//!
//! What a dialect allows *inside* a schema (the strict subsets, Gemini's OpenAPI
//! subset) stays in [`crate::schema`]: one walker over the schema, with each dialect's
//! rules in its table there.
//!
//! ```
//! use serde_json::json;
//! use toolwright_core::provider::{Api, Conversation, Item, Request};
//!
//! let mut conversation = Conversation::new(Api::Anthropic, "Count the files.");
//! let tools = json!([]);
//! let body = Api::Anthropic.request(&Request::new("claude-sonnet-4-5", "Be brief.", &tools, &conversation));
//! assert_eq!(body["messages"][0]["content"], "Count the files.");
//!
//! let mut decoder = Api::Anthropic.decoder();
//! let items = decoder.push(concat!(
//!     "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,",
//!     "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Three.\"}}\n\n",
//!     "data: {\"type\":\"message_stop\"}\n\n",
//! ).as_bytes()).unwrap();
//! assert_eq!(items, [Item::Text("Three.".into())]);
//! assert!(decoder.is_done());
//! conversation.push_response(decoder.assistant_items(), &[]);
//! assert_eq!(conversation.items()[1]["content"][0]["text"], "Three.");
//! ```

pub mod anthropic;
pub mod gemini;
pub(crate) mod mcp;
pub mod openai_chat;
pub mod openai_responses;
// Not a provider: the providers' own tools, beside them (one module per provider here).
#[path = "../server_tools.rs"]
pub mod server_tools;

pub use toolwright_contracts::usage::Usage;

use crate::sse::{SseEvent, SseParser};
use toolwright_contracts::Provider;
use toolwright_contracts::SchemaError;
use toolwright_contracts::StreamEvent;
use toolwright_contracts::ToolOutput;
use toolwright_contracts::ToolResult;
use toolwright_contracts::ToolSpec;

/// The brackets around a tool list in `provider`'s request: a JSON array, or
/// Gemini's one `functionDeclarations` entry.
#[doc(hidden)]
pub fn list_brackets(provider: Provider) -> (&'static str, &'static str) {
    if provider.is_gemini() { (gemini::LIST_OPEN, gemini::LIST_CLOSE) } else { ("[", "]") }
}
use serde_json::Value;

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

pub(crate) fn err(provider: &'static str, message: impl Into<String>) -> AdapterError {
    AdapterError { provider, message: message.into() }
}

pub(crate) fn str_field<'a>(
    provider: &'static str,
    obj: &'a Value,
    key: &str,
    at: &str,
) -> Result<&'a str, AdapterError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| err(provider, format!("{at}: `{key}` is missing or not a string")))
}

/// The text a model reads for outputs whose format has no image slot.
pub(crate) fn text_only(output: &ToolOutput) -> String {
    let mut parts = Vec::new();
    for block in &output.content {
        parts.push(block.to_model_text().into_owned());
    }
    let text = parts.join("\n");
    if text.is_empty() { "(no output)".to_owned() } else { text }
}

/// Renders one tool in `provider`'s shape from its lowered schemas.
#[doc(hidden)]
pub fn render_tool(
    spec: &ToolSpec,
    name: &str,
    description: &str,
    input: &Value,
    output: Option<&Value>,
    provider: Provider,
) -> Result<String, SchemaError> {
    let tool = definition(provider, spec, name, description, input, output);
    Ok(Value::Object(tool).to_string())
}

/// One tool's entry in `provider`'s list, from its lowered schemas: the one place
/// each provider's wrapper is chosen.
pub(crate) fn definition(
    provider: Provider,
    spec: &toolwright_contracts::ToolSpec,
    name: &str,
    description: &str,
    input: &Value,
    output: Option<&Value>,
) -> serde_json::Map<String, Value> {
    let (name, description) = (Value::String(name.to_owned()), Value::String(description.to_owned()));
    match provider {
        Provider::Anthropic { strict, .. } => anthropic::definition(name, description, input, strict),
        Provider::OpenAiChat { strict } => openai_chat::definition(name, description, input, strict),
        Provider::OpenAiResponses { strict } => openai_responses::definition(name, description, input, strict),
        Provider::Gemini => gemini::definition(name, description, input, false),
        Provider::GeminiJsonSchema => gemini::definition(name, description, input, true),
        Provider::Mcp => mcp::definition(spec, name, description, input, output),
    }
}

/// The module that holds `provider`'s facts (for the test that keeps the two lists
/// together).
#[cfg(test)]
fn module_name(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic { .. } => "anthropic",
        Provider::OpenAiChat { .. } => "openai_chat",
        Provider::OpenAiResponses { .. } => "openai_responses",
        Provider::Gemini | Provider::GeminiJsonSchema => "gemini",
        Provider::Mcp => "mcp",
    }
}

/// The streaming model APIs an agent loop talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Api {
    /// Anthropic Messages (`POST /v1/messages`, SSE).
    Anthropic,
    /// OpenAI Chat Completions (`POST /chat/completions`, chunks).
    OpenAiChat,
    /// OpenAI Responses (`POST /responses`, typed SSE events).
    OpenAiResponses,
    /// Google Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`).
    Gemini,
}

impl Api {
    /// Every API, in a fixed order.
    pub const ALL: [Api; 4] = [Api::Anthropic, Api::OpenAiChat, Api::OpenAiResponses, Api::Gemini];

    /// Its module: the one place each fact about it is kept.
    fn module(self) -> &'static dyn ApiModule {
        match self {
            Api::Anthropic => &anthropic::Module,
            Api::OpenAiChat => &openai_chat::Module,
            Api::OpenAiResponses => &openai_responses::Module,
            Api::Gemini => &gemini::Module,
        }
    }

    /// `anthropic`, `openai-chat`, `openai-responses`, `gemini`.
    pub fn name(self) -> &'static str {
        self.module().name()
    }

    /// The tool definitions a request carries, plain (not strict).
    pub fn provider(self) -> Provider {
        self.module().provider()
    }

    /// The endpoint's path under the API's base URL (Gemini's names the model as
    /// `{model}`: see [`Api::endpoint`]).
    pub fn path(self) -> &'static str {
        self.module().path()
    }

    /// The endpoint's path for `model` (Gemini puts the model in the path).
    pub fn endpoint(self, model: &str) -> String {
        self.path().replace("{model}", model)
    }

    /// The documented base URL.
    pub fn default_base_url(self) -> &'static str {
        self.module().default_base_url()
    }

    /// The headers that carry the API key (and the version, where one is required).
    pub fn auth_headers(self, key: &str) -> Vec<(&'static str, String)> {
        self.module().auth_headers(key)
    }

    /// The environment variables a key and a base URL are read from.
    pub fn env_vars(self) -> (&'static str, &'static str) {
        self.module().env_vars()
    }

    /// A streaming request's body.
    pub fn request(self, request: &Request<'_>) -> Value {
        self.module().request(request)
    }

    /// A decoder for one streamed response.
    pub fn decoder(self) -> TurnDecoder {
        TurnDecoder {
            api: self,
            sse: SseParser::default(),
            state: self.module().turn(),
            done: false,
            stop: None,
            usage: Usage::default(),
        }
    }

    /// The API a recorded stream came from, by its first typed events (OpenAI chat
    /// when none claims it: its chunks have no type).
    pub fn detect(stream: &str) -> Api {
        Api::ALL.into_iter().find(|api| api.module().recognizes(stream)).unwrap_or(Api::OpenAiChat)
    }
}

/// What each streaming API's module provides. Adding an API is its module
/// implementing this, one [`Api`] variant, and its arm in `Api::module`.
pub(crate) trait ApiModule: Sync {
    fn name(&self) -> &'static str;
    fn provider(&self) -> Provider;
    fn path(&self) -> &'static str;
    fn default_base_url(&self) -> &'static str;
    fn env_vars(&self) -> (&'static str, &'static str);
    fn auth_headers(&self, key: &str) -> Vec<(&'static str, String)>;
    fn request(&self, request: &Request<'_>) -> Value;
    /// Appends the results of a response's calls to the conversation's items.
    fn push_results(&self, items: &mut Vec<Value>, results: &[ToolResult]);
    fn turn(&self) -> Box<dyn TurnState>;
    /// Whether a recorded stream is in this API's format.
    fn recognizes(&self, stream: &str) -> bool;
    /// Takes what a stream event says of the tokens used into `usage`.
    fn usage(&self, event: &Value, usage: &mut Usage);
}

/// One response of an API as it streams.
pub(crate) trait TurnState: Send {
    fn event(&mut self, value: &Value, items: &mut Vec<Item>) -> Step;
    fn cut(&mut self) -> Vec<StreamEvent>;
    fn has_output(&self) -> bool;
    fn assistant_items(&self) -> Vec<Value>;
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one request carries besides the conversation's items.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Request<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The system prompt (Anthropic's `system`, a chat `system` message, Responses'
    /// `instructions`).
    pub system: &'a str,
    /// The rendered definitions (`Definitions::to_value()` for [`Api::provider`]).
    pub tools: &'a Value,
    /// The conversation so far.
    pub conversation: &'a Conversation,
    /// The most tokens the response may take.
    pub max_tokens: u32,
    /// The items (by index) whose end is a prompt-cache breakpoint, for the APIs that
    /// take them (Anthropic's `cache_control`); the others ignore them.
    pub cache_breakpoints: &'a [usize],
}

impl<'a> Request<'a> {
    /// A request with 8192 tokens for the response.
    pub fn new(model: &'a str, system: &'a str, tools: &'a Value, conversation: &'a Conversation) -> Self {
        Request { model, system, tools, conversation, max_tokens: 8192, cache_breakpoints: &[] }
    }

    /// With prompt-cache breakpoints at the end of these items (see
    /// [`Request::cache_breakpoints`]).
    pub fn cache_breakpoints(mut self, items: &'a [usize]) -> Self {
        self.cache_breakpoints = items;
        self
    }

    /// With another token limit for the response.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// A streaming body in one API's key names: the model, the token limit, the
    /// system prompt (when the API has a key for it and there is one), the tools
    /// (none when the list is empty: some APIs refuse `tools: []`), and `items`.
    pub(crate) fn body(&self, keys: BodyKeys, items: Value) -> Value {
        let mut body = serde_json::Map::new();
        body.insert("model".into(), Value::from(self.model));
        body.insert("stream".into(), Value::Bool(true));
        body.insert(keys.max_tokens.into(), Value::from(self.max_tokens));
        if let Some(key) = keys.system.filter(|_| !self.system.is_empty()) {
            body.insert(key.into(), Value::from(self.system));
        }
        if self.tools.as_array().is_some_and(|t| !t.is_empty()) {
            body.insert("tools".into(), self.tools.clone());
        }
        body.insert(keys.items.into(), items);
        Value::Object(body)
    }
}

/// Where an API's request body puts what every request has.
#[derive(Clone, Copy)]
pub(crate) struct BodyKeys {
    pub(crate) max_tokens: &'static str,
    /// `None`: the system prompt is one of the items.
    pub(crate) system: Option<&'static str>,
    pub(crate) items: &'static str,
}

/// A conversation in one API's own item format: the task, then each response and
/// its results.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    api: Api,
    items: Vec<Value>,
}

impl Conversation {
    /// A conversation that starts with the user's `task`.
    pub fn new(api: Api, task: &str) -> Conversation {
        Conversation { api, items: vec![serde_json::json!({"role": "user", "content": task})] }
    }

    /// A conversation from items already in `api`'s format.
    pub fn from_items(api: Api, items: Vec<Value>) -> Conversation {
        Conversation { api, items }
    }

    /// Which API's format.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The items, oldest first.
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// Appends a message from the user (a follow-up, a hook's instruction).
    pub fn push_user(&mut self, text: &str) {
        self.items.push(serde_json::json!({"role": "user", "content": text}));
    }

    /// Appends a response ([`TurnDecoder::assistant_items`]) and the results of its
    /// calls, in call order.
    pub fn push_response(&mut self, assistant: Vec<Value>, results: &[ToolResult]) {
        self.items.extend(assistant);
        self.api.module().push_results(&mut self.items, results);
    }
}

/// What a streamed response carries, in stream order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A piece of the assistant's text.
    Text(String),
    /// A tool call event for the streaming executor.
    Call(StreamEvent),
    /// A server tool's use or results (the provider's web search).
    Server(server_tools::ServerToolEvent),
}

/// A streamed response that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// An event's data is not JSON.
    #[error("a {api} stream event is not JSON ({message}): {data}")]
    NotJson {
        /// Which API.
        api: Api,
        /// The parser's message.
        message: String,
        /// The start of the event's data.
        data: String,
    },
    /// The API streamed an error event (overloaded, a failed response).
    #[error("the {api} API streamed an error: {message}")]
    Api {
        /// Which API.
        api: Api,
        /// The error's type, when given (`overloaded_error`, `server_error`).
        kind: Option<String>,
        /// The error's message.
        message: String,
    },
}

impl StreamError {
    /// Whether asking again may succeed: an overload or a server error, not a bad
    /// request.
    pub fn is_transient(&self) -> bool {
        match self {
            StreamError::Api { kind: Some(kind), .. } => {
                matches!(kind.as_str(), "overloaded_error" | "api_error" | "server_error" | "rate_limit_error")
            }
            _ => false,
        }
    }
}

/// Decodes one streamed response from its bytes.
pub struct TurnDecoder {
    api: Api,
    sse: SseParser,
    state: Box<dyn TurnState>,
    done: bool,
    stop: Option<String>,
    usage: Usage,
}

impl std::fmt::Debug for TurnDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnDecoder").field("api", &self.api).field("done", &self.done).finish_non_exhaustive()
    }
}

impl TurnDecoder {
    /// The items in `bytes` (split anywhere); nothing after the response is done.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Item>, StreamError> {
        let mut items = Vec::new();
        for event in self.sse.push(bytes) {
            self.event_into(&event, &mut items)?;
        }
        Ok(items)
    }

    /// The end of the bytes. A response cut short ends the calls it left open with
    /// [`StreamEvent::Cut`]: they are answered with an error and never run.
    pub fn finish(&mut self) -> Result<Vec<Item>, StreamError> {
        let mut items = Vec::new();
        if let Some(event) = self.sse.finish() {
            self.event_into(&event, &mut items)?;
        }
        if !self.done {
            items.extend(self.cut());
        }
        Ok(items)
    }

    /// Ends the calls left open, as when the connection fails mid-response.
    pub fn cut(&mut self) -> Vec<Item> {
        self.state.cut().into_iter().map(Item::Call).collect()
    }

    /// The items of one server-sent event (a recorded session's, already parsed).
    pub fn event(&mut self, event: &SseEvent) -> Result<Vec<Item>, StreamError> {
        let mut items = Vec::new();
        self.event_into(event, &mut items)?;
        Ok(items)
    }

    fn event_into(&mut self, event: &SseEvent, items: &mut Vec<Item>) -> Result<(), StreamError> {
        if self.done {
            return Ok(());
        }
        if event.data == "[DONE]" {
            self.done = true;
            items.extend(self.cut());
            return Ok(());
        }
        if event.data.trim().is_empty() {
            return Ok(());
        }
        let value: Value = serde_json::from_str(&event.data).map_err(|e| StreamError::NotJson {
            api: self.api,
            message: e.to_string(),
            data: clip(&event.data),
        })?;
        if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
            return Err(self.api_error(error));
        }
        self.api.module().usage(&value, &mut self.usage);
        match self.state.event(&value, items) {
            Step::Going => {}
            Step::Stop(reason) => self.stop = Some(reason),
            Step::Done => {
                // A call still open when the response ends was never completed.
                self.done = true;
                items.extend(self.cut());
            }
            Step::Finished(reason) => {
                self.stop = Some(reason);
                self.done = true;
                items.extend(self.cut());
            }
            Step::Failed(error) => return Err(self.api_error(&error)),
        }
        Ok(())
    }

    fn api_error(&self, error: &Value) -> StreamError {
        let message = error.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_owned);
        let kind = error.get("type").or_else(|| error.get("code")).and_then(Value::as_str).map(str::to_owned);
        StreamError::Api { api: self.api, kind, message }
    }

    /// Which API.
    pub fn api(&self) -> Api {
        self.api
    }

    /// The response is complete (`message_stop`, `[DONE]`, `response.completed`).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Why the model stopped (`end_turn`, `tool_use`, `stop`, `tool_calls`,
    /// `max_tokens`, ...), once it said.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop.as_deref()
    }

    /// The tokens the response used, as far as the stream has told.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Whether the response has shown anything yet (text or a call).
    pub fn has_output(&self) -> bool {
        self.state.has_output()
    }

    /// The response as items for the conversation: every call that started is in
    /// it (a cut one with the input it had), so every result has its call.
    pub fn assistant_items(&self) -> Vec<Value> {
        self.state.assistant_items()
    }
}

/// What one event did to a response.
pub(crate) enum Step {
    Going,
    Stop(String),
    Done,
    /// Done, for this reason (an API that says both in one event).
    Finished(String),
    Failed(Value),
}

fn clip(text: &str) -> String {
    let mut end = text.len().min(120);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() { format!("{}…", &text[..end]) } else { text.to_owned() }
}

/// A call's input as accumulated from a stream: the JSON when it parses, else `{}`
/// (a cut call's partial input never reaches a tool; the API needs an object).
pub(crate) fn input_object(accumulated: &str) -> Value {
    match serde_json::from_str::<Value>(accumulated) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::Object(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_provider_has_its_module_and_every_module_a_provider() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/provider");
        let files: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "rs") && !path.ends_with("mod.rs"))
            .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        let named: BTreeSet<String> = Provider::ALL.iter().map(|p| module_name(*p).to_owned()).collect();
        assert_eq!(files, named, "src/provider/ against Provider::ALL");
        // Every streaming API renders its requests' tools through one of them, and
        // tells its own recordings apart.
        for api in Api::ALL {
            assert!(Provider::ALL.contains(&api.provider()), "{api}");
            assert_eq!(module_name(api.provider()).replace('_', "-"), api.name());
        }
    }

    #[test]
    fn recordings_are_told_apart_by_their_first_events() {
        assert_eq!(Api::detect("event: message_start\ndata: {\"type\":\"message_start\"}\n\n"), Api::Anthropic);
        assert_eq!(Api::detect("data: {\"type\":\"response.created\"}\n\n"), Api::OpenAiResponses);
        assert_eq!(Api::detect("data: {\"choices\":[]}\n\ndata: [DONE]\n\n"), Api::OpenAiChat);
        assert_eq!(Api::detect("data: {\"candidates\":[]}\n\n"), Api::Gemini);
    }
}
