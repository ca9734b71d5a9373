//! Orchestration: a turn's calls split into batches by their per-input flags.
//! Consecutive concurrency-safe calls share a batch and run concurrently (bounded);
//! every other call runs alone and never overlaps with anything.
//!
//! Calls run as futures inside the orchestrator's own future (no spawned tasks), so
//! when [`Orchestrator::run`] returns, nothing it started is still running, and
//! dropping its future drops every call.

use crate::call::{ErrorKind, ToolCall, ToolResult};
use crate::context::TurnContext;
use crate::pipeline::{Executor, Staged};
use crate::registry::ToolPool;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

/// The default bound on concurrent calls in a batch.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;
/// Overrides the default bound on concurrent calls.
pub const MAX_CONCURRENCY_ENV: &str = "TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY";

/// What the orchestrator reports while a turn runs, for UIs and logs.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallEvent<'a> {
    /// A batch is about to run: the indexes of its calls, in call order.
    Batch {
        /// Call indexes.
        calls: &'a [usize],
    },
    /// A call started running.
    Started {
        /// Its index in the turn.
        index: usize,
        /// Whether its input made it concurrency-safe: consecutive safe calls form
        /// one batch and may overlap; an unsafe call runs alone.
        concurrency_safe: bool,
    },
    /// A tool that opted in to partial input reported on a call whose input is
    /// still streaming (see [`crate::partial`]). The report also goes to the turn's
    /// progress sink, tagged with the call id.
    InputProgress {
        /// Its index in the turn.
        index: usize,
        /// The tool's report.
        progress: &'a crate::context::Progress,
    },
    /// A streamed call's input is complete; it waits for its turn to run.
    Queued {
        /// Its index in the turn.
        index: usize,
    },
    /// A call has its result, and so do all calls before it: it can be handed on in
    /// call order.
    Yielded {
        /// Its index in the turn.
        index: usize,
    },
    /// A call has its result.
    Finished {
        /// Its index in the turn.
        index: usize,
        /// The result.
        result: &'a ToolResult,
    },
}

/// Schedules a turn's calls. See the module docs.
#[derive(Debug, Clone)]
pub struct Orchestrator {
    pub(crate) executor: Arc<Executor>,
    pub(crate) max_concurrency: usize,
    pub(crate) abort_on_failure_of: Vec<String>,
}

impl Orchestrator {
    /// An orchestrator over `executor`, with at most [`DEFAULT_MAX_CONCURRENCY`] calls
    /// at once (or `TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY`), and a failing `shell`
    /// call stopping its queued siblings.
    pub fn new(executor: Arc<Executor>) -> Self {
        Orchestrator {
            executor,
            max_concurrency: max_concurrency_from_env(),
            abort_on_failure_of: vec!["shell".into()],
        }
    }

