//! Ranking deferred tools for a query: BM25 over weighted fields (the name, its
//! title, parameter names, the description's first sentence and the rest, a
//! team's keywords, parameter descriptions), with light stemming
//! and a small table of the verbs tools are named with, so "open a new bug report"
//! finds `create_issue`. An exact tool name always ranks first. Hand-written rather
//! than a crate: the available BM25 crates score one flat text per document, and
//! field weights and name matches are most of the quality here.

use super::lexicon::{QUESTION_WORDS, STOP_WORDS, VerbKind, synonyms, verb_kind, words};
use serde_json::Value;
use std::collections::HashMap;

/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a term counts in each field.
const NAME_WEIGHT: f64 = 3.0;
const PARAM_NAME_WEIGHT: f64 = 1.2;
const DESCRIPTION_WEIGHT: f64 = 1.0;
/// The description after its first sentence: how to use the tool, often naming
/// others.
const DESCRIPTION_REST_WEIGHT: f64 = 0.6;
/// A title names what the tool does in a few words, as its name does.
const TITLE_WEIGHT: f64 = 1.5;
const PARAM_DESCRIPTION_WEIGHT: f64 = 0.4;
/// A tool named with the query's first word (or a synonym of it) as its verb.
const VERB_BOOST: f64 = 1.12;
/// A tool on the server the query names (`notion`, `hubspot`).
const SERVER_BOOST: f64 = 1.5;
/// A tool that only reads, for a question.
const QUESTION_BOOST: f64 = 1.5;
/// A tool that lists, for a question about things in the plural.
const LIST_BOOST: f64 = 1.3;
/// A term found only through a synonym counts this much of the word itself.
const SYNONYM_WEIGHT: f64 = 0.4;
/// Search text a team adds for a tool (keywords, example requests): below its own
/// description, above its parameters' descriptions.
const KEYWORDS_WEIGHT: f64 = 0.7;

/// One tool as the index sees it.
#[derive(Debug, Clone, Default)]
pub struct SearchDocument {
    /// The tool's name.
    pub name: String,
    /// Its title for people (an MCP tool's `title`, `Create Calendar Event`);
    /// empty when it has none.
    pub title: String,
    /// Its description.
    pub description: String,
    /// Its input schema (parameter names and descriptions are read from it).
    pub input_schema: Value,
    /// More search text for it (keywords, example requests; see
    /// [`SearchHints`](super::SearchHints)), weighted below the description.
    pub keywords: String,
}

impl SearchDocument {
    /// A tool as the index reads it, with no extra search text.
    ///
    /// ```
    /// use toolwright_core::deferred::{SearchDocument, SearchIndex};
    /// let doc = SearchDocument::new("mcp__github__create_issue", "Create an issue.", serde_json::json!({}))
    ///     .with_keywords("open a bug report");
    /// let index = SearchIndex::new([doc]);
    /// assert_eq!(index.search("report a bug", 1)[0].name, "mcp__github__create_issue");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> SearchDocument {
        SearchDocument {
            name: name.into(),
            title: String::new(),
            description: description.into(),
            input_schema,
            keywords: String::new(),
        }
    }

    /// With a title for people (an MCP tool's `title`), weighted between the
    /// name and the description.
    pub fn with_title(mut self, title: impl Into<String>) -> SearchDocument {
        self.title = title.into();
        self
    }

    /// With more search text, weighted below the description.
    pub fn with_keywords(mut self, keywords: impl Into<String>) -> SearchDocument {
        self.keywords = keywords.into();
        self
    }
}

