//! How long the command hooks took, for the summary: a `tracing` subscriber that
//! listens to the pipeline's `hook` spans and nothing else (every other callsite
//! is never enabled, so costs nothing), and sums the time each was open.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

static HOOK_NANOS: AtomicU64 = AtomicU64::new(0);

/// The time spent in hooks so far.
pub fn hooks() -> Duration {
    Duration::from_nanos(HOOK_NANOS.load(Ordering::Relaxed))
}

/// Listens from now on (the first call wins; a subscriber already set stays).
pub fn install() {
    let _ = tracing::subscriber::set_global_default(HookTimer::default());
}

#[derive(Default)]
struct HookTimer {
    next: AtomicU64,
    open: Mutex<Vec<(u64, Instant)>>,
}

fn wanted(metadata: &Metadata<'_>) -> bool {
    metadata.is_span() && metadata.name() == "hook"
}

impl Subscriber for HookTimer {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if wanted(metadata) { Interest::always() } else { Interest::never() }
    }
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        wanted(metadata)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.open.lock().unwrap_or_else(PoisonError::into_inner).push((id, Instant::now()));
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
    fn try_close(&self, id: Id) -> bool {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = open.iter().position(|(i, _)| *i == id.into_u64()) {
            let (_, started) = open.swap_remove(at);
            HOOK_NANOS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        true
    }
}
