//! The registry: the link-time table of `#[tool]`s, sorted and checked for clashes,
//! plus a dynamic overlay of runtime tools (MCP, config, subagents) with owners and a
//! lifecycle. Every provider rendering is computed once per tool.

use crate::names::{FnvBuild, McpNames, normalize_called_name};
use crate::schema::{self, Definitions, Provider};
use crate::suggest;
use crate::{DuplicateName, RegistryError, SchemaError};
use crate::{DynTool, Tool};
use crate::{ToolSpec, is_portable_tool_name};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use toolwright_contracts::__internal::TypedTool;
use toolwright_contracts::Dialect;

mod pool;
mod split;

use pool::{Member, render_members};
pub use pool::{Presentation, Profile, ToolPattern, ToolPool};
pub(crate) use split::Split;

/// What `#[tool]` submits to `inventory`: the static spec and a constructor.
///
/// It is const-constructible and `Sync`, as `inventory` requires.
pub struct ToolDescriptor {
    spec: &'static ToolSpec,
    make: fn() -> Arc<dyn DynTool>,
}

impl ToolDescriptor {
    /// The descriptor of a `#[tool]` struct.
    pub const fn of<T: Tool>() -> Self {
        ToolDescriptor { spec: T::SPEC, make: TypedTool::<T>::erased }
    }

    /// The tool's static spec.
    pub fn spec(&self) -> &'static ToolSpec {
        self.spec
    }

    /// A handler for the tool.
    pub fn instantiate(&self) -> Arc<dyn DynTool> {
        (self.make)()
    }
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor").field("name", &self.spec.name).field("origin", &self.spec.origin).finish()
    }
}

inventory::collect!(ToolDescriptor);

/// Every `#[tool]` linked into this binary, in unspecified order.
pub fn linked_tools() -> impl Iterator<Item = &'static ToolDescriptor> {
    inventory::iter::<ToolDescriptor>.into_iter()
}

/// One tool and its cached schemas and renderings.
pub(crate) struct Entry {
    tool: Arc<dyn DynTool>,
    /// The tool's name, shared with every call's context without copying.
    name: Arc<str>,
    owner: Option<Arc<str>>,
    input_schema: OnceLock<Value>,
    lowered: [OnceLock<Result<Value, SchemaError>>; Dialect::COUNT],
    output_schema: OnceLock<Result<Option<Value>, SchemaError>>,
    rendered: [OnceLock<Result<String, SchemaError>>; Provider::COUNT],
    /// The way back from the shapes strict dialects adapted; empty for most tools.
    plan: OnceLock<schema::adapt::Plan>,
}

impl Entry {
    fn new(tool: Arc<dyn DynTool>, owner: Option<Arc<str>>) -> Self {
        Entry {
            name: Arc::from(tool.spec().name.as_ref()),
            tool,
            owner,
            input_schema: OnceLock::new(),
            lowered: Default::default(),
            output_schema: OnceLock::new(),
            rendered: Default::default(),
            plan: OnceLock::new(),
        }
    }

    pub(crate) fn tool(&self) -> &Arc<dyn DynTool> {
        &self.tool
    }

    pub(crate) fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    fn lowered(&self, provider: Provider) -> Result<&Value, SchemaError> {
        let dialect: Dialect = provider.dialect();
        let raw = self.input_schema();
        self.lowered[dialect.index()]
            .get_or_init(|| schema::lower_input(self.spec(), raw, dialect, provider))
            .as_ref()
            .map_err(|e| SchemaError::new(e.tool.clone(), provider.to_string(), e.path.clone(), e.message.clone()))
    }

    /// The tool's input schema, asked of it once.
    pub(crate) fn input_schema(&self) -> &Value {
        self.input_schema.get_or_init(|| self.tool.input_schema())
    }

    /// What a call's input may need to come back to the plain shape.
    pub(crate) fn plan(&self) -> &schema::adapt::Plan {
        self.plan.get_or_init(|| schema::adapt::Plan::of(self.input_schema()))
    }

