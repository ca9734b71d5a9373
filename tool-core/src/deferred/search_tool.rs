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

/// One server's part of the catalogue.
struct ServerLine<'a> {
    /// `None`: the application's own deferred tools.
    server: Option<&'a str>,
    /// The tools' own names (`create_issue` of `mcp__github__create_issue`), sorted.
    tools: Vec<&'a str>,
    descriptions: Vec<&'a str>,
}

/// The search tool's description for a pool: what it does, the query forms, and a
/// catalogue of what can be found: each MCP server with deferred tools, its count
/// and a one-line summary (the hints', else drawn from its tools' descriptions),
/// and the tools' names while they fit in `budget` tokens (server lines always).
/// The same tools give the same bytes, whatever their order: the prompt cache
/// holds.
pub(crate) fn description_for<'a>(
    deferred: impl Iterator<Item = (&'a str, &'a str)>,
    base: &str,
    hints: &super::SearchHints,
    budget: usize,
) -> String {
    let mut lines: Vec<ServerLine<'a>> = Vec::new();
    let mut total = 0;
    for (name, description) in deferred {
        total += 1;
        let (server, tool) = match name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
            Some((server, tool)) => (Some(server), tool),
            None => (None, name),
        };
        match lines.iter_mut().find(|l| l.server == server) {
            Some(line) => {
                line.tools.push(tool);
                line.descriptions.push(description);
            }
            None => lines.push(ServerLine { server, tools: vec![tool], descriptions: vec![description] }),
        }
    }
    // Servers by name, the application's own last; tools by name.
    lines.sort_by(|a, b| (a.server.is_none(), a.server).cmp(&(b.server.is_none(), b.server)));
    for line in &mut lines {
        line.tools.sort_unstable();
    }
    let mut out = format!(
        "{base}\n\nQuery forms: words for the task (`create a github issue`); `server:NAME words` to search one \
         server; `+word` for a word the tool's name or server must have (`+slack send`); `select:NAME,NAME` to load \
         by name (with or without the `mcp__server__` prefix).\n\n{total} deferred tools can be loaded"
    );
    out.push_str(if lines.iter().any(|l| l.server.is_some()) { ", by MCP server:" } else { ":" });
    let heads: Vec<String> = lines.iter().map(|line| head(line, hints)).collect();
    let mut used = super::estimated_tokens(&out) + heads.iter().map(|h| super::estimated_tokens(h) + 1).sum::<usize>();
    for (line, head) in lines.iter().zip(heads) {
        out.push_str("\n- ");
        out.push_str(&head);
        let names = format!(" Tools: {}.", line.tools.join(", "));
        let cost = super::estimated_tokens(&names);
        if used + cost <= budget {
            used += cost;
            out.push_str(&names);
        }
    }
    out
}

/// A server's line before its tool names: `github (26 tools): its summary.`
fn head(line: &ServerLine<'_>, hints: &super::SearchHints) -> String {
    let count = line.tools.len();
    let counted = format!("{count} tool{}", if count == 1 { "" } else { "s" });
    match line.server {
        Some(server) => {
            let summary = match hints.summary(server) {
                Some(summary) => summary.trim_end_matches('.').to_owned(),
                None => drawn_summary(&line.descriptions, server),
            };
            format!("{server} ({counted}): {summary}.")
        }
        None => format!("other tools ({counted})."),
    }
}

/// Words that say nothing of what a server is about.
const GENERIC: &[&str] = &[
    "about",
    "after",
    "also",
    "and",
    "any",
    "based",
    "been",
    "before",
    "being",
    "both",
    "call",
    "create",
    "current",
    "data",
    "default",
    "delete",
    "details",
    "each",
    "either",
    "false",
    "field",
    "fields",
    "from",
    "gets",
    "given",
    "have",
    "information",
    "into",
    "list",
    "lists",
    "more",
    "must",
    "name",
    "names",
    "need",
    "null",
    "number",
    "object",
    "only",
    "optional",
    "other",
    "over",
    "parameter",
    "parameters",
    "provided",
    "required",
    "result",
    "results",
    "return",
    "returns",
    "should",
    "specific",
    "specified",
    "string",
    "such",
    "than",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "this",
    "tool",
    "tools",
    "true",
    "update",
    "used",
    "uses",
    "using",
    "value",
    "values",
    "want",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "within",
    "without",
    "your",
];

