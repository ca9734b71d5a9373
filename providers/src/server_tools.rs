//! The providers' own tools, which run on their servers: web search. A request
//! declares them beside the function tools; their uses and results come back as
//! blocks (Anthropic) or output items (OpenAI Responses) that the conversation keeps
//! exactly as they came, and that the stream reports as [`ServerToolEvent`]s.

use super::Api;
use serde_json::{Value, json};

/// The provider's web search: Anthropic's `web_search` tool, OpenAI Responses'
/// `web_search`, Gemini's `google_search` (grounding).
///
/// ```
/// use toolwright_providers::provider::{Api, server_tools::WebSearchServerTool};
/// let search = WebSearchServerTool::new().max_uses(3).allowed_domains(["docs.rs"]);
/// let tool = search.definition(Api::Anthropic).unwrap();
/// assert_eq!(tool["type"], "web_search_20250305");
/// assert_eq!(tool["max_uses"], 3);
/// assert!(search.definition(Api::OpenAiChat).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct WebSearchServerTool {
    /// The most searches in one response (Anthropic's `max_uses`).
    pub max_uses: Option<u32>,
    /// Only these domains.
    pub allowed_domains: Vec<String>,
    /// Never these domains (Anthropic only).
    pub blocked_domains: Vec<String>,
    /// Where the user is, as the API takes it (`{"type": "approximate", "city": ...}`).
    pub user_location: Option<Value>,
    /// Anthropic's tool version: `web_search_20250305` (the default), or
    /// `web_search_20260209` / `web_search_20260318` (dynamic filtering).
    pub version: Option<String>,
    /// Anthropic's `response_inclusion` (`full` or `excluded`; `web_search_20260318`).
    pub response_inclusion: Option<String>,
}

/// Anthropic's web search versions, oldest first.
pub const ANTHROPIC_WEB_SEARCH_VERSIONS: [&str; 3] =
    ["web_search_20250305", "web_search_20260209", "web_search_20260318"];

/// Why a server tool cannot be declared for an API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerToolError {
    /// The API has no such tool.
    #[error("{api} has no server-side web search (use Anthropic Messages, OpenAI Responses or Gemini)")]
    Unsupported {
        /// The API.
        api: &'static str,
    },
    /// Both domain lists were given.
    #[error("the web search takes allowed domains or blocked domains, not both")]
    BothLists,
    /// A version or setting the API does not know.
    #[error("{what}")]
    Invalid {
        /// What is wrong, naming the value and what is accepted.
        what: String,
    },
    /// The API takes no blocked domains.
    #[error("{api}'s web search takes no blocked domains, only allowed ones")]
    NoBlockedList {
        /// The API.
        api: &'static str,
    },
    /// The API's search takes no such setting (Gemini's `google_search` takes none).
    #[error("{api}'s web search takes no {what}")]
    NotTaken {
        /// The API.
        api: &'static str,
        /// The setting.
        what: &'static str,
    },
}

impl WebSearchServerTool {
    /// Searches as the provider sees fit.
    pub fn new() -> WebSearchServerTool {
        WebSearchServerTool::default()
    }

    /// At most `n` searches per response.
    pub fn max_uses(mut self, n: u32) -> Self {
        self.max_uses = Some(n);
        self
    }

