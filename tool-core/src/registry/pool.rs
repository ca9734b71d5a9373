//! The tools one turn offers: a registry's tools filtered by the profile, the
//! bare-name deny rules and the turn; with a [`ToolSession`], split into those
//! sent and those held back for the tool search; and rendered for a provider.

use super::split::Split;
use super::{Entry, POOL_CACHE_MAX, PoolCache, Registry, lock};
use crate::SchemaError;
use crate::ToolSpec;
use crate::TurnContext;
use crate::deferred::{NativeSearch, TOOL_SEARCH, ToolSession};
use crate::names;
use crate::schema::{self, Definitions, Provider};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

impl Registry {
    /// The tools offered in one turn: link-time tools sorted by name, then runtime
    /// tools sorted, minus those `denied` (bare-name deny rules, by name or rule
    /// name), those the profile leaves out, and those not enabled in `turn`.
    /// Descriptions are asked of each tool for this turn.
    ///
    /// With a [`ToolSession`] in the turn's extensions, deferred tools are held
    /// back and the ones the session loaded follow the others, in load order. The
    /// session keeps the split of the registry (per generation, profile, deny list
    /// and provider), so such a pool costs what its sent tools cost, however many
    /// are deferred; a deferred tool's `is_enabled` and `description` are asked
    /// when the split is made, and every turn once it is loaded.
    pub fn pool(&self, turn: &TurnContext, profile: &Profile, denied: &[ToolPattern]) -> ToolPool {
        if let Some(session) = turn.extensions().get::<ToolSession>() {
            return self.session_pool(turn, profile, denied, session);
        }
        let (generation, admitted) = self.admitted(profile, denied);
        let members = admitted.into_iter().filter_map(|entry| PoolMember::offered(entry, turn, Offer::Eager)).collect();
        let seed = names::fnv1a_bytes(0xcbf2_9ce4_8422_2325, &generation.to_le_bytes());
        self.finish_pool(members, None, seed, profile)
    }

    fn session_pool(
        &self,
        turn: &TurnContext,
        profile: &Profile,
        denied: &[ToolPattern],
        session: &ToolSession,
    ) -> ToolPool {
        let provider = turn.provider().unwrap_or(Provider::ANTHROPIC);
        let generation = self.generation();
        let split = session.split(
            |split| split.key.is_for(self, generation, provider, profile, denied),
            |deferral| Split::new(self, turn, profile, denied, provider, deferral),
        );
        let mut members = Vec::with_capacity(split.eager.len() + 8);
        for entry in &split.eager {
            let Some(mut member) = PoolMember::offered(Arc::clone(entry), turn, Offer::Eager) else { continue };
            if let Some(description) = split.search_description.as_ref().filter(|_| entry.spec().name == TOOL_SEARCH) {
                member.description = Some(Arc::clone(description));
            }
            members.push(member);
        }
        // Loaded tools not enabled in this turn are neither sent nor callable.
        let mut switched_off = Vec::new();
        if split.native.is_none() {
            for name in session.loaded_shared() {
                let Some((shared, held)) = split.deferred(&name) else { continue };
                match PoolMember::offered(Arc::clone(&held.entry), turn, Offer::Loaded) {
                    Some(member) => members.push(member),
                    None => switched_off.push(Arc::clone(shared)),
                }
            }
        }
        let seed = split.deferred_hash;
        self.finish_pool(members, Some((split, session.clone(), switched_off)), seed, profile)
    }

    /// The generation and the tools the profile and the deny rules let in, in
    /// registry order. Taken under the read lock and returned with it released:
    /// tools are asked and rendered with the registry free, as a tool may change it.
    pub(crate) fn admitted(&self, profile: &Profile, denied: &[ToolPattern]) -> (u64, Vec<Arc<Entry>>) {
        let overlay = self.read_overlay();
        let entries = self.statics.iter().chain(overlay.tools.values());
        (overlay.generation, entries.filter(|entry| lets_in(entry, profile, denied)).cloned().collect())
    }

