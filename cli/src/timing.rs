//! The commands' `tracing` subscriber: a layer that times the pipeline's `hook`
//! spans for the summary and, when the OpenTelemetry variables ask for it, the
//! OTLP export of every span ([`crate::otel`]). Without the export, every callsite
//! but the hooks' is never enabled, so the rest costs nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

static HOOK_NANOS: AtomicU64 = AtomicU64::new(0);

/// The time spent in hooks so far.
pub fn hooks() -> Duration {
    Duration::from_nanos(HOOK_NANOS.load(Ordering::Relaxed))
}

/// Sets the process's subscriber (the first call wins); `Some` while spans are
/// exported, to be shut down (flushed) before the process exits.
pub fn install() -> Option<crate::otel::Export> {
    use tracing_subscriber::layer::SubscriberExt as _;
    let export = crate::otel::Export::from_env();
    let timing = HookTimer { alone: export.is_none() };
    let layer = export.as_ref().map(crate::otel::Export::layer);
    let subscriber = tracing_subscriber::registry().with(layer).with(timing);
    let _ = tracing::subscriber::set_global_default(subscriber);
    export
}

/// Times `hook` spans from creation to close.
struct HookTimer {
    /// No other layer wants spans: the others are disabled outright.
    alone: bool,
}

fn is_hook(metadata: &Metadata<'_>) -> bool {
    metadata.is_span() && metadata.name() == "hook"
}

struct Opened(Instant);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for HookTimer {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if is_hook(metadata) || !self.alone { Interest::always() } else { Interest::never() }
    }

    fn enabled(&self, metadata: &Metadata<'_>, _: Context<'_, S>) -> bool {
        is_hook(metadata) || !self.alone
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, cx: Context<'_, S>) {
        if is_hook(attrs.metadata())
            && let Some(span) = cx.span(id)
        {
            span.extensions_mut().insert(Opened(Instant::now()));
        }
    }

    fn on_close(&self, id: Id, cx: Context<'_, S>) {
        if let Some(span) = cx.span(&id)
            && let Some(Opened(at)) = span.extensions().get::<Opened>()
        {
            HOOK_NANOS.fetch_add(at.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
    }
}
