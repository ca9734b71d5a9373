//! The typed [`Tool`] trait that users implement, and the object-safe [`DynTool`] that
//! the registry stores.

use crate::access::Accesses;
use crate::context::{ToolContext, TurnContext};
use crate::error::{InputError, ToolError};
use crate::output::{IntoToolOutput, ToolOutput};
use crate::spec::{Flags, ToolSpec};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

pub use crate::future::BoxFuture;

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

    /// Set by `#[tool(partial_input)]`: how the tool sees its input while it streams.
    const PARTIAL_INPUT: Option<crate::partial::PartialInputFn> = None;

    /// What the `#[access(..)]` field attributes and `#[tool(pure)]` declare this input
    /// touches; [`Accesses::undeclared`] when they declare nothing.
    fn declared_access(&self) -> Accesses {
        Accesses::undeclared()
    }

    /// Parses and checks a call's input. `#[tool]` overrides it for structs whose
    /// fields carry `#[schemars(..)]` constraints, to build them from the checked
    /// tree ([`Validator::parse_walked`](crate::validate::Validator::parse_walked));
    /// others parse the text once, which keeps their generated code small.
    #[doc(hidden)]
    fn parse_input(validator: &crate::validate::Validator, raw: &[u8]) -> Result<Self, InputError> {
        validator.parse::<Self>(raw)
    }
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

    /// Other names a model may give a top-level field, as `(alias, field)`: a call
    /// that gives the alias and not the field is read as if it gave the field (the
    /// built-ins take Claude Code's `file_path` for `path`). The schema shows only
    /// the field. Default: none.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[];

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

    /// What this call touches: the files, directories, command, URL or MCP tool that
    /// the permission policy decides on. Defaults to what the `#[access(..)]` field
    /// attributes and `#[tool(pure)]` declare; override it when what is touched is
    /// computed from the input (the shell tool analyses its command here).
    fn access(&self) -> Accesses {
        self.declared_access()
    }

    /// Whether the tool is offered in this turn at all (a tool that needs a git
    /// repository, or a configured key). Defaults to always.
    fn is_enabled(turn: &TurnContext) -> bool {
        let _ = turn;
        true
    }

    /// The description the model reads in this turn. Defaults to the doc comment;
    /// override it to describe context (Claude Code's agent tool lists the available
    /// subagents here).
    fn description(turn: &TurnContext) -> Cow<'static, str> {
        let _ = turn;
        Self::SPEC.description.clone()
    }

    /// A one-line human summary of this call (`read_file src/main.rs`) for CLIs, logs
    /// and UIs. `None` uses a default built from the name and input.
    fn summary(&self) -> Option<String> {
        None
    }

    /// The input as hooks see it, when the tool adds what it read for the call (see
    /// [`PreparedCall::hook_input`]). `None`: the input as sent.
    fn hook_input(&self, _cx: &ToolContext) -> Option<Value> {
        None
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

    /// Other names the input's fields are read under, as `(alias, field)`
    /// ([`Tool::FIELD_ALIASES`]). Defaults to none.
    fn field_aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// Parses the raw input once. The result knows its per-input flags and runs the call.
    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError>;

    /// Whether the tool is offered in this turn. Defaults to always.
    fn is_enabled(&self, turn: &TurnContext) -> bool {
        let _ = turn;
        true
    }

    /// The description for this turn. Defaults to the spec's.
    fn description(&self, turn: &TurnContext) -> Cow<'_, str> {
        let _ = turn;
        Cow::Borrowed(&self.spec().description)
    }

    /// How the tool sees its input while the model streams it, if it wants to
    /// (see [`crate::partial`]). Defaults to not at all.
    fn partial_input(&self) -> Option<crate::partial::PartialInputFn> {
        None
    }
}

/// A parsed call, ready to validate and run.
pub trait PreparedCall: Send {
    /// The flags for this input (a shell command that only reads is concurrency-safe).
    fn flags(&self) -> Flags;

    /// The tool's own checks on this input.
    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError>;

    /// A one-line human summary of the call, if the tool has its own.
    fn summary(&self) -> Option<String> {
        None
    }

    /// What the call touches (see [`crate::access`]). Defaults to undeclared: the
    /// policy decides by the tool's name and the mode.
    fn access(&self) -> Accesses {
        Accesses::undeclared()
    }

    /// The input as hooks see it, when the tool adds what it read for the call
    /// (Claude Code's ExitPlanMode shows hooks the `plan` it read from the plan file).
    /// Defaults to the input as sent.
    fn hook_input(&self, _cx: &ToolContext) -> Option<String> {
        None
    }

    /// Runs the call.
    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// The [`DynTool`] of a `#[tool]` struct, with its schema compiled for checking input
/// on the first call.
pub struct TypedTool<T> {
    validator: OnceLock<crate::validate::Validator>,
    tool: PhantomData<fn() -> T>,
}

impl<T: Tool> TypedTool<T> {
    #[doc(hidden)]
    pub fn erased() -> Arc<dyn DynTool> {
        Arc::new(TypedTool::<T> { validator: OnceLock::new(), tool: PhantomData })
    }
}

impl<T: Tool> DynTool for TypedTool<T> {
    fn spec(&self) -> &ToolSpec {
        T::SPEC
    }