    /// Only results from these domains.
    pub fn allowed_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, domains: I) -> Self {
        self.allowed_domains.extend(domains.into_iter().map(Into::into));
        self
    }

    /// Anthropic's tool version (`web_search_20260209`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Anthropic's `response_inclusion` (`full` or `excluded`).
    pub fn response_inclusion(mut self, inclusion: impl Into<String>) -> Self {
        self.response_inclusion = Some(inclusion.into());
        self
    }

    /// No results from these domains.
    pub fn blocked_domains<I: IntoIterator<Item = S>, S: Into<String>>(mut self, domains: I) -> Self {
        self.blocked_domains.extend(domains.into_iter().map(Into::into));
        self
    }

    /// The tool as `api` declares it in a request's `tools`.
    pub fn definition(&self, api: Api) -> Result<Value, ServerToolError> {
        if !self.allowed_domains.is_empty() && !self.blocked_domains.is_empty() {
            return Err(ServerToolError::BothLists);
        }
        let anthropic_only = |what: &'static str| ServerToolError::NotTaken { api: api.name(), what };
        if api != Api::Anthropic {
            if self.version.is_some() {
                return Err(anthropic_only("tool version"));
            }
            if self.response_inclusion.is_some() {
                return Err(anthropic_only("response_inclusion"));
            }
        }
        match api {
            Api::Anthropic => {
                let version = self.version.as_deref().unwrap_or(ANTHROPIC_WEB_SEARCH_VERSIONS[0]);
                if !ANTHROPIC_WEB_SEARCH_VERSIONS.contains(&version) {
                    return Err(ServerToolError::Invalid {
                        what: format!(
                            "`{version}` is not a version of Anthropic's web search ({})",
                            ANTHROPIC_WEB_SEARCH_VERSIONS.join(", ")
                        ),
                    });
                }
                let mut tool = json!({"type": version, "name": "web_search"});
                if let Some(inclusion) = &self.response_inclusion {
                    if version != "web_search_20260318" || !matches!(inclusion.as_str(), "full" | "excluded") {
                        return Err(ServerToolError::Invalid {
                            what: format!(
                                "`response_inclusion` is `full` or `excluded`, with web_search_20260318 only (not `{inclusion}` with {version})"
                            ),
                        });
                    }
                    tool["response_inclusion"] = json!(inclusion);
                }
                if let Some(n) = self.max_uses {
                    tool["max_uses"] = json!(n);
                }
                if !self.allowed_domains.is_empty() {
                    tool["allowed_domains"] = json!(self.allowed_domains);
                }
                if !self.blocked_domains.is_empty() {
                    tool["blocked_domains"] = json!(self.blocked_domains);
                }
                if let Some(location) = &self.user_location {
                    tool["user_location"] = location.clone();
                }
                Ok(tool)
            }
            Api::OpenAiResponses => {
                if !self.blocked_domains.is_empty() {
                    return Err(ServerToolError::NoBlockedList { api: api.name() });
                }
                let mut tool = json!({"type": "web_search"});
                if !self.allowed_domains.is_empty() {
                    tool["filters"] = json!({"allowed_domains": self.allowed_domains});
                }
                if let Some(location) = &self.user_location {
                    tool["user_location"] = location.clone();
                }
                Ok(tool)
            }
            // `google_search` takes no settings: each one given is refused, never dropped.
            Api::Gemini => {
                let not_taken = |what| Err(ServerToolError::NotTaken { api: api.name(), what });
                if !self.allowed_domains.is_empty() || !self.blocked_domains.is_empty() {
                    return not_taken("domain lists");
                }
                if self.max_uses.is_some() {
                    return not_taken("limit of searches");
                }
                if self.user_location.is_some() {
                    return not_taken("user location");
                }
                Ok(json!({"google_search": {}}))
            }
            other => Err(ServerToolError::Unsupported { api: other.name() }),
        }
    }
}

/// A server tool at work, as the stream shows it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerToolEvent {
    /// The model used a server tool (its input: a search's query).
    Used {
        /// The tool (`web_search`).
        name: String,
        /// Its input, or the action it took.
        input: Value,
    },
    /// A server tool's results: the pages found, or its error code.
    Results {
        /// The tool.
        name: String,
        /// (title, url) of each result.
        pages: Vec<(String, String)>,
        /// The error code, when it failed (Anthropic's `web_search_tool_result_error`).
        error: Option<String>,
    },
}

