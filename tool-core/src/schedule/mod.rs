//! The one scheduler behind [`Orchestrator::run`] and [`Orchestrator::run_streaming`]:
//! a turn's calls arrive (whole, or as stream events), start in call order as soon as
//! their input is complete and the batch rules allow, and are answered once each.
//!
//! The batch rules: consecutive concurrency-safe calls form a batch and run together
//! (at most [`Orchestrator::concurrency`] at once); any other call runs alone. A failed
//! call of a tool in [`Orchestrator::abort_siblings_on_failure_of`] cancels the calls of
//! its batch that have not started. Cancelling the turn stops reading the stream; calls
//! not started are answered as cancelled, running ones get the executor's grace period.
//!
//! Calls run as futures inside the scheduler's own future (no spawned tasks): when it
//! returns nothing it started is still running, and dropping it drops every call.

use crate::Flags;
use crate::StreamEvent;
use crate::TurnContext;
use crate::orchestrate::{CallEvent, Orchestrator};
use crate::partial::{PartialInputFn, PartialObject};
use crate::pipeline::{Executor, Staged};
use crate::registry::ToolPool;
use crate::{ErrorKind, ToolCall, ToolResult};
use std::future::{Future, poll_fn};
use std::ops::Deref;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use tokio::sync::oneshot;

/// How many ready inputs are taken in one go before the calls are looked at again.
const DRAIN_LIMIT: usize = 4096;

mod source;
pub(crate) use source::{Batched, Calls, Incoming, OpenSlots, Source};

/// A call as the scheduler holds it: borrowed from the caller's slice, or assembled
/// from a stream and shared by its slot and its task.
#[derive(Clone)]
enum CallRef<'c> {
    Borrowed(&'c ToolCall),
    Shared(Arc<ToolCall>),
}

impl Deref for CallRef<'_> {
    type Target = ToolCall;

    fn deref(&self) -> &ToolCall {
        match self {
            CallRef::Borrowed(call) => call,
            CallRef::Shared(call) => call,
        }
    }
}

/// What the scheduler tells a staged call.
enum Go {
    /// Run; with a turn if context changes arrived since the call was staged.
    Run(Option<TurnContext>),
    /// Do not run; answer with this error.
    Skip(ErrorKind, String),
}

/// A streaming call whose tool wants its partial input.
struct Watch {
    hook: PartialInputFn,
    tool: Arc<str>,
    scan: PartialObject,
}

