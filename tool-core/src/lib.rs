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

pub mod access;
pub mod adapters;
mod call;
mod context;
pub mod deferred;
mod error;
mod extensions;
mod future;
pub mod hooks;
mod input;
pub mod leftovers;
#[doc(hidden)]
pub mod __internal {
    //! See `internal.rs`.
    pub use crate::internal::*;
}
mod internal;
pub mod names;
pub mod orchestrate;
mod output;
pub mod partial;
pub mod permission;
mod pipeline;
pub mod progress;
pub mod provider;
mod provider_id;
mod registry;
pub mod sandbox;
mod schedule;
pub mod schema;
mod spec;
#[cfg(unix)]
pub mod state_file;
mod stream_event;
pub mod streaming;
pub mod suggest;
mod summary;
mod tool;
pub mod truncate;
pub mod usage;
pub mod validate;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use call::{ErrorKind, ToolCall, ToolResult};
pub use context::{AgentScope, ContextModifier, Extensions, SessionInfo, ToolContext, TurnContext, TurnEdit};
pub use error::{DuplicateName, InputError, RegistryError, SchemaError, ToolError};
pub use input::parse_input;
pub use orchestrate::{CallEvent, Orchestrator};
pub use output::{Content, IntoToolOutput, Json, ToolOutput};
pub use pipeline::{DEFAULT_GRACE, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, Executor, ExecutorBuilder};
pub use progress::{Progress, ProgressEvent, ProgressReceiver, ProgressSink};
pub use registry::{
    OverlayStats, Presentation, Profile, Registry, RegistryBuilder, Resolved, ToolDescriptor, ToolPattern, ToolPool,
    UnknownTool, linked_tools,
};
pub use schema::{Definitions, Provider, UnknownProvider};
pub use spec::{Alias, Defer, Flags, MAX_TOOL_NAME_LEN, OutputLimit, ToolOrigin, ToolSpec, is_portable_tool_name};
pub use streaming::StreamEvent;
pub use tool::{BoxFuture, DynTool, LazyTool, PreparedCall, Tool, ToolFactory, ToolInfo, call_raw, call_typed};
pub use toolwright_macros::tool;

/// Derive macro re-exported so tool crates need no direct schemars dependency.
pub use schemars::JsonSchema;
/// Derive macro re-exported so tool crates need no direct serde dependency.
pub use serde::Deserialize;
pub use tokio_util::sync::CancellationToken;
pub use toolwright_macros::input;

/// What most code needs: `use toolwright::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Content, Definitions, DynTool, Executor, Flags, IntoToolOutput, Json, Progress, Provider, Registry, Tool,
        ToolCall, ToolContext, ToolError, ToolOutput, ToolResult, TurnContext, input, partial::PartialInput, tool,
    };
}
