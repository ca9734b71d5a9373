//! The typed [`Tool`] trait that users implement, and the object-safe [`DynTool`] that
//! the registry stores.

use crate::context::ToolContext;
use crate::error::{InputError, ToolError};
use crate::input::parse_input;
use crate::output::{IntoToolOutput, ToolOutput};
use crate::spec::{Flags, ToolSpec};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed, sendable future, as object-safe traits return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What `#[tool]` generates: the static spec of a tool struct.
///
/// Don't implement it by hand; put `#[tool]` on the struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "`{Self}` has no `#[tool]` attribute",
    note = "add `#[toolwright::tool]` above `struct {Self}`"
)]
pub trait ToolInfo: JsonSchema + DeserializeOwned {
    /// The tool's name, aliases, description, flags and source location.
    const SPEC: &'static ToolSpec;
}

/// A tool: its struct is the model's input, and `call` does the work.
///
/// `#[tool]` supplies the name, description, schema and flags; you write `call`.
///
/// ```
/// # extern crate toolwright_core as toolwright;
/// use toolwright_core::{tool, Tool, ToolContext, ToolError};
///
/// /// Add two numbers.
/// #[tool(read_only, concurrency_safe)]
/// pub struct Add {
///     /// The first number.
///     pub a: i64,
///     /// The second number.
///     pub b: i64,
/// }
///
/// impl Tool for Add {
///     type Output = String;
///     async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
///         Ok((self.a + self.b).to_string())
///     }
/// }
/// # let out = futures_lite_block_on(toolwright_core::call_typed(Add { a: 2, b: 3 }, &ToolContext::new(".")));
/// # assert_eq!(out.text_content(), "5");
/// # fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `#[tool]` but does not implement `toolwright::Tool`",
    label = "`{Self}` needs a `call` method",
    note = "implement it: `impl toolwright::Tool for {Self} {{ type Output = String; async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {{ .. }} }}`"
)]
pub trait Tool: ToolInfo + Send + 'static {
    /// What `call` returns on success: `String`, [`ToolOutput`], or
    /// [`Json<T>`](crate::Json) for structured output with a declared schema.
    type Output: IntoToolOutput;

    /// Runs the tool. The struct is the parsed input.
    fn call(self, cx: &ToolContext) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// The tool's own checks on the parsed input (a path inside the workspace, a
    /// non-empty pattern), run before permissions. The default accepts everything.
    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        let _ = cx;
        Ok(())
    }

    /// Whether this call changes nothing. Defaults to the `read_only` attribute.
    fn is_read_only(&self) -> bool {
        Self::SPEC.flags.read_only
    }

    /// Whether this call may run alongside other concurrency-safe calls. Defaults to
    /// the `concurrency_safe` attribute; a shell tool overrides it per command.
    fn is_concurrency_safe(&self) -> bool {
        Self::SPEC.flags.concurrency_safe
    }

    /// Whether this call may be irreversible. Defaults to the `destructive` attribute.
    fn is_destructive(&self) -> bool {
        Self::SPEC.flags.destructive
    }

    /// Whether repeating this call has no further effect. Defaults to `idempotent`.
    fn is_idempotent(&self) -> bool {
        Self::SPEC.flags.idempotent
    }

    /// Whether this call reaches the open world. Defaults to `open_world`.
    fn is_open_world(&self) -> bool {
        Self::SPEC.flags.open_world
    }
}

/// The flags of one call, from the `&self` methods of [`Tool`].
fn flags_of<T: Tool>(input: &T) -> Flags {
    Flags {
        read_only: input.is_read_only(),
        concurrency_safe: input.is_concurrency_safe(),
        destructive: input.is_destructive(),
        idempotent: input.is_idempotent(),
        open_world: input.is_open_world(),
    }
}

/// An object-safe tool: raw JSON in, [`ToolOutput`] out.
///
/// Every `#[tool]` struct gets one through the registry. Runtime tools (MCP,
/// config-defined, subagents) implement it directly.
pub trait DynTool: Send + Sync + 'static {
    /// Name, aliases, description, flags and origin.
    fn spec(&self) -> &ToolSpec;

    /// The input's JSON schema (draft 2020-12, before any provider lowering).
    fn input_schema(&self) -> Value;

    /// The structured output's schema, if the tool declares one.
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// Parses the raw input once. The result knows its per-input flags and runs the call.
    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError>;
}

/// A parsed call, ready to validate and run.
pub trait PreparedCall: Send {
    /// The flags for this input (a shell command that only reads is concurrency-safe).
    fn flags(&self) -> Flags;

    /// The tool's own checks on this input.
    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError>;

    /// Runs the call.
    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The [`DynTool`] of a `#[tool]` struct.
pub(crate) struct TypedTool<T>(PhantomData<fn() -> T>);

impl<T: Tool> TypedTool<T> {
    pub(crate) fn erased() -> Arc<dyn DynTool> {
        Arc::new(TypedTool::<T>(PhantomData))
    }
}

impl<T: Tool> DynTool for TypedTool<T> {
    fn spec(&self) -> &ToolSpec {
        T::SPEC
    }

    fn input_schema(&self) -> Value {
        crate::schema::input_schema_of::<T>()
    }

    fn output_schema(&self) -> Option<Value> {
        crate::schema::output_schema_of::<T::Output>()
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        Ok(Box::new(Prepared(parse_input::<T>(raw_input)?)))
    }
}

struct Prepared<T>(T);

impl<T: Tool> PreparedCall for Prepared<T> {
    fn flags(&self) -> Flags {
        flags_of(&self.0)
    }

    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        self.0.validate(cx)
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.0.call(cx).await.map(IntoToolOutput::into_output) })
    }
}

/// Runs a typed tool value directly (validate, then call), turning any error into an
/// error result. Handy in tests and for tools that call other tools.
pub async fn call_typed<T: Tool>(tool: T, cx: &ToolContext) -> ToolOutput {
    let outcome = match tool.validate(cx) {
        Ok(()) => tool.call(cx).await.map(IntoToolOutput::into_output),
        Err(e) => Err(e),
    };
    outcome.unwrap_or_else(|e| ToolOutput::error(e.to_string()))
}

/// Parses `raw_input` for `tool`, validates and runs it: the erased path in one call.
/// Every failure, including bad input, becomes an error result naming the tool.
pub async fn call_raw(tool: &dyn DynTool, raw_input: &[u8], cx: &ToolContext) -> ToolOutput {
    let name = &tool.spec().name;
    let prepared = match tool.prepare(raw_input) {
        Ok(p) => p,
        Err(e) => return ToolOutput::error(format!("{name}: invalid input: {e}")),
    };
    if let Err(e) = prepared.validate(cx) {
        return ToolOutput::error(format!("{name}: {e}"));
    }
    match prepared.call(cx).await {
        Ok(out) => out,
        Err(e) => ToolOutput::error(format!("{name}: {e}")),
    }
}
