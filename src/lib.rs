//! # toolwright
//!
//! A framework for the tools that LLM agents call. Annotate a struct, implement one
//! method, and the tool has a name, a description, a JSON schema for every provider,
//! capability flags, and a place in a registry assembled at link time.
//!
//! ```
//! use toolwright::prelude::*;
//!
//! /// Count the words in a text.
//! ///
//! /// Words are separated by whitespace.
//! #[tool(read_only, pure, concurrency_safe, idempotent)]
//! pub struct CountWords {
//!     /// The text to count.
//!     pub text: String,
//! }
//!
//! impl Tool for CountWords {
//!     type Output = String;
//!     async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
//!         Ok(self.text.split_whitespace().count().to_string())
//!     }
//! }
//!
//! let registry = toolwright::registry().unwrap();
//! let tool = registry.get("count_words").unwrap();
//! assert!(tool.spec().flags.read_only);
//! assert_eq!(tool.spec().description, "Count the words in a text.\n\nWords are separated by whitespace.");
//! let openai = registry.definitions(Provider::OpenAiChat { strict: true }).unwrap();
//! assert!(openai.as_str().contains(r#""name":"count_words""#));
//! ```
//!
//! ## `#[tool]`
//!
//! Put it on a struct with named fields (or a unit struct, for a tool without
//! parameters). The struct is the tool's input; its fields are the parameters.
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `name = "..."` | the name the model calls | the struct name in snake_case |
//! | `description = "..."` | what the model reads | the doc comment, paragraphs kept |
//! | `title = "..."` | a human title (MCP `title`) | none |
//! | `aliases = ["..", ..]` | further names routed to the same handler | none |
//! | `read_only` | changes nothing | off |
//! | `concurrency_safe` | may run in parallel with other safe calls | off |
//! | `destructive` | may make irreversible changes (not with `read_only`) | off |
//! | `idempotent` | repeating a call has no further effect | off |
//! | `open_world` | reaches outside systems (web, services) | off |
//! | `partial_input` | sees its input while it streams ([`partial::PartialInput`]) | off |
//! | `advertised_aliases = ["..", ..]` | further names the model is also shown, each as a tool of its own | none |
//! | `rule_name = "..."` | the name permission rules and hook matchers also know it by (Claude Code's `Read`, `Bash`) | none |
//! | `pure` | touches nothing outside the process: needs no permission | off |
//! | `defer` | always deferred: found through `tool_search`, not sent up front | sent up front |
//! | `timeout_secs = N` | how long one call may run | the executor's (5 minutes) |
//! | `max_output_bytes = N` | how much output reaches the model, in bytes | the executor's |
//! | `max_output_tokens = N` | the same, in estimated tokens (4 bytes each; not with `max_output_bytes`) | the executor's |
//! | `crate = path` | where toolwright is, if renamed | `::toolwright` |
//!
//! Every key, with an example, is in [`macro@tool`]'s own documentation.
//!
//! The defaults are conservative: a tool that does not say it is read-only and
//! concurrency-safe is treated as neither. Flags may also be decided per input by
//! overriding [`Tool::is_read_only`] and friends.
//!
//! **Derives.** `#[tool]` adds `#[derive(Deserialize, JsonSchema)]` itself (through
//! toolwright's own re-exports, so your crate needs neither serde nor schemars), and
//! `#[serde(deny_unknown_fields)]` unless a field is `#[serde(flatten)]`: a model that
//! invents a parameter gets an error naming it, not silence. If you derive either
//! yourself, `#[tool]` leaves that derive to you. Field types must implement both
//! traits; if one does not, the error points at the field. `serde` and `schemars`
//! attributes (`rename`, `rename_all`, `default`, `skip`, `flatten`, ...) work as usual.
//! A type used inside an input (a nested struct, an enum) takes [`macro@input`]: the same
//! derives through the same re-exports, so toolwright stays the only dependency.
//!
//! **Names** must match `^[A-Za-z_][A-Za-z0-9_-]{0,62}$` (63 characters at most: Gemini's limit), the one rule every provider
//! accepts. Mistakes (bad names, no description, contradictory flags, unknown or
//! repeated keys, tuple structs, enums, generics, missing `impl Tool`) are compile
//! errors on the offending span, all reported together.
//!
//! ## Output
//!
//! `type Output` is a `String`, a [`ToolOutput`] (content blocks), or [`Json<T>`]:
//! structured output whose schema becomes the tool's MCP `outputSchema`.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "builtin")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin")))]
#[doc(inline)]
pub use toolwright_builtin as builtin;
#[cfg(feature = "builtin")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin")))]
pub use toolwright_builtin::{DEFAULT_TOOL_NAMES, DefaultTool};
// The root: what most code names. The rest lives in one module each (below), and
// the paths earlier releases had at the root still resolve, hidden from the docs.
pub use toolwright_core::{
    __private, access, adapters, deferred, hooks, leftovers, mode, names, orchestrate, partial, permission, prelude,
    progress, provider, question, sandbox, schema, state_file, streaming, suggest, truncate, usage, validate,
};
#[doc(hidden)]
pub use toolwright_core::{
    AgentScope, Alias, BoxFuture, CallEvent, DEFAULT_GRACE, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, Definitions,
    DuplicateName, LazyTool, MAX_TOOL_NAME_LEN, Orchestrator, OverlayStats, PreparedCall, Presentation, Progress,
    ProgressEvent, ProgressReceiver, ProgressSink, Resolved, SessionInfo, StreamEvent, ToolDescriptor, ToolFactory,
    ToolInfo, ToolOrigin, ToolPattern, TurnEdit, UnknownProvider, UnknownTool, call_raw, call_typed,
    is_portable_tool_name, linked_tools, parse_input,
};
pub use toolwright_core::{
    CancellationToken, Content, ContextModifier, Defer, Deserialize, DynTool, ErrorKind, Executor, ExecutorBuilder,
    Extensions, Flags, InputError, IntoToolOutput, Json, JsonSchema, OutputLimit, Profile, Provider, Registry,
    RegistryBuilder, RegistryError, SchemaError, Tool, ToolCall, ToolContext, ToolError, ToolOutput, ToolPool,
    ToolResult, ToolSpec, TurnContext, input, tool,
};
/// MCP both ways, from [`toolwright_mcp`].
#[cfg(feature = "mcp-stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-stdio")))]
#[doc(inline)]
pub use toolwright_mcp as mcp;