    fn finish_pool(
        &self,
        members: Vec<PoolMember>,
        deferral: Option<(Arc<Split>, ToolSession, Vec<Arc<str>>)>,
        seed: u64,
        profile: &Profile,
    ) -> ToolPool {
        let mut fingerprint = mix(seed, profile.presentation as u64);
        for m in &members {
            fingerprint = mix(m.hashed(fingerprint), m.state as u64);
        }
        let names: HashSet<Box<str>> = members.iter().map(|m| Box::<str>::from(m.entry.spec().name.as_ref())).collect();
        let (split, session, switched_off) = match deferral {
            Some((split, session, off)) => (Some(split), Some(session), off),
            None => (None, None, Vec::new()),
        };
        let native = split.as_ref().and_then(|split| split.native);
        // The loaded ones are the split's, each once, sent or switched off: the
        // rest are held back.
        let loaded = members.iter().filter(|m| m.state == Offer::Loaded).count() + switched_off.len();
        let held = split.as_ref().map_or(0, |split| split.deferred.len() - loaded);
        ToolPool {
            members,
            split,
            held,
            switched_off,
            native,
            session,
            names,
            read_only_only: profile.only_reads(),
            presentation: profile.presentation,
            profile: profile.name.clone(),
            reasons: profile.all_reasons(),
            fingerprint,
            cache: Arc::clone(&self.pools),
        }
    }
}

/// Whether the profile and the deny rules let `entry` into a pool.
fn lets_in(entry: &Entry, profile: &Profile, denied: &[ToolPattern]) -> bool {
    let spec = entry.spec();
    let name = spec.name.as_ref();
    // A bare-name deny rule names a tool as Claude Code does (`Bash`) or by its own name.
    let rule_name = spec.rule_name.as_deref();
    !denied.iter().any(|p| p.matches(name) || rule_name.is_some_and(|r| p.matches(r))) && profile.admits(name, spec)
}

/// One word into an FNV-style hash (a word at a time: pools hash an entry per tool).
pub(crate) fn mix(hash: u64, word: u64) -> u64 {
    (hash ^ word).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
}

/// A tool-name pattern, as in bare-name deny rules: an exact name, `prefix*`, or
/// `mcp__server` (every tool of that server).
///
/// ```
/// use toolwright_core::ToolPattern;
/// assert!(ToolPattern::new("mcp__github").matches("mcp__github__create_issue"));
/// assert!(!ToolPattern::new("mcp__git").matches("mcp__github__create_issue"));
/// assert!(ToolPattern::new("mcp__*").matches("mcp__github__create_issue"));
/// assert!(ToolPattern::new("shell").matches("shell"));
/// assert!(!ToolPattern::new("shell").matches("shell_output"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolPattern(String);

impl ToolPattern {
    /// A pattern from its text.
    pub fn new(pattern: impl Into<String>) -> Self {
        ToolPattern(pattern.into())
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        let p = self.0.as_str();
        if let Some(prefix) = p.strip_suffix('*') {
            return name.starts_with(prefix);
        }
        if name == p {
            return true;
        }
        // `mcp__server` stands for the whole server: `mcp__server__<anything>`.
        let is_server = p.strip_prefix(names::MCP_PREFIX).is_some_and(|rest| !rest.is_empty() && !rest.contains("__"));
        is_server && name.strip_prefix(p).is_some_and(|rest| rest.starts_with("__"))
    }

    /// The pattern's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A named set of tools for a kind of agent: main agent, subagent, coordinator, plan
/// mode. A tool is in the profile if an allow pattern matches (or there are none), no
/// deny pattern matches, and, for read-only profiles, the tool is read-only; and, for
/// a profile made [`within`](Profile::within) another, if that one admits it too. A
/// pattern matches a tool's name or its Claude Code rule name (`Read` is `read_file`,
/// `Bash` is `shell`), so a Claude Code agent definition's `tools: Read, Grep` means
/// what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    name: Cow<'static, str>,
    allow: Option<Vec<ToolPattern>>,
    deny: Vec<ToolPattern>,
    /// Why some denied tools are denied, for the model that calls one anyway.
    reasons: Vec<(ToolPattern, Cow<'static, str>)>,
    read_only_only: bool,
    /// A profile this one narrows: a child's is within its parent's.
    within: Option<Box<Profile>>,
    presentation: Presentation,
}

/// How a pool shows its tools to the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Presentation {
    /// Each tool under its own name and fields.
    #[default]
    Own,
    /// A tool with a Claude Code name (a rule name it also answers to, such as
    /// `Read` for `read_file`) under that name, its fields under the names it reads
    /// them by (`file_path` for `path`): a Claude-trained model, or a recorded
    /// Claude Code session, finds the tools it knows. Calls route back as aliases.
    ClaudeCode,
}