    fn input_schema(&self) -> Value {
        crate::schema_of::input_schema_of::<T>()
    }

    fn output_schema(&self) -> Option<Value> {
        crate::schema_of::output_schema_of::<T::Output>()
    }

    fn field_aliases(&self) -> &'static [(&'static str, &'static str)] {
        T::FIELD_ALIASES
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        // Only the parse and the box are generic; every `#[tool]` compiles this body.
        let (validator, raw_input) =
            admitted(&self.validator, crate::schema_of::input_schema_of::<T>, T::FIELD_ALIASES, raw_input);
        match T::parse_input(validator, &raw_input) {
            Ok(input) => Ok(Box::new(Prepared(input))),
            Err(e) => Err(e),
        }
    }

    fn is_enabled(&self, turn: &TurnContext) -> bool {
        T::is_enabled(turn)
    }

    fn description(&self, turn: &TurnContext) -> Cow<'_, str> {
        T::description(turn)
    }

    fn partial_input(&self) -> Option<crate::partial::PartialInputFn> {
        T::PARTIAL_INPUT
    }
}

/// The validator in `cell` (compiled from `schema` on first use, so the schema the
/// model is shown is the one the input is held to) and the input as it will be
/// parsed: field aliases renamed, the nulls that mean "absent" dropped. Not generic
/// (a function pointer, not a closure): every `#[tool]` would otherwise compile it.
fn admitted<'v, 'r>(
    cell: &'v OnceLock<crate::validate::Validator>,
    schema: fn() -> Value,
    aliases: &[(&str, &str)],
    raw_input: &'r [u8],
) -> (&'v crate::validate::Validator, Cow<'r, [u8]>) {
    let validator = cell.get_or_init(|| crate::validate::Validator::new(&schema()));
    let raw_input = crate::input::with_field_aliases(raw_input, aliases);
    let raw_input = match validator.without_absent_nulls(&raw_input) {
        Cow::Owned(cleaned) => Cow::Owned(cleaned),
        Cow::Borrowed(_) => raw_input,
    };
    (validator, raw_input)
}

struct Prepared<T>(T);

impl<T: Tool> PreparedCall for Prepared<T> {
    fn flags(&self) -> Flags {
        flags_of(&self.0)
    }

    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        self.0.validate(cx)
    }

    fn summary(&self) -> Option<String> {
        self.0.summary()
    }

    fn hook_input(&self, cx: &ToolContext) -> Option<String> {
        // A path, not a closure: a closure here is one more function per tool.
        self.0.hook_input(cx).as_ref().map(Value::to_string)
    }

    fn access(&self) -> Accesses {
        self.0.access()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        // The tool's `call` runs at the first poll, inside the pipeline's guard:
        // code a tool runs before building its future (a plain `fn call` returning
        // one) is caught if it panics, and does not run for a call cancelled first.
        Box::pin(async move { self.0.call(cx).await.map(IntoToolOutput::into_output) })
    }
}

/// Builds a runtime tool.
pub type ToolFactory = Arc<dyn Fn() -> Result<Arc<dyn DynTool>, ToolError> + Send + Sync>;

/// A runtime tool whose handler is created on first use and then kept: its spec and
/// schema are known up front (so it can be listed), its handler may be costly (a
/// subagent, a connection). A failed creation is an error result and is retried on
/// the next call.
pub struct LazyTool {
    spec: ToolSpec,
    input_schema: Value,
    factory: ToolFactory,
    handler: OnceLock<Arc<dyn DynTool>>,
}

impl LazyTool {
    /// A lazy tool with this spec and input schema, created by `factory`.
    pub fn new(spec: ToolSpec, input_schema: Value, factory: ToolFactory) -> Self {
        LazyTool { spec, input_schema, factory, handler: OnceLock::new() }
    }

    /// Whether the handler has been created.
    pub fn is_created(&self) -> bool {
        self.handler.get().is_some()
    }

    fn handler(&self) -> Result<&Arc<dyn DynTool>, ToolError> {
        if let Some(h) = self.handler.get() {
            return Ok(h);
        }
        let made = (self.factory)()?;
        Ok(self.handler.get_or_init(|| made))
    }
}

impl fmt::Debug for LazyTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyTool").field("name", &self.spec.name).field("created", &self.is_created()).finish()
    }
}

impl DynTool for LazyTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        self.input_schema.clone()
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        match self.handler() {
            Ok(handler) => handler.prepare(raw_input),
            Err(e) => Ok(Box::new(FailedCreation(e.to_string()))),
        }
    }
}

/// The prepared call of a lazy tool whose creation failed: it fails when run.
struct FailedCreation(String);

impl PreparedCall for FailedCreation {
    fn flags(&self) -> Flags {
        Flags::NONE
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Err(ToolError::msg(format!("the tool could not be started: {}", self.0)))
    }

    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Err(ToolError::msg(format!("the tool could not be started: {}", self.0))) })
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
