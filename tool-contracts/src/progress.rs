//! Progress reports from running calls, and the bounded queue that carries them to
//! a subscriber without ever blocking a tool.
//!
//! The queue is a mutex'd `VecDeque` and a `Notify` in one allocation, not a tokio
//! `mpsc` channel: the MCP server makes one per call that carries a progress token
//! (the rmcp client sends one with every call), and tokio's channel allocates its
//! first block of 32 slots up front (about 4 KB for these events), which cost more
//! than the rest of a no-op call's MCP handling.

use serde_json::Value;
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::Notify;

/// One progress report from a running call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    /// What is happening, for a human.
    pub message: String,
    /// Work done so far, in the unit of `total`.
    pub progress: Option<f64>,
    /// Total work, if known.
    pub total: Option<f64>,
    /// Tool-specific detail.
    pub data: Option<Value>,
}

impl Progress {
    /// A progress message.
    pub fn message(message: impl Into<String>) -> Self {
        Progress { message: message.into(), ..Progress::default() }
    }

    /// `done` of `total`, with a message.
    pub fn fraction(message: impl Into<String>, done: f64, total: f64) -> Self {
        Progress { message: message.into(), progress: Some(done), total: Some(total), data: None }
    }
}

impl From<&str> for Progress {
    fn from(message: &str) -> Self {
        Progress::message(message)
    }
}

impl From<String> for Progress {
    fn from(message: String) -> Self {
        Progress::message(message)
    }
}

/// A progress report tagged with the call it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressEvent {
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The report.
    pub progress: Progress,
}

/// Where progress goes: a bounded queue that never blocks a tool. When the
/// subscriber falls behind (or is gone), reports are dropped and counted.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use toolwright_core::{ProgressSink, TurnContext};
/// let (sink, mut reports) = ProgressSink::channel(8);
/// let turn = TurnContext::new(".").with_progress(sink);
/// turn.call("toolu_1", "build", "build").progress("compiling");
/// drop(turn);
/// assert_eq!(reports.recv().await.unwrap().progress.message, "compiling");
/// assert!(reports.recv().await.is_none(), "every sink is gone");
/// # });
/// ```
pub struct ProgressSink {
    queue: Arc<Queue>,
}

/// The subscriber end of a [`ProgressSink`]: reports in the order they were sent.
pub struct ProgressReceiver {
    queue: Arc<Queue>,
}

/// Why [`ProgressReceiver::try_recv`] returned nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TryRecvError {
    /// Nothing is waiting; more may come.
    #[error("no progress report is waiting")]
    Empty,
    /// Nothing is waiting and every sink is gone.
    #[error("every progress sink is gone")]
    Closed,
}

struct Queue {
    items: Mutex<VecDeque<ProgressEvent>>,
    capacity: usize,
    /// Live `ProgressSink` clones; the receiver sees the end when it reaches zero.
    senders: AtomicUsize,
    /// Whether the receiver is gone (then every report is dropped).
    receiving: AtomicBool,
    dropped: AtomicU64,
    /// Wakes the receiver: a report arrived or the last sink went.
    ready: Notify,
}

impl Queue {
    fn items(&self) -> std::sync::MutexGuard<'_, VecDeque<ProgressEvent>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ProgressSink {
    /// A sink and its subscriber end, holding up to `capacity` undelivered reports
    /// (at least one).
    pub fn channel(capacity: usize) -> (ProgressSink, ProgressReceiver) {
        let queue = Arc::new(Queue {
            items: Mutex::new(VecDeque::new()),
            capacity: capacity.max(1),
            senders: AtomicUsize::new(1),
            receiving: AtomicBool::new(true),
            dropped: AtomicU64::new(0),
            ready: Notify::new(),
        });
        (ProgressSink { queue: Arc::clone(&queue) }, ProgressReceiver { queue })
    }

    pub(crate) fn send(&self, event: ProgressEvent) {
        let queue = &*self.queue;
        if queue.receiving.load(Ordering::Acquire) {
            let mut items = queue.items();
            if items.len() < queue.capacity {
                items.push_back(event);
                drop(items);
                queue.ready.notify_one();
                return;
            }
        }
        queue.dropped.fetch_add(1, Ordering::Relaxed);
    }

