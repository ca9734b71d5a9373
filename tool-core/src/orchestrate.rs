//! Orchestration: a turn's calls split into batches by their per-input flags.
//! Consecutive concurrency-safe calls share a batch and run concurrently (bounded);
//! every other call runs alone and never overlaps with anything.
//!
//! Whole calls ([`Orchestrator::run`]) and streamed ones
//! ([`Orchestrator::run_streaming`]) go through the same scheduler: the batch rules,
//! the abort rules and cancellation are in one place. Calls run as futures inside the
//! orchestrator's own future (no spawned tasks), so when a run returns, nothing it
//! started is still running, and dropping its future drops every call.

use crate::TurnContext;
use crate::pipeline::Executor;
use crate::registry::ToolPool;
use crate::{ToolCall, ToolResult};
use std::sync::Arc;

/// The default bound on concurrent calls in a batch.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;
/// Overrides the default bound on concurrent calls.
pub const MAX_CONCURRENCY_ENV: &str = "TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY";

/// What the orchestrator reports while a turn runs, for UIs and logs. Each event about
/// a call carries the call (its id, name and complete input), so a UI needs no record
/// of its own.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallEvent<'a> {
    /// A batch is about to run: the indexes of its calls, in call order. (In a stream,
    /// a safe call that completes while the batch runs joins it.)
    Batch {
        /// Call indexes.
        calls: &'a [usize],
    },
    /// A call's input is complete (or it was cut off, and is answered without
    /// running); it waits for its turn to run.
    Queued {
        /// Its index in the turn.
        index: usize,
        /// The call.
        call: &'a ToolCall,
    },
    /// A call started running.
    Started {
        /// Its index in the turn.
        index: usize,
        /// The call.
        call: &'a ToolCall,
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
        progress: &'a crate::progress::Progress,
    },
    /// A call has its result.
    Finished {
        /// Its index in the turn.
        index: usize,
        /// The call.
        call: &'a ToolCall,
        /// The result.
        result: &'a ToolResult,
    },
    /// A call has its result, and so do all calls before it: it can be handed on in
    /// call order.
    Yielded {
        /// Its index in the turn.
        index: usize,
        /// The call.
        call: &'a ToolCall,
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

    /// The executor the calls go through (its registry holds the tools).
    pub fn executor(&self) -> &Arc<Executor> {
        &self.executor
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
        observe: impl FnMut(CallEvent<'_>),
    ) -> Vec<ToolResult> {
        self.schedule(crate::schedule::Calls(calls.iter()), turn, pool, observe).await
    }
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