impl Profile {
    /// A profile with every tool.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Profile {
            name: name.into(),
            allow: None,
            deny: Vec::new(),
            reasons: Vec::new(),
            read_only_only: false,
            within: None,
            presentation: Presentation::Own,
        }
    }

    /// The main agent: every tool.
    pub fn main_agent() -> Self {
        Profile::new("main")
    }

    /// A subagent: every tool except those that spawn agents (`agent`, `task`), so
    /// subagents do not recurse.
    pub fn subagent() -> Self {
        Profile::new("subagent").deny(["agent", "task"])
    }

    /// A coordinator: only the tools that delegate and track work.
    pub fn coordinator() -> Self {
        Profile::new("coordinator").allow(["agent", "task", "send_message", "todo_write"])
    }

    /// Plan mode: read-only tools only. Calls are checked again per input, so a tool
    /// whose read-only flag depends on its input is refused when this input writes.
    pub fn plan() -> Self {
        Profile { read_only_only: true, ..Profile::new("plan") }
    }

    /// Every tool, the built-ins under Claude Code's names and field names (see
    /// [`Presentation::ClaudeCode`]).
    ///
    /// ```
    /// use toolwright_core::{Presentation, Profile};
    /// assert_eq!(Profile::claude_code().presentation(), Presentation::ClaudeCode);
    /// ```
    pub fn claude_code() -> Self {
        Profile::new("claude_code").presenting(Presentation::ClaudeCode)
    }

    /// The same tools, shown to the model as `presentation` says.
    pub fn presenting(mut self, presentation: Presentation) -> Self {
        self.presentation = presentation;
        self
    }

    /// How the tools are shown.
    pub fn presentation(&self) -> Presentation {
        self.presentation
    }

    /// Only tools matching one of `patterns` (added to earlier allow patterns).
    pub fn allow<I: IntoIterator<Item = S>, S: Into<String>>(mut self, patterns: I) -> Self {
        self.allow.get_or_insert_with(Vec::new).extend(patterns.into_iter().map(ToolPattern::new));
        self
    }

    /// No tool matching one of `patterns`.
    pub fn deny<I: IntoIterator<Item = S>, S: Into<String>>(mut self, patterns: I) -> Self {
        self.deny.extend(patterns.into_iter().map(ToolPattern::new));
        self
    }

    /// No tool matching one of `patterns`, and `reason` is what a call to one is
    /// told (in place of the list of the tools there are).
    ///
    /// ```
    /// use toolwright_core::Profile;
    /// let child = Profile::new("child").deny_because(["agent"], "the depth limit (3) is reached");
    /// assert!(!child.admits_name("agent"));
    /// assert_eq!(child.denial_reason("agent", None), Some("the depth limit (3) is reached"));
    /// ```
    pub fn deny_because<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        patterns: I,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        let reason = reason.into();
        for pattern in patterns {
            let pattern = ToolPattern::new(pattern);
            self.deny.push(pattern.clone());
            self.reasons.push((pattern, reason.clone()));
        }
        self
    }

    /// Why a tool of this name (or rule name) is denied, when a reason was given:
    /// this profile's, or one it is within.
    pub fn denial_reason(&self, name: &str, rule_name: Option<&str>) -> Option<&str> {
        let hit = |p: &ToolPattern| p.matches(name) || rule_name.is_some_and(|r| p.matches(r));
        self.reasons
            .iter()
            .find(|(pattern, _)| hit(pattern))
            .map(|(_, reason)| reason.as_ref())
            .or_else(|| self.within.as_ref().and_then(|outer| outer.denial_reason(name, rule_name)))
    }

    fn all_reasons(&self) -> Vec<(ToolPattern, Cow<'static, str>)> {
        let mut reasons = self.reasons.clone();
        if let Some(outer) = &self.within {
            reasons.extend(outer.all_reasons());
        }
        reasons
    }

    /// Only what `outer` admits as well: a child agent's profile within its parent's,
    /// so that a child can only ever have less. Nests to any depth.
    ///
    /// ```
    /// use toolwright_core::Profile;
    /// let parent = Profile::new("parent").deny(["shell"]);
    /// let child = Profile::new("child").allow(["shell", "read_file"]).within(&parent);
    /// assert!(child.admits_name("read_file") && !child.admits_name("shell"));
    /// ```
    pub fn within(mut self, outer: &Profile) -> Self {
        self.within = Some(Box::new(match self.within.take() {
            // Already within one: within both.
            Some(inner) => inner.within(outer),
            None => outer.clone(),
        }));
        self
    }

    /// Whether only read-only calls pass: this profile's, or one it is within.
    fn only_reads(&self) -> bool {
        self.read_only_only || self.within.as_ref().is_some_and(|outer| outer.only_reads())
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a tool of this name (with no rule name, not read-only) is admitted.
    pub fn admits_name(&self, name: &str) -> bool {
        self.admits_names(name, None, false)
    }

    /// Whether the tool `spec` describes is admitted (by its name or rule name).
    pub fn admits_tool(&self, spec: &ToolSpec) -> bool {
        self.admits(spec.name.as_ref(), spec)
    }

    fn admits(&self, name: &str, spec: &ToolSpec) -> bool {
        self.admits_names(name, spec.rule_name.as_deref(), spec.flags.read_only)
    }

    fn admits_names(&self, name: &str, rule_name: Option<&str>, read_only: bool) -> bool {
        let hit = |p: &ToolPattern| p.matches(name) || rule_name.is_some_and(|r| p.matches(r));
        let allowed = self.allow.as_ref().is_none_or(|allow| allow.iter().any(hit));
        allowed
            && !self.deny.iter().any(hit)
            && (!self.read_only_only || read_only)
            && self.within.as_ref().is_none_or(|outer| outer.admits_names(name, rule_name, read_only))
    }
}