    fn output(&self) -> Result<Option<&Value>, SchemaError> {
        let out = self.output_schema.get_or_init(|| match self.tool.output_schema() {
            Some(raw) => schema::lower_output(self.spec(), &raw).map(Some),
            None => Ok(None),
        });
        out.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// The tool under `name` (its own or an advertised alias) with `description`.
    fn render(&self, provider: Provider, name: &str, description: &str) -> Result<String, SchemaError> {
        let input = self.lowered(provider)?;
        let output = if provider == Provider::Mcp { self.output()? } else { None };
        crate::provider::render_tool(self.spec(), name, description, input, output, provider)
    }

    /// The tool as Claude Code shows it, if it has a Claude Code name (its rule name,
    /// routed to it as an alias): under that name, its fields under the names
    /// [`field_aliases`](crate::DynTool::field_aliases) reads them by.
    fn render_claude_code(&self, provider: Provider, description: &str) -> Option<Result<String, SchemaError>> {
        let spec = self.spec();
        let name = spec.rule_name.as_deref().filter(|rule| spec.aliases.iter().any(|a| a.name == *rule))?;
        let renames = self.tool.field_aliases();
        Some(self.lowered(provider).and_then(|input| {
            let mut input = input.clone();
            for (alias, field) in renames {
                rename_field(&mut input, field, alias);
            }
            let output = if provider == Provider::Mcp { self.output()? } else { None };
            crate::provider::render_tool(spec, name, description, &input, output, provider)
        }))
    }

    /// The tool's own name and description, cached.
    fn rendered(&self, provider: Provider) -> Result<&str, SchemaError> {
        self.rendered[provider.slot()]
            .get_or_init(|| self.render(provider, &self.spec().name, &self.spec().description))
            .as_deref()
            .map_err(Clone::clone)
    }
}

/// Renames the top-level property `from` of an input schema to `to`, keeping its
/// place among the properties and in `required`.
fn rename_field(schema: &mut Value, from: &str, to: &str) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties")
        && properties.contains_key(from)
        && !properties.contains_key(to)
    {
        let renamed: serde_json::Map<String, Value> = std::mem::take(properties)
            .into_iter()
            .map(|(key, value)| if key == from { (to.to_owned(), value) } else { (key, value) })
            .collect();
        *properties = renamed;
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        for name in required.iter_mut().filter(|name| name.as_str() == Some(from)) {
            *name = Value::from(to);
        }
    }
}

/// A resolved tool: the handler, and the name as the model called it.
pub struct Resolved<'a> {
    entry: EntryRef<'a>,
    invoked: &'a str,
}

enum EntryRef<'a> {
    Static(&'a Entry),
    Dynamic(Arc<Entry>),
}

impl Deref for EntryRef<'_> {
    type Target = Entry;
    fn deref(&self) -> &Entry {
        match self {
            EntryRef::Static(e) => e,
            EntryRef::Dynamic(e) => e,
        }
    }
}

impl Resolved<'_> {
    pub(crate) fn plan(&self) -> &schema::adapt::Plan {
        self.entry.plan()
    }

    /// The handler.
    pub fn tool(&self) -> &Arc<dyn DynTool> {
        self.entry.tool()
    }

    /// The tool's own name.
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    pub(crate) fn shared_name(&self) -> Arc<str> {
        Arc::clone(&self.entry.name)
    }

    /// The name the model used, after removing whitespace and known prefixes; may be
    /// an alias.
    pub fn invoked_name(&self) -> &str {
        self.invoked
    }

    /// The owner of a runtime tool (an MCP server, a subagent).
    pub fn owner(&self) -> Option<&str> {
        self.entry.owner.as_deref()
    }
}

/// A name that no tool has. Its message suggests up to three close names and never
/// lists the whole catalogue.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool `{called}`{}", suggestion_text(.suggestions))]
pub struct UnknownTool {
    /// The name as the model sent it.
    pub called: String,
    /// Up to three close tool names.
    pub suggestions: Vec<String>,
}

fn suggestion_text(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean `{one}`?"),
        many => {
            let quoted: Vec<String> = many.iter().map(|s| format!("`{s}`")).collect();
            let (last, rest) = quoted.split_last().expect("at least two");
            format!("; did you mean {} or {last}?", rest.join(", "))
        }
    }
}