/// Where one call stands.
enum Slot<'c> {
    /// Its input is still arriving.
    Streaming { id: String, name: String, input: String, watch: Option<Box<Watch>> },
    /// A whole call, staged when it arrived (it outlives the scheduler, so no task is
    /// needed until it starts).
    Ready { staged: Box<Staged<'c>>, generation: u64 },
    /// A streamed call, complete; its task stages it and waits to be told to run.
    Staged { call: CallRef<'c>, flags: Arc<OnceLock<Option<Flags>>>, go: oneshot::Sender<Go>, generation: u64 },
    /// Told to run (or to answer without running).
    Started { call: CallRef<'c> },
    /// Cut off before its input was complete: answered, never run.
    Cut { call: CallRef<'c> },
}

impl<'c> Slot<'c> {
    fn call(&self) -> Option<&ToolCall> {
        match self {
            Slot::Staged { call, .. } | Slot::Started { call } | Slot::Cut { call } => Some(call),
            Slot::Ready { staged, .. } => Some(staged.call()),
            Slot::Streaming { .. } => None,
        }
    }

    /// The flags of a staged call, once its task has staged it (`Some(None)`: staging
    /// failed, and it runs alone to be answered).
    fn staged_flags(&self) -> Option<Option<Flags>> {
        match self {
            Slot::Staged { flags, .. } => flags.get().copied(),
            Slot::Ready { staged, .. } => Some(staged.flags()),
            _ => None,
        }
    }
}

/// A call's future, and whether the scheduler started it (or only let it answer).
struct Task<'e> {
    started: bool,
    /// A streamed call's task that has not been told to go: once it has staged
    /// itself, nothing but the scheduler's word moves it.
    waiting: bool,
    future: Pin<Box<dyn Future<Output = ToolResult> + Send + 'e>>,
}

/// The calls' futures by call index. Each round polls only the active ones: those
/// started (at most the concurrency bound), and those just added or just told to go.
/// A streamed call's task, once it has staged itself, waits for the scheduler's word
/// and is not polled again until it gets it: a turn of a thousand calls does not poll
/// a thousand waiting futures on every wake.
struct Tasks<'e> {
    tasks: Vec<Option<Task<'e>>>,
    active: Vec<usize>,
    live: usize,
}

impl<'e> Tasks<'e> {
    fn new() -> Self {
        Tasks { tasks: Vec::new(), active: Vec::new(), live: 0 }
    }

    fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Adds call `index`'s future (`waiting`: it stages itself, then waits to be
    /// told); it is polled on the next round.
    fn push(&mut self, index: usize, waiting: bool, future: Pin<Box<dyn Future<Output = ToolResult> + Send + 'e>>) {
        if self.tasks.len() <= index {
            self.tasks.resize_with(index + 1, || None);
        }
        if self.tasks[index].replace(Task { started: false, waiting, future }).is_none() {
            self.live += 1;
        }
        self.activate(index);
    }

    /// Call `index` was told to run (`started`) or to answer without running: it is
    /// polled until it is done.
    fn release(&mut self, index: usize, started: bool) {
        if let Some(Some(task)) = self.tasks.get_mut(index) {
            task.started = started;
            task.waiting = false;
        }
        self.activate(index);
    }

    fn activate(&mut self, index: usize) {
        if !self.active.contains(&index) {
            self.active.push(index);
        }
    }

    /// The next call to finish among the active ones: its index, whether it was
    /// started, and its result.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<(usize, bool, ToolResult)> {
        let mut k = 0;
        while k < self.active.len() {
            let index = self.active[k];
            let Some(Some(task)) = self.tasks.get_mut(index) else {
                self.active.swap_remove(k);
                continue;
            };
            if let Poll::Ready(result) = task.future.as_mut().poll(cx) {
                let started = task.started;
                self.tasks[index] = None;
                self.live -= 1;
                self.active.swap_remove(k);
                return Poll::Ready((index, started, result));
            }
            if task.waiting {
                // Staged and waiting for its turn: polled again once it is told.
                self.active.swap_remove(k);
            } else {
                k += 1;
            }
        }
        Poll::Pending
    }
}

enum Wake<'c> {
    Done(usize, bool, Box<ToolResult>),
    Staged,
    Cancelled,
    Input(Option<Incoming<'c>>),
}

/// The batch rules' state.
#[derive(Default)]
struct Batches {
    running: usize,
    /// An unsafe call is running: nothing else may start.
    exclusive: bool,
    /// The calls starting now belong to a batch of safe calls already begun.
    in_safe_batch: bool,
    /// A failure in the current batch cancels its calls that have not started.
    aborted_by: Option<String>,
}

