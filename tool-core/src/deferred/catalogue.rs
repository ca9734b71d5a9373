//! The catalogue in `tool_search`'s description: each MCP server with deferred
//! tools, its count and a one-line summary, and the tools' names while they fit a
//! token budget. The same tools give the same bytes in any order.

/// One server's part of the catalogue.
struct ServerLine<'a> {
    /// `None`: the application's own deferred tools.
    server: Option<&'a str>,
    /// The tools' own names (`create_issue` of `mcp__github__create_issue`), sorted.
    tools: Vec<&'a str>,
    /// Their descriptions, sorted.
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
        // By the tools' names too: what is drawn from them is the same in any order.
        line.descriptions.sort_unstable();
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
                None => drawn_summary(&line.tools, &line.descriptions, server),
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
    "detailed",
    "details",
    "each",
    "either",
    "false",
    "field",
    "fields",
    "from",
    "full",
    "general",
    "gets",
    "given",
    "have",
    "ideal",
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
    "partially",
    "perform",
    "performs",
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
    "through",
    "tool",
    "tools",
    "true",
    "update",
    "used",
    "uses",
    "using",
    "value",
    "values",
    "various",
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

/// The most terms a drawn summary names.
const SUMMARY_TERMS: usize = 6;

/// A server's summary drawn from its tools: the things their names act on, most
/// tools first (`issue, pull request, file, ...` for GitHub's), then, when the
/// names say too little, the words their descriptions' first sentences share.
fn drawn_summary(tools: &[&str], descriptions: &[&str], server: &str) -> String {
    let mut terms = named_objects(tools, server);
    if terms.len() < 3 {
        for word in described_words(descriptions, server) {
            if terms.len() == SUMMARY_TERMS {
                break;
            }
            if !terms.iter().any(|t| t.split(' ').any(|part| part == word)) {
                terms.push(word);
            }
        }
    }
    if terms.is_empty() {
        "its tools say little of themselves".to_owned()
    } else {
        format!("tools about {}", terms.join(", "))
    }
}

/// The words of the tools' own names that are not the server's, a verb
/// (`create_issue`, `kv_list`) or a word that says nothing, in the singular; two
/// that always come together are one term (`pull request`). At most [`SUMMARY_TERMS`], the most tools first,
/// then alphabetically (stable bytes).
fn named_objects(tools: &[&str], server: &str) -> Vec<String> {
    use super::lexicon::{READ_VERBS, STOP_WORDS, WRITE_VERBS};
    const NOISE: &[&str] = &["api", "batch", "multiple", "many", "new", "mcp"];
    let server_words: Vec<String> = name_words(server);
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut pairs: std::collections::BTreeMap<(String, String), usize> = std::collections::BTreeMap::new();
    for tool in tools {
        let kept: Vec<String> = name_words(tool)
            .into_iter()
            .filter(|w| !server_words.contains(w))
            .filter(|w| !READ_VERBS.contains(&w.as_str()) && !WRITE_VERBS.contains(&w.as_str()))
            .filter(|w| !STOP_WORDS.contains(&w.as_str()) && !NOISE.contains(&w.as_str()))
            .filter(|w| !w.bytes().all(|b| b.is_ascii_digit()))
            .map(|w| singular(&w))
            .collect();
        let mut seen: Vec<&String> = Vec::new();
        for word in &kept {
            if !seen.contains(&word) {
                seen.push(word);
                *counts.entry(word.clone()).or_default() += 1;
            }
        }
        let mut seen_pairs: Vec<(&String, &String)> = Vec::new();
        for pair in kept.windows(2) {
            if !seen_pairs.contains(&(&pair[0], &pair[1])) {
                seen_pairs.push((&pair[0], &pair[1]));
                *pairs.entry((pair[0].clone(), pair[1].clone())).or_default() += 1;
            }
        }
    }
    // `pull` and `request` in the same nine names: one term.
    let mut terms: Vec<(String, usize)> = Vec::new();
    let mut joined: Vec<&String> = Vec::new();
    for ((a, b), n) in &pairs {
        if *n >= 2 && counts[a] == *n && counts[b] == *n && !joined.contains(&a) && !joined.contains(&b) {
            joined.extend([a, b]);
            terms.push((format!("{a} {b}"), *n));
        }
    }
    terms.extend(counts.iter().filter(|(w, _)| !joined.contains(w)).map(|(w, n)| (w.clone(), *n)));
    terms.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    terms.into_iter().take(SUMMARY_TERMS).map(|(t, _)| t).collect()
}