pub(super) struct Member<'a> {
    pub(super) entry: &'a Entry,
    pub(super) description: Option<&'a Described>,
}

impl<'a> From<&'a PoolMember> for Member<'a> {
    fn from(m: &'a PoolMember) -> Self {
        Member { entry: &m.entry, description: m.description.as_deref() }
    }
}

/// One tool of a pool, with its description for the turn if it differs from the spec.
pub(crate) struct PoolMember {
    pub(crate) entry: Arc<Entry>,
    description: Option<Arc<Described>>,
    state: Offer,
}

/// A description other than the spec's, with its renderings once made: a pool
/// made again from the same split (the search tool's, after a load) does not
/// render it again.
pub(crate) struct Described {
    text: String,
    rendered: [OnceLock<Result<String, SchemaError>>; Provider::COUNT],
}

impl Described {
    pub(crate) fn new(text: String) -> Arc<Described> {
        Arc::new(Described { text, rendered: Default::default() })
    }

    fn rendered(&self, entry: &Entry, provider: Provider) -> Result<&str, SchemaError> {
        self.rendered[provider.slot()]
            .get_or_init(|| entry.render(provider, &entry.spec().name, &self.text))
            .as_deref()
            .map_err(Clone::clone)
    }
}

/// How a pool offers a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Sent with every request.
    Eager,
    /// Deferred, and loaded by a search of the session.
    Loaded,
    /// Deferred and not loaded: found through the search.
    Deferred,
}

impl PoolMember {
    /// `entry` as offered in `turn`, or `None` if it is not enabled there.
    pub(crate) fn offered(entry: Arc<Entry>, turn: &TurnContext, state: Offer) -> Option<PoolMember> {
        let tool = entry.tool();
        if !tool.is_enabled(turn) {
            return None;
        }
        let spec = entry.spec();
        let description = match tool.description(turn) {
            Cow::Borrowed(d) if d == spec.description.as_ref() => None,
            other if other == spec.description.as_ref() => None,
            other => Some(Described::new(other.into_owned())),
        };
        Some(PoolMember { entry, description, state })
    }

    /// `hash` with this member in it: the entry (fixed for the registry generation,
    /// which the caller's hash holds) and a per-turn description if it has one.
    pub(crate) fn hashed(&self, hash: u64) -> u64 {
        let hash = mix(hash, Arc::as_ptr(&self.entry) as usize as u64);
        match &self.description {
            Some(description) => names::fnv1a_bytes(hash, description.text.as_bytes()),
            None => hash,
        }
    }

    pub(crate) fn description(&self) -> &str {
        self.description.as_ref().map_or(self.entry.spec().description.as_ref(), |d| d.text.as_str())
    }
}