impl Orchestrator {
    /// Runs the calls that arrive from `source`; returns their results in call order.
    pub(crate) async fn schedule<'s, 'c: 's>(
        &'s self,
        mut source: impl Source<'c>,
        turn: &mut TurnContext,
        pool: Option<&'s ToolPool>,
        mut observe: impl FnMut(CallEvent<'_>),
    ) -> Vec<ToolResult> {
        let executor: &'s Executor = &self.executor;
        let token = turn.cancellation().clone();
        let mut cancelled = Box::pin(token.clone().cancelled_owned());
        let mut slots: Vec<Slot<'s>> = Vec::new();
        let mut open = OpenSlots::default();
        let mut results: Vec<Option<ToolResult>> = Vec::new();
        let mut tasks = Tasks::new();
        let (mut next_to_start, mut applied, mut generation) = (0usize, 0usize, 0u64);
        let mut batches = Batches::default();
        let mut source_open = true;

        loop {
            // Context changes of finished calls, in call order.
            while applied < results.len() && results[applied].is_some() {
                if let Some(modifier) = results[applied].as_mut().and_then(|r| r.output.modifier.take()) {
                    turn.apply(&modifier);
                    generation += 1;
                }
                if let Some(call) = slots[applied].call() {
                    observe(CallEvent::Yielded { index: applied, call });
                }
                applied += 1;
            }
            self.start_ready(
                &mut slots,
                &mut tasks,
                &mut next_to_start,
                &mut batches,
                turn,
                pool,
                generation,
                &mut observe,
            );
            // (Every slot before `next_to_start` was started or cut: the start loop stops
            // at the first that was not.)
            if !source_open && tasks.is_empty() && next_to_start == slots.len() {
                break;
            }

            let was_ready = slots.get(next_to_start).is_some_and(|s| s.staged_flags().is_some());
            // Only a streamed call's staging changes while we wait (its task fills
            // the cell); the wait holds that cell, not the slots, so the future stays
            // `Send` without asking `Sync` of every prepared call.
            let head_staging = match slots.get(next_to_start) {
                Some(Slot::Staged { flags, .. }) if !was_ready => Some(Arc::clone(flags)),
                _ => None,
            };
            let wake = poll_fn(|cx| {
                if let Poll::Ready((index, started, result)) = tasks.poll_next(cx) {
                    return Poll::Ready(Wake::Done(index, started, Box::new(result)));
                }
                if source_open {
                    // (Before the source: a source that is always ready must not hide
                    // the cancellation.)
                    if cancelled.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(Wake::Cancelled);
                    }
                    if let Poll::Ready(input) = source.poll_next(cx) {
                        return Poll::Ready(Wake::Input(input));
                    }
                }
                if head_staging.as_ref().is_some_and(|flags| flags.get().is_some()) {
                    return Poll::Ready(Wake::Staged);
                }
                Poll::Pending
            })
            .await;

            // What to take from the source now: everything ready (bounded), and on a
            // cancellation what already arrived, which is part of the message the
            // model sent (every call in it is answered, whole ones as cancelled).
            let (first, limit, closes) = match wake {
                Wake::Staged => (None, 0, false),
                Wake::Done(index, started, result) => {
                    if started {
                        batches.running -= 1;
                        if batches.running == 0 {
                            batches.exclusive = false;
                        }
                    }
                    if result.error.is_some() && self.abort_on_failure_of.iter().any(|t| **t == *result.tool) {
                        batches.aborted_by.get_or_insert_with(|| result.tool.to_string());
                    }
                    if let Some(call) = slots[index].call() {
                        observe(CallEvent::Finished { index, call, result: &result });
                    }
                    results[index] = Some(*result);
                    (None, 0, false)
                }
                // A long input costs an append per fragment, and whole calls are all
                // seen before the first batch is formed.
                Wake::Input(Some(first)) => (Some(first), DRAIN_LIMIT, false),
                Wake::Input(None) => (None, 0, true),
                Wake::Cancelled => (source.try_next(), 16 * DRAIN_LIMIT, true),
            };
            let (mut next, mut taken) = (first, 0);
            while let Some(input) = next.take() {
                self.take(
                    input,
                    executor,
                    &mut slots,
                    &mut open,
                    &mut results,
                    &mut tasks,
                    turn,
                    pool,
                    generation,
                    &mut observe,
                );
                taken += 1;
                if taken < limit {
                    next = source.try_next();
                }
            }
            if closes {
                // The stream ended (or the turn was cancelled): a call still streaming
                // was never closed, so its input is not known to be complete. It is
                // answered, never run.
                source_open = false;
                let mut left_open: Vec<usize> = open.drain().collect();
                left_open.sort_unstable();
                for index in left_open {
                    cut_slot(&mut slots, &mut tasks, index, token.is_cancelled(), &mut observe);
                }
            }
        }
        results.into_iter().enumerate().map(|(i, r)| r.unwrap_or_else(|| unanswered(slots[i].call()))).collect()
    }

    /// Starts calls in call order while the batch rules allow; a call that must not
    /// start (the turn is cancelled, a sibling failed) is told so and answers.
    #[allow(clippy::too_many_arguments)]
    fn start_ready<'s>(
        &'s self,
        slots: &mut [Slot<'s>],
        tasks: &mut Tasks<'s>,
        next_to_start: &mut usize,
        batches: &mut Batches,
        turn: &TurnContext,
        pool: Option<&'s ToolPool>,
        generation: u64,
        observe: &mut impl FnMut(CallEvent<'_>),
    ) {
        let executor: &'s Executor = &self.executor;
        while *next_to_start < slots.len() {
            let index = *next_to_start;
            // A call cut off is answered already; those after it go on.
            if matches!(slots[index], Slot::Cut { .. }) {
                *next_to_start += 1;
                continue;
            }
            let Some(flags) = slots[index].staged_flags() else { break };
            let safe = flags.is_some_and(|f| f.concurrency_safe);
            // A new batch: an unsafe call, or the first safe one after anything else.
            let begins = !safe || !batches.in_safe_batch;
            let aborted = if begins { None } else { batches.aborted_by.as_deref() };
            let skip = skip_reason(turn, aborted);
            let may_start = skip.is_some()
                || (safe && !batches.exclusive && batches.running < self.max_concurrency)
                || (!safe && batches.running == 0);
            if !may_start {
                break;
            }
            if begins {
                batches.aborted_by = None;
                batches.in_safe_batch = safe;
                // The batch as far as it is known: the safe calls staged after it.
                let mut members = vec![index];
                if safe {
                    members.extend((index + 1..slots.len()).take_while(|&j| {
                        slots[j].staged_flags().is_some_and(|f| f.is_some_and(|f| f.concurrency_safe))
                    }));
                }
                observe(CallEvent::Batch { calls: &members });
            }
            let starts = skip.is_none();
            let call = match std::mem::replace(&mut slots[index], Slot::Started { call: placeholder() }) {
                // A whole call: its future is made now.
                Slot::Ready { staged, generation: staged_at } => {
                    let call = staged.call();
                    match skip {
                        Some(why) => tasks.push(
                            index,
                            false,
                            Box::pin(
                                async move { executor.finish_unstarted(*staged, ErrorKind::Cancelled, &why).await },
                            ),
                        ),
                        None => {
                            // Context changed since staging: parse again against this turn.
                            let staged = if staged_at == generation {
                                *staged
                            } else {
                                drop(staged);
                                executor.stage(call, turn, pool)
                            };
                            tasks.push(index, false, Box::pin(executor.finish(staged)));
                        }
                    }
                    CallRef::Borrowed(call)
                }
                Slot::Staged { call, go, generation: staged_at, .. } => {
                    match skip {
                        Some(why) => drop(go.send(Go::Skip(ErrorKind::Cancelled, why))),
                        None => drop(go.send(Go::Run((staged_at != generation).then(|| turn.clone())))),
                    }
                    call
                }
                _ => unreachable!("a slot with staged flags is staged"),
            };
            tasks.release(index, starts);
            if starts {
                batches.running += 1;
                batches.exclusive = !safe;
                observe(CallEvent::Started { index, call: &call, concurrency_safe: safe });
            }
            slots[index] = Slot::Started { call };
            *next_to_start += 1;
        }
    }

    /// One input: a stream event moves a call along; a whole call is staged.
    #[allow(clippy::too_many_arguments)]
    fn take<'s, 'c: 's>(
        &'s self,
        input: Incoming<'c>,
        executor: &'s Executor,
        slots: &mut Vec<Slot<'s>>,
        open: &mut OpenSlots,
        results: &mut Vec<Option<ToolResult>>,
        tasks: &mut Tasks<'s>,
        turn: &TurnContext,
        pool: Option<&'s ToolPool>,
        generation: u64,
        observe: &mut impl FnMut(CallEvent<'_>),
    ) {
        match input {
            Incoming::Call(call) => {
                let index = slots.len();
                slots.push(Slot::Ready { staged: Box::new(executor.stage(call, turn, pool)), generation });
                results.push(None);
                observe(CallEvent::Queued { index, call });
            }
            Incoming::Stream(StreamEvent::Start { slot, id, name }) => {
                // A second start in a slot still streaming (a replayed event): the
                // first call never closed, so it is cut off, not lost.
                if let Some(earlier) = open.insert(slot, slots.len()) {
                    cut_slot(slots, tasks, earlier, false, observe);
                }
                let watch = watch_partial_input(executor, &name, pool);
                slots.push(Slot::Streaming { id, name, input: String::new(), watch });
                results.push(None);
            }
            Incoming::Stream(StreamEvent::Delta { slot, json }) => {
                if let Some(index) = open.get(slot)
                    && let Slot::Streaming { id, input, watch, .. } = &mut slots[index]
                {
                    input.push_str(&json);
                    if let Some(watch) = watch
                        && let Some(snapshot) = watch.scan.advance(input)
                        && let Some(progress) = (watch.hook)(&snapshot)
                    {
                        observe(CallEvent::InputProgress { index, progress: &progress });
                        turn.call(id, &watch.tool, &watch.tool).progress(progress);
                    }
                }
            }
            Incoming::Stream(StreamEvent::End { slot }) => {
                if let Some(index) = open.remove(slot)
                    && let Slot::Streaming { id, name, input, .. } =
                        std::mem::replace(&mut slots[index], Slot::Started { call: placeholder() })
                {
                    let call = CallRef::Shared(Arc::new(ToolCall::new(id, name, input)));
                    stage(executor, slots, tasks, index, call, turn, pool, generation);
                    if let Some(call) = slots[index].call() {
                        observe(CallEvent::Queued { index, call });
                    }
                }
            }
            Incoming::Stream(StreamEvent::Cut { slot }) => {
                if let Some(index) = open.remove(slot) {
                    cut_slot(slots, tasks, index, false, observe);
                }
            }
        }
    }
}