/// A server's summary drawn from its tools' descriptions: the words most of them
/// share, most common first.
fn drawn_summary(descriptions: &[&str], server: &str) -> String {
    // The server's own name says nothing its line does not.
    let own = server.to_lowercase();
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for description in descriptions {
        let mut seen: Vec<String> = Vec::new();
        for word in description.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase) {
            let plain = word.len() >= 4 && !GENERIC.contains(&word.as_str()) && !own.contains(word.as_str());
            if plain && !word.bytes().all(|b| b.is_ascii_digit()) {
                let singular = word.strip_suffix('s').filter(|w| w.len() >= 4).unwrap_or(&word).to_owned();
                if !seen.contains(&singular) {
                    seen.push(singular);
                }
            }
        }
        for word in seen {
            *counts.entry(word).or_default() += 1;
        }
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    // Most tools first; equal counts alphabetically (stable bytes).
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let top: Vec<String> = ranked.into_iter().take(6).map(|(w, _)| w).collect();
    if top.is_empty() {
        "its tools say little of themselves".to_owned()
    } else {
        format!("tools about {}", top.join(", "))
    }
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
}

#[cfg(test)]
mod catalogue_tests {
    use super::*;
    use crate::deferred::SearchHints;

    /// 40 servers of about 17 tools each: 700 tools.
    fn tools() -> Vec<(String, String)> {
        let mut out = Vec::new();
        for s in 0..40 {
            for t in 0..(if s < 20 { 18 } else { 17 }) {
                out.push((
                    format!("mcp__service{s:02}__do_thing_number_{t:02}"),
                    format!("Manage widgets and gadgets of service {s}: operation {t} on a widget."),
                ));
            }
        }
        out
    }

    fn catalogue(tools: &[(String, String)], hints: &SearchHints, budget: usize) -> String {
        description_for(tools.iter().map(|(n, d)| (n.as_str(), d.as_str())), "Finds tools.", hints, budget)
    }

    #[test]
    fn forty_servers_and_seven_hundred_tools_fit_the_budget_with_every_server() {
        let tools = tools();
        assert_eq!(tools.len(), 700);
        let text = catalogue(&tools, &SearchHints::default(), 1_000);
        assert!(
            crate::deferred::estimated_tokens(&text) <= 1_000,
            "{} tokens",
            crate::deferred::estimated_tokens(&text)
        );
        for s in 0..40 {
            assert!(text.contains(&format!("\n- service{s:02} (")), "service{s:02} missing");
        }
        assert!(text.contains("700 deferred tools"), "{text}");
        // With room, the names come too.
        let roomy = catalogue(&tools, &SearchHints::default(), 100_000);
        assert!(roomy.contains("do_thing_number_16"), "{roomy}");
        assert!(text.len() < roomy.len(), "the budget left some names out");
    }

    #[test]
    fn the_same_tools_give_the_same_bytes_in_any_order() {
        let tools = tools();
        let mut reversed = tools.clone();
        reversed.reverse();
        let hints = SearchHints::default();
        assert_eq!(catalogue(&tools, &hints, 1_000), catalogue(&reversed, &hints, 1_000));
        assert_eq!(catalogue(&tools, &hints, 30_000), catalogue(&reversed, &hints, 30_000));
    }

    #[test]
    fn a_servers_line_says_its_summary_or_what_its_tools_are_about() {
        let tools = vec![
            ("mcp__github__create_issue".to_owned(), "Create a new issue in a GitHub repository.".to_owned()),
            ("mcp__github__list_issues".to_owned(), "List issues in a GitHub repository.".to_owned()),
            ("mcp__linear__create_issue".to_owned(), "Create a Linear issue in a team.".to_owned()),
            ("notes_add".to_owned(), "Add a note.".to_owned()),
        ];
        let mut hints = SearchHints::default();
        hints.set_server_said("github", "Work with GitHub: issues, pull requests and code.\nMore lines here.");
        let text = catalogue(&tools, &hints, 1_000);
        assert!(text.contains("- github (2 tools): Work with GitHub: issues, pull requests and code. Tools: create_issue, list_issues."), "{text}");
        assert!(text.contains("- linear (1 tool): tools about "), "{text}");
        assert!(text.contains("- other tools (1 tool). Tools: notes_add."), "{text}");
        assert!(text.contains("`server:NAME") && text.contains("`+word`") && text.contains("select:"), "{text}");
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
