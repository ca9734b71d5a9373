//! The catalogue in `tool_search`'s description: each MCP server with deferred
//! tools, its count and a one-line summary, and the tools' names while they fit a
//! token budget. The same tools give the same bytes in any order.

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
}
