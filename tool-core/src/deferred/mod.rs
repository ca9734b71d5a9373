//! Deferred tools and the tool search: hundreds of tools for the price of a few.
//!
//! A deferred tool's definition is not sent with every request. The model sees a
//! `tool_search` tool instead, whose description says what can be found; a search
//! loads the best matches into the session, and from the next request on their
//! definitions follow the tools already sent, so the rendered list keeps a
//! byte-stable prefix and prompt caching survives the load. With Anthropic's native
//! tool search ([`Deferral::native_anthropic`]) the deferred tools are sent with
//! `defer_loading: true` beside Anthropic's own search tool instead, and the server
//! does the searching.
//!
//! What is deferred: a tool whose [`ToolSpec::defer`](crate::ToolSpec::defer) is
//! [`Defer::Always`] (`#[tool(defer)]`, a runtime tool that sets it, an MCP server
//! mounted with `deferTools: "always"`), and [`Defer::Auto`] tools (runtime and MCP
//! tools unless they say otherwise) when the pool's definitions would exceed the
//! session's [`Budget`].
//!
//! Loads are per [`ToolSession`]: put one in the turn's extensions and
//! [`Registry::pool`](crate::Registry::pool) applies it. A subagent or a second
//! session gets its own ([`ToolSession::fork`]), so its searches grow only its
//! own pool.
//!
//! ```
//! use toolwright_core::deferred::{Budget, Deferral, ToolSession};
//! use toolwright_core::{Extensions, Profile, Registry, TurnContext};
//!
//! let registry = Registry::builder().build().unwrap();
//! let session = ToolSession::new(Deferral::default().budget(Budget::Tokens(10_000)));
//! session.install(&registry).unwrap();
//! let mut extensions = Extensions::new();
//! extensions.insert(session.clone());
//! let turn = TurnContext::new(".").with_extensions(extensions);
//! let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
//! assert_eq!(pool.deferred_len(), 0, "nothing to defer in an empty registry");
//! ```

pub(crate) mod catalogue;
mod hints;
mod index;
mod lexicon;
pub(crate) mod search_tool;
mod setting;

pub use crate::Defer;
pub use hints::{HintsError, SearchHints};
pub use index::{Explanation, SearchDocument, SearchError, SearchIndex, SearchMatch, TermMatch, WordMatch};
pub use search_tool::{TOOL_SEARCH, ToolSearch};
pub use setting::{ENABLE_TOOL_SEARCH, ToolSearchSetting, ToolSearchSettingError};

use crate::registry::Split;
use std::sync::{Arc, Mutex, MutexGuard};

/// When `Auto` tools are deferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Budget {
    /// When the pool's definitions would take more than this many tokens.
    Tokens(usize),
    /// When they would take more than `percent` of a context window of `window`
    /// tokens (Claude Code defers MCP tools past 10%).
    ShareOfContext {
        /// The model's context window, in tokens.
        window: usize,
        /// The share, 1 to 100.
        percent: u8,
    },
    /// Never: only `Always` tools are deferred.
    Unlimited,
}

impl Budget {
    /// The budget in tokens.
    pub fn tokens(self) -> usize {
        match self {
            Budget::Tokens(n) => n,
            Budget::ShareOfContext { window, percent } => window.saturating_mul(usize::from(percent.min(100))) / 100,
            Budget::Unlimited => usize::MAX,
        }
    }
}

/// How a session defers tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deferral {
    /// When `Auto` tools are deferred; by default past 10% of a 200,000-token window.
    pub budget: Budget,
    /// For Anthropic, send deferred tools with `defer_loading: true` and Anthropic's
    /// own tool search tool instead of toolwright's `tool_search`.
    pub native_anthropic: Option<NativeSearch>,
    /// How many tools one search loads at most.
    pub max_results: usize,
    /// The most tokens the catalogue of deferred tools in `tool_search`'s
    /// description may take (server lines always; tool names while they fit).
    pub catalogue_tokens: usize,
}

/// Which of Anthropic's server-side tool search tools to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NativeSearch {
    /// `tool_search_tool_bm25_20251119`: natural-language queries.
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model writes a regular expression.
    Regex,
}

impl NativeSearch {
    /// The definition sent in the request's `tools`.
    pub fn definition(self) -> &'static str {
        match self {
            NativeSearch::Bm25 => r#"{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}"#,
            NativeSearch::Regex => r#"{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}"#,
        }
    }
}