    /// At most `n` (at least 1) calls of a batch run at once.
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n.max(1);
        self
    }

    /// When a call of one of these tools fails, its batch's calls that have not
    /// started yet are cancelled (default: `shell`, whose failure usually makes the
    /// rest moot). An empty list turns this off.
    pub fn abort_siblings_on_failure_of<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.abort_on_failure_of = tools.into_iter().map(Into::into).collect();
        self
    }

    /// The bound on concurrent calls.
    pub fn concurrency(&self) -> usize {
        self.max_concurrency
    }

    /// Runs a turn's calls; returns their results in call order. Context modifiers
    /// are applied to `turn`, in call order, after each batch.
    pub async fn run(&self, calls: &[ToolCall], turn: &mut TurnContext) -> Vec<ToolResult> {
        self.run_observed(calls, turn, None, |_| {}).await
    }

    /// Like [`run`](Self::run), limited to the tools of `pool` (and to read-only calls
    /// in plan mode), reporting each batch, start and result to `observe` as it
    /// happens (results in completion order).
    pub async fn run_observed(
        &self,
        calls: &[ToolCall],
        turn: &mut TurnContext,
        pool: Option<&ToolPool>,
        mut observe: impl FnMut(CallEvent<'_>),
    ) -> Vec<ToolResult> {
        let mut results: Vec<Option<ToolResult>> = (0..calls.len()).map(|_| None).collect();
        let mut next = 0;
        // A call staged while looking for the end of a batch, kept for the next one.
        let mut carried: Option<(usize, Staged<'_>)> = None;
        while next < calls.len() || carried.is_some() {
            let (first, staged) = match carried.take() {
                Some(c) => c,
                None => {
                    next += 1;
                    (next - 1, self.executor.stage(&calls[next - 1], turn, pool))
                }
            };
            let mut batch = vec![(first, staged)];
            if is_safe(&batch[0].1) {
                while next < calls.len() {
                    let staged = self.executor.stage(&calls[next], turn, pool);
                    next += 1;
                    if is_safe(&staged) {
                        batch.push((next - 1, staged));
                    } else {
                        carried = Some((next - 1, staged));
                        break;
                    }
                }
            }
            let indexes: Vec<usize> = batch.iter().map(|(i, _)| *i).collect();
            observe(CallEvent::Batch { calls: &indexes });
            self.run_batch(batch, turn, &mut results, &mut observe).await;
            let modified = self.apply_modifiers(&indexes, &mut results, turn);
            // The carried call was staged before this batch's changes; stage it again.
            if modified && let Some((i, _)) = carried.take() {
                carried = Some((i, self.executor.stage(&calls[i], turn, pool)));
            }
        }
        results.into_iter().map(|r| r.expect("every call gets a result")).collect()
    }

    async fn run_batch<'a>(
        &'a self,
        batch: Vec<(usize, Staged<'a>)>,
        turn: &TurnContext,
        results: &mut [Option<ToolResult>],
        observe: &mut impl FnMut(CallEvent<'_>),
    ) {
        type Running<'f> = (usize, Pin<Box<dyn Future<Output = ToolResult> + Send + 'f>>);
        let mut queue: VecDeque<(usize, Staged<'a>)> = batch.into();
        let mut running: Vec<Running<'a>> = Vec::with_capacity(self.max_concurrency.min(queue.len()));
        let mut aborted_by: Option<String> = None;
        loop {
            while running.len() < self.max_concurrency
                && let Some((index, staged)) = queue.pop_front()
            {
                let stop = skip_reason(turn, aborted_by.as_deref()).map(|why| (ErrorKind::Cancelled, why));
                match stop {
                    Some((kind, why)) => {
                        let result = self.executor.finish_unstarted(staged, kind, &why).await;
                        observe(CallEvent::Finished { index, result: &result });
                        results[index] = Some(result);
                    }
                    None => {
                        observe(CallEvent::Started { index, concurrency_safe: is_safe(&staged) });
                        running.push((index, Box::pin(self.executor.finish(staged))));
                    }
                }
            }
            if running.is_empty() {
                break;
            }
            let (slot, result) = poll_fn(|cx| {
                for (slot, (_, future)) in running.iter_mut().enumerate() {
                    if let Poll::Ready(result) = future.as_mut().poll(cx) {
                        return Poll::Ready((slot, result));
                    }
                }
                Poll::Pending
            })
            .await;
            let (index, _) = running.swap_remove(slot);
            if result.error.is_some() && self.abort_on_failure_of.iter().any(|t| **t == *result.tool) {
                aborted_by.get_or_insert_with(|| result.tool.to_string());
            }
            observe(CallEvent::Finished { index, result: &result });
            results[index] = Some(result);
        }
    }

    /// Applies the batch's context modifiers in call order; whether there were any.
    fn apply_modifiers(&self, indexes: &[usize], results: &mut [Option<ToolResult>], turn: &mut TurnContext) -> bool {
        let mut any = false;
        for &i in indexes {
            if let Some(modifier) = results[i].as_mut().and_then(|r| r.output.modifier.take()) {
                turn.apply(&modifier);
                any = true;
            }
        }
        any
    }
}

/// Why a call that has not started must not start: the turn is cancelled, or a
/// sibling in its batch failed in a way that makes the rest moot.
pub(crate) fn skip_reason(turn: &TurnContext, aborted_by: Option<&str>) -> Option<String> {
    if turn.cancellation().is_cancelled() {
        return Some("cancelled before it started".to_owned());
    }
    aborted_by.map(|tool| format!("cancelled before it started, because a `{tool}` call in the same batch failed"))
}

pub(crate) fn is_safe(staged: &Staged<'_>) -> bool {
    staged.flags().is_some_and(|f| f.concurrency_safe)
}

/// `TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY` if it is a positive whole number, else the
/// default (a bad value is logged, not fatal).
fn max_concurrency_from_env() -> usize {
    match std::env::var(MAX_CONCURRENCY_ENV) {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                tracing::warn!(
                    "{MAX_CONCURRENCY_ENV}={v:?} is not a positive whole number; using {DEFAULT_MAX_CONCURRENCY}"
                );
                DEFAULT_MAX_CONCURRENCY
            }
        },
        Err(_) => DEFAULT_MAX_CONCURRENCY,
    }
}