/// The tools offered to the model in one turn. Build with [`Registry::pool`].
pub struct ToolPool {
    /// What is sent: eager tools, then the loaded ones in load order.
    members: Vec<PoolMember>,
    /// The session's split this pool was made from: its deferred tools are held
    /// back unless they are among `members` (all of them with native search).
    split: Option<Arc<Split>>,
    /// How many deferred tools are held back.
    held: usize,
    /// Loaded tools not enabled in this turn.
    switched_off: Vec<Arc<str>>,
    native: Option<NativeSearch>,
    session: Option<ToolSession>,
    /// The names of `members`.
    names: HashSet<Box<str>>,
    read_only_only: bool,
    /// The profile's name, for the refusal of a call outside it.
    profile: Cow<'static, str>,
    /// Why the profile denies what it denies with a reason, for that refusal.
    reasons: Vec<(ToolPattern, Cow<'static, str>)>,
    presentation: Presentation,
    fingerprint: u64,
    cache: PoolCache,
}

impl fmt::Debug for ToolPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ToolPool {
    /// The name of the profile it was made for.
    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// What a call to `name`, which this pool does not offer, is told: the profile
    /// and the tools it has, so the model can choose another.
    pub(crate) fn refusal(&self, name: &str) -> String {
        if let Some((_, reason)) = self.reasons.iter().find(|(pattern, _)| pattern.matches(name)) {
            return format!("{name}: this tool is not available to this agent: {reason}");
        }
        let offered: Vec<&str> = self.names().take(20).collect();
        let offered = if offered.is_empty() { "none".to_owned() } else { offered.join(", ") };
        format!(
            "{name}: this tool is not available to this agent (profile `{}`); the tools it has are: {offered}",
            self.profile
        )
    }

    /// The tool names, in the order they are offered.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|m| m.entry.spec().name.as_ref())
    }

    /// Whether the tool named `name` (its own name, not an alias) is offered
    /// (with Anthropic's native search, the deferred tools are: the server loads
    /// them, and calls to them are the model's to make).
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name) || self.native.is_some() && self.holds_back(name)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether no tool is offered.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether only read-only calls may run (plan mode).
    pub fn read_only_only(&self) -> bool {
        self.read_only_only
    }

    /// The deferred tools held back, in registry order (sent only with
    /// Anthropic's native search, marked `defer_loading`).
    pub fn deferred_names(&self) -> impl Iterator<Item = &str> {
        self.held_members().map(|m| m.entry.spec().name.as_ref())
    }

    /// How many tools are deferred and held back.
    pub fn deferred_len(&self) -> usize {
        self.held
    }

    fn held_members(&self) -> impl Iterator<Item = &PoolMember> {
        let deferred = self.split.as_ref().map_or(&[][..], |split| &split.deferred);
        deferred.iter().filter(|m| {
            let name = m.entry.spec().name.as_ref();
            self.native.is_some() || !self.names.contains(name) && !self.is_switched_off(name)
        })
    }

    /// How many of the sent tools are eager (the loaded ones follow them).
    fn eager_len(&self) -> usize {
        self.members.iter().take_while(|m| m.state == Offer::Eager).count()
    }

    /// Whether `name` may be called now: offered, or loaded by a search since the
    /// pool was made.
    pub fn callable(&self, name: &str) -> bool {
        self.contains(name) || (self.holds_back(name) && self.loaded_since(name))
    }

    /// Whether `name` is deferred here and must be found with the tool search
    /// before it is called.
    pub fn needs_search(&self, name: &str) -> bool {
        !self.contains(name) && self.holds_back(name) && !self.loaded_since(name)
    }

    fn holds_back(&self, name: &str) -> bool {
        self.split.as_ref().is_some_and(|split| split.defers(name)) && !self.is_switched_off(name)
    }

    fn is_switched_off(&self, name: &str) -> bool {
        self.switched_off.iter().any(|n| **n == *name)
    }

    fn loaded_since(&self, name: &str) -> bool {
        self.session.as_ref().is_some_and(|s| s.is_loaded(name))
    }

    /// Estimated tokens of the definitions sent for `provider` and of the deferred
    /// ones held back (see [`estimated_tokens`](crate::deferred::estimated_tokens)).
    pub fn token_report(&self, provider: Provider) -> Result<(usize, usize), SchemaError> {
        let sent = crate::deferred::estimated_tokens(self.definitions(provider)?.as_str());
        let mut held = 0;
        for m in self.held_members() {
            held += crate::deferred::estimated_tokens(m.entry.rendered(provider)?);
        }
        Ok((sent, held))
    }

    /// The pool's tool list for `provider`, with each tool's description for this
    /// turn and advertised aliases. Cached: the same pool (same tools, same
    /// descriptions) gets the same bytes without rendering again.
    pub fn definitions(&self, provider: Provider) -> Result<Definitions, SchemaError> {
        let key = (self.fingerprint, provider.slot());
        if let Some(done) = lock(&self.cache).get(&key) {
            return done.clone();
        }
        let members: Vec<Member<'_>> = self.members.iter().map(Member::from).collect();
        let result = match self.native {
            Some(search) if matches!(provider, Provider::Anthropic { .. }) => {
                let deferred: Vec<Member<'_>> = self.held_members().map(Member::from).collect();
                render_native(&members, &deferred, search, provider, self.presentation)
            }
            // The cache breakpoint stays on the last eager tool, where it was
            // before any load: the loaded ones follow it, and every byte sent
            // before stays as it was.
            _ => render_members(&members, self.eager_len(), provider, self.presentation),
        };
        let mut cache = lock(&self.cache);
        if cache.len() >= POOL_CACHE_MAX {
            cache.clear();
        }
        cache.insert(key, result.clone());
        result
    }
}