/// A name's words, lowercase and as spelled: split at `_`, `-`, `.`, spaces and
/// camelCase humps. Not the index's `words`, which stems them and splits `r2` in
/// two: a summary shows words as their names spell them.
fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            previous = None;
            continue;
        }
        if previous.is_some_and(|p| p.is_lowercase() && c.is_uppercase()) {
            out.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
        previous = Some(c);
    }
    out.extend((!current.is_empty()).then_some(current));
    out
}

/// A word in the singular, as a person writes it (`entities` -> `entity`,
/// `addresses` -> `address`, `issues` -> `issue`); short words and those that only
/// end like a plural (`status`, `analysis`, `address`) stay.
fn singular(word: &str) -> String {
    const IRREGULAR: &[(&str, &str)] = &[("indices", "index"), ("children", "child"), ("people", "person")];
    if let Some((_, one)) = IRREGULAR.iter().find(|(many, _)| *many == word) {
        return (*one).to_owned();
    }
    if word.len() <= 3 || word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for ending in ["sses", "xes", "ches", "shes"] {
        if let Some(stem) = word.strip_suffix(ending) {
            return format!("{stem}{}", &ending[..ending.len() - 2]);
        }
    }
    word.strip_suffix('s').unwrap_or(word).to_owned()
}

/// The words the descriptions' first sentences share, the most descriptions
/// first, then in the order they come: for servers whose tool names say little.
fn described_words(descriptions: &[&str], server: &str) -> Vec<String> {
    let own = server.to_lowercase();
    // (word, descriptions saying it, where it first came)
    let mut counts: Vec<(String, usize, usize)> = Vec::new();
    for description in descriptions {
        let sentence = super::index::split_first_sentence(description).0;
        let mut seen: Vec<String> = Vec::new();
        for word in sentence.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase) {
            let plain = word.len() >= 4 && !GENERIC.contains(&word.as_str()) && !own.contains(word.as_str());
            if plain && !word.bytes().all(|b| b.is_ascii_digit()) {
                let word = singular(&word);
                if !seen.contains(&word) {
                    seen.push(word);
                }
            }
        }
        for word in seen {
            match counts.iter_mut().find(|(w, _, _)| *w == word) {
                Some((_, n, _)) => *n += 1,
                None => {
                    let at = counts.len();
                    counts.push((word, 1, at));
                }
            }
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    counts.into_iter().take(SUMMARY_TERMS).map(|(w, _, _)| w).collect()
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

#[cfg(test)]
mod real_servers {
    use super::*;

    /// The search evaluation's 37 real servers' tools, named as mounted.
    fn tools() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tool_search/servers");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let server = path.file_stem().unwrap().to_string_lossy().into_owned();
            let list: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for tool in list["tools"].as_array().unwrap() {
                let description = tool["description"].as_str().unwrap_or_default().to_owned();
                out.push((format!("mcp__{server}__{}", tool["name"].as_str().unwrap()), description));
            }
        }
        out
    }

    #[test]
    fn summaries_drawn_from_real_servers_name_what_their_tools_act_on() {
        let tools = tools();
        let text = description_for(
            tools.iter().map(|(n, d)| (n.as_str(), d.as_str())),
            "Finds tools.",
            &crate::deferred::SearchHints::default(),
            1_000,
        );
        for line in [
            "- github (26 tools): tools about pull request, issue, file, repository, branch, comment.",
            "- cloudflare (89 tools): tools about queue, object, r2, worker, ai, namespace.",
            "- kubernetes (23 tools): tools about kubectl, helm chart, port forward, resource, cleanup, context.",
            "- google_maps (7 tools): tools about geocode, place, detail, direction, distance, elevation.",
            "- exa (2 tools): tools about web, content, clean, read, webpage, markdown.",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        assert!(crate::deferred::estimated_tokens(&text) <= 1_000, "{text}");
    }
}
