//! Where the scheduler's calls come from: a slice of calls, or a provider stream
//! drained in batches, with the stream's open slots.

use crate::StreamEvent;
use crate::ToolCall;
use std::collections::HashMap;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The streamed calls still open: the stream's slot number to the call's index.
///
/// Every fragment looks its call up, and fragments come in runs for one call, so
/// the last lookup is kept in front of the map: hashing the key with SipHash was a
/// third of a fragment's cost. (SipHash stays behind it: the slot numbers come from
/// the stream.)
#[derive(Default)]
pub(crate) struct OpenSlots {
    map: HashMap<usize, usize>,
    last: Option<(usize, usize)>,
}

impl OpenSlots {
    pub(crate) fn get(&mut self, slot: usize) -> Option<usize> {
        if let Some((held, index)) = self.last
            && held == slot
        {
            return Some(index);
        }
        let index = *self.map.get(&slot)?;
        self.last = Some((slot, index));
        Some(index)
    }

    pub(crate) fn insert(&mut self, slot: usize, index: usize) -> Option<usize> {
        self.last = None;
        self.map.insert(slot, index)
    }

    pub(crate) fn remove(&mut self, slot: usize) -> Option<usize> {
        self.last = None;
        self.map.remove(&slot)
    }

    pub(crate) fn drain(&mut self) -> impl Iterator<Item = usize> + '_ {
        self.last = None;
        self.map.drain().map(|(_, index)| index)
    }
}

/// What arrives for the scheduler.
pub(crate) enum Incoming<'c> {
    /// A step of a streamed message.
    Stream(StreamEvent),
    /// A call whose input is complete.
    Call(&'c ToolCall),
}

/// Where calls come from: a channel of stream events, or a slice of whole calls.
pub(crate) trait Source<'c> {
    /// The next input; `Ready(None)` once there are no more.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Incoming<'c>>>;

    /// The next input if one is ready now.
    fn try_next(&mut self) -> Option<Incoming<'c>>;
}

/// A stream's events, taken from the channel in batches: each receive gives the
/// sender its permits back, and tokio's semaphore takes a lock to do it, so one
/// receive per event was most of a fragment's cost. Order and every event are kept:
/// the batch is handed out before the channel is asked again.
pub(crate) struct Batched {
    events: mpsc::Receiver<StreamEvent>,
    /// Received, not yet handed out; kept newest first, so `pop` hands out the oldest.
    ready: Vec<StreamEvent>,
}

/// Events taken from the channel at once at most.
pub(crate) const BATCH: usize = 256;

impl Batched {
    pub(crate) fn new(events: mpsc::Receiver<StreamEvent>) -> Self {
        Batched { events, ready: Vec::new() }
    }

    /// The next event: the batch's, else a new batch's first. `Ready(None)` once the
    /// channel is closed and empty.
    pub(crate) fn next(&mut self, cx: &mut Context<'_>) -> Poll<Option<StreamEvent>> {
        if let Some(event) = self.ready.pop() {
            return Poll::Ready(Some(event));
        }
        match self.events.poll_recv_many(cx, &mut self.ready, BATCH) {
            Poll::Ready(0) => Poll::Ready(None),
            Poll::Ready(_) => {
                self.ready.reverse();
                Poll::Ready(self.ready.pop())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<'c> Source<'c> for Batched {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Incoming<'c>>> {
        self.next(cx).map(|event| event.map(Incoming::Stream))
    }

    fn try_next(&mut self) -> Option<Incoming<'c>> {
        // A no-op waker: if the channel is empty it is registered in place of the
        // task's, which is harmless because the scheduler polls `poll_next` with its
        // own context before it ever waits.
        match self.next(&mut Context::from_waker(std::task::Waker::noop())) {
            Poll::Ready(Some(event)) => Some(Incoming::Stream(event)),
            _ => None,
        }
    }
}

/// Whole calls, all ready at once.
pub(crate) struct Calls<'c>(pub(crate) std::slice::Iter<'c, ToolCall>);

impl<'c> Source<'c> for Calls<'c> {
    fn poll_next(&mut self, _cx: &mut Context<'_>) -> Poll<Option<Incoming<'c>>> {
        Poll::Ready(self.0.next().map(Incoming::Call))
    }

    fn try_next(&mut self) -> Option<Incoming<'c>> {
        self.0.next().map(Incoming::Call)
    }
}
