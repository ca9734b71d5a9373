//! `tool_search`: the model's way to the deferred tools. A query in, the best
//! matches loaded into the session, their names (and what each does) out.

use super::{SearchMatch, ToolSession};
use crate::access::Accesses;
use crate::context::{ToolContext, TurnContext};
use crate::error::{InputError, ToolError};
use crate::output::ToolOutput;
use crate::spec::{Defer, Flags, ToolSpec};
use crate::tool::{BoxFuture, DynTool, PreparedCall};
use serde::Deserialize;
use serde_json::{Value, json};

/// The search tool's name.
pub const TOOL_SEARCH: &str = "tool_search";

/// What a search is: it changes what the session offers, nothing outside it.
const FLAGS: Flags = Flags { read_only: true, concurrency_safe: true, idempotent: true, ..Flags::NONE };

/// The most tools one search may ask for.
const LIMIT_MAX: usize = 20;

/// The `tool_search` tool. Offered only in a turn whose extensions hold a
/// [`ToolSession`] with something deferred; register it with
/// [`ToolSession::install`].
pub struct ToolSearch {
    spec: ToolSpec,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

impl ToolSearch {
    /// The tool.
    pub fn new() -> ToolSearch {
        let mut spec = ToolSpec::runtime(
            TOOL_SEARCH,
            "Finds and loads tools that are available but not yet loaded. Describe the task (`create a github \
             issue`), give a name (`select:name1,name2`), or a regular expression with `regex: true`. The best \
             matches are loaded and callable from then on.",
            "toolwright",
        );
        spec.flags = FLAGS;
        spec.defer = Defer::Never;
        ToolSearch { spec }
    }
}

impl DynTool for ToolSearch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What the tool should do, in words; or `select:` and exact names separated by commas; or a regular expression when `regex` is true"
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "description": "How many tools to load at most (default 5)"},
                "regex": {"type": "boolean", "description": "Read `query` as a case-insensitive regular expression over names, parameters and descriptions"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = crate::input::parse_input(raw_input)?;
        Ok(Box::new(input))
    }

    fn is_enabled(&self, turn: &TurnContext) -> bool {
        turn.extensions().get::<ToolSession>().is_some()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    query: String,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    regex: bool,
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.query.trim().is_empty() {
            return Err(ToolError::msg("`query` is empty: describe the task, or give `select:` and tool names"));
        }
        if self.limit.is_some_and(|l| l == 0 || l > LIMIT_MAX) {
            return Err(ToolError::msg(format!("`limit` must be from 1 to {LIMIT_MAX}")));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("search tools: {}", self.query.trim()))
    }

    fn access(&self) -> Accesses {
        // It changes what the session offers, nothing outside it.
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let session = cx.extension::<ToolSession>().ok_or_else(|| {
                ToolError::msg("tool_search needs a ToolSession in the turn's extensions; no tools are deferred here")
            })?;
            let query = self.query.trim();
            let limit = self.limit.unwrap_or(session.deferral().max_results).min(LIMIT_MAX);
            let (matches, unknown) = match query.strip_prefix("select:") {
                Some(list) => {
                    let mut found = Vec::new();
                    let mut unknown = Vec::new();
                    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        match session
                            .search(name, false, 1)
                            .unwrap_or_default()
                            .into_iter()
                            .find(|m| m.score.is_infinite())
                        {
                            Some(m) => found.push(m),
                            None if session.is_loaded(name) => {}
                            None => unknown.push(name.to_owned()),
                        }
                    }
                    (found, unknown)
                }
                None => {
                    (session.search(query, self.regex, limit).map_err(|e| ToolError::msg(e.to_string()))?, Vec::new())
                }
            };
            let loaded = session.load(matches.iter().map(|m| m.name.as_str()));
            session.record_search(query, &loaded);
            Ok(ToolOutput::text(report(query, &matches, &loaded, &unknown)))
        })
    }
}

/// What the model reads back.
fn report(query: &str, matches: &[SearchMatch], loaded: &[String], unknown: &[String]) -> String {
    let mut text = String::new();
    if matches.is_empty() {
        text.push_str(&format!(
            "No deferred tool matches `{query}`. Try other words for the task, or `regex: true` with a pattern."
        ));
    } else {
        text.push_str("Loaded, callable from now on:\n");
        for m in matches {
            let again = if loaded.contains(&m.name) { "" } else { " (already loaded)" };
            text.push_str(&format!("- {}{again}: {}\n", m.name, m.summary));
        }
    }
    if !unknown.is_empty() {
        text.push_str(&format!("\nNo deferred tool is named {}.", unknown.join(", ")));
    }
    text.trim_end().to_owned()
}

/// The search tool's description for a pool: what it does, and what can be found
/// (the servers and how many tools each, the other deferred tools by count).
pub(crate) fn description_for<'a>(deferred: impl Iterator<Item = &'a str>, base: &str) -> String {
    let mut servers: Vec<(&str, usize)> = Vec::new();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut others = 0;
    let mut total = 0;
    for name in deferred {
        total += 1;
        match name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
            Some((server, _)) => match seen.get(server) {
                Some(&at) => servers[at].1 += 1,
                None => {
                    seen.insert(server, servers.len());
                    servers.push((server, 1));
                }
            },
            None => others += 1,
        }
    }
    let mut parts: Vec<String> = servers.iter().map(|(s, n)| format!("{s} ({n})")).collect();
    if others > 0 {
        parts.push(format!("other tools ({others})"));
    }
    format!("{base} {total} tools can be loaded: {}.", parts.join(", "))
}
