//! `tool_search`: the model's way to the deferred tools. A query in, the best
//! matches loaded into the session, their names (and what each does) out.

use super::{SearchMatch, ToolSession};
use crate::ToolOutput;
use crate::access::Accesses;
use crate::{BoxFuture, DynTool, PreparedCall};
use crate::{Defer, Flags, ToolSpec};
use crate::{InputError, ToolError};
use crate::{ToolContext, TurnContext};
use serde::Deserialize;
use serde_json::{Value, json};

/// The search tool's name.
pub const TOOL_SEARCH: &str = "tool_search";

/// The name Claude Code gives the tool, a hidden alias of it.
const CLAUDE_CODE_NAME: &[crate::Alias] = &[crate::Alias::hidden("ToolSearch")];

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
            "Finds and loads tools that are available but not yet loaded: the best matches are loaded and callable \
             from then on. Describe the task in words, give names, or a regular expression with `regex: true`.",
            "toolwright",
        );
        spec.flags = FLAGS;
        spec.defer = Defer::Never;
        // Claude Code's name for it: `ToolSearch` in rules and hook matchers, and
        // the name a Claude-trained model is shown it by (`Profile::claude_code`).
        spec.rule_name = Some("ToolSearch".into());
        spec.aliases = std::borrow::Cow::Borrowed(CLAUDE_CODE_NAME);
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
                    "description": "What the tool should do, in words; `server:NAME` to search one server, `+word` for a word the tool's name must have; or `select:` and names separated by commas; or a regular expression when `regex` is true"
                },
                "server": {"type": "string", "description": "Search only this MCP server's tools (as `server:NAME` in the query)"},
                "limit": {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "description": "How many tools to load at most (default 5)"},
                "regex": {"type": "boolean", "description": "Read `query` as a case-insensitive regular expression over names, parameters and descriptions"}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn field_aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[("max_results", "limit")]
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = crate::parse_input(raw_input)?;
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
    server: Option<String>,
    /// Claude Code's ToolSearch calls it `max_results`.
    #[serde(default, alias = "max_results")]
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
            let server = self.server.as_deref().map(str::trim).filter(|s| !s.is_empty());
            let limit = self.limit.unwrap_or(session.deferral().max_results).min(LIMIT_MAX);
            let (matches, unknown) = match query.strip_prefix("select:") {
                Some(list) => {
                    let mut found = Vec::new();
                    let mut unknown = Vec::new();
                    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        match session
                            .search_in(name, server, false, 1)
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
                None => (
                    session.search_in(query, server, self.regex, limit).map_err(|e| ToolError::msg(e.to_string()))?,
                    Vec::new(),
                ),
            };
            let loaded = session.load(matches.iter().map(|m| m.name.as_str()));
            session.record_search(query, &loaded);
            let closest = if matches.is_empty() && unknown.is_empty() {
                session.closest_servers(query, CLOSEST_SERVERS)
            } else {
                Vec::new()
            };
            Ok(ToolOutput::text(report(query, &matches, &loaded, &unknown, &closest)))
        })
    }
}

/// Matches scoring within this share of the best are too close to tell apart.
const CLOSE: f64 = 0.85;

/// How many servers a search that found nothing suggests.
const CLOSEST_SERVERS: usize = 5;

/// What the model reads back: each tool with its server, first sentence and
/// required parameters; when the best matches are near ties, how to narrow the
/// search (`server:` and `+word`, with the servers that matched); when nothing
/// matched, the servers closest to the query.
fn report(
    query: &str,
    matches: &[SearchMatch],
    loaded: &[String],
    unknown: &[String],
    closest: &[(String, Option<String>)],
) -> String {
    let mut text = String::new();
    if matches.is_empty() && unknown.is_empty() {
        text.push_str(&format!("No deferred tool matches `{query}`."));
        if closest.is_empty() {
            text.push_str(" Try other words for the task, or `regex: true` with a pattern.");
        } else {
            text.push_str(" The servers closest to it:\n");
            for (server, summary) in closest {
                let summary = summary.as_deref().map(|s| format!(": {s}")).unwrap_or_default();
                text.push_str(&format!("- {server}{summary}\n"));
            }
            text.push_str("Search one of them with `server:NAME` and words for the task.");
        }
    } else if !matches.is_empty() {
        if matches.iter().all(|m| m.score == 0.0) {
            text.push_str(&format!(
                "No tool in the scope asked says the words of `{query}`; its first tools are below. Read their \
                 descriptions, or search again with other words.\n"
            ));
        }
        text.push_str("Loaded, callable from now on:\n");
        for m in matches {
            let again = if loaded.contains(&m.name) { "" } else { " (already loaded)" };
            let server = m.server.as_deref().map(|s| format!(" (server {s})")).unwrap_or_default();
            let required =
                if m.required.is_empty() { String::new() } else { format!(" Requires: {}.", m.required.join(", ")) };
            text.push_str(&format!("- {}{server}{again}: {}{required}\n", m.name, m.summary));
        }
        if let Some(close) = close_matches(matches) {
            let mut servers: Vec<&str> = Vec::new();
            for server in matches.iter().take(close).filter_map(|m| m.server.as_deref()) {
                if !servers.contains(&server) {
                    servers.push(server);
                }
            }
            let narrow = match servers.as_slice() {
                [] => "add `+word` for a word the tool's name must have".to_owned(),
                [one] => format!("add `+word` for a word the tool's name must have (they are all on `{one}`)"),
                several => format!(
                    "search one server with `server:NAME` ({}), or add `+word` for a word the tool's name must have",
                    several.join(", ")
                ),
            };
            text.push_str(&format!(
                "\nThe first {close} matches score within {}% of each other, so the search cannot tell which one \
                 you mean: read their descriptions, or {narrow}.\n",
                ((1.0 - CLOSE) * 100.0).round()
            ));
        }
    }
    if !unknown.is_empty() {
        text.push_str(&format!("\nNo deferred tool is named {}.", unknown.join(", ")));
    }
    text.trim().to_owned()
}

