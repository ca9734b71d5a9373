//! The spans of a call, in the OpenTelemetry semantic conventions for generative AI
//! (v1.41.0; GenAI is at Development status there, and a new instrumentation emits
//! the latest experimental version, as its transition plan allows).
//!
//! Each call is one `execute_tool {gen_ai.tool.name}` span (kind internal) with
//! `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//! `gen_ai.tool.type`, `gen_ai.tool.description` and, on failure, `error.type`;
//! its arguments and result only when the user opts in (`capture_content`, or
//! `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). The steps inside
//! are child spans: each hook, the permission decision, the wait for approval.
//! `tracing-opentelemetry` reads `otel.name`, `otel.kind` and `otel.status_code`.

use crate::access::{Access, Accesses};
use crate::{ErrorKind, ToolCall, ToolSpec};
use tracing::Span;
use tracing::field::Empty;

/// How the targets of the events that carry metrics (`histogram.` fields) end: a
/// subscriber that exports spans leaves them out of the spans' events.
pub const METRICS_TARGET_SUFFIX: &str = "::gen_ai_metrics";

/// The variable the GenAI instrumentations read to record message content.
pub const CAPTURE_CONTENT_ENV: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// Content recorded in a span at most (the rest is cut, with a note).
const MAX_CONTENT: usize = 8 * 1024;

/// Whether the environment opts in to recording arguments and results.
pub(crate) fn capture_from_env() -> bool {
    std::env::var(CAPTURE_CONTENT_ENV).is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The span of one call, before it is resolved.
pub(crate) fn tool_span(call: &ToolCall) -> Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = Empty,
        gen_ai.tool.description = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
    )
}

/// The arguments of a call that could not be resolved or prepared (an unknown tool,
/// input that does not parse), when content is captured: the raw text the model
/// sent, which is when a user most needs to see it.
pub(crate) fn unresolved(span: &Span, raw_input: &str, capture: bool) {
    if capture && !span.is_disabled() {
        span.record("gen_ai.tool.call.arguments", bounded(raw_input).as_ref());
    }
}

/// What resolving and preparing the call learned: the tool's kind (a call to
/// another server's tool is an `extension`, one run here a `function`) and the
/// first line of its description; the arguments when content is captured.
pub(crate) fn resolved(span: &Span, spec: &ToolSpec, access: &Accesses, input: &str, capture: bool) {
    if span.is_disabled() {
        return;
    }
    let kind = if access.iter().any(|a| matches!(a, Access::Mcp { .. })) { "extension" } else { "function" };
    span.record("gen_ai.tool.type", kind);
    span.record("gen_ai.tool.description", spec.description.lines().next().unwrap_or_default());
    if capture {
        span.record("gen_ai.tool.call.arguments", bounded(input).as_ref());
    }
}

/// How the call ended: `error.type` and an error status on failure; the result
/// text when content is captured; and the call's duration as the conventions'
/// `gen_ai.client.operation.duration` histogram (seconds; a `histogram.` event that
/// `tracing-opentelemetry`'s `MetricsLayer` turns into the metric).
pub(crate) fn finished(
    span: &Span,
    tool: &str,
    duration: std::time::Duration,
    error: Option<ErrorKind>,
    result: impl FnOnce() -> String,
    capture: bool,
) {
    if span.is_disabled() {
        return;
    }
    gen_ai_metrics::tool_duration(span, tool, duration, error);
    match error {
        Some(kind) => {
            span.record("error.type", kind.label());
            span.record("otel.status_code", "ERROR");
        }
        // The conventions record a result "if any and if execution was successful".
        None if capture => {
            span.record("gen_ai.tool.call.result", bounded(&result()).as_ref());
        }
        None => {}
    }
}

/// A hook's span: `hook {event} {name}`.
pub(crate) fn hook_span(event: &'static str, hook: &str) -> Span {
    tracing::info_span!(
        "hook",
        otel.name = %format_args!("hook {event} {hook}"),
        otel.kind = "internal",
        toolwright.hook.event = event,
        toolwright.hook.name = hook,
    )
}

/// The permission decision's span; [`decided`] records what it was.
pub(crate) fn permission_span(tool: &str) -> Span {
    tracing::info_span!(
        "permission",
        otel.name = %format_args!("permission {tool}"),
        otel.kind = "internal",
        toolwright.permission.decision = Empty,
    )
}

/// Records the decision: `allow`, `allowed when asked`, `deny` or `cancelled`.
pub(super) fn decided<E: HasKind>(span: &Span, asked: &Result<super::Asked, E>) {
    let decision = match asked {
        Ok(super::Asked::No) => "allow",
        Ok(super::Asked::Yes) => "allowed when asked",
        Err(e) if e.kind() == ErrorKind::Cancelled => "cancelled",
        Err(_) => "deny",
    };
    span.record("toolwright.permission.decision", decision);
}

/// What failed, for [`decided`].
pub(super) trait HasKind {
    fn kind(&self) -> ErrorKind;
}

/// The span of a wait for someone's approval; [`answered`] records the answer.
pub(crate) fn approval_span(tool: &str) -> Span {
    tracing::info_span!(
        "approval",
        otel.name = %format_args!("approval {tool}"),
        otel.kind = "internal",
        toolwright.approval.answer = Empty,
    )
}

/// Records the approver's answer.
pub(crate) fn answered(span: &Span, answer: &str) {
    span.record("toolwright.approval.answer", answer);
}

fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_CONTENT {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = MAX_CONTENT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}... [{} more bytes]", &text[..end], text.len() - end))
}

/// The metric events (their target ends in [`METRICS_TARGET_SUFFIX`]).
mod gen_ai_metrics {
    use crate::ErrorKind;
    use tracing::Span;

    /// A call's duration as `gen_ai.client.operation.duration`, in seconds.
    pub(super) fn tool_duration(span: &Span, tool: &str, duration: std::time::Duration, error: Option<ErrorKind>) {
        // `error.type` only on a failure: a `None` field is left out.
        tracing::info!(
            parent: span,
            histogram.gen_ai.client.operation.duration = duration.as_secs_f64(),
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = tool,
            error.type = error.map(ErrorKind::label),
        );
    }
}