impl ServerToolEvent {
    /// Anthropic's `web_search_tool_result` block as an event.
    pub(crate) fn from_anthropic_result(block: &Value) -> ServerToolEvent {
        let name = "web_search".to_owned();
        match &block["content"] {
            Value::Array(results) => ServerToolEvent::Results {
                name,
                pages: results
                    .iter()
                    .map(|r| {
                        let url = r["url"].as_str().unwrap_or_default().to_owned();
                        (r["title"].as_str().unwrap_or(&url).to_owned(), url)
                    })
                    .collect(),
                error: None,
            },
            other => ServerToolEvent::Results {
                name,
                pages: Vec::new(),
                error: Some(other["error_code"].as_str().unwrap_or("unknown").to_owned()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Item;

    #[test]
    fn responses_declares_its_search_and_keeps_the_call_item() {
        let tool = WebSearchServerTool::new().allowed_domains(["docs.rs"]).definition(Api::OpenAiResponses).unwrap();
        assert_eq!(tool, json!({"type": "web_search", "filters": {"allowed_domains": ["docs.rs"]}}));
        assert_eq!(
            WebSearchServerTool::new().blocked_domains(["x.com"]).definition(Api::OpenAiResponses),
            Err(ServerToolError::NoBlockedList { api: Api::OpenAiResponses.name() })
        );
        let call = json!({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "tokio"}});
        let stream = format!(
            "event: response.output_item.added\ndata: {}\n\nevent: response.output_item.done\ndata: {}\n\nevent: response.completed\ndata: {}\n\n",
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": call}),
            json!({"type": "response.completed", "response": {"usage": {"input_tokens": 1, "output_tokens": 1}}}),
        );
        let mut decoder = Api::OpenAiResponses.decoder();
        let mut items = decoder.push(stream.as_bytes()).unwrap();
        items.extend(decoder.finish().unwrap());
        assert!(
            items
                .iter()
                .any(|i| matches!(i, Item::Server(ServerToolEvent::Used { input, .. }) if input["query"] == "tokio")),
            "{items:?}"
        );
        assert_eq!(decoder.assistant_items(), [call]);
    }
}

#[cfg(test)]
mod anthropic_tests {
    use super::{ServerToolError, WebSearchServerTool};
    use crate::provider::{Api, Item};
    use serde_json::json;

    #[test]
    fn anthropic_versions_are_declared_as_named_and_others_refused() {
        let newest = WebSearchServerTool::new().version("web_search_20260318").response_inclusion("excluded");
        assert_eq!(
            newest.definition(Api::Anthropic).unwrap(),
            json!({"type": "web_search_20260318", "name": "web_search", "response_inclusion": "excluded"})
        );
        let dynamic = WebSearchServerTool::new().version("web_search_20260209").max_uses(2);
        assert_eq!(dynamic.definition(Api::Anthropic).unwrap()["type"], "web_search_20260209");
        let unknown = WebSearchServerTool::new().version("web_search_2099").definition(Api::Anthropic).unwrap_err();
        assert!(unknown.to_string().contains("web_search_20250305, web_search_20260209, web_search_20260318"));
        let early = WebSearchServerTool::new().response_inclusion("full").definition(Api::Anthropic).unwrap_err();
        assert!(early.to_string().contains("web_search_20260318 only"), "{early}");
        let elsewhere = WebSearchServerTool::new().version("web_search_20260209").definition(Api::Gemini);
        assert_eq!(elsewhere, Err(ServerToolError::NotTaken { api: "gemini", what: "tool version" }));
    }

    #[test]
    fn anthropic_reports_the_search_and_its_results() {
        let ev = |name: &str, data: serde_json::Value| format!("event: {name}\ndata: {data}\n\n");
        let mut s = ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        );
        s += &ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}}),
        );
        s += &ev("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
        s += &ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "https://a/1", "title": "A"}]}}),
        );
        s += &ev("content_block_stop", json!({"type": "content_block_stop", "index": 1}));
        s += &ev("message_stop", json!({"type": "message_stop"}));
        let mut decoder = Api::Anthropic.decoder();
        let items = decoder.push(s.as_bytes()).unwrap();
        let servers = items.iter().filter(|i| matches!(i, Item::Server(_))).count();
        assert_eq!(servers, 2, "{items:?}");
    }
}
