//! Ranking deferred tools for a query: BM25 over four weighted fields (the name,
//! parameter names, the description, parameter descriptions), with light stemming
//! and a small table of the verbs tools are named with, so "open a new bug report"
//! finds `create_issue`. An exact tool name always ranks first. Hand-written rather
//! than a crate: the available BM25 crates score one flat text per document, and
//! field weights and name matches are most of the quality here.

use serde_json::Value;
use std::collections::HashMap;

/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a term counts in each field.
const NAME_WEIGHT: f64 = 3.0;
const PARAM_NAME_WEIGHT: f64 = 1.2;
const DESCRIPTION_WEIGHT: f64 = 1.0;
const PARAM_DESCRIPTION_WEIGHT: f64 = 0.4;
/// A tool whose name starts with the query's first word (or a synonym of it).
const VERB_BOOST: f64 = 1.12;
/// A term found only through a synonym counts this much of the word itself.
const SYNONYM_WEIGHT: f64 = 0.35;

/// One tool as the index sees it.
#[derive(Debug, Clone)]
pub struct SearchDocument {
    /// The tool's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its input schema (parameter names and descriptions are read from it).
    pub input_schema: Value,
}

/// A match: the tool and its score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchMatch {
    /// The tool's name.
    pub name: String,
    /// BM25 score; an exact name match scores `f64::INFINITY`.
    pub score: f64,
    /// The description's first sentence, for the model.
    pub summary: String,
}

/// Why a regular-expression search could not run.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The pattern does not compile (or would be too large).
    #[error("`{pattern}` is not a regular expression the search can run: {reason}")]
    Pattern {
        /// As given.
        pattern: String,
        /// The compiler's reason.
        reason: String,
    },
}

struct Indexed {
    name: String,
    summary: String,
    /// The name in lowercase, and its last `__` part (an MCP tool's own name).
    lower: String,
    short: String,
    /// The first word of the tool's own name, stemmed (`create` of `create_issue`).
    verb: String,
    /// The text a regular expression is matched against, field by field.
    texts: [String; 4],
    /// Weighted term frequencies over all fields.
    terms: HashMap<String, f64>,
    length: f64,
}

impl Indexed {
    /// Whether the MCP tool's own part of the name (`list_issues` of
    /// `mcp__github__list_issues`) is matched on its own by a query of `words`:
    /// an identifier always; an ordinary word (`search`, `find`, `count`) only as
    /// the whole query, since in a sentence it is the sentence's word.
    fn short_is_name(&self, words: usize) -> bool {
        let identifier = self.short.contains(['_', '-', '.']) || self.short.bytes().any(|b| b.is_ascii_digit());
        self.short != self.lower && self.short.len() > 2 && (identifier || words == 1)
    }
}

/// A search index over a set of tools. Build once per set; searching allocates
/// only the result.
pub struct SearchIndex {
    docs: Vec<Indexed>,
    /// In how many documents each term appears.
    document_frequency: HashMap<String, usize>,
    average_length: f64,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex").field("tools", &self.docs.len()).finish()
    }
}

impl SearchIndex {
    /// Indexes `documents`, in the order given (ties rank in that order).
    pub fn new(documents: impl IntoIterator<Item = SearchDocument>) -> SearchIndex {
        let mut docs = Vec::new();
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        for doc in documents {
            let (param_names, param_descriptions) = parameters(&doc.input_schema);
            let fields = [
                (doc.name.as_str(), NAME_WEIGHT),
                (param_names.as_str(), PARAM_NAME_WEIGHT),
                (doc.description.as_str(), DESCRIPTION_WEIGHT),
                (param_descriptions.as_str(), PARAM_DESCRIPTION_WEIGHT),
            ];
            let mut terms: HashMap<String, f64> = HashMap::new();
            let mut length = 0.0;
            for (text, weight) in fields {
                for term in words(text) {
                    *terms.entry(term).or_default() += weight;
                    length += weight;
                }
            }
            for term in terms.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            let lower = doc.name.to_ascii_lowercase();
            let short = lower.rsplit("__").next().unwrap_or(&lower).to_owned();
            // `slack_post_message`: the server's name first, then the verb.
            let server = lower.strip_prefix("mcp__").and_then(|r| r.split("__").next()).unwrap_or_default();
            let verb = words(&short).find(|w| !server.starts_with(w.as_str())).unwrap_or_default();
            docs.push(Indexed {
                verb,
                summary: first_sentence(&doc.description),
                texts: [doc.name.clone(), param_names, doc.description, param_descriptions],
                name: doc.name,
                lower,
                short,
                terms,
                length,
            });
        }
        let average_length =
            if docs.is_empty() { 1.0 } else { docs.iter().map(|d| d.length).sum::<f64>() / docs.len() as f64 };
        SearchIndex { docs, document_frequency, average_length: average_length.max(1.0) }
    }