/// Runtime tools: by name (sorted, for deterministic pools), by name or alias, by owner.
#[derive(Default)]
struct Overlay {
    generation: u64,
    tools: BTreeMap<Box<str>, Arc<Entry>>,
    routes: HashMap<Box<str>, Arc<Entry>, FnvBuild>,
    owners: HashMap<Arc<str>, Vec<Box<str>>>,
    mcp: McpNames,
    /// What the search knows beyond the tools (server summaries, extra words).
    hints: crate::deferred::SearchHints,
}

/// Counts of what the dynamic overlay holds (for monitoring and leak tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlayStats {
    /// Runtime tools registered.
    pub tools: usize,
    /// Names and aliases routed to them.
    pub routes: usize,
    /// Owners with at least one tool.
    pub owners: usize,
    /// MCP names reserved.
    pub mcp_names: usize,
}

#[derive(Default)]
struct ListCache {
    generation: u64,
    slots: [Option<Result<Definitions, SchemaError>>; Provider::COUNT],
}

/// Renderings of pools, by (pool fingerprint, provider slot). Bounded.
type PoolCache = Arc<Mutex<HashMap<(u64, usize), Result<Definitions, SchemaError>>>>;
const POOL_CACHE_MAX: usize = 256;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere never leaves these caches inconsistent: each write is whole.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every tool, sorted by name, with aliases routed to the same handler.
///
/// ```
/// use toolwright_core::{Registry, Provider};
/// let registry = Registry::builder().build().unwrap();
/// assert!(registry.is_empty());
/// assert_eq!(registry.definitions(Provider::ANTHROPIC).unwrap().as_str(), "[]");
/// ```
pub struct Registry {
    /// Unique in the process: what a session's split of it is keyed by.
    id: u64,
    statics: Vec<Arc<Entry>>,
    static_routes: HashMap<Box<str>, usize, FnvBuild>,
    overlay: RwLock<Overlay>,
    lists: Mutex<ListCache>,
    pools: PoolCache,
    /// The overlay's generation, for whoever waits on changes (an MCP server's
    /// `notifications/tools/list_changed`).
    changes: tokio::sync::watch::Sender<u64>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Registry {
    /// A registry of every `#[tool]` linked into the binary.
    ///
    /// Fails if two tools (or a tool and an alias) share a name; the error names both
    /// source locations.
    pub fn from_inventory() -> Result<Registry, RegistryError> {
        Registry::builder().with_inventory().build()
    }

    /// A builder, for registering tools explicitly (where `inventory` does not work,
    /// such as some wasm or static-library links) or adding runtime tools.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    fn read_overlay(&self) -> std::sync::RwLockReadGuard<'_, Overlay> {
        self.overlay.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_overlay(&self) -> std::sync::RwLockWriteGuard<'_, Overlay> {
        self.overlay.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The number of tools, static and runtime (aliases not counted).
    pub fn len(&self) -> usize {
        self.statics.len() + self.read_overlay().tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tools: the link-time ones sorted by name, then the runtime ones sorted.
    pub fn tools(&self) -> Vec<Arc<dyn DynTool>> {
        let overlay = self.read_overlay();
        self.statics
            .iter()
            .map(|e| Arc::clone(&e.tool))
            .chain(overlay.tools.values().map(|e| Arc::clone(&e.tool)))
            .collect()
    }

    /// The tool names in the same order as [`tools`](Self::tools).
    pub fn names(&self) -> Vec<String> {
        let overlay = self.read_overlay();
        self.statics
            .iter()
            .map(|e| e.spec().name.to_string())
            .chain(overlay.tools.keys().map(|k| k.to_string()))
            .collect()
    }

    /// The tool called `name` (a name or alias, exactly).
    pub fn get(&self, name: &str) -> Option<Arc<dyn DynTool>> {
        self.lookup(name).map(|e| Arc::clone(e.tool()))
    }

    /// Whether `name` is a tool name or alias.
    pub fn contains(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    fn lookup(&self, name: &str) -> Option<EntryRef<'_>> {
        if let Some(&i) = self.static_routes.get(name) {
            return Some(EntryRef::Static(&self.statics[i]));
        }
        self.read_overlay().routes.get(name).map(|e| EntryRef::Dynamic(Arc::clone(e)))
    }

    /// Routes a name as a model sent it: surrounding whitespace and known prefixes
    /// (`functions.`, `default_api.`) removed, then the link-time table, then the
    /// runtime overlay (MCP names included, by exact match through the table).
    pub fn resolve<'a>(&'a self, called: &'a str) -> Result<Resolved<'a>, UnknownTool> {
        // Almost every call names a tool exactly; normalise only when that misses.
        if let Some(entry) = self.lookup(called) {
            return Ok(Resolved { entry, invoked: called });
        }
        let name = normalize_called_name(called);
        match self.lookup(name) {
            Some(entry) => Ok(Resolved { entry, invoked: name }),
            None => Err(self.unknown(called)),
        }
    }

    fn unknown(&self, called: &str) -> UnknownTool {
        let overlay = self.read_overlay();
        let names = self.static_routes.keys().chain(overlay.routes.keys()).map(|k| k.as_ref());
        let mut all: Vec<&str> = names.collect();
        all.sort_unstable();
        let suggestions =
            suggest::closest(normalize_called_name(called), all, 3).into_iter().map(str::to_owned).collect();
        UnknownTool { called: called.to_owned(), suggestions }
    }

    /// A counter that changes whenever runtime tools are added or removed.
    pub fn generation(&self) -> u64 {
        self.read_overlay().generation
    }

    /// A receiver that wakes when runtime tools are added or removed; its value is
    /// the new [`generation`](Self::generation). Changes made close together may
    /// wake it once.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Adds what the search should know beyond the tools themselves: server
    /// summaries and extra search text ([`SearchHints`](crate::deferred::SearchHints));
    /// sessions see them from their next split. A change bumps the
    /// [`generation`](Self::generation); the same hints again change nothing.
    pub fn add_search_hints(&self, hints: crate::deferred::SearchHints) {
        let mut overlay = self.write_overlay();
        let mut merged = overlay.hints.clone();
        merged.merge(hints);
        if merged != overlay.hints {
            overlay.hints = merged;
            self.changed(&mut overlay);
        }
    }

    /// The search hints added so far.
    pub fn search_hints(&self) -> crate::deferred::SearchHints {
        self.read_overlay().hints.clone()
    }

    fn changed(&self, overlay: &mut Overlay) {
        overlay.generation += 1;
        self.changes.send_replace(overlay.generation);
    }

    /// Adds a runtime tool, with the same name rules as `#[tool]`. A name that is
    /// taken (by a link-time tool, an alias or another runtime tool) is an error that
    /// names both claimants.
    pub fn register(&self, tool: Arc<dyn DynTool>) -> Result<(), RegistryError> {
        self.insert(tool, None)
    }

    /// Adds a runtime tool that belongs to `owner` (an MCP server, a subagent), so
    /// that [`clear_owner`](Self::clear_owner) removes it with its siblings.
    pub fn register_owned(&self, owner: &str, tool: Arc<dyn DynTool>) -> Result<(), RegistryError> {
        self.insert(tool, Some(Arc::from(owner)))
    }

    fn insert(&self, tool: Arc<dyn DynTool>, owner: Option<Arc<str>>) -> Result<(), RegistryError> {
        let mut overlay = self.write_overlay();
        self.check_new_names(&overlay, tool.spec())?;
        let entry = Arc::new(Entry::new(tool, owner.clone()));
        let spec = entry.spec();
        let name: Box<str> = spec.name.as_ref().into();
        for alias in spec.aliases.iter() {
            overlay.routes.insert(alias.name.as_ref().into(), Arc::clone(&entry));
        }
        overlay.routes.insert(name.clone(), Arc::clone(&entry));
        if let Some(owner) = owner {
            overlay.owners.entry(owner).or_default().push(name.clone());
        }
        overlay.tools.insert(name, entry);
        self.changed(&mut overlay);
        Ok(())
    }

    fn check_new_names(&self, overlay: &Overlay, spec: &ToolSpec) -> Result<(), RegistryError> {
        let names = std::iter::once((spec.name.as_ref(), None))
            .chain(spec.aliases.iter().map(|a| (a.name.as_ref(), Some(spec.name.as_ref()))));
        let mut duplicates = Vec::new();
        let mut seen = HashSet::new();
        for (name, alias_of) in names {
            if !is_portable_tool_name(name) {
                return Err(RegistryError::InvalidName { name: name.to_owned(), origin: spec.origin.to_string() });
            }
            let existing = match self.static_routes.get(name) {
                Some(&i) => Some(self.statics[i].spec()),
                None => overlay.routes.get(name).map(|e| e.spec()),
            };
            let first = match existing {
                Some(spec) => claimant(spec, name),
                None if !seen.insert(name) => claimant(spec, name),
                None => continue,
            };
            duplicates.push(DuplicateName { name: name.to_owned(), first, second: claimant_as(spec, alias_of) });
        }
        if duplicates.is_empty() { Ok(()) } else { Err(RegistryError::DuplicateNames(duplicates)) }
    }

    /// Removes a runtime tool by name; `false` if there was none. Link-time tools
    /// cannot be removed (filter them out of a pool instead).
    pub fn unregister(&self, name: &str) -> bool {
        let mut overlay = self.write_overlay();
        let removed = Self::remove_locked(&mut overlay, name);
        if removed {
            self.changed(&mut overlay);
        }
        removed
    }

    fn remove_locked(overlay: &mut Overlay, name: &str) -> bool {
        let Some(entry) = overlay.tools.remove(name) else { return false };
        let spec = entry.spec();
        overlay.routes.remove(name);
        for alias in spec.aliases.iter() {
            overlay.routes.remove(alias.name.as_ref());
        }
        if let Some(owner) = &entry.owner
            && let Some(names) = overlay.owners.get_mut(owner)
        {
            names.retain(|n| n.as_ref() != name);
            if names.is_empty() {
                overlay.owners.remove(owner);
            }
        }
        overlay.mcp.release(name);
        true
    }

    /// Removes every runtime tool of `owner`; returns how many there were.
    pub fn clear_owner(&self, owner: &str) -> usize {
        let mut overlay = self.write_overlay();
        let names = overlay.owners.remove(owner).unwrap_or_default();
        for name in &names {
            Self::remove_locked(&mut overlay, name);
        }
        if !names.is_empty() {
            self.changed(&mut overlay);
        }
        names.len()
    }

    /// Mounts a tool of MCP server `server` under a provider-safe name
    /// `mcp__<server>__<tool>` (see [`McpNames`]); `make` builds the tool with that
    /// name. The server owns the tool. Returns the name.
    pub fn register_mcp(
        &self,
        server: &str,
        tool: &str,
        make: impl FnOnce(String) -> Arc<dyn DynTool>,
    ) -> Result<String, RegistryError> {
        let name = self.write_overlay().mcp.qualify(server, tool);
        let built = make(name.clone());
        if built.spec().name != name {
            self.write_overlay().mcp.release(&name);
            return Err(RegistryError::InvalidName {
                name: built.spec().name.to_string(),
                origin: format!("MCP tool `{tool}` of server `{server}` must be registered as `{name}`"),
            });
        }
        self.insert(built, Some(Arc::from(server))).inspect_err(|_| {
            self.write_overlay().mcp.release(&name);
        })?;
        Ok(name)
    }

    /// The (server, tool) an MCP tool name stands for, from the reverse table.
    pub fn mcp_original(&self, qualified: &str) -> Option<(String, String)> {
        self.read_overlay().mcp.original(qualified).map(|(s, t)| (s.to_owned(), t.to_owned()))
    }

    /// What the runtime overlay holds.
    pub fn overlay_stats(&self) -> OverlayStats {
        let o = self.read_overlay();
        OverlayStats { tools: o.tools.len(), routes: o.routes.len(), owners: o.owners.len(), mcp_names: o.mcp.len() }
    }

    /// The tool list for `provider`, every tool with its own description: the JSON
    /// to put at `tools` in the provider's request.
    ///
    /// Rendered on first use and cached; later calls return the same bytes until
    /// runtime tools change.
    pub fn definitions(&self, provider: Provider) -> Result<Definitions, SchemaError> {
        let generation = self.generation();
        let mut cache = lock(&self.lists);
        if cache.generation != generation {
            *cache = ListCache { generation, ..ListCache::default() };
        }
        if let Some(done) = &cache.slots[provider.slot()] {
            return done.clone();
        }
        let overlay = self.read_overlay();
        let members: Vec<Member<'_>> = self
            .statics
            .iter()
            .chain(overlay.tools.values())
            .map(|entry| Member { entry, description: None })
            .collect();
        let result = render_members(&members, members.len(), provider, Presentation::Own);
        cache.slots[provider.slot()] = Some(result.clone());
        result
    }

    /// One tool's definition for `provider` (name or alias), as JSON text.
    pub fn definition(&self, name: &str, provider: Provider) -> Option<Result<String, SchemaError>> {
        self.lookup(name).map(|e| e.rendered(provider).map(str::to_owned))
    }
}

/// Collects tools for a [`Registry`].
#[derive(Default)]
pub struct RegistryBuilder {
    tools: Vec<Arc<dyn DynTool>>,
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tools.iter().map(|t| &t.spec().name)).finish()
    }
}

