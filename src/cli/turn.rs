//! One assistant turn's tool calls through the streaming executor, traced. Shared
//! by `replay` (a recorded stream) and `agent` (a live one).

use super::trace::Trace;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;
use toolwright::orchestrate::{CallEvent, Orchestrator};
use toolwright::streaming::StreamEvent;
use toolwright::{ToolCall, ToolResult, TurnContext};

/// The calls of a stream so far, in the orchestrator's order (the order they
/// started streaming), with their inputs as far as they have arrived.
#[derive(Default)]
pub struct CallLog {
    calls: Vec<ToolCall>,
    by_slot: HashMap<usize, usize>,
}

impl CallLog {
    /// Notes an event before it goes to the executor.
    pub fn record(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::Start { slot, id, name } => {
                self.by_slot.insert(*slot, self.calls.len());
                self.calls.push(ToolCall::new(id.as_str(), name.as_str(), String::new()));
            }
            StreamEvent::Delta { slot, json } => {
                if let Some(&i) = self.by_slot.get(slot) {
                    self.calls[i].input.push_str(json);
                }
            }
            StreamEvent::End { .. } | StreamEvent::Cut { .. } => {}
        }
    }

    fn call(&self, index: usize) -> ToolCall {
        self.calls.get(index).cloned().unwrap_or_else(|| ToolCall::new("?", "?", ""))
    }
}

pub type SharedLog = Arc<Mutex<CallLog>>;

fn lock(log: &SharedLog) -> std::sync::MutexGuard<'_, CallLog> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the calls arriving on `events` (each already recorded in `log`) and traces
/// them; returns their results in call order.
pub async fn run_calls(
    orchestrator: &Orchestrator,
    turn: &mut TurnContext,
    trace: &Trace,
    log: &SharedLog,
    events: mpsc::Receiver<StreamEvent>,
) -> Vec<ToolResult> {
    let results = orchestrator
        .run_streaming(events, turn, None, |event| match event {
            CallEvent::Started { index, concurrency_safe } => {
                let call = lock(log).call(index);
                trace.started(&call, &call.summary_line(), concurrency_safe);
            }
            CallEvent::Finished { index, result } => trace.finished(&lock(log).call(index), result),
            _ => {}
        })
        .await;
    trace.end_batch();
    results
}

/// The executor the commands share: every linked tool, `policy`, and questions
/// answered by `answer` (`--yes`/`--deny`) or asked on the terminal.
pub fn executor(
    registry: Arc<toolwright::Registry>,
    policy: impl toolwright::permission::PermissionPolicy + 'static,
    answer: Option<bool>,
    trace: &Arc<Trace>,
) -> toolwright::Executor {
    let approver = super::trace::PromptApprover { answer, trace: Arc::clone(trace) };
    toolwright::Executor::builder(registry).policy(policy).approver(approver).build()
}

/// The multi-threaded runtime the commands run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))
}

/// A session's turn in `workspace` (the built-ins' session state included) whose
/// progress reports go to `trace`. Await the handle after dropping the turn: it
/// ends when the last report is printed. Call inside the runtime.
pub fn traced_turn(workspace: &std::path::Path, trace: &Arc<Trace>) -> (TurnContext, tokio::task::JoinHandle<()>) {
    let (sink, mut reports) = toolwright::ProgressSink::channel(256);
    let trace = Arc::clone(trace);
    let printer = tokio::spawn(async move {
        while let Some(event) = reports.recv().await {
            trace.progress(&event);
        }
    });
    let turn = TurnContext::new(workspace).with_extensions(toolwright::builtin::session()).with_progress(sink);
    (turn, printer)
}