/// Why a call that has not started must not start: the turn is cancelled, or a
/// sibling in its batch failed in a way that makes the rest moot.
fn skip_reason(turn: &TurnContext, aborted_by: Option<&str>) -> Option<String> {
    if turn.cancellation().is_cancelled() {
        return Some("cancelled before it started".to_owned());
    }
    aborted_by.map(|tool| format!("cancelled before it started, because a `{tool}` call in the same batch failed"))
}

/// A call that stands in while a slot changes state (never seen outside).
fn placeholder<'c>() -> CallRef<'c> {
    static NONE: std::sync::LazyLock<ToolCall> = std::sync::LazyLock::new(|| ToolCall::new("", "", ""));
    CallRef::Borrowed(&NONE)
}

/// What a call says if the scheduler ended without its result (it cannot: every call
/// is answered; this keeps a bug from becoming a panic).
fn unanswered(call: Option<&ToolCall>) -> ToolResult {
    let (id, name) = call.map_or(("", ""), |c| (&*c.id, c.name.as_str()));
    error_result(id, name, ErrorKind::Cancelled, "the turn ended before this call was answered")
}

/// What a call that was cut off says.
fn cut_result(id: &str, name: &str, cancelled: bool) -> ToolResult {
    if cancelled {
        error_result(
            id,
            name,
            ErrorKind::Cancelled,
            "the turn was cancelled while the model was still writing this call's arguments",
        )
    } else {
        error_result(
            id,
            name,
            ErrorKind::InvalidInput,
            "the model's response ended before this call's arguments were complete (the stream was cut off), so it \
             was not run; send the call again in full",
        )
    }
}

