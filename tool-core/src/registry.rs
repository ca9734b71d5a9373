//! The registry: every tool linked into the binary, sorted, with names and aliases
//! checked for clashes, and each provider rendering computed once.

use crate::error::{DuplicateName, RegistryError, SchemaError};
use crate::schema::{self, Definitions, Dialect, Provider};
use crate::spec::{ToolSpec, is_portable_tool_name};
use crate::tool::{DynTool, Tool, TypedTool};
use serde_json::Value;
use std::collections::HashMap;
use std::collections::hash_map::Entry as MapEntry;
use std::fmt;
use std::sync::{Arc, OnceLock};

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
struct Entry {
    tool: Arc<dyn DynTool>,
    input_schema: OnceLock<Value>,
    lowered: [OnceLock<Result<Value, SchemaError>>; 3],
    output_schema: OnceLock<Result<Option<Value>, SchemaError>>,
    rendered: [OnceLock<Result<String, SchemaError>>; 8],
}

impl Entry {
    fn new(tool: Arc<dyn DynTool>) -> Self {
        Entry {
            tool,
            input_schema: OnceLock::new(),
            lowered: Default::default(),
            output_schema: OnceLock::new(),
            rendered: Default::default(),
        }
    }

    fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    fn lowered(&self, provider: Provider) -> Result<&Value, SchemaError> {
        let dialect: Dialect = provider.dialect();
        let slot = &self.lowered[dialect.index()];
        let raw = self.input_schema.get_or_init(|| self.tool.input_schema());
        slot.get_or_init(|| schema::lower_input(self.spec(), raw, dialect, provider))
            .as_ref()
            .map_err(|e| SchemaError { provider: provider.to_string(), ..e.clone() })
    }

    fn output(&self) -> Result<Option<&Value>, SchemaError> {
        let out = self.output_schema.get_or_init(|| match self.tool.output_schema() {
            Some(raw) => schema::lower_output(self.spec(), &raw).map(Some),
            None => Ok(None),
        });
        out.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    fn rendered(&self, provider: Provider) -> Result<&str, SchemaError> {
        let slot = &self.rendered[provider.slot()];
        slot.get_or_init(|| {
            let input = self.lowered(provider)?;
            let output = if provider == Provider::Mcp { self.output()? } else { None };
            schema::render_tool(self.spec(), input, output, provider, &self.spec().description)
        })
        .as_deref()
        .map_err(Clone::clone)
    }
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
    entries: Vec<Entry>,
    by_name: HashMap<Box<str>, usize>,
    lists: [OnceLock<Result<Definitions, SchemaError>>; 8],
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| &e.spec().name)).finish()
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

    /// The number of tools (aliases not counted).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tools, sorted by name.
    pub fn tools(&self) -> impl ExactSizeIterator<Item = &Arc<dyn DynTool>> {
        self.entries.iter().map(|e| &e.tool)
    }

    /// The tool names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|e| e.spec().name.as_ref())
    }

    /// The tool called `name`, by its name or one of its aliases.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn DynTool>> {
        self.by_name.get(name).map(|&i| &self.entries[i].tool)
    }

    /// Whether `name` is a tool name or alias.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The tool list for `provider`: the JSON to put at `tools` in its request.
    ///
    /// Rendered on first use and cached; later calls return the same bytes.
    pub fn definitions(&self, provider: Provider) -> Result<Definitions, SchemaError> {
        self.lists[provider.slot()]
            .get_or_init(|| {
                let parts = self.entries.iter().map(|e| e.rendered(provider)).collect::<Result<Vec<_>, _>>()?;
                let cached_last = match provider {
                    Provider::Anthropic { cache_control: true } => {
                        parts.last().map(|last| schema::with_cache_control(last))
                    }
                    _ => None,
                };
                let count = parts.len() - usize::from(cached_last.is_some());
                let all = parts[..count].iter().copied().chain(cached_last.as_deref());
                Ok(Definitions::from_parts(all, provider == Provider::Gemini))
            })
            .clone()
    }

    /// One tool's definition for `provider` (name or alias), as JSON text.
    pub fn definition(&self, name: &str, provider: Provider) -> Option<Result<&str, SchemaError>> {
        self.by_name.get(name).map(|&i| self.entries[i].rendered(provider))
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

    /// Adds a runtime tool. Its name and aliases must be portable
    /// ([`is_portable_tool_name`]).
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

        let mut by_name: HashMap<Box<str>, usize> = HashMap::with_capacity(tools.len());
        let mut duplicates = Vec::new();
        for (index, tool) in tools.iter().enumerate() {
            let spec = tool.spec();
            let names = std::iter::once((spec.name.as_ref(), None))
                .chain(spec.aliases.iter().map(|a| (a.as_ref(), Some(spec.name.as_ref()))));
            for (name, alias_of) in names {
                if !is_portable_tool_name(name) {
                    return Err(RegistryError::InvalidName { name: name.to_owned(), origin: spec.origin.to_string() });
                }
                match by_name.entry(name.into()) {
                    MapEntry::Vacant(slot) => {
                        slot.insert(index);
                    }
                    MapEntry::Occupied(slot) => {
                        let first = &tools[*slot.get()];
                        duplicates.push(DuplicateName {
                            name: name.to_owned(),
                            first: claimant(first.spec(), name),
                            second: claimant_as(spec, alias_of),
                        });
                    }
                }
            }
        }
        if !duplicates.is_empty() {
            return Err(RegistryError::DuplicateNames(duplicates));
        }
        Ok(Registry { entries: tools.into_iter().map(Entry::new).collect(), by_name, lists: Default::default() })
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
