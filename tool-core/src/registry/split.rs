//! What a session holds back: a registry's tools split into those sent with every
//! request and the deferred ones, worked out once per registry generation,
//! profile, deny list and provider, and kept by the session. A turn then builds
//! its pool from the split (the sent tools, then the loaded ones) without walking
//! the registry, so loading five tools out of a thousand costs what five cost.

use super::pool::{Described, Offer, PoolMember, Profile, ToolPattern, mix};
use super::{Entry, Registry};
use crate::Provider;
use crate::TurnContext;
use crate::deferred::{Defer, Deferral, NativeSearch, SearchDocument, TOOL_SEARCH, estimated_tokens};
use crate::names::{self, FnvBuild};
use std::collections::HashMap;
use std::sync::Arc;

/// Which registry, at which generation, for which profile, deny list and provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitKey {
    registry: u64,
    generation: u64,
    provider: usize,
    profile: Profile,
    denied: Vec<ToolPattern>,
}

impl SplitKey {
    /// Whether this split was made for these, without building a key to compare.
    pub(crate) fn is_for(
        &self,
        registry: &Registry,
        generation: u64,
        provider: Provider,
        profile: &Profile,
        denied: &[ToolPattern],
    ) -> bool {
        self.registry == registry.id
            && self.generation == generation
            && self.provider == provider.slot()
            && self.profile == *profile
            && self.denied == denied
    }
}

/// One split of a registry for a session.
pub(crate) struct Split {
    pub(crate) key: SplitKey,
    /// The tools sent with every request, in registry order, whether or not they
    /// are enabled now: each turn asks them again.
    pub(crate) eager: Vec<Arc<Entry>>,
    /// The deferred tools (loaded or not) enabled when the split was made, with
    /// their descriptions then, in registry order.
    pub(crate) deferred: Vec<PoolMember>,
    by_name: HashMap<Arc<str>, usize, FnvBuild>,
    /// The search tool's description: what can be found (the same after loads).
    pub(crate) search_description: Option<Arc<Described>>,
    /// Set when Anthropic's native search renders the deferred tools.
    pub(crate) native: Option<NativeSearch>,
    /// A hash of the deferred tools and their descriptions: the search index's key,
    /// and a part of every pool fingerprint made from this split.
    pub(crate) deferred_hash: u64,
    /// The registry's search hints when the split was made (extra words per tool).
    hints: crate::deferred::SearchHints,
}

impl Split {
    /// Walks `registry` once for a session deferring as `deferral` says.
    ///
    /// A deferred tool's `is_enabled` and `description` are asked here, in this
    /// turn; once loaded it is asked again every turn, like the eager tools.
    pub(crate) fn new(
        registry: &Registry,
        turn: &TurnContext,
        profile: &Profile,
        denied: &[ToolPattern],
        provider: Provider,
        deferral: &Deferral,
    ) -> Split {
        let (generation, admitted) = registry.admitted(profile, denied);
        let hints = registry.search_hints();
        let is_search = |entry: &Entry| entry.spec().name == TOOL_SEARCH;
        let enabled = |entry: &Entry| entry.tool().is_enabled(turn);
        let native = deferral.native_anthropic.filter(|_| matches!(provider, Provider::Anthropic { .. }));
        // Nothing is held back where nothing could find it: a deny rule on the
        // search (`ToolSearch`), or a profile without it, sends every tool.
        let searchable = native.is_some() || admitted.iter().any(|e| is_search(e) && enabled(e));
        // Auto tools go when everything that could be sent is over the budget.
        let budget = deferral.budget.tokens();
        let over = budget != usize::MAX
            && admitted.iter().any(|e| e.spec().defer == Defer::Auto && !is_search(e) && enabled(e))
            && admitted
                .iter()
                .filter(|e| e.spec().defer != Defer::Always && !is_search(e) && enabled(e))
                .map(|e| e.rendered(provider).map_or(0, estimated_tokens))
                .sum::<usize>()
                > budget;
        let deferred_here = |entry: &Entry| {
            searchable
                && !is_search(entry)
                && match entry.spec().defer {
                    Defer::Always => true,
                    Defer::Auto => over,
                    _ => false,
                }
        };
        let mut eager = Vec::new();
        let mut deferred = Vec::new();
        for entry in admitted {
            if !deferred_here(&entry) {
                eager.push(entry);
            } else if let Some(member) = PoolMember::offered(entry, turn, Offer::Deferred) {
                deferred.push(member);
            }
        }

        let search_description = if deferred.is_empty() || native.is_some() {
            eager.retain(|entry| !is_search(entry));
            None
        } else {
            eager.iter().find(|entry| is_search(entry)).map(|search| {
                Described::new(crate::deferred::catalogue::description_for(
                    deferred.iter().map(|m| (m.entry.spec().name.as_ref(), m.description())),
                    &search.spec().description,
                    &hints,
                    deferral.catalogue_tokens,
                ))
            })
        };
        let native = native.filter(|_| !deferred.is_empty());
        let mut deferred_hash = names::fnv1a_bytes(0xcbf2_9ce4_8422_2325, &generation.to_le_bytes());
        for m in &deferred {
            deferred_hash = m.hashed(deferred_hash);
        }
        deferred_hash = mix(deferred_hash, u64::from(native.is_some()));
        let by_name = deferred.iter().enumerate().map(|(at, m)| (Arc::clone(&m.entry.name), at)).collect();
        Split {
            key: SplitKey {
                registry: registry.id,
                generation,
                provider: provider.slot(),
                profile: profile.clone(),
                denied: denied.to_vec(),
            },
            eager,
            deferred,
            by_name,
            search_description,
            native,
            deferred_hash,
            hints,
        }
    }

    /// The deferred tool named `name`, with the name shared.
    pub(crate) fn deferred(&self, name: &str) -> Option<(&Arc<str>, &PoolMember)> {
        self.by_name.get_key_value(name).map(|(shared, &at)| (shared, &self.deferred[at]))
    }

    /// Whether `name` is deferred in this split (loaded or not).
    pub(crate) fn defers(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The registry's search hints when the split was made.
    pub(crate) fn hints(&self) -> &crate::deferred::SearchHints {
        &self.hints
    }

    /// The deferred tools as the search index reads them.
    pub(crate) fn documents(&self) -> impl Iterator<Item = SearchDocument> + '_ {
        self.deferred.iter().map(|m| {
            let spec = m.entry.spec();
            let name = spec.name.as_ref();
            SearchDocument::new(name, m.description(), m.entry.input_schema().clone())
                .with_title(spec.title.as_deref().unwrap_or_default())
                .with_keywords(self.hints.keywords(name))
        })
    }
}