/// An error result for a call that never ran.
fn error_result(id: &str, name: &str, kind: ErrorKind, why: &str) -> ToolResult {
    ToolResult {
        call_id: Arc::from(id),
        tool: Arc::from(name),
        output: crate::ToolOutput::error(format!("{name}: {why}")),
        error: Some(kind),
        summary: None,
        truncated: false,
        duration: std::time::Duration::ZERO,
    }
}

/// Answers a call the stream cut off: its result is ready at once, and it never runs.
fn cut_slot(
    slots: &mut [Slot<'_>],
    tasks: &mut Tasks<'_>,
    index: usize,
    cancelled: bool,
    observe: &mut impl FnMut(CallEvent<'_>),
) {
    let Slot::Streaming { id, name, input, .. } =
        std::mem::replace(&mut slots[index], Slot::Started { call: placeholder() })
    else {
        return;
    };
    let result = cut_result(&id, &name, cancelled);
    let call = Arc::new(ToolCall::new(id, name, input));
    observe(CallEvent::Queued { index, call: &call });
    slots[index] = Slot::Cut { call: CallRef::Shared(call) };
    tasks.push(index, false, Box::pin(async move { result }));
}

/// Turns a complete call into a task that stages itself on its first poll and then
/// waits for the scheduler.
#[allow(clippy::too_many_arguments)]
fn stage<'s>(
    executor: &'s Executor,
    slots: &mut [Slot<'s>],
    tasks: &mut Tasks<'s>,
    index: usize,
    call: CallRef<'s>,
    turn: &TurnContext,
    pool: Option<&'s ToolPool>,
    generation: u64,
) {
    let flags = Arc::new(OnceLock::new());
    let (go, wait) = oneshot::channel();
    let reported = Arc::clone(&flags);
    let snapshot = turn.clone();
    let owned = call.clone();
    let task = async move {
        let call = owned;
        let staged = executor.stage(&call, &snapshot, pool);
        let _ = reported.set(staged.flags());
        match wait.await {
            Ok(Go::Run(None)) => executor.finish(staged).await,
            Ok(Go::Run(Some(newer))) => {
                // Context changed since staging: parse again against the new turn.
                drop(staged);
                executor.finish(executor.stage(&call, &newer, pool)).await
            }
            Ok(Go::Skip(kind, why)) => executor.finish_unstarted(staged, kind, &why).await,
            Err(_) => executor.finish_unstarted(staged, ErrorKind::Cancelled, "cancelled before it started").await,
        }
    };
    tasks.push(index, true, Box::pin(task));
    slots[index] = Slot::Staged { call, flags, go, generation };
}

/// The partial-input hook of the tool a streaming call names, if it has one and
/// may be called here.
fn watch_partial_input(executor: &Executor, name: &str, pool: Option<&ToolPool>) -> Option<Box<Watch>> {
    let resolved = executor.registry().resolve(name).ok()?;
    let hook = resolved.tool().partial_input()?;
    if pool.is_some_and(|pool| !pool.contains(resolved.name())) {
        return None;
    }
    Some(Box::new(Watch { hook, tool: resolved.shared_name(), scan: PartialObject::new() }))
}

#[cfg(test)]
mod tests {
    use super::source::BATCH;
    use super::{Batched, Incoming, OpenSlots, Source};
    use crate::StreamEvent;
    use std::future::poll_fn;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::{Context, Wake, Waker};
    use tokio::sync::mpsc;

    /// A waker that remembers being woken.
    struct Woken(AtomicBool);

    impl Wake for Woken {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    fn fragment(n: usize) -> StreamEvent {
        StreamEvent::Delta { slot: 0, json: n.to_string() }
    }

    fn number(input: Incoming<'_>) -> usize {
        match input {
            Incoming::Stream(StreamEvent::Delta { json, .. }) => json.parse().unwrap(),
            _ => panic!("not a fragment"),
        }
    }

    #[test]
    fn batches_keep_every_event_in_order_and_wake_for_late_ones() {
        // Built by hand: the crate's tokio has no macros without `mcp-stdio`.
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(batches_in_order());
    }

    async fn batches_in_order() {
        let (tx, rx) = mpsc::channel(4 * BATCH);
        let mut source = Batched::new(rx);
        // More than two batches, taken by both ways the scheduler takes them.
        for n in 0..(2 * BATCH + 7) {
            tx.send(fragment(n)).await.unwrap();
        }
        let mut seen = Vec::new();
        while seen.len() < 2 * BATCH + 7 {
            let input = if seen.len() % 3 == 0 {
                poll_fn(|cx| source.poll_next(cx)).await.unwrap()
            } else {
                source.try_next().unwrap()
            };
            seen.push(number(input));
        }
        assert_eq!(seen, (0..2 * BATCH + 7).collect::<Vec<_>>());
        // Empty now: `try_next` has nothing (its no-op waker replaced the task's).
        assert!(source.try_next().is_none());
        // A waiting `poll_next` is woken by an event sent later: the waker it was
        // given is the one the channel holds, not `try_next`'s no-op one.
        let woken = Arc::new(Woken(AtomicBool::new(false)));
        let waker = Waker::from(Arc::clone(&woken));
        assert!(source.poll_next(&mut Context::from_waker(&waker)).is_pending());
        tx.send(fragment(7_000)).await.unwrap();
        assert!(woken.0.load(Ordering::SeqCst), "the waiting poll was not woken");
        assert_eq!(number(poll_fn(|cx| source.poll_next(cx)).await.unwrap()), 7_000);
        drop(tx);
        // The sender is gone: closed.
        assert!(poll_fn(|cx| source.poll_next(cx)).await.is_none());
        assert!(source.try_next().is_none());
    }

    #[test]
    fn the_kept_lookup_never_outlives_a_change() {
        let mut open = OpenSlots::default();
        assert_eq!(open.insert(0, 10), None);
        assert_eq!(open.insert(1, 11), None);
        // Fragments of two calls interleaved, then a run of one.
        for _ in 0..3 {
            assert_eq!(open.get(0), Some(10));
            assert_eq!(open.get(1), Some(11));
        }
        assert_eq!(open.get(1), Some(11));
        // A replayed start in slot 1 moves it to a new call; its end removes it.
        assert_eq!(open.insert(1, 12), Some(11));
        assert_eq!(open.get(1), Some(12));
        assert_eq!(open.remove(1), Some(12));
        assert_eq!(open.get(1), None);
        assert_eq!(open.get(0), Some(10));
        assert_eq!(open.drain().collect::<Vec<_>>(), vec![10]);
        assert_eq!(open.get(0), None);
    }
}