impl RegistryBuilder {
    /// Adds every `#[tool]` linked into the binary.
    pub fn with_inventory(mut self) -> Self {
        self.tools.extend(linked_tools().map(ToolDescriptor::instantiate));
        self
    }

    /// Adds one `#[tool]` struct. Adding a tool that inventory also found is harmless.
    pub fn register<T: Tool>(mut self) -> Self {
        self.tools.push(TypedTool::<T>::erased());
        self
    }

    /// Adds a tool to the link-time table (it cannot be unregistered; use
    /// [`Registry::register`] for tools with a lifecycle). Its name and aliases must be
    /// portable ([`is_portable_tool_name`]).
    pub fn register_dyn(mut self, tool: Arc<dyn DynTool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Builds the registry: sorts by name, checks names, and reports every clash.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut tools = self.tools;
        // By name, then origin: inventory's order is unspecified, and clashes must be
        // reported the same way on every build.
        tools.sort_by(|a, b| a.spec().name.cmp(&b.spec().name).then_with(|| a.spec().origin.cmp(&b.spec().origin)));
        // The same static spec registered twice (inventory and `register`) is one tool.
        tools.dedup_by(|a, b| std::ptr::eq(a.spec(), b.spec()));

        let mut routes: HashMap<Box<str>, usize, FnvBuild> =
            HashMap::with_capacity_and_hasher(tools.len(), FnvBuild::default());
        let mut duplicates = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let spec = tool.spec();
            let names = std::iter::once((spec.name.as_ref(), None))
                .chain(spec.aliases.iter().map(|a| (a.name.as_ref(), Some(spec.name.as_ref()))));
            for (name, alias_of) in names {
                if !is_portable_tool_name(name) {
                    return Err(RegistryError::InvalidName { name: name.to_owned(), origin: spec.origin.to_string() });
                }
                match routes.entry(name.into()) {
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(index);
                    }
                    std::collections::hash_map::Entry::Occupied(slot) => {
                        duplicates.push(DuplicateName {
                            name: name.to_owned(),
                            first: claimant(tools[*slot.get()].spec(), name),
                            second: claimant_as(spec, alias_of),
                        });
                    }
                }
            }
        }
        if !duplicates.is_empty() {
            return Err(RegistryError::DuplicateNames(duplicates));
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        Ok(Registry {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            statics: tools.into_iter().map(|t| Arc::new(Entry::new(t, None))).collect(),
            static_routes: routes,
            overlay: RwLock::default(),
            lists: Mutex::default(),
            pools: PoolCache::default(),
            changes: tokio::sync::watch::Sender::new(0),
        })
    }
}

fn claimant(spec: &ToolSpec, name: &str) -> String {
    let alias_of = (spec.name != name).then_some(spec.name.as_ref());
    claimant_as(spec, alias_of)
}

fn claimant_as(spec: &ToolSpec, alias_of: Option<&str>) -> String {
    match alias_of {
        Some(owner) => format!("an alias of tool `{owner}` at {}", spec.origin),
        None => format!("tool `{}` at {}", spec.name, spec.origin),
    }
}
