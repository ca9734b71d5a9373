//! What the search knows beyond the tools themselves: a one-line summary per MCP
//! server (from its `instructions` or title, or written by a team), and extra search
//! text per tool or per server (keywords, example requests), weighted below the
//! tool's own description. A team improves the search for its servers without code,
//! with a file beside the MCP config (see [`SearchHints::from_json`]).

use serde_json::Value;
use std::collections::BTreeMap;

/// Summaries and extra search text, by server and by tool.
///
/// ```
/// use toolwright_core::deferred::SearchHints;
/// let hints = SearchHints::from_json(r#"{
///     "servers": {"github": {"summary": "Issues and pull requests on GitHub.",
///                            "tools": {"create_issue": "open a bug report, file a ticket"}}},
///     "tools": {"notes_add": "jot down, remember"}
/// }"#).unwrap();
/// assert_eq!(hints.summary("github"), Some("Issues and pull requests on GitHub."));
/// assert_eq!(hints.keywords("mcp__github__create_issue"), "open a bug report, file a ticket");
/// assert_eq!(hints.keywords("notes_add"), "jot down, remember");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchHints {
    servers: BTreeMap<String, ServerHints>,
    /// By the tool's name as registered (`mcp__github__create_issue`, `notes_add`).
    tools: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ServerHints {
    summary: Option<String>,
    /// What the server said of itself (`instructions`, title): below a team's own.
    said: Option<String>,
    keywords: String,
}

/// A hints file that cannot be used: where and why.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum HintsError {
    /// Not JSON.
    #[error("not JSON: {0}")]
    Json(String),
    /// A key of the wrong kind.
    #[error("`{at}` {why}")]
    Shape {
        /// The key, as a path (`servers.github.tools`).
        at: String,
        /// What it should be.
        why: &'static str,
    },
}

/// The most of a summary shown: one line.
const SUMMARY_CHARS: usize = 120;

impl SearchHints {
    /// Hints in the file format:
    /// `{"servers": {"NAME": {"summary": "...", "keywords": "...", "tools": {"TOOL": "..."}}},
    /// "tools": {"TOOL": "..."}}`, every key optional; `TOOL` under a server is its own
    /// name there (`create_issue`), at the top level the name as registered.
    pub fn from_json(text: &str) -> Result<SearchHints, HintsError> {
        let value: Value = serde_json::from_str(text).map_err(|e| HintsError::Json(e.to_string()))?;
        let shape = |at: String, why| HintsError::Shape { at, why };
        let root = value.as_object().ok_or_else(|| shape(String::new(), "is not an object"))?;
        let mut hints = SearchHints::default();
        if let Some((key, _)) = root.iter().find(|(k, _)| *k != "servers" && *k != "tools") {
            return Err(shape(key.clone(), "is not a key of a hints file (`servers`, `tools`)"));
        }
        if let Some(servers) = root.get("servers") {
            let servers = servers.as_object().ok_or_else(|| shape("servers".into(), "is not an object"))?;
            for (server, entry) in servers {
                let at = format!("servers.{server}");
                let entry = entry.as_object().ok_or_else(|| shape(at.clone(), "is not an object"))?;
                let text = |key: &str| -> Result<Option<String>, HintsError> {
                    match entry.get(key) {
                        None => Ok(None),
                        Some(Value::String(s)) => Ok(Some(s.clone())),
                        Some(_) => Err(shape(format!("{at}.{key}"), "is not a string")),
                    }
                };
                if let Some(summary) = text("summary")? {
                    hints.set_summary(server, &summary);
                }
                if let Some(keywords) = text("keywords")? {
                    hints.add_server_keywords(server, &keywords);
                }
                if let Some(tools) = entry.get("tools") {
                    let tools = tools.as_object().ok_or_else(|| shape(format!("{at}.tools"), "is not an object"))?;
                    for (tool, words) in tools {
                        let words =
                            words.as_str().ok_or_else(|| shape(format!("{at}.tools.{tool}"), "is not a string"))?;
                        hints.add_tool_keywords(&format!("mcp__{server}__{tool}"), words);
                    }
                }
            }
        }
        if let Some(tools) = root.get("tools") {
            let tools = tools.as_object().ok_or_else(|| shape("tools".into(), "is not an object"))?;
            for (tool, words) in tools {
                let words = words.as_str().ok_or_else(|| shape(format!("tools.{tool}"), "is not a string"))?;
                hints.add_tool_keywords(tool, words);
            }
        }
        Ok(hints)
    }

    /// A team's one-line summary of `server` (first line, bounded).
    pub fn set_summary(&mut self, server: &str, summary: &str) {
        self.servers.entry(server.to_owned()).or_default().summary = one_line(summary);
    }

    /// What `server` says of itself (its `instructions`, else its title): shown when
    /// no team summary is given.
    pub fn set_server_said(&mut self, server: &str, said: &str) {
        self.servers.entry(server.to_owned()).or_default().said = one_line(said);
    }

    /// More search text for every tool of `server`.
    pub fn add_server_keywords(&mut self, server: &str, words: &str) {
        let entry = self.servers.entry(server.to_owned()).or_default();
        push(&mut entry.keywords, words);
    }

    /// More search text for the tool named `tool` (as registered).
    pub fn add_tool_keywords(&mut self, tool: &str, words: &str) {
        push(self.tools.entry(tool.to_owned()).or_default(), words);
    }

    /// Adds `other`'s hints to these (a summary of `other` replaces one here).
    pub fn merge(&mut self, other: SearchHints) {
        for (server, hint) in other.servers {
            let entry = self.servers.entry(server).or_default();
            entry.summary = hint.summary.or(entry.summary.take());
            entry.said = hint.said.or(entry.said.take());
            push(&mut entry.keywords, &hint.keywords);
        }
        for (tool, words) in other.tools {
            self.add_tool_keywords(&tool, &words);
        }
    }

    /// The summary of `server`: a team's, else what the server said of itself.
    pub fn summary(&self, server: &str) -> Option<&str> {
        let hint = self.servers.get(server)?;
        hint.summary.as_deref().or(hint.said.as_deref())
    }

    /// The extra search text for the tool named `name`: its own and its server's.
    pub fn keywords(&self, name: &str) -> String {
        let mut out = self.tools.get(name).cloned().unwrap_or_default();
        if let Some((server, _)) = name.strip_prefix("mcp__").and_then(|r| r.split_once("__"))
            && let Some(hint) = self.servers.get(server)
        {
            push(&mut out, &hint.keywords);
        }
        out
    }

    /// Whether there is nothing.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty() && self.tools.is_empty()
    }
}

fn push(text: &mut String, words: &str) {
    let words = words.trim();
    if words.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push_str(", ");
    }
    text.push_str(words);
}

/// The first non-empty line, at most [`SUMMARY_CHARS`] characters (cut at a word).
fn one_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    // The first sentence, when the line goes on.
    let line = match line.find(". ") {
        Some(end) if end < SUMMARY_CHARS => &line[..=end],
        _ => line,
    };
    if line.chars().count() <= SUMMARY_CHARS {
        return Some(line.to_owned());
    }
    let cut: String = line.chars().take(SUMMARY_CHARS).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
    Some(format!("{}...", cut.trim_end_matches([',', ';', ':'])))
}