impl Default for Deferral {
    fn default() -> Self {
        Deferral {
            budget: Budget::ShareOfContext { window: 200_000, percent: 10 },
            native_anthropic: None,
            max_results: 5,
            catalogue_tokens: 1_000,
        }
    }
}

impl Deferral {
    /// With `budget`.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// With Anthropic's native tool search for Anthropic requests.
    pub fn native_anthropic(mut self, search: NativeSearch) -> Self {
        self.native_anthropic = Some(search);
        self
    }

    /// With at most `n` tools loaded per search (at least 1).
    pub fn max_results(mut self, n: usize) -> Self {
        self.max_results = n.max(1);
        self
    }

    /// With a catalogue of at most `tokens` in `tool_search`'s description (default
    /// 1,000): every server's line, then the tools' names while they fit.
    pub fn catalogue_tokens(mut self, tokens: usize) -> Self {
        self.catalogue_tokens = tokens;
        self
    }
}

/// Bytes of JSON per token, the ratio tokenizers show on schema text: the one
/// estimate budgets and reports use.
pub const BYTES_PER_TOKEN: usize = 4;

/// The tokens a rendered definition costs, estimated at [`BYTES_PER_TOKEN`].
pub fn estimated_tokens(rendered: &str) -> usize {
    rendered.len().div_ceil(BYTES_PER_TOKEN)
}

/// One session's deferred tools: what it loaded, in order, and the index its
/// searches run on. Cheap to clone; clones share the session.
#[derive(Clone, Default)]
pub struct ToolSession(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    deferral: Deferral,
    loaded: Vec<Arc<str>>,
    /// The splits of registries this session's pools were made from, newest last.
    splits: Vec<Arc<Split>>,
    /// The split of the last pool: what searches find and loads take from.
    current: Option<Arc<Split>>,
    /// The index over the current split's deferred tools, by the split's hash.
    index: Option<(u64, Arc<SearchIndex>)>,
    /// Searches done and what each loaded, for reports.
    searches: Vec<(String, Vec<String>)>,
}

/// Splits a session keeps (one per registry, profile, deny list and provider it
/// is used with; older ones are made again when needed).
const SPLITS_KEPT: usize = 8;

impl std::fmt::Debug for ToolSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSession").field("loaded", &self.loaded()).finish()
    }
}

impl ToolSession {
    /// A session deferring as `deferral` says, nothing loaded.
    pub fn new(deferral: Deferral) -> ToolSession {
        ToolSession(Arc::new(Mutex::new(State { deferral, ..State::default() })))
    }

    /// A new session with the same deferral and nothing loaded: a subagent's.
    pub fn fork(&self) -> ToolSession {
        ToolSession::new(self.state().deferral.clone())
    }

    /// A new session with the same deferral and what this one has loaded, its
    /// own from here on: a forked agent's, which goes on from its parent's tools.
    ///
    /// ```
    /// use toolwright_core::deferred::{Deferral, ToolSession};
    /// let parent = ToolSession::new(Deferral::default());
    /// let child = parent.branch();
    /// assert_eq!(child.loaded(), parent.loaded());
    /// assert!(child.fork().loaded().is_empty());
    /// ```
    pub fn branch(&self) -> ToolSession {
        let state = self.state();
        let branch = ToolSession::new(state.deferral.clone());
        branch.state().loaded = state.loaded.clone();
        branch
    }

    /// Registers the `tool_search` tool in `registry`, if it is not there yet.
    pub fn install(&self, registry: &crate::Registry) -> Result<(), crate::RegistryError> {
        if registry.contains(TOOL_SEARCH) {
            return Ok(());
        }
        registry.register(Arc::new(ToolSearch::new()))
    }

    /// How this session defers.
    pub fn deferral(&self) -> Deferral {
        self.state().deferral.clone()
    }

    /// The tools loaded so far, in load order.
    pub fn loaded(&self) -> Vec<String> {
        self.state().loaded.iter().map(|n| n.to_string()).collect()
    }

    /// Whether `name` is deferred in this session's pool and not loaded: a call to
    /// it must search first.
    pub fn needs_search(&self, name: &str) -> bool {
        let state = self.state();
        // With Anthropic's native search the server loads them: the model's call is its to make.
        let held = state.current.as_ref().is_some_and(|split| split.native.is_none() && split.defers(name));
        held && !state.loaded.iter().any(|l| &**l == name)
    }