/// Anthropic's native tool search: the sent tools, then the deferred ones with
/// `defer_loading: true`, then the search tool. `cache_control` goes on the last
/// sent tool: the deferred ones are not part of the cached prefix.
fn render_native(
    members: &[Member<'_>],
    deferred: &[Member<'_>],
    search: crate::deferred::NativeSearch,
    provider: Provider,
    presentation: Presentation,
) -> Result<Definitions, SchemaError> {
    let sent = render_members(members, members.len(), provider, presentation)?;
    let mut parts: Vec<Cow<'_, str>> = Vec::new();
    let inner = sent.as_str().strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or_default();
    if !inner.is_empty() {
        parts.push(Cow::Borrowed(inner));
    }
    for m in deferred {
        let rendered = match m.description {
            None => m.entry.rendered(provider)?,
            Some(d) => d.rendered(m.entry, provider)?,
        };
        let open = rendered.strip_suffix('}').unwrap_or(rendered);
        parts.push(Cow::Owned(format!("{open},\"defer_loading\":true}}")));
    }
    parts.push(Cow::Borrowed(search.definition()));
    Ok(Definitions::from_parts(parts.iter().map(|p| p.as_ref()), "[", "]"))
}

/// Renders members (and their advertised aliases) and joins them into one list.
/// With Anthropic's `cache_control`, the breakpoint goes on the last part of the
/// first `cached` members.
pub(super) fn render_members(
    members: &[Member<'_>],
    cached: usize,
    provider: Provider,
    presentation: Presentation,
) -> Result<Definitions, SchemaError> {
    let mut parts: Vec<Cow<'_, str>> = Vec::with_capacity(members.len());
    let mut breakpoint = 0;
    for (i, m) in members.iter().enumerate() {
        let spec = m.entry.spec();
        let description = m.description.map_or(spec.description.as_ref(), |d| d.text.as_str());
        let claude_code = match presentation {
            Presentation::ClaudeCode => m.entry.render_claude_code(provider, description),
            Presentation::Own => None,
        };
        if let Some(rendered) = claude_code {
            // Under its Claude Code name only: its advertised aliases are names of ours.
            parts.push(Cow::Owned(rendered?));
            if i < cached.max(1) {
                breakpoint = parts.len();
            }
            continue;
        }
        parts.push(Cow::Borrowed(match m.description {
            None => m.entry.rendered(provider)?,
            Some(d) => d.rendered(m.entry, provider)?,
        }));
        for alias in spec.aliases.iter().filter(|a| a.advertised) {
            parts.push(Cow::Owned(m.entry.render(provider, &alias.name, description)?));
        }
        if i < cached.max(1) {
            breakpoint = parts.len();
        }
    }
    if let Provider::Anthropic { strict: true, .. } = provider {
        schema::anthropic_strict_budget(&mut parts);
    }
    if let (Provider::Anthropic { cache_control: true, .. }, Some(last)) =
        (provider, breakpoint.checked_sub(1).and_then(|at| parts.get_mut(at)))
    {
        *last = Cow::Owned(schema::with_cache_control(last));
    }
    let (open, close) = crate::provider::list_brackets(provider);
    Ok(Definitions::from_parts(parts.iter().map(|p| p.as_ref()), open, close))
}