    /// The number of tools indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The best `limit` tools for a natural-language `query`, best first. A word
    /// of the query that is a tool's exact name (or an MCP tool's own part of it)
    /// puts that tool first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchMatch> {
        // Each word of the query with the words that mean the same; a URL in the
        // query asks for a tool that takes one.
        let mut asked: Vec<Vec<(String, f64)>> = Vec::new();
        let url = query.contains("://").then(|| "url".to_owned());
        for term in words(query).filter(|t| !STOP_WORDS.contains(&t.as_str())).chain(url) {
            if asked.iter().any(|group| group[0].0 == term) {
                continue;
            }
            let mut group = vec![(term.clone(), 1.0)];
            group.extend(synonyms(&term));
            asked.push(group);
        }
        let exact: Vec<String> = query
            .split(|c: char| c.is_whitespace() || c == ',' || c == '`' || c == '"' || c == '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        let n = self.docs.len() as f64;
        let mut scored: Vec<(usize, f64)> = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            if exact.iter().any(|w| *w == doc.lower || (doc.short_is_name(exact.len()) && *w == doc.short)) {
                scored.push((i, f64::INFINITY));
                continue;
            }
            let norm = K1 * (1.0 - B + B * doc.length / self.average_length);
            let mut score = 0.0;
            let mut covered = 0;
            for group in &asked {
                // A word counts once: by itself or its best synonym.
                let best = group
                    .iter()
                    .filter_map(|(term, weight)| {
                        let tf = doc.terms.get(term)?;
                        let df = self.document_frequency.get(term).copied().unwrap_or(0) as f64;
                        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                        Some(weight * idf * (tf * (K1 + 1.0)) / (tf + norm))
                    })
                    .fold(0.0_f64, f64::max);
                if best > 0.0 {
                    covered += 1;
                    score += best;
                }
            }
            if score > 0.0 {
                // A tool that answers more of the query's words ranks above one
                // that answers one word loudly.
                let coverage = covered as f64 / asked.len() as f64;
                // A task phrase starts with what to do; tools are named for it
                // (`create_issue`, `list_files`).
                let verb = asked.first().is_some_and(|group| group.iter().any(|(t, _)| *t == doc.verb));
                scored.push((i, score * (1.0 + coverage) * if verb { VERB_BOOST } else { 1.0 }));
            }
        }
        // Stable: equal scores keep the index's order.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(limit);
        scored.into_iter().map(|(i, score)| self.matched(i, score)).collect()
    }

    /// The first `limit` tools whose name, parameters or description `pattern`
    /// matches (case-insensitive, as Anthropic's regex tool search): those matched
    /// by name first, then by parameter name, description, parameter description.
    pub fn search_regex(&self, pattern: &str, limit: usize) -> Result<Vec<SearchMatch>, SearchError> {
        let regex = regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| SearchError::Pattern { pattern: pattern.to_owned(), reason: e.to_string() })?;
        let mut found: Vec<(usize, usize)> = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            if let Some(field) = doc.texts.iter().position(|text| regex.is_match(text)) {
                found.push((field, i));
            }
        }
        found.sort();
        found.truncate(limit);
        Ok(found.into_iter().map(|(field, i)| self.matched(i, (4 - field) as f64)).collect())
    }

    fn matched(&self, i: usize, score: f64) -> SearchMatch {
        SearchMatch { name: self.docs[i].name.clone(), score, summary: self.docs[i].summary.clone() }
    }
}

/// Up to the first sentence end, at most 160 characters.
fn first_sentence(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let sentence = &line[..end];
    match sentence.char_indices().nth(160) {
        Some((cut, _)) => format!("{}...", &sentence[..cut]),
        None => sentence.to_owned(),
    }
}

/// Parameter names and descriptions, nested objects included, as two texts.
fn parameters(schema: &Value) -> (String, String) {
    let mut names = String::new();
    let mut descriptions = String::new();
    collect(schema, &mut names, &mut descriptions, 0);
    (names, descriptions)
}

fn collect(schema: &Value, names: &mut String, descriptions: &mut String, depth: usize) {
    if depth > 6 {
        return;
    }
    let Some(map) = schema.as_object() else { return };
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            names.push_str(name);
            names.push(' ');
            if let Some(d) = property.get("description").and_then(Value::as_str) {
                descriptions.push_str(d);
                descriptions.push(' ');
            }
            collect(property, names, descriptions, depth + 1);
        }
    }
    if let Some(items) = map.get("items") {
        collect(items, names, descriptions, depth + 1);
    }
}

