//! toolwright's contracts: what a tool is and what a call carries, with nothing of
//! the runtime. The [`Tool`] trait and its erased form [`DynTool`], the
//! [`ToolSpec`] and [`Flags`], calls and results, outputs, the contexts a call runs
//! with, errors, the access facts a permission policy decides on, the provider
//! identifier, input schemas and their validation, and the traits a policy, an
//! approver and a hook implement.
//!
//! Like `tower-service` or `axum-core`, this is the small crate the others build
//! on: `toolwright-providers` (schema lowering and wire formats), `toolwright-core`
//! (the registry and the pipeline), `toolwright-mcp`. Tool authors use the
//! `toolwright` facade, which re-exports all of it.
//!
//! ```
//! use toolwright_contracts::{Flags, ToolOutput, ToolSpec};
//!
//! let output = ToolOutput::text("3 words");
//! assert!(!output.is_error);
//! let flags = Flags { read_only: true, concurrency_safe: true, ..Flags::default() };
//! assert!(flags.read_only);
//! # let _ = std::mem::size_of::<ToolSpec>();
//! ```

pub mod access;
mod call;
mod context;
mod dialect;
mod error;
mod extensions;
mod future;
pub mod hooks;
mod input;
pub mod mode;
pub mod names;
mod output;
pub mod partial;
pub mod permission;
pub mod progress;
mod provider_id;
pub mod question;
pub mod sandbox;
mod schema_of;
mod spec;
mod stream_event;
pub mod suggest;
mod summary;
mod tool;
pub mod usage;
pub mod validate;

pub use call::{ErrorKind, ToolCall, ToolResult};
pub use context::{AgentScope, Caller, ContextModifier, Extensions, SessionInfo, ToolContext, TurnContext, TurnEdit};
pub use dialect::Dialect;
pub use error::{DuplicateName, InputError, RegistryError, SchemaError, ToolError};
pub use future::BoxFuture;
pub use input::parse_input;
pub use output::{Content, IntoToolOutput, Json, ToolOutput};
pub use progress::{Progress, ProgressEvent, ProgressReceiver, ProgressSink};
pub use provider_id::{Provider, UnknownProvider};
pub use spec::{Alias, Defer, Flags, MAX_TOOL_NAME_LEN, OutputLimit, ToolOrigin, ToolSpec, is_portable_tool_name};
pub use stream_event::StreamEvent;
pub use tokio_util::sync::CancellationToken;
pub use tool::{DynTool, LazyTool, PreparedCall, Tool, ToolFactory, ToolInfo, call_raw, call_typed};

/// What toolwright's own crates above this one use of its internals. Not a stable
/// API: it changes with them.
#[doc(hidden)]
pub mod __internal {
    pub use crate::input::{strip_position, syntax as syntax_error, with_field_aliases};
    pub use crate::schema_of::{empty_object_schema, input_schema_of, output_schema_of};
    pub use crate::summary::default_summary;
    pub use crate::tool::TypedTool;
    pub use crate::validate::format::integer_range;
}
