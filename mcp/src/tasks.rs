//! Long calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663), for clients that declare it: a call still running after a short
//! wait becomes a task the client polls with `tasks/get`, and can stop with
//! `tasks/cancel`; a quick one answers as usual. Which calls are long is not
//! declared anywhere: a background shell, a subagent or a slow fetch show it by
//! running.
//!
//! A task is its caller's: another caller asking for it is told there is no such
//! task, as for an id that never existed.

use rmcp::ErrorData;
use rmcp::model::{DetailedTask, Task};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use toolwright_core::ToolResult;

/// How long a call runs before it becomes a task, unless told otherwise.
pub(crate) const DEFAULT_AFTER: Duration = Duration::from_secs(1);

/// The tasks of one server (all its sessions: a stateless client's polls come on
/// requests of their own).
#[derive(Clone)]
pub(crate) struct Tasks {
    manager: Arc<TaskManager>,
    /// Each task's caller (`None`: an unauthenticated one).
    owners: Arc<Mutex<HashMap<String, Option<String>>>>,
    after: Duration,
}

/// What became of a call that could have become a task.
pub(crate) enum Ran {
    /// It finished in time (or its request was cancelled): answer as usual.
    Early(Result<ToolResult, String>),
    /// It is still running, as this task.
    Task(Task),
}

impl Tasks {
    pub(crate) fn new(after: Duration) -> Tasks {
        Tasks { manager: Arc::new(TaskManager::new()), owners: Arc::default(), after }
    }

    pub(crate) fn with_after(mut self, after: Duration) -> Tasks {
        self.after = after;
        self
    }

    /// Waits for `run` a moment; still running, it becomes a task (cancelled
    /// through `ct` by `tasks/cancel`), and `done` sees its result when it ends.
    pub(crate) async fn run(
        &self,
        run: JoinHandle<ToolResult>,
        ct: CancellationToken,
        request: &CancellationToken,
        caller: Option<String>,
        summary: String,
        done: impl FnOnce(&ToolResult) + Send + 'static,
    ) -> Ran {
        // Until it is a task, the call is its request's: a client that goes away
        // takes it with it, as a call outside a task would go.
        let mut guard = AbortOnDrop(Some(run));
        let Some(running) = guard.0.as_mut() else { return Ran::Early(Err("the call is gone".into())) };
        tokio::select! {
            finished = running => {
                guard.0 = None;
                return Ran::Early(finished.map_err(|e| format!("the call failed: {e}")));
            }
            () = request.cancelled() => {
                ct.cancel();
                return match guard.0.take() {
                    Some(run) => Ran::Early(run.await.map_err(|e| format!("the call failed: {e}"))),
                    None => Ran::Early(Err("the call is gone".into())),
                };
            }
            () = tokio::time::sleep(self.after) => {}
        }
        let Some(mut run) = guard.0.take() else { return Ran::Early(Err("the call is gone".into())) };
        let options = TaskOptions::new().with_status_message(format!("running: {summary}"));
        let task = self.manager.spawn(options, move |context| {
            Box::pin(async move {
                tokio::select! {
                    finished = &mut run => match finished {
                        Ok(result) => {
                            done(&result);
                            Ok(super::convert::to_call_tool_result(result.output))
                        }
                        Err(e) => Err(TaskExit::Error(ErrorData::internal_error(format!("the call failed: {e}"), None))),
                    },
                    () = context.cancelled() => {
                        // The call's commands are killed with its cancellation.
                        ct.cancel();
                        let _ = run.await;
                        Err(TaskExit::Cancelled)
                    }
                }
            })
        });
        self.owners.lock().unwrap_or_else(PoisonError::into_inner).insert(task.task_id.clone(), caller);
        Ran::Task(task)
    }

    /// The task `id`, if `caller` started it.
    pub(crate) fn get(&self, id: &str, caller: Option<&str>) -> Result<DetailedTask, ErrorData> {
        self.owned(id, caller)?;
        self.manager.get_task(id)
    }

    /// Answers to the task's outstanding input requests.
    pub(crate) fn update(
        &self,
        id: &str,
        caller: Option<&str>,
        responses: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) -> Result<(), ErrorData> {
        self.owned(id, caller)?;
        self.manager.update_task(id, responses)
    }

    /// Asks the task to stop.
    pub(crate) fn cancel(&self, id: &str, caller: Option<&str>) -> Result<(), ErrorData> {
        self.owned(id, caller)?;
        self.manager.cancel_task(id)
    }

    fn owned(&self, id: &str, caller: Option<&str>) -> Result<(), ErrorData> {
        let owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        match owners.get(id) {
            Some(owner) if owner.as_deref() == caller => Ok(()),
            // Another caller's task looks like no task at all.
            _ => Err(ErrorData::invalid_params(format!("no task `{id}`"), None)),
        }
    }
}

/// Aborts the call's task when dropped while it still holds it.
struct AbortOnDrop(Option<JoinHandle<ToolResult>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(run) = self.0.take() {
            run.abort();
        }
    }
}