/// A match: the tool and its score (higher is better).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchMatch {
    /// The tool's name.
    pub name: String,
    /// The MCP server it comes from (`github` of `mcp__github__create_issue`);
    /// `None` for a tool of the application's own.
    pub server: Option<String>,
    /// BM25 score; an exact name match scores `f64::INFINITY`.
    pub score: f64,
    /// The description's first sentence, for the model.
    pub summary: String,
    /// The parameters it requires, by name.
    pub required: Vec<String>,
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
    /// The verb of the tool's own name, stemmed (`create` of `create_issue`, of
    /// `r2_create_bucket`); else its first word.
    verb: String,
    /// The words of an MCP tool's server (`google`, `map` of `mcp__google_maps__..`).
    server: Vec<String>,
    /// The server as named (`google_maps`).
    server_name: Option<String>,
    /// The text a regular expression is matched against, field by field.
    texts: [String; 6],
    /// Its own name says it only reads (`list_channels`): a verb of reading and
    /// none of writing.
    reads: bool,
    /// Its own name says it lists (`list_channels`, `r2_list_buckets`).
    lists: bool,
    /// The words of the whole name, server included (what `+word` must be among).
    name_words: Vec<String>,
    required: Vec<String>,
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
            let (summary, rest) = split_first_sentence(&doc.description);
            let fields = [
                (doc.name.as_str(), NAME_WEIGHT),
                (param_names.as_str(), PARAM_NAME_WEIGHT),
                (doc.title.as_str(), TITLE_WEIGHT),
                (summary, DESCRIPTION_WEIGHT),
                (rest, DESCRIPTION_REST_WEIGHT),
                (doc.keywords.as_str(), KEYWORDS_WEIGHT),
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
            let server_name =
                doc.name.strip_prefix("mcp__").and_then(|r| r.split_once("__")).map(|(server, _)| server.to_owned());
            let server = server_name.as_deref().unwrap_or_default().to_ascii_lowercase();
            // The words of the tool's own name, each with what the verb tables say of it.
            let own: Vec<(String, Option<VerbKind>)> = words(&short)
                .map(|w| {
                    let kind = verb_kind(&w);
                    (w, kind)
                })
                .collect();
            // `slack_post_message`: the server's name first, then the verb;
            // `kubectl_delete`, `r2_create_bucket`: a namespace, then the verb.
            let named: Vec<&(String, Option<VerbKind>)> =
                own.iter().filter(|(w, _)| !server.starts_with(w.as_str())).collect();
            let verb = named.iter().find(|(_, kind)| kind.is_some()).or(named.first()).map(|(w, _)| w.clone());
            let verb = verb.unwrap_or_default();
            let server_words = words(&server).filter(|w| w.len() > 2 && w != "mcp" && w != "server").collect();
            let required = doc
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            let says = |kind: VerbKind| own.iter().any(|(_, k)| *k == Some(kind));
            let reads = says(VerbKind::Reads) && !says(VerbKind::Writes);
            let lists = reads && own.iter().any(|(w, _)| w == "list");
            docs.push(Indexed {
                reads,
                lists,
                name_words: words(&lower).collect(),
                required,
                verb,
                server: server_words,
                server_name,
                summary: first_sentence(&doc.description),
                texts: [doc.name.clone(), doc.title, param_names, doc.description, doc.keywords, param_descriptions],
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

    /// The best `limit` tools for a `query`, best first, in Claude Code's query
    /// forms: words describing the task; a tool's exact name (with or without its
    /// `mcp__server__` prefix) puts that tool first; `+word` keeps only tools whose
    /// name or server has that word (several allowed; the other words rank);
    /// `server:NAME` keeps only that server's tools.
    ///
    /// ```
    /// use toolwright_core::deferred::{SearchDocument, SearchIndex};
    /// let index = SearchIndex::new([
    ///     SearchDocument::new("mcp__slack__send_message", "Send a message to a channel.", serde_json::json!({})),
    ///     SearchDocument::new("mcp__email__send", "Send an email message.", serde_json::json!({})),
    /// ]);
    /// assert_eq!(index.search("+slack send a message", 5).len(), 1);
    /// assert_eq!(index.search("server:email send a message", 5)[0].name, "mcp__email__send");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchMatch> {
        self.search_in(query, None, limit)
    }

    /// [`search`](Self::search) within one server's tools (`server`, as a
    /// `server:NAME` in the query would say).
    pub fn search_in(&self, query: &str, server: Option<&str>, limit: usize) -> Vec<SearchMatch> {
        let mut asked = Query::new(query);
        asked.servers.extend(server.map(normal_server));
        let mut scored = self.rank(&asked);
        scored.truncate(limit);
        scored.into_iter().map(|(i, score)| self.matched(i, score)).collect()
    }

    /// The servers closest to `query`, best first, at most `n`: those whose tools
    /// match it anywhere (whatever scope the query set), then those whose summary
    /// shares a word with it, then the rest by name, so the model always has
    /// somewhere to look.
    pub fn closest_servers(&self, query: &str, summary: impl Fn(&str) -> Option<String>, n: usize) -> Vec<String> {
        let mut asked = Query::new(query);
        asked.servers.clear();
        asked.required.clear();
        let mut out: Vec<String> = Vec::new();
        for (i, _) in self.rank(&asked) {
            if let Some(server) = &self.docs[i].server_name
                && !out.contains(server)
            {
                out.push(server.clone());
            }
        }
        let mut rest: Vec<&str> = self.servers().into_iter().filter(|s| !out.iter().any(|o| o == s)).collect();
        rest.sort_unstable();
        let shares = |server: &str| {
            let said = format!("{server} {}", summary(server).unwrap_or_default());
            let said: Vec<String> = words(&said).collect();
            asked.groups.iter().any(|group| group.iter().any(|term| said.contains(term)))
        };
        let (sharing, others): (Vec<&str>, Vec<&str>) = rest.into_iter().partition(|s| shares(s));
        out.extend(sharing.into_iter().chain(others).map(str::to_owned));
        out.truncate(n);
        out
    }

    /// The servers of the indexed tools, each once, in the order first met.
    pub fn servers(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for server in self.docs.iter().filter_map(|d| d.server_name.as_deref()) {
            if !out.contains(&server) {
                out.push(server);
            }
        }
        out
    }

    /// Why the tool `name` ranks where it does for `query`: its place, its
    /// score, and what each word of the query contributed (by itself or through
    /// a word that means the same, and in which fields). `None` when no tool
    /// of that name is indexed. Its `Display` is a sentence a person can read.
    pub fn explain(&self, query: &str, name: &str) -> Option<Explanation> {
        let i = self.docs.iter().position(|d| d.name == name)?;
        let asked = Query::new(query);
        let doc = &self.docs[i];
        let rank = self.rank(&asked).iter().position(|(at, _)| *at == i).map(|p| p + 1);
        let exact_name = asked.is_exact(doc);
        let scored = self.score(doc, &asked);
        let words = asked
            .groups
            .iter()
            .zip(&scored.best)
            .map(|(group, best)| WordMatch {
                word: group[0].clone(),
                matched: best.map(|(at, contribution)| {
                    let term = group[at].clone();
                    let fields = FIELDS
                        .iter()
                        .zip(&doc.texts)
                        .filter(|(_, text)| words(text).any(|w| w == term))
                        .map(|(field, _)| *field)
                        .collect();
                    TermMatch { synonym: at > 0, term, fields, contribution }
                }),
            })
            .collect();
        Some(Explanation {
            name: doc.name.clone(),
            rank,
            score: if exact_name { f64::INFINITY } else { scored.total },
            exact_name,
            words,
            coverage_factor: scored.coverage_factor,
            verb_boost: scored.verb,
            server_named: scored.server,
            reads_for_question: scored.reads,
            lists_for_question: scored.lists,
        })
    }

    /// Every matching tool with its score, best first (ties in index order).
    fn rank(&self, asked: &Query) -> Vec<(usize, f64)> {
        let mut scored: Vec<(usize, f64)> = Vec::new();
        for (i, doc) in self.docs.iter().enumerate() {
            if !asked.admits(doc) {
                continue;
            }
            if asked.is_exact(doc) {
                scored.push((i, f64::INFINITY));
                continue;
            }
            let total = self.score(doc, asked).total;
            if total > 0.0 {
                scored.push((i, total));
            } else if asked.groups.is_empty() && (!asked.servers.is_empty() || !asked.required.is_empty()) {
                // Only a scope (`server:github`, `+slack`): every tool in it, in order.
                scored.push((i, f64::MIN_POSITIVE));
            }
        }
        if scored.is_empty() && (!asked.servers.is_empty() || !asked.required.is_empty()) {
            // Nothing in the scope says the query's words: the scope's tools, in
            // order, for the model to choose from, rather than nothing where it
            // knows there are tools.
            scored = (0..self.docs.len()).filter(|&i| asked.admits(&self.docs[i])).map(|i| (i, 0.0)).collect();
        }
        // Stable: equal scores keep the index's order.
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored
    }

    /// One tool's BM25 score for the query's words, and the parts it is made of.
    fn score(&self, doc: &Indexed, asked: &Query) -> Scored {
        let n = self.docs.len() as f64;
        let norm = K1 * (1.0 - B + B * doc.length / self.average_length);
        // A word counts once: by itself or its best synonym.
        let best: Vec<Option<(usize, f64)>> = asked
            .groups
            .iter()
            .map(|group| {
                let idf = |term: &String| {
                    let df = self.document_frequency.get(term).copied().unwrap_or(0) as f64;
                    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
                };
                // A synonym is no rarer than the word asked: a common word
                // must not reach a tool through a rare synonym (`read` through
                // `fetch`) louder than through itself.
                let word_idf = idf(&group[0]);
                group
                    .iter()
                    .enumerate()
                    .filter_map(|(at, term)| {
                        let tf = doc.terms.get(term)?;
                        let (weight, idf) =
                            if at == 0 { (1.0, word_idf) } else { (SYNONYM_WEIGHT, idf(term).min(word_idf)) };
                        Some((at, weight * idf * (tf * (K1 + 1.0)) / (tf + norm)))
                    })
                    .max_by(|a, b| a.1.total_cmp(&b.1))
            })
            .collect();
        let sum: f64 = best.iter().flatten().map(|(_, s)| s).sum();
        let covered = best.iter().flatten().count();
        // A tool that answers more of the query's words ranks above one that
        // answers one word loudly.
        let coverage_factor =
            if asked.groups.is_empty() { 1.0 } else { 1.0 + covered as f64 / asked.groups.len() as f64 };
        // A task phrase starts with what to do; tools are named for it
        // (`create_issue`, `list_files`).
        let verb = asked.groups.first().is_some_and(|group| group.contains(&doc.verb));
        // "in notion", "on hubspot": the product the query names.
        // A `+word` that is the server's name names it too (`+github` means the
        // github server before a tool that has the word in its own name).
        let server = asked.groups.iter().any(|group| doc.server.contains(&group[0]))
            || asked.required.iter().any(|word| word.iter().all(|w| doc.server.contains(w)));
        // A question asks to learn something: a tool that only reads answers it,
        // and one that lists answers `which pods`, `what databases`.
        let reads = asked.question && doc.reads;
        let lists = asked.plural && doc.lists;
        let boost = if verb { VERB_BOOST } else { 1.0 }
            * if server { SERVER_BOOST } else { 1.0 }
            * if reads { QUESTION_BOOST } else { 1.0 }
            * if lists { LIST_BOOST } else { 1.0 };
        let total = if sum > 0.0 { sum * coverage_factor * boost } else { 0.0 };
        Scored { best, total, coverage_factor, verb, server, reads, lists }
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
        Ok(found.into_iter().map(|(field, i)| self.matched(i, (FIELDS.len() - field) as f64)).collect())
    }

    fn matched(&self, i: usize, score: f64) -> SearchMatch {
        let doc = &self.docs[i];
        SearchMatch {
            name: doc.name.clone(),
            server: doc.server_name.clone(),
            score,
            summary: doc.summary.clone(),
            required: doc.required.clone(),
        }
    }
}

/// A query read once: each word (stemmed, stop words dropped) with the words
/// that mean the same, and the raw words an exact name is looked for among.
struct Query {
    /// The word first, then its synonyms.
    groups: Vec<Vec<String>>,
    exact: Vec<String>,
    /// `server:NAME`: only these servers' tools (normalised, see [`normal_server`]).
    servers: Vec<String>,
    /// `+word`: words each tool's name (server included) must have, as indexed.
    required: Vec<Vec<String>>,
    /// The query is a question (`which pods are running`).
    question: bool,
    /// A question about things in the plural (`which pods`, `what databases`).
    plural: bool,
}

/// A server's name as compared: lowercase, `-` and `_` alike.
fn normal_server(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

impl Query {
    fn new(query: &str) -> Query {
        let mut servers = Vec::new();
        let mut required = Vec::new();
        let mut rest = String::new();
        for token in query.split_whitespace() {
            if let Some(server) = token.strip_prefix("server:").filter(|s| !s.is_empty()) {
                servers.push(normal_server(server));
            } else if let Some(word) = token.strip_prefix('+').filter(|w| !w.is_empty()) {
                let indexed: Vec<String> = words(word).collect();
                if !indexed.is_empty() {
                    required.push(indexed);
                }
                // It narrows, it does not rank: every tool it admits has it.
            } else {
                rest.push_str(token);
                rest.push(' ');
            }
        }
        let query = rest.as_str();
        let is_plural = |w: &str| {
            let w = w.to_ascii_lowercase();
            w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is")
        };
        let question = query.trim_end().ends_with('?')
            || query
                .split_whitespace()
                .next()
                .is_some_and(|w| QUESTION_WORDS.contains(&w.to_ascii_lowercase().as_str()));
        // A URL in the query asks for a tool that takes one.
        let url = query.contains("://").then(|| "url".to_owned());
        let mut groups: Vec<Vec<String>> = Vec::new();
        for term in words(query).filter(|t| !STOP_WORDS.contains(&t.as_str())).chain(url) {
            if groups.iter().any(|group| group[0] == term) {
                continue;
            }
            let mut group = vec![term.clone()];
            group.extend(synonyms(&term));
            groups.push(group);
        }
        let exact = query
            .split(|c: char| c.is_whitespace() || c == ',' || c == '`' || c == '"' || c == '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        let plural = question && query.split_whitespace().skip(1).take(2).any(is_plural);
        Query { groups, exact, servers, required, question, plural }
    }

    /// Whether the query's scope lets `doc` in: its server, and the `+word`s in its
    /// name.
    fn admits(&self, doc: &Indexed) -> bool {
        let server_ok = self.servers.is_empty()
            || doc.server_name.as_deref().is_some_and(|s| self.servers.contains(&normal_server(s)));
        server_ok && self.required.iter().all(|word| word.iter().all(|w| doc.name_words.contains(w)))
    }

    fn is_exact(&self, doc: &Indexed) -> bool {
        self.exact.iter().any(|w| *w == doc.lower || (doc.short_is_name(self.exact.len()) && *w == doc.short))
    }
}

/// One tool's score and its parts.
struct Scored {
    /// Per query word: which of its terms matched best (0 the word itself) and
    /// what it added.
    best: Vec<Option<(usize, f64)>>,
    total: f64,
    coverage_factor: f64,
    verb: bool,
    server: bool,
    reads: bool,
    lists: bool,
}

/// The fields a term is looked for in, as [`TermMatch::fields`] names them.
const FIELDS: [&str; 6] =
    ["name", "title", "parameter names", "description", "search keywords", "parameter descriptions"];

/// Why a tool ranked where it did for a query ([`SearchIndex::explain`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Explanation {
    /// The tool.
    pub name: String,
    /// Its place among the matches, from 1; `None` when nothing of the query matches it.
    pub rank: Option<usize>,
    /// Its score; an exact name match is `f64::INFINITY`.
    pub score: f64,
    /// A word of the query is the tool's name, which ranks it first.
    pub exact_name: bool,
    /// Each word of the query (stemmed) and what it matched in this tool.
    pub words: Vec<WordMatch>,
    /// The sum of the words' parts is multiplied by one plus the share of the
    /// query's words that matched.
    pub coverage_factor: f64,
    /// The query's first word (or a synonym) is the verb the tool is named with.
    pub verb_boost: bool,
    /// The query names the tool's server.
    pub server_named: bool,
    /// The query is a question and the tool only reads.
    pub reads_for_question: bool,
    /// The question asks about things in the plural and the tool lists.
    pub lists_for_question: bool,
}

/// One word of a query and what it matched in one tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WordMatch {
    /// The word, stemmed as the index stores it.
    pub word: String,
    /// What it matched, if anything.
    pub matched: Option<TermMatch>,
}

/// The term a query word matched in a tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TermMatch {
    /// The term found: the word itself or a word that means the same.
    pub term: String,
    /// Whether it was found through a synonym (which counts for less).
    pub synonym: bool,
    /// The fields it occurs in: `name`, `parameter names`, `description`, `parameter descriptions`.
    pub fields: Vec<&'static str>,
    /// What it added to the score before the coverage factor and the boosts.
    pub contribution: f64,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rank {
            Some(rank) => write!(f, "{} ranks {rank}", self.name)?,
            None => return write!(f, "{} does not match: no word of the query is in it", self.name),
        }
        if self.exact_name {
            return write!(f, ": the query names it exactly");
        }
        write!(f, " with {:.3}:", self.score)?;
        for word in &self.words {
            match &word.matched {
                Some(m) if m.synonym => write!(
                    f,
                    " `{}` through `{}` in {} (+{:.3});",
                    word.word,
                    m.term,
                    m.fields.join(", "),
                    m.contribution
                )?,
                Some(m) => write!(f, " `{}` in {} (+{:.3});", word.word, m.fields.join(", "), m.contribution)?,
                None => write!(f, " `{}` not found;", word.word)?,
            }
        }
        write!(f, " x{:.2} for the words covered", self.coverage_factor)?;
        if self.verb_boost {
            write!(f, ", x{VERB_BOOST} as it is named with the query's verb")?;
        }
        if self.server_named {
            write!(f, ", x{SERVER_BOOST} as the query names its server")?;
        }
        if self.reads_for_question {
            write!(f, ", x{QUESTION_BOOST} as the query is a question and the tool only reads")?;
        }
        if self.lists_for_question {
            write!(f, ", x{LIST_BOOST} as it lists what the question asks about")?;
        }
        Ok(())
    }
}

/// The description's first sentence (what the tool is for) and the rest: up to
/// the first full stop before white space, or a blank line.
pub(super) fn split_first_sentence(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let bytes = text.as_bytes();
    let end = (0..bytes.len()).find_map(|i| match bytes[i] {
        b'.' if bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) => Some(i + 1),
        b'\n' if text[i + 1..].trim_start_matches([' ', '\t', '\r']).starts_with('\n') => Some(i),
        _ => None,
    });
    text.split_at(end.unwrap_or(text.len()))
}

/// The description's first sentence on one line, at most 160 characters.
fn first_sentence(text: &str) -> String {
    let sentence = split_first_sentence(text).0.split_whitespace().collect::<Vec<_>>().join(" ");
    match sentence.char_indices().nth(160) {
        Some((cut, _)) => format!("{}...", &sentence[..cut]),
        None => sentence,
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

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