/// Tools as objects: the erased tool the registry stores, its prepared calls, tools
/// built at run time, and calling a tool from its JSON input.
pub mod dynamic {
    pub use toolwright_core::{
        BoxFuture, LazyTool, PreparedCall, ToolFactory, ToolInfo, call_raw, call_typed, parse_input,
    };
}

/// What a tool's name and spec may be: the portable name rule, aliases, where a
/// tool came from.
pub mod spec {
    pub use toolwright_core::{Alias, DuplicateName, MAX_TOOL_NAME_LEN, ToolOrigin, is_portable_tool_name};
}

/// The tools offered for a turn: pools, patterns, descriptors, and what resolving a
/// called name found.
pub mod pool {
    pub use toolwright_core::{
        OverlayStats, Presentation, Resolved, ToolDescriptor, ToolPattern, UnknownTool, linked_tools,
    };
}

/// What a turn and a call know besides the working directory: the session, the
/// agent a call runs in, and edits a tool makes to the turn.
pub mod context {
    pub use toolwright_core::{AgentScope, Caller, SessionInfo, TurnEdit};
}

/// The executor's defaults: how long a call may run, how much output reaches the
/// model, and how long a cancelled call has to stop; and its spans' conventions.
pub mod pipeline {
    pub use toolwright_core::telemetry;
    pub use toolwright_core::{DEFAULT_GRACE, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT};
}
/// Permission rules compatible with Claude Code's settings: [`rules::RulePolicy`].
#[cfg(feature = "builtin")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin")))]
#[doc(inline)]
pub use toolwright_permissions as rules;

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
#[doc(inline)]
pub use toolwright_agent_runtime::agent;

#[cfg(feature = "subagents")]
#[cfg_attr(docsrs, doc(cfg(feature = "subagents")))]
#[doc(inline)]
pub use toolwright_agent_runtime::subagents;

#[cfg(feature = "subagents")]
#[cfg_attr(docsrs, doc(cfg(feature = "subagents")))]
#[doc(inline)]
pub use toolwright_agent_runtime::skills;

mod missing;
// Empty when every feature is on.
#[allow(deprecated, unused_imports)]
pub use missing::*;
#[cfg(feature = "builtin")]
mod workspace;
#[cfg(feature = "builtin")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin")))]
pub use workspace::WorkspaceSettings;

/// The README's examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The reference's examples (`docs/`), doctested like the README's.
#[cfg(doctest)]
mod reference_doctests {
    #[doc = include_str!("../docs/tools.md")]
    pub struct Tools;
    #[doc = include_str!("../docs/running.md")]
    pub struct Running;
    #[doc = include_str!("../docs/permissions.md")]
    pub struct Permissions;
    #[doc = include_str!("../docs/builtin-tools.md")]
    pub struct BuiltinTools;
    #[doc = include_str!("../docs/agents.md")]
    pub struct Agents;
    #[doc = include_str!("../docs/mcp.md")]
    pub struct Mcp;
    #[doc = include_str!("../docs/workflow-tools.md")]
    pub struct WorkflowTools;
}

/// Every tool linked into the binary, the built-ins always included.
///
/// See [`toolwright_builtin::registry`]. Without the `builtin` feature,
/// [`Registry::from_inventory`] is the registry of your own tools.
#[cfg(feature = "builtin")]
#[cfg_attr(docsrs, doc(cfg(feature = "builtin")))]
pub fn registry() -> Result<Registry, RegistryError> {
    toolwright_builtin::registry()
}