/// Lowercase stemmed words: split on anything but letters and digits, and at
/// camelCase humps (`createIssue`, `HTTPServer`).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut out);
            previous = None;
            continue;
        }
        let hump = previous.is_some_and(|p| {
            (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                || (p.is_alphabetic() != c.is_alphabetic())
        });
        if hump {
            flush(&mut current, &mut out);
        }
        current.extend(c.to_lowercase());
        previous = Some(c);
    }
    flush(&mut current, &mut out);
    out.into_iter()
}

fn flush(current: &mut String, out: &mut Vec<String>) {
    if !current.is_empty() {
        out.push(stem(current));
        current.clear();
    }
}

/// A light English stemmer: plurals, `-ing`, `-ed`, `-ies`, then a final `e`, so
/// `create`, `creates`, `created` and `creating` are one term.
fn stem(word: &str) -> String {
    if word.len() <= 3 || word.bytes().any(|b| b.is_ascii_digit()) {
        return word.to_owned();
    }
    let mut base = word.to_owned();
    let mut stripped = false;
    for (suffix, replacement) in [("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")] {
        if let Some(rest) = word.strip_suffix(suffix) {
            base = format!("{rest}{replacement}");
            stripped = true;
            break;
        }
    }
    if !stripped
        && let Some(rest) = word.strip_suffix("ion")
        && rest.len() >= 4
        && rest.ends_with('t')
    {
        // creat(ion), select(ion): the verb's stem.
        base = rest.to_owned();
        stripped = true;
    }
    if !stripped {
        for suffix in ["ing", "ed"] {
            if let Some(rest) = word.strip_suffix(suffix)
                && rest.len() >= 3
            {
                base = rest.to_owned();
                // runn(ing), dropp(ed): one of a doubled consonant.
                let b = base.as_bytes();
                if base.len() > 3 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b'l' | b's' | b'z') {
                    base.pop();
                }
                stripped = true;
                break;
            }
        }
    }
    if !stripped && base.ends_with('s') && !base.ends_with("ss") && !base.ends_with("us") && !base.ends_with("is") {
        base.pop();
    }
    if base.len() > 3 && base.ends_with('e') {
        base.pop();
    }
    base
}

/// Words a query says that add nothing to the match.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "for", "of", "in", "on", "at", "by", "and", "or", "with", "from", "into", "my", "me", "i",
    "it", "is", "be", "this", "that", "these", "those", "some", "all", "please", "can", "you", "what", "which", "how",
    "do", "doe", "does", "want", "need", "would", "like", "our", "we", "us", "about", "as", "its", "their", "there",
    "tool", "use", "using",
];

/// The verbs and nouns tools are named with, in groups that mean the same thing
/// to a model asking.
const SYNONYMS: &[&[&str]] = &[
    &["create", "add", "new", "make", "open", "start", "insert"],
    &["delete", "remove", "drop", "destroy", "erase", "clear", "archive", "close", "cancel"],
    &["list", "show", "enumerate", "all", "browse", "index"],
    &["get", "fetch", "read", "retrieve", "view", "load", "describe", "detail", "info", "inspect", "download", "look"],
    &["search", "find", "query", "lookup", "look", "filter", "locate", "grep"],
    &["update", "edit", "modify", "change", "set", "patch", "rename", "alter", "adjust", "configure"],
    &["send", "post", "message", "notify", "publish", "reply", "dm", "email", "mail"],
    &["run", "execute", "exec", "invoke", "trigger", "launch", "dispatch", "call"],
    &["issue", "bug", "ticket", "problem", "defect", "task"],
    &["pull", "pr", "merge", "request"],
    &["repo", "repository", "project", "codebase"],
    &["file", "document", "doc", "page"],
    &["message", "chat", "conversation", "thread", "post"],
    &["channel", "room", "group"],
    &["user", "member", "person", "people", "account", "profile"],
    &["comment", "note", "annotation", "remark", "reply"],
    &["image", "picture", "photo", "screenshot"],
    &["event", "meeting", "appointment", "calendar", "schedule"],
    &["folder", "directory", "dir"],
    &["download", "export", "save"],
    &["upload", "import", "attach"],
    &["navigate", "go", "visit", "browse", "url"],
    &["click", "press", "tap"],
    &["type", "fill", "enter", "input"],
    &["table", "database", "db", "sql"],
    &["record", "row", "entry", "item"],
    &["branch", "ref"],
    &["commit", "revision"],
    &["diff", "change", "difference", "compare", "modification"],
    &["size", "big", "large", "length", "metadata"],
    &["local", "nearby", "near", "place", "business", "shop", "store", "restaurant"],
    &["relation", "link", "connect", "relationship", "edge"],
    &["sum", "add", "total", "plus", "calculate", "number"],
    &["current", "now", "today", "present"],
    &["react", "emoji", "reaction"],
    &["status", "state", "health"],
    &["log", "logs", "history", "audit"],
    &["payment", "charge", "invoice", "bill", "billing"],
    &["customer", "client", "contact"],
    &["weather", "forecast", "temperature", "rain", "snow", "sunny", "wind", "climate"],
    &["translate", "translation", "language"],
    &["summary", "summarize", "summarise", "overview"],
];

