//! In-process hooks around a call. Command hooks (Claude Code settings) implement the
//! same traits.

use crate::output::ToolOutput;
use crate::tool::BoxFuture;
use serde_json::Value;
use std::path::Path;

/// What a hook sees of a call.
#[derive(Debug, Clone, Copy)]
pub struct HookCall<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// The provider's call id.
    pub call_id: &'a str,
    /// The arguments as JSON text (after earlier hooks' rewrites).
    pub input: &'a str,
    /// The working directory.
    pub cwd: &'a Path,
}

/// What a pre-tool hook decided. The default continues unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolOutcome {
    /// Block the call; the reason is shown to the model.
    pub deny: Option<String>,
    /// Replace the arguments; the new input is parsed, validated and checked by the
    /// permission policy again.
    pub updated_input: Option<Value>,
    /// Text added to the result for the model.
    pub additional_context: Option<String>,
}

/// What a post-tool hook decided. The default leaves the output as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostToolOutcome {
    /// Replace the output.
    pub updated_output: Option<ToolOutput>,
    /// Text added to the result for the model.
    pub additional_context: Option<String>,
}

/// Runs before a call, after the permission check.
pub trait PreToolHook: Send + Sync {
    /// A name for error messages.
    fn name(&self) -> &str;

    /// Whether the hook applies to `tool`. Defaults to every tool.
    fn matches(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// Decides about the call. An `Err` is a failed hook: the call is not run.
    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>>;
}

/// Runs after a call (successful or not), before truncation.
pub trait PostToolHook: Send + Sync {
    /// A name for error messages.
    fn name(&self) -> &str;

    /// Whether the hook applies to `tool`. Defaults to every tool.
    fn matches(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// Looks at (and may replace) the output. An `Err` is a failed hook: the result
    /// becomes an error that says so.
    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        output: &'a ToolOutput,
    ) -> BoxFuture<'a, Result<PostToolOutcome, String>>;
}
