//! A tool call as the model made it, and the one result it gets.

use crate::output::{Content, ToolOutput};
pub(crate) use crate::summary::default_summary;
use crate::summary::{SUMMARY_CHARS, push_folded};
use std::sync::Arc;
use std::time::Duration;

/// One tool call from the model: the provider's id, the name as sent, and the raw
/// JSON arguments (parsed once, by the tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The provider's id (`toolu_…`, `call_…`); results are matched to it. Shared,
    /// not copied, by the call's context and result.
    pub id: Arc<str>,
    /// The tool name as the model sent it.
    pub name: String,
    /// The arguments as JSON text (`""` counts as `{}`).
    pub input: String,
}

impl ToolCall {
    /// A call.
    pub fn new(id: impl Into<Arc<str>>, name: impl Into<String>, input: impl Into<String>) -> Self {
        ToolCall { id: id.into(), name: name.into(), input: input.into() }
    }

    /// One line for humans: the name and the input, whitespace folded, cut to fit.
    pub fn summary_line(&self) -> String {
        default_summary(&self.name, &self.input)
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
    pub call_id: Arc<str>,
    /// The tool's name (its own, even if an alias was called), or the name as sent
    /// when no tool has it.
    pub tool: Arc<str>,
    /// What the model reads. `output.is_error` is set for every error.
    pub output: ToolOutput,
    /// Why it failed, or `None` on success.
    pub error: Option<ErrorKind>,
    /// The tool's own one-line summary of the call, if it gives one; see
    /// [`summary_line`](Self::summary_line).
    pub summary: Option<String>,
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

    /// One line for humans about the call (`read_file {"path":"src/main.rs"}`): the
    /// tool's own summary, or the name and input. Built on demand, so calls nobody
    /// shows cost nothing.
    pub fn summary_line(&self, call: &ToolCall) -> String {
        self.summary.clone().unwrap_or_else(|| default_summary(&self.tool, &call.input))
    }

    /// One line for humans about the result: its first line and how many follow, or
    /// the error kind and message.
    pub fn result_line(&self) -> String {
        result_summary(&self.output, self.error)
    }
}

/// The first line of the output, and how many more there are.
fn result_summary(output: &ToolOutput, error: Option<ErrorKind>) -> String {
    let mut blocks = output.content.iter().filter_map(|c| match c {
        Content::Text(t) => Some(t.as_str()),
        _ => None,
    });
    let first_block = blocks.next().unwrap_or_default();
    let mut lines = first_block.lines();
    let first = lines.next().unwrap_or_default();
    let more = lines.count() + blocks.map(|b| b.lines().count()).sum::<usize>();
    let mut line = String::with_capacity(SUMMARY_CHARS + 16);
    match error {
        Some(kind) => {
            line.push_str(kind.label());
            line.push_str(": ");
        }
        None if first.is_empty() && more == 0 => line.push_str("(no text output)"),
        None => {}
    }
    push_folded(&mut line, first, SUMMARY_CHARS);
    if more > 0 {
        use std::fmt::Write as _;
        let _ = write!(line, " (+{more} lines)");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_fold_whitespace_and_stay_one_line() {
        assert_eq!(default_summary("read_file", " {\n  \"path\": \"a.rs\"\n}"), "read_file { \"path\": \"a.rs\" }");
        assert_eq!(default_summary("now", "{}"), "now");
        let long = default_summary("echo", &format!("{{\"text\":\"{}\"}}", "x".repeat(200)));
        assert_eq!(long.chars().count(), SUMMARY_CHARS + 1);
        assert!(long.ends_with('…'));
        let out = ToolOutput::text("first\nsecond\nthird");
        assert_eq!(result_summary(&out, None), "first (+2 lines)");
        assert_eq!(result_summary(&ToolOutput::error("bad thing"), Some(ErrorKind::Failed)), "failed: bad thing");
        assert_eq!(result_summary(&ToolOutput::default(), None), "(no text output)");
    }
}
