//! A tool call as the model made it, and the one result it gets.

use crate::output::ToolOutput;
use std::time::Duration;

/// One tool call from the model: the provider's id, the name as sent, and the raw
/// JSON arguments (parsed once, by the tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The provider's id (`toolu_…`, `call_…`); results are matched to it.
    pub id: String,
    /// The tool name as the model sent it.
    pub name: String,
    /// The arguments as JSON text (`""` counts as `{}`).
    pub input: String,
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: impl Into<String>) -> Self {
        ToolCall { id: id.into(), name: name.into(), input: input.into() }
    }
}

/// Why a call ended in an error result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool has that name.
    UnknownTool,
    /// The arguments did not parse (malformed JSON, wrong type, missing or unknown field).
    InvalidInput,
    /// The tool's own `validate` refused the input.
    Rejected,
    /// The permission policy or the approver said no, or the tool is not offered in
    /// this turn.
    Denied,
    /// A pre-tool hook blocked the call.
    HookDenied,
    /// A hook failed.
    HookFailed,
    /// The tool returned an error.
    Failed,
    /// The tool panicked.
    Panicked,
    /// The call ran past its timeout.
    TimedOut,
    /// The call was cancelled (before it started, or while running).
    Cancelled,
}

impl ErrorKind {
    /// A short lowercase label (`timed_out`).
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Rejected => "rejected",
            ErrorKind::Denied => "denied",
            ErrorKind::HookDenied => "hook_denied",
            ErrorKind::HookFailed => "hook_failed",
            ErrorKind::Failed => "failed",
            ErrorKind::Panicked => "panicked",
            ErrorKind::TimedOut => "timed_out",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

/// The result of one call. Every call gets exactly one, whatever happened.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call's id.
    pub call_id: String,
    /// The tool's name (its own, even if an alias was called), or the name as sent
    /// when no tool has it.
    pub tool: String,
    /// What the model reads. `output.is_error` is set for every error.
    pub output: ToolOutput,
    /// Why it failed, or `None` on success.
    pub error: Option<ErrorKind>,
    /// One line for humans: `read_file src/main.rs`.
    pub summary: String,
    /// One line for humans about the result: `42 lines`, `error: …`.
    pub result_summary: String,
    /// Whether the output was cut to the limit.
    pub truncated: bool,
    /// Wall time from start to result.
    pub duration: Duration,
}

impl ToolResult {
    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }
}