fn synonyms(term: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for group in SYNONYMS {
        let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
        if stems.iter().any(|s| s == term) {
            out.extend(stems.into_iter().filter(|s| s != term).map(|s| (s, SYNONYM_WEIGHT)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(name: &str, description: &str, schema: Value) -> SearchDocument {
        SearchDocument { name: name.into(), description: description.into(), input_schema: schema }
    }

    fn index() -> SearchIndex {
        SearchIndex::new([
            doc(
                "mcp__github__create_issue",
                "Create a new issue in a GitHub repository",
                json!({"properties": {"owner": {}, "repo": {}, "title": {}, "body": {}}}),
            ),
            doc("mcp__github__list_issues", "List issues in a GitHub repository", json!({})),
            doc(
                "mcp__slack__post_message",
                "Post a message to a Slack channel",
                json!({"properties": {"channel_id": {"description": "The channel"}, "text": {}}}),
            ),
            doc(
                "mcp__weather__get_forecast",
                "Get the weather forecast for a location",
                json!({"properties": {"latitude": {}, "longitude": {}}}),
            ),
            doc("mcp__fs__delete_file", "Delete a file", json!({"properties": {"path": {}}})),
        ])
    }

    #[test]
    fn words_split_names_and_stem() {
        let w: Vec<String> = words("mcp__github__createIssue HTTPServer issues creating stored").collect();
        assert_eq!(w, ["mcp", "github", "creat", "issu", "http", "server", "issu", "creat", "stor"]);
        for (a, b) in
            [("opened", "open"), ("edited", "edit"), ("queries", "query"), ("running", "run"), ("added", "add")]
        {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
    }

    #[test]
    fn task_phrases_find_their_tool() {
        let index = index();
        for (query, want) in [
            ("open a new bug report on the repo", "mcp__github__create_issue"),
            ("send a message to the team channel", "mcp__slack__post_message"),
            ("will it rain tomorrow forecast", "mcp__weather__get_forecast"),
            ("remove a file", "mcp__fs__delete_file"),
            ("show me the issues", "mcp__github__list_issues"),
        ] {
            let top = index.search(query, 3);
            assert_eq!(top.first().map(|m| m.name.as_str()), Some(want), "{query}: {top:?}");
        }
    }

    #[test]
    fn an_exact_name_wins() {
        let index = index();
        let top = index.search("list_issues", 5);
        assert_eq!(top[0].name, "mcp__github__list_issues");
        assert!(top[0].score.is_infinite());
        assert_eq!(index.search("mcp__fs__delete_file", 1)[0].name, "mcp__fs__delete_file");
    }

    #[test]
    fn a_plain_word_in_a_sentence_is_not_a_name() {
        let index = SearchIndex::new([
            doc("mcp__elastic__search", "Run an Elasticsearch query DSL request against an index", json!({})),
            doc("mcp__brave__brave_web_search", "Search the web with Brave for pages and news", json!({})),
        ]);
        let top = index.search("search the web", 2);
        assert_eq!(top[0].name, "mcp__brave__brave_web_search", "{top:?}");
        assert!(top[0].score.is_finite());
        // Alone, the word is the name.
        assert!(index.search("search", 1)[0].score.is_infinite());
        assert_eq!(index.search("brave_web_search", 1)[0].name, "mcp__brave__brave_web_search");
    }

    #[test]
    fn regex_queries_match_names_first() {
        let index = index();
        let found = index.search_regex("issue|forecast", 10).unwrap();
        let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["mcp__github__create_issue", "mcp__github__list_issues", "mcp__weather__get_forecast"]);
        assert_eq!(index.search_regex("(?i)CHANNEL", 10).unwrap()[0].name, "mcp__slack__post_message");
        assert!(matches!(index.search_regex("(", 1), Err(SearchError::Pattern { .. })));
    }
}