/// How many of the first matches are near ties with the best (two or more), if
/// they are; an exact name is never a tie.
fn close_matches(matches: &[SearchMatch]) -> Option<usize> {
    let best = matches.first()?.score;
    if !best.is_finite() || best <= 0.0 {
        return None;
    }
    let close = matches.iter().take_while(|m| m.score >= best * CLOSE).count();
    (close >= 2).then_some(close)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str, server: Option<&str>, score: f64) -> SearchMatch {
        SearchMatch {
            name: name.into(),
            server: server.map(str::to_owned),
            score,
            summary: format!("What {name} does."),
            required: Vec::new(),
        }
    }

    #[test]
    fn each_result_names_its_server_and_what_it_does() {
        let matches = [found("mcp__github__create_issue", Some("github"), 9.0), found("local_notes", None, 2.0)];
        let text = report("open a bug", &matches, &["mcp__github__create_issue".into()], &[], &[]);
        assert!(
            text.contains("- mcp__github__create_issue (server github): What mcp__github__create_issue does."),
            "{text}"
        );
        assert!(text.contains("- local_notes (already loaded): What local_notes does."), "{text}");
        assert!(!text.contains("cannot tell"), "a clear winner is not a tie: {text}");
    }

    #[test]
    fn near_ties_are_said_so_the_model_can_refine() {
        let matches = [
            found("mcp__a__list_pages", Some("a"), 5.0),
            found("mcp__a__get_page", Some("a"), 4.5),
            found("mcp__b__read_doc", Some("b"), 4.3),
            found("mcp__c__other", Some("c"), 1.0),
        ];
        let text = report("show the page", &matches, &[], &[], &[]);
        assert!(text.contains("The first 3 matches score within 15% of each other"), "{text}");
        assert!(text.contains("`server:NAME` (a, b)"), "the servers that matched: {text}");
        assert_eq!(close_matches(&matches[..1]), None);
        let exact = [found("mcp__a__get_page", Some("a"), f64::INFINITY), found("mcp__a__list_pages", Some("a"), 5.0)];
        assert_eq!(close_matches(&exact), None, "an exact name is never a tie");
    }

    #[test]
    fn a_scope_that_matched_nothing_says_its_tools_are_a_listing() {
        let matches = [found("mcp__memory__create_entities", Some("memory"), 0.0)];
        let text = report("server:memory remember Alice", &matches, &[], &[], &[]);
        assert!(
            text.starts_with("No tool in the scope asked says the words of `server:memory remember Alice`"),
            "{text}"
        );
        assert!(text.contains("- mcp__memory__create_entities (server memory)"), "{text}");
        assert!(!text.contains("cannot tell"), "{text}");
    }

    #[test]
    fn nothing_found_names_the_closest_servers() {
        let closest = vec![("github".to_owned(), Some("Issues and code.".to_owned())), ("linear".to_owned(), None)];
        let text = report("server:slack post", &[], &[], &[], &closest);
        assert!(text.contains("No deferred tool matches") && text.contains("- github: Issues and code."), "{text}");
        assert!(text.contains("- linear\n") && text.contains("`server:NAME`"), "{text}");
    }

    #[test]
    fn a_result_names_its_required_parameters() {
        let mut m = SearchMatch {
            name: "mcp__github__create_issue".into(),
            server: Some("github".into()),
            score: 3.0,
            summary: "Create an issue.".into(),
            required: vec!["owner".into(), "repo".into(), "title".into()],
        };
        let text = report("open a bug", std::slice::from_ref(&m), &[], &[], &[]);
        assert!(text.contains("Create an issue. Requires: owner, repo, title."), "{text}");
        m.required.clear();
        assert!(!report("x", &[m], &[], &[], &[]).contains("Requires"));
    }
}
