//! One assistant turn's tool calls through the streaming executor, traced. Shared
//! by `replay` (a recorded stream) and `agent` (a live one).

use super::trace::Trace;
use std::sync::Arc;
use tokio::sync::mpsc;
use toolwright::orchestrate::{CallEvent, Orchestrator};
use toolwright::streaming::StreamEvent;
use toolwright::{ToolResult, TurnContext};

/// Runs the calls arriving on `events` and traces them; returns their results in
/// call order.
pub async fn run_calls(
    orchestrator: &Orchestrator,
    turn: &mut TurnContext,
    trace: &Trace,
    events: mpsc::Receiver<StreamEvent>,
) -> Vec<ToolResult> {
    let results = orchestrator
        .run_streaming(events, turn, None, |event| match event {
            CallEvent::Started { call, concurrency_safe, .. } => {
                trace.started(call, &call.summary_line(), concurrency_safe)
            }
            CallEvent::Finished { call, result, .. } => trace.finished(call, result),
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

/// Runs `work` on the multi-threaded runtime the commands share, with the stop
/// signals watched (see [`super::stop`]). The runtime is then shut down without
/// waiting for blocked reads (a terminal's stdin, a pipe an escaped process holds).
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;
    let out = runtime.block_on(async {
        super::stop::watch()?;
        Ok::<_, String>(work.await)
    })?;
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(out)
}

/// A session's turn in `workspace` (the built-ins' session state included) whose
/// progress reports go to `trace`, cancelled by a stop signal. Await the handle after dropping the turn: it
/// ends when the last report is printed. Call inside the runtime.
pub fn traced_turn(workspace: &std::path::Path, trace: &Arc<Trace>) -> (TurnContext, tokio::task::JoinHandle<()>) {
    let (sink, mut reports) = toolwright::ProgressSink::channel(256);
    let trace = Arc::clone(trace);
    let printer = tokio::spawn(async move {
        while let Some(event) = reports.recv().await {
            trace.progress(&event);
        }
    });
    let turn = TurnContext::new(workspace)
        .with_extensions(toolwright::builtin::session())
        .with_progress(sink)
        .with_cancellation(super::stop::token());
    (turn, printer)
}

/// The workspace a command runs in: `--cwd`, canonical and a directory, or the
/// current directory.
pub fn workspace_dir(cwd: Option<&std::path::Path>) -> Result<std::path::PathBuf, String> {
    let Some(dir) = cwd else {
        return std::env::current_dir().map_err(|e| format!("the current directory: {e}"));
    };
    let canonical = std::fs::canonicalize(dir).map_err(|e| format!("--cwd {}: {e}", dir.display()))?;
    if !canonical.is_dir() {
        return Err(format!("--cwd {}: not a directory (give the workspace's directory)", dir.display()));
    }
    Ok(canonical)
}