    /// Loads `names` (deferred tools of the last pool; others are skipped); the
    /// names newly loaded, in order.
    pub fn load<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut state = self.state();
        let mut added = Vec::new();
        for name in names {
            let Some((shared, _)) = state.current.as_ref().and_then(|split| split.deferred(name)) else { continue };
            let shared = Arc::clone(shared);
            if !state.loaded.contains(&shared) {
                state.loaded.push(shared);
                added.push(name.to_owned());
            }
        }
        added
    }

    /// Searches the deferred tools of the last pool: a natural-language query, or
    /// a regular expression when `regex`. Loads nothing.
    pub fn search(&self, query: &str, regex: bool, limit: usize) -> Result<Vec<SearchMatch>, SearchError> {
        self.search_in(query, None, regex, limit)
    }

    /// [`search`](Self::search) within one server's tools when `server` is given
    /// (a regular expression is matched within it too).
    pub fn search_in(
        &self,
        query: &str,
        server: Option<&str>,
        regex: bool,
        limit: usize,
    ) -> Result<Vec<SearchMatch>, SearchError> {
        let Some(index) = self.index() else { return Ok(Vec::new()) };
        if !regex {
            return Ok(index.search_in(query, server, limit));
        }
        let all = index.search_regex(query, usize::MAX)?;
        let within =
            |m: &SearchMatch| server.is_none_or(|s| m.server.as_deref().is_some_and(|own| own.eq_ignore_ascii_case(s)));
        Ok(all.into_iter().filter(within).take(limit).collect())
    }

    /// The servers whose tools or summaries come closest to `query`, best first, at
    /// most `n`, each with its summary: where to look when nothing matched.
    pub fn closest_servers(&self, query: &str, n: usize) -> Vec<(String, Option<String>)> {
        let Some(index) = self.index() else { return Vec::new() };
        let hints = self.state().current.as_ref().map(|split| split.hints().clone()).unwrap_or_default();
        index
            .closest_servers(query, |server| hints.summary(server).map(str::to_owned), n)
            .into_iter()
            .map(|server| {
                let summary = hints.summary(&server).map(str::to_owned);
                (server, summary)
            })
            .collect()
    }

    /// Why the deferred tool `name` ranks where it does for `query`
    /// ([`SearchIndex::explain`]); `None` when it is not deferred here.
    pub fn explain(&self, query: &str, name: &str) -> Option<Explanation> {
        self.index()?.explain(query, name)
    }

    /// The index over the current split, built on the first search after the
    /// deferred set changed (outside the lock: pools of this session need not wait).
    fn index(&self) -> Option<Arc<SearchIndex>> {
        let split = {
            let state = self.state();
            let split = Arc::clone(state.current.as_ref()?);
            if let Some((_, index)) = state.index.as_ref().filter(|(key, _)| *key == split.deferred_hash) {
                return Some(Arc::clone(index));
            }
            split
        };
        let index = Arc::new(SearchIndex::new(split.documents()));
        self.state().index = Some((split.deferred_hash, Arc::clone(&index)));
        Some(index)
    }

    /// The searches so far, each with the tools it loaded.
    pub fn searches(&self) -> Vec<(String, Vec<String>)> {
        self.state().searches.clone()
    }

    pub(crate) fn record_search(&self, query: &str, loaded: &[String]) {
        self.state().searches.push((query.to_owned(), loaded.to_vec()));
    }

    /// Called by the pool: the split that `matches`, or a new one made by `make`
    /// (outside the lock: making it asks tools for their descriptions). Either way
    /// it becomes the current one, which searches and loads use.
    pub(crate) fn split(&self, matches: impl Fn(&Split) -> bool, make: impl FnOnce(&Deferral) -> Split) -> Arc<Split> {
        let deferral = {
            let mut state = self.state();
            if let Some(split) = state.splits.iter().rev().find(|s| matches(s)).cloned() {
                state.current = Some(Arc::clone(&split));
                return split;
            }
            state.deferral.clone()
        };
        let split = Arc::new(make(&deferral));
        let mut state = self.state();
        if state.splits.len() >= SPLITS_KEPT {
            state.splits.remove(0);
        }
        state.splits.push(Arc::clone(&split));
        state.current = Some(Arc::clone(&split));
        split
    }

    /// The tools loaded so far, in load order, with their names shared.
    pub(crate) fn loaded_shared(&self) -> Vec<Arc<str>> {
        self.state().loaded.clone()
    }

    pub(crate) fn is_loaded(&self, name: &str) -> bool {
        self.state().loaded.iter().any(|l| &**l == name)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
