//! The server's `logging` capability: a client's `logging/setLevel`, and each tool's
//! `tracing` events at or above that level sent to the client that made the call as
//! `notifications/message`, the tool's name as the logger, bounded in rate.
//!
//! A call runs inside an `mcp_log` span that names its registration here;
//! [`McpLogLayer`], in the process's subscriber, finds it from an event's span scope.
//!
//! The 2026-07-28 revision drops logging (SEP-2577) and rmcp marks its types
//! deprecated; clients of the session revisions (2025-11-25 and before) still use it.
#![allow(deprecated)]

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The most messages one call sends per second; the rest are counted, and the count
/// is sent when the next second opens.
pub const MAX_MESSAGES_PER_SECOND: u32 = 20;
/// The most characters of one message's text.
const MAX_MESSAGE_CHARS: usize = 4_000;

/// Field prefixes of metrics recorded as events (tracing-opentelemetry's forms).
const METRIC_PREFIXES: [&str; 4] = ["histogram.", "counter.", "monotonic_counter.", "gauge."];

/// The name of the span a call runs in.
pub const SPAN: &str = "mcp_log";
const FIELD: &str = "toolwright.mcp.log";

/// The level one client asked for; `None` until it does (then nothing is sent).
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientLevel(Arc<Mutex<Option<LoggingLevel>>>);

impl ClientLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    pub(crate) fn get(&self) -> Option<LoggingLevel> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

struct CallLog {
    /// Messages in order, to the task that sends them to the client.
    send: tokio::sync::mpsc::UnboundedSender<LoggingMessageNotificationParam>,
    level: LoggingLevel,
    /// The current second's start, the messages sent in it, and those dropped.
    window: Mutex<(Instant, u32, u32)>,
}

static CALLS: LazyLock<Mutex<HashMap<u64, Arc<CallLog>>>> = LazyLock::new(Mutex::default);

fn calls() -> std::sync::MutexGuard<'static, HashMap<u64, Arc<CallLog>>> {
    CALLS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A call's registration: removed when dropped.
pub(crate) struct Registration(u64, Option<tokio::task::JoinHandle<()>>);

impl Registration {
    /// The call is over: its messages are sent before its result (within a second).
    pub(crate) async fn finish(mut self) {
        calls().remove(&self.0);
        if let Some(sender) = self.1.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), sender).await;
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        calls().remove(&self.0);
    }
}

/// Registers a call of `tool` from the client at `peer` that asked for `level`, and
/// the span to run it in.
pub(crate) fn begin(peer: &Peer<RoleServer>, level: LoggingLevel, tool: &str) -> (Registration, tracing::Span) {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let (send, mut messages) = tokio::sync::mpsc::unbounded_channel::<LoggingMessageNotificationParam>();
    // One sender per call keeps the messages in the order they were logged; it ends
    // when the call's registration goes.
    let (peer, tool) = (peer.clone(), tool.to_owned());
    let sender = tokio::spawn(async move {
        while let Some(mut message) = messages.recv().await {
            message.logger = Some(tool.clone());
            if peer.notify_logging_message(message).await.is_err() {
                break;
            }
        }
    });
    let log = CallLog { send, level, window: Mutex::new((Instant::now(), 0, 0)) };
    calls().insert(id, Arc::new(log));
    (Registration(id, Some(sender)), tracing::info_span!(SPAN, toolwright.mcp.log = id))
}

/// The registration a span names.
struct LogId(u64);

/// Sends tools' `tracing` events to the MCP client whose call they happened in
/// (`logging/setLevel` decides which). Add it to the process's subscriber:
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt as _;
/// let subscriber = tracing_subscriber::registry().with(toolwright_mcp::McpLogLayer);
/// let _ = tracing::subscriber::set_global_default(subscriber);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct McpLogLayer;

impl<S: Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for McpLogLayer {
    fn on_new_span(&self, attrs: &tracing::span::Attributes<'_>, id: &tracing::span::Id, cx: Context<'_, S>) {
        if attrs.metadata().name() != SPAN {
            return;
        }
        let mut found = LogField(None);
        attrs.record(&mut found);
        if let (Some(n), Some(span)) = (found.0, cx.span(id)) {
            span.extensions_mut().insert(LogId(n));
        }
    }

    fn on_event(&self, event: &Event<'_>, cx: Context<'_, S>) {
        let Some(scope) = cx.event_scope(event) else { return };
        let Some(id) = scope.into_iter().find_map(|span| span.extensions().get::<LogId>().map(|l| l.0)) else {
            return;
        };
        let Some(log) = calls().get(&id).cloned() else { return };
        let level = mcp_level(*event.metadata().level());
        if severity(level) < severity(log.level) {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        // A metric recorded as an event (`histogram.*`, `counter.*`) is not a log line.
        if fields.others.keys().any(|k| METRIC_PREFIXES.iter().any(|p| k.starts_with(p))) {
            return;
        }
        let mut notes = Vec::new();
        {
            let mut window = log.window.lock().unwrap_or_else(PoisonError::into_inner);
            if window.0.elapsed() >= Duration::from_secs(1) {
                if window.2 > 0 {
                    notes.push(LoggingMessageNotificationParam::new(
                        LoggingLevel::Warning,
                        json!({"message": format!("{} messages were dropped (more than {MAX_MESSAGES_PER_SECOND} a second)", window.2)}),
                    ));
                }
                *window = (Instant::now(), 0, 0);
            }
            if window.1 >= MAX_MESSAGES_PER_SECOND {
                window.2 += 1;
                return;
            }
            window.1 += 1;
        }
        notes.push(LoggingMessageNotificationParam::new(level, fields.into_data(event.metadata().target())));
        for note in notes {
            let _ = log.send.send(note);
        }
    }
}

struct LogField(Option<u64>);

impl Visit for LogField {
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == FIELD {
            self.0 = Some(value);
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if field.name() == FIELD {
            self.0 = u64::try_from(value).ok();
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

/// An event's message and other fields, as the notification's `data`.
#[derive(Default)]
struct Fields {
    message: String,
    others: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message.push_str(value),
            name => {
                self.others.insert(name.to_owned(), json!(value));
            }
        }
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            name => {
                self.others.insert(name.to_owned(), json!(format!("{value:?}")));
            }
        }
    }
}

impl Fields {
    fn into_data(mut self, target: &str) -> Value {
        if self.message.chars().count() > MAX_MESSAGE_CHARS {
            self.message = self.message.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
        }
        let mut data = Map::new();
        data.insert("message".into(), json!(self.message));
        data.insert("target".into(), json!(target));
        if !self.others.is_empty() {
            data.insert("fields".into(), Value::Object(self.others));
        }
        Value::Object(data)
    }
}

/// `tracing`'s level as MCP's (RFC 5424's names).
fn mcp_level(level: tracing::Level) -> LoggingLevel {
    match level {
        tracing::Level::ERROR => LoggingLevel::Error,
        tracing::Level::WARN => LoggingLevel::Warning,
        tracing::Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

/// How severe a level is, least first.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
