//! toolwright's core: the [`Tool`] trait, the link-time [`Registry`], schemas for every
//! provider, and input parsing.
//!
//! Most users depend on the `toolwright` facade crate, which re-exports all of this
//! with a prelude. A tool is a struct with `#[tool]` and an `impl Tool`:
//!
//! ```
//! # extern crate toolwright_core as toolwright;
//! use toolwright_core::{tool, Provider, Registry, Tool, ToolContext, ToolError};
//!
//! /// Say hello to someone.
//! #[tool(read_only, concurrency_safe)]
//! pub struct Greet {
//!     /// Who to greet.
//!     pub name: String,
//! }
//!
//! impl Tool for Greet {
//!     type Output = String;
//!     async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
//!         Ok(format!("Hello, {}!", self.name))
//!     }
//! }
//!
//! let registry = Registry::from_inventory().unwrap();
//! let tools = registry.definitions(Provider::ANTHROPIC).unwrap();
//! assert_eq!(
//!     tools.as_str(),
//!     r#"[{"name":"greet","description":"Say hello to someone.","input_schema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"],"additionalProperties":false}}]"#
//! );
//! ```
//!
//! The generated code refers to `::toolwright::__private`; inside a crate that depends
//! on `toolwright_core` directly, write `extern crate toolwright_core as toolwright;` at
//! the crate root, or use `#[tool(crate = toolwright_core)]`.

// The layers below, at the paths they always had here.
pub use toolwright_contracts::{
    access, hooks, mode, names, partial, permission, progress, question, sandbox, suggest, usage, validate,
};
pub use toolwright_providers::{provider, schema};

pub mod adapters;
pub mod deferred;
pub mod leftovers;
#[doc(hidden)]
pub mod __internal {
    //! See `internal.rs`.
    pub use crate::internal::*;
}
mod internal;
pub mod orchestrate;
mod pipeline;
mod registry;
mod schedule;
#[cfg(unix)]
pub mod state_file;
pub mod streaming;
#[cfg(feature = "tls")]
pub mod tls;
pub mod truncate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use orchestrate::{CallEvent, Orchestrator};
/// The spans' names and keys: the OpenTelemetry GenAI conventions.
pub use pipeline::telemetry;
pub use pipeline::{DEFAULT_GRACE, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, Executor, ExecutorBuilder};
pub use registry::{
    OverlayStats, Presentation, Profile, Registry, RegistryBuilder, Resolved, ToolDescriptor, ToolPattern, ToolPool,
    UnknownTool, linked_tools,
};
pub use schema::Definitions;
pub use toolwright_contracts::{
    AgentScope, Alias, BoxFuture, Caller, Content, ContextModifier, Defer, DuplicateName, DynTool, ErrorKind,
    Extensions, Flags, InputError, IntoToolOutput, Json, LazyTool, MAX_TOOL_NAME_LEN, OutputLimit, PreparedCall,
    Progress, ProgressEvent, ProgressReceiver, ProgressSink, Provider, RegistryError, SchemaError, SessionInfo,
    StreamEvent, Tool, ToolCall, ToolContext, ToolError, ToolFactory, ToolInfo, ToolOrigin, ToolOutput, ToolResult,
    ToolSpec, TurnContext, TurnEdit, UnknownProvider, call_raw, call_typed, is_portable_tool_name, parse_input,
};
pub use toolwright_macros::tool;

/// Derive macro re-exported so tool crates need no direct schemars dependency.
pub use schemars::JsonSchema;
/// Derive macro re-exported so tool crates need no direct serde dependency.
pub use serde::Deserialize;
pub use toolwright_contracts::CancellationToken;
pub use toolwright_macros::input;

/// What most code needs: `use toolwright::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Content, Definitions, DynTool, Executor, Flags, IntoToolOutput, Json, Progress, Provider, Registry, Tool,
        ToolCall, ToolContext, ToolError, ToolOutput, ToolResult, TurnContext, input, partial::PartialInput, tool,
    };
}
