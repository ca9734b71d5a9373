//! The commands' `tracing` subscriber: a layer that times the pipeline's `hook`
//! spans (for the summary's hook time and the timeline's hook marks) and, when the
//! OpenTelemetry variables ask for it, the OTLP export of every span
//! ([`crate::otel`]). Without the export, every callsite but the calls' and the
//! hooks' is never enabled, so the rest costs nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

static HOOK_NANOS: AtomicU64 = AtomicU64::new(0);
static HOOK_RUNS: Mutex<Vec<HookRun>> = Mutex::new(Vec::new());

/// One hook's run on one call.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub call_id: String,
    /// `PreToolUse {name}`, as the span says.
    pub what: String,
    pub start: Instant,
    pub end: Instant,
}

/// The time spent in hooks so far.
pub fn hooks() -> Duration {
    Duration::from_nanos(HOOK_NANOS.load(Ordering::Relaxed))
}

/// Every hook run so far (at most 100,000 are kept).
pub fn hook_runs() -> Vec<HookRun> {
    HOOK_RUNS.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// Sets the process's subscriber (the first call wins); `Some` while spans are
/// exported, to be shut down (flushed) before the process exits.
pub fn install() -> Option<crate::otel::Export> {
    use tracing_subscriber::layer::SubscriberExt as _;
    let export = crate::otel::Export::from_env();
    let timing = HookTimer { alone: export.is_none() };
    let layer = export.as_ref().map(crate::otel::Export::layer);
    // `serve`'s clients get their calls' events (`logging/setLevel`).
    #[cfg(feature = "mcp")]
    let mcp_log = Some(toolwright::mcp::McpLogLayer);
    #[cfg(not(feature = "mcp"))]
    let mcp_log: Option<tracing_subscriber::layer::Identity> = None;
    let subscriber = tracing_subscriber::registry().with(layer).with(mcp_log).with(timing);
    let _ = tracing::subscriber::set_global_default(subscriber);
    export
}

/// Times `hook` spans from creation to close, with the call they ran on.
struct HookTimer {
    /// No other layer wants spans: all but the calls' and hooks' are disabled.
    alone: bool,
}

fn wanted(metadata: &Metadata<'_>) -> bool {
    metadata.is_span() && matches!(metadata.name(), "hook" | "execute_tool" | "mcp_log")
}

/// Whether the current span is inside an MCP client's logged call.
fn in_logged_call<S: Subscriber + for<'a> LookupSpan<'a>>(cx: &Context<'_, S>) -> bool {
    cx.lookup_current().is_some_and(|span| span.scope().any(|s| s.name() == "mcp_log"))
}

/// A call span's id, or a hook span's name and start.
enum Noted {
    Call(String),
    Hook(String, Instant),
}

/// Reads one string field of a span.
struct Field1<'a>(&'a str, Option<String>);

impl Visit for Field1<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == self.0 {
            self.1 = Some(value.to_owned());
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == self.0 {
            self.1 = Some(format!("{value:?}"));
        }
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for HookTimer {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        match () {
            _ if wanted(metadata) || !self.alone => Interest::always(),
            // An event counts only inside a call an MCP client logs.
            _ if metadata.is_event() => Interest::sometimes(),
            _ => Interest::never(),
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>, cx: Context<'_, S>) -> bool {
        wanted(metadata) || !self.alone || (metadata.is_event() && in_logged_call(&cx))
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, cx: Context<'_, S>) {
        let Some(span) = cx.span(id) else { return };
        match attrs.metadata().name() {
            "execute_tool" => {
                let mut call_id = Field1("gen_ai.tool.call.id", None);
                attrs.record(&mut call_id);
                span.extensions_mut().insert(Noted::Call(call_id.1.unwrap_or_default()));
            }
            "hook" => {
                let mut name = Field1("otel.name", None);
                attrs.record(&mut name);
                let what = name.1.unwrap_or_default().trim_start_matches("hook ").to_owned();
                span.extensions_mut().insert(Noted::Hook(what, Instant::now()));
            }
            _ => {}
        }
    }

    fn on_close(&self, id: Id, cx: Context<'_, S>) {
        let Some(span) = cx.span(&id) else { return };
        let Some(Noted::Hook(what, start)) = span.extensions_mut().remove::<Noted>() else { return };
        let end = Instant::now();
        HOOK_NANOS.fetch_add(end.saturating_duration_since(start).as_nanos() as u64, Ordering::Relaxed);
        let call_id = span
            .scope()
            .skip(1)
            .find_map(|parent| match parent.extensions().get::<Noted>() {
                Some(Noted::Call(id)) => Some(id.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let mut runs = HOOK_RUNS.lock().unwrap_or_else(PoisonError::into_inner);
        if runs.len() < 100_000 {
            runs.push(HookRun { call_id, what, start, end });
        }
    }
}
