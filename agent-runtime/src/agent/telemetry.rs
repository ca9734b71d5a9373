//! The agent loop's spans in the OpenTelemetry GenAI conventions (v1.41.0, as the
//! calls' spans in `toolwright_core::pipeline::telemetry`): `invoke_agent {name}`
//! around a run (a subagent's nests under the call that started it), `chat
//! {model}` for each model request with the provider, the model, the finish
//! reason and the tokens, and a `retry` event when a request is tried again.

use super::ModelError;
use crate::provider::{Api, Usage};
use toolwright_core::{AgentScope, TurnContext};
use tracing::Span;
use tracing::field::Empty;

/// The provider as the conventions name it (`gen_ai.provider.name`).
fn provider(api: Api) -> &'static str {
    match api {
        Api::Anthropic => "anthropic",
        Api::OpenAiChat | Api::OpenAiResponses => "openai",
        Api::Gemini => "gcp.gemini",
        _ => "unknown",
    }
}

/// The span of a run: the subagent's type, or `main` for the main agent.
pub(super) fn agent_span(turn: &TurnContext, api: Api, model: &str) -> Span {
    let scope = turn.extensions().get::<AgentScope>();
    let name = scope.map_or("main", |s| s.agent_type.as_str());
    tracing::info_span!(
        "invoke_agent",
        otel.name = %format_args!("invoke_agent {name}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = name,
        gen_ai.agent.id = scope.map(|s| s.id.as_str()),
        gen_ai.provider.name = provider(api),
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.usage.cache_creation.input_tokens = Empty,
        error.type = Empty,
    )
}

/// The provider's own tool at work in this response (its web search): how often it
/// was used and how many results it brought. The queries are content, not recorded.
pub(super) fn server_tools(span: &Span, uses: usize, results: usize) {
    if uses > 0 {
        span.record("toolwright.server_tool.uses", int(uses));
    }
    if results > 0 {
        span.record("toolwright.server_tool.results", int(results));
    }
}

/// The span of one model request, with the server it goes to when there is one.
pub(super) fn chat_span(api: Api, model: &str, max_tokens: u32, endpoint: Option<&str>) -> Span {
    let server = endpoint.and_then(|url| reqwest::Url::parse(url).ok());
    tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider(api),
        gen_ai.request.model = model,
        gen_ai.request.max_tokens = i64::from(max_tokens),
        server.address = server.as_ref().and_then(|u| u.host_str()),
        server.port = server.as_ref().and_then(reqwest::Url::port_or_known_default).map(i64::from),
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.usage.cache_creation.input_tokens = Empty,
        toolwright.server_tool.uses = Empty,
        toolwright.server_tool.results = Empty,
        error.type = Empty,
    )
}

/// A count as the conventions' `int`: tracing-opentelemetry turns an `i64` into
/// an integer attribute but a `u64` into its debug text, a string.
fn int(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// Tokens spent, on a chat or agent span (input counts the cache's tokens too, and
/// the cache's reads and writes are recorded apart where the provider reports them).
pub(super) fn usage(span: &Span, usage: &Usage) {
    let input = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    span.record("gen_ai.usage.input_tokens", int(input));
    span.record("gen_ai.usage.output_tokens", int(usage.output_tokens));
    if usage.cache_read_input_tokens > 0 {
        span.record("gen_ai.usage.cache_read.input_tokens", int(usage.cache_read_input_tokens));
    }
    if usage.cache_creation_input_tokens > 0 {
        span.record("gen_ai.usage.cache_creation.input_tokens", int(usage.cache_creation_input_tokens));
    }
}

/// Why the model stopped, as a one-element list (the conventions' array, in the
/// JSON form exporters take from a string).
pub(super) fn finish_reason(span: &Span, reason: Option<&str>) {
    if let Some(reason) = reason {
        span.record("gen_ai.response.finish_reasons", format!("[\"{reason}\"]").as_str());
    }
}

/// A failed request or run: `error.type` and an error status.
pub(super) fn failed(span: &Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
}

/// A request about to be tried again, as an event on the current span.
pub(super) fn retrying(attempt: usize, wait: std::time::Duration, error: &str) {
    tracing::info!(
        toolwright.retry.attempt = int(attempt),
        toolwright.retry.wait_ms = int(wait.as_millis()),
        error.type = error,
        "retry: the model request is sent again"
    );
}

/// A model error's `error.type`: the HTTP status, or what kind of failure.
pub(super) fn error_type(error: &ModelError) -> String {
    match error {
        ModelError::Status { status, .. } => status.to_string(),
        ModelError::MissingKey { .. } => "missing_key".into(),
        ModelError::Transport { .. } => "transport".into(),
        ModelError::Interrupted { .. } => "interrupted".into(),
        ModelError::Stream(_) => "stream".into(),
        ModelError::Exhausted { .. } => "exhausted".into(),
    }
}

/// A model request's duration (to the end of its stream) as the conventions'
/// `gen_ai.client.operation.duration` histogram, in seconds.
pub(super) fn chat_duration(span: &Span, api: Api, model: &str, took: std::time::Duration, error: Option<&str>) {
    if !span.is_disabled() {
        gen_ai_metrics::chat_duration(span, provider(api), model, took, error);
    }
}

/// The metric events (their target ends in `::gen_ai_metrics`, which a span
/// exporter leaves out).
mod gen_ai_metrics {
    use tracing::Span;

    pub(super) fn chat_duration(
        span: &Span,
        provider: &str,
        model: &str,
        took: std::time::Duration,
        error: Option<&str>,
    ) {
        // `error.type` only on a failure: a `None` field is left out.
        tracing::info!(
            parent: span,
            histogram.gen_ai.client.operation.duration = took.as_secs_f64(),
            gen_ai.operation.name = "chat",
            gen_ai.provider.name = provider,
            gen_ai.request.model = model,
            error.type = error,
        );
    }
}