    /// How many reports were dropped because the subscriber was full or gone.
    pub fn dropped(&self) -> u64 {
        self.queue.dropped.load(Ordering::Relaxed)
    }
}

impl Clone for ProgressSink {
    fn clone(&self) -> Self {
        self.queue.senders.fetch_add(1, Ordering::Relaxed);
        ProgressSink { queue: Arc::clone(&self.queue) }
    }
}

impl Drop for ProgressSink {
    fn drop(&mut self) {
        if self.queue.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            // `notify_one` keeps a permit if the receiver is not waiting yet.
            self.queue.ready.notify_one();
        }
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressSink")
            .field("capacity", &self.queue.capacity)
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl ProgressReceiver {
    /// The next report; `None` once every sink is gone and nothing is left.
    pub async fn recv(&mut self) -> Option<ProgressEvent> {
        loop {
            match self.try_recv() {
                Ok(event) => return Some(event),
                Err(TryRecvError::Closed) => return None,
                // A report or the last sink's drop after this check leaves a permit.
                Err(TryRecvError::Empty) => self.queue.ready.notified().await,
            }
        }
    }

    /// The next report if one is waiting.
    pub fn try_recv(&mut self) -> Result<ProgressEvent, TryRecvError> {
        // Read the count before the queue: a sink that sends and then goes is seen
        // with its report still queued.
        let open = self.queue.senders.load(Ordering::Acquire) > 0;
        match self.queue.items().pop_front() {
            Some(event) => Ok(event),
            None if open => Err(TryRecvError::Empty),
            None => Err(TryRecvError::Closed),
        }
    }

    /// How many reports were dropped because this receiver was full or gone.
    pub fn dropped(&self) -> u64 {
        self.queue.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for ProgressReceiver {
    fn drop(&mut self) {
        self.queue.receiving.store(false, Ordering::Release);
        self.queue.items().clear();
    }
}

impl fmt::Debug for ProgressReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressReceiver").field("waiting", &self.queue.items().len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(message: &str) -> ProgressEvent {
        ProgressEvent { call_id: "c".into(), tool: "t".into(), progress: Progress::message(message) }
    }

    #[test]
    fn a_full_queue_drops_and_counts_and_keeps_the_order() {
        let (sink, mut reports) = ProgressSink::channel(2);
        for m in ["a", "b", "c"] {
            sink.send(event(m));
        }
        assert_eq!(sink.dropped(), 1);
        assert_eq!(reports.try_recv().unwrap().progress.message, "a");
        assert_eq!(reports.try_recv().unwrap().progress.message, "b");
        assert_eq!(reports.try_recv(), Err(TryRecvError::Empty));
    }

    #[test]
    fn reports_sent_before_the_last_sink_goes_are_delivered_then_the_end() {
        let (sink, mut reports) = ProgressSink::channel(8);
        let other = sink.clone();
        drop(sink);
        other.send(event("last"));
        assert_eq!(reports.try_recv().unwrap().progress.message, "last");
        assert_eq!(reports.try_recv(), Err(TryRecvError::Empty), "a clone is still alive");
        drop(other);
        assert_eq!(reports.try_recv(), Err(TryRecvError::Closed));
    }

    #[test]
    fn without_a_receiver_reports_are_dropped() {
        let (sink, reports) = ProgressSink::channel(8);
        drop(reports);
        sink.send(event("nobody"));
        assert_eq!(sink.dropped(), 1);
    }

    #[test]
    fn a_waiting_receiver_wakes_for_a_report_and_for_the_end() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(waits_and_wakes());
    }

    async fn waits_and_wakes() {
        let (sink, mut reports) = ProgressSink::channel(8);
        let waiter = tokio::spawn(async move {
            let first = reports.recv().await.map(|e| e.progress.message);
            (first, reports.recv().await.is_none())
        });
        tokio::task::yield_now().await;
        sink.send(event("one"));
        tokio::task::yield_now().await;
        drop(sink);
        let (first, ended) = tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
        assert_eq!(first.as_deref(), Some("one"));
        assert!(ended);
    }
}
