//! One run of a child: the loop, its watchdog, the `SubagentStop` hooks, an output
//! schema's check, and the bookkeeping when it ends, whatever way it ends.

use super::handle::{AgentStatus, Handle};
use super::observer::SubagentEvent;
use super::runtime::Subagents;
use super::worktree::Worktree;
use crate::agent::{Agent, AgentError, AgentObserver, ModelError, Stop};
use crate::orchestrate::CallEvent;
use crate::provider::{Api, Conversation, Usage};
use crate::{ErrorKind, ToolResult, TurnContext};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A running slot, given back when the run ends, even if its future is dropped.
pub(crate) struct Slot {
    runtime: Option<Subagents>,
}

impl Slot {
    /// A slot already taken with [`Subagents::take_slot`].
    pub(crate) fn taken(runtime: Subagents) -> Slot {
        Slot { runtime: Some(runtime) }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.inner.running.fetch_sub(1, Ordering::SeqCst);
            runtime.inner.ended.notify_waiters();
        }
    }
}

/// Marks the run ended when dropped: a run whose future is dropped (its parent's
/// call cancelled past the grace) ends stopped, never "running" forever.
struct Ending {
    runtime: Subagents,
    handle: Arc<Handle>,
    _slot: Slot,
}

impl Drop for Ending {
    fn drop(&mut self) {
        let report = {
            let mut state = self.handle.state();
            if state.status == AgentStatus::Running {
                state.status = AgentStatus::Stopped;
                state.reason.get_or_insert_with(|| "its run was abandoned".into());
            }
            let ran = state.run_started.elapsed();
            state.busy += ran;
            state.run_started = Instant::now();
            drop(state);
            self.handle.report()
        };
        self.handle.token.cancel();
        self.handle.ended.send_modify(|n| *n += 1);
        self.runtime.inner.observer.event(&self.handle.scope, SubagentEvent::Finished(&report));
        self.runtime.inner.ended.notify_waiters();
    }
}

/// Runs `agent` over `conversation` until it finishes, is stopped or fails.
pub(crate) async fn drive(
    runtime: Subagents,
    handle: Arc<Handle>,
    agent: Agent,
    mut conversation: Conversation,
    mut turn: TurnContext,
    slot: Slot,
    extras: Extras,
) {
    let Extras { worktree, progress, call_id } = extras;
    // A resumed run goes on in the worktree it kept, if any.
    let resumed = handle.state().conversation.is_some();
    let _ending = Ending { runtime: runtime.clone(), handle: Arc::clone(&handle), _slot: slot };
    let scope = handle.scope.clone();
    runtime.inner.observer.event(
        &scope,
        SubagentEvent::Started {
            description: &handle.description,
            call_id: call_id.as_deref(),
            background: scope.background,
            resumed,
        },
    );
    let watchdog = tokio::spawn(watch(Arc::clone(&handle), runtime.inner.limits.clone()));
    let limits = &runtime.inner.limits;
    let mut blocks = 0;
    let mut schema_retried = false;
    let (status, reason) = loop {
        let mut observer =
            ChildObserver { runtime: &runtime, handle: &handle, text: String::new(), progress: progress.as_deref() };
        let result = agent.resume(conversation.clone(), &mut turn, &mut observer).await;
        let partial = observer.text;
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(AgentError::Model { error, conversation: kept, .. }) => {
                conversation = *kept;
                keep_text(&handle, &partial, "");
                break (AgentStatus::Failed, Some(format!("the model could not be asked: {error}")));
            }
            Err(error) => {
                keep_text(&handle, &partial, "");
                break (AgentStatus::Failed, Some(error.to_string()));
            }
        };
        conversation = outcome.conversation;
        keep_text(&handle, &partial, &outcome.text);
        match outcome.stop {
            Stop::Finished { .. } => {}
            Stop::MaxResponses => {
                break (
                    AgentStatus::Stopped,
                    Some(format!("it reached its limit of {} turns", agent_turns(&handle, limits))),
                );
            }
            _ => break (AgentStatus::Stopped, None),
        }
        // A message sent while it ran: it goes on with it.
        let pending = std::mem::take(&mut handle.state().pending);
        if !pending.is_empty() {
            conversation.push_user(&pending.join("\n\n"));
            continue;
        }
        if blocks < limits.stop_hook_blocks
            && let Some(reason) = stop_hooks(&runtime, &handle, &turn, blocks > 0, &outcome.text).await
        {
            blocks += 1;
            conversation.push_user(&reason);
            continue;
        }
        if let Some(schema) = &handle.definition.output_schema {
            match check_answer(schema, &outcome.text) {
                Ok(value) => handle.state().structured = Some(value),
                Err(why) if !schema_retried => {
                    schema_retried = true;
                    conversation.push_user(&format!(
                        "Your final answer must be one JSON value matching this schema, and nothing else: {schema}\n\
                         It did not: {why}. Answer again."
                    ));
                    continue;
                }
                Err(why) => {
                    break (AgentStatus::Failed, Some(format!("its answer does not match the output schema: {why}")));
                }
            }
        }
        break (AgentStatus::Completed, None);
    };
    watchdog.abort();
    let kept = match worktree {
        Some(worktree) => worktree.finish().await,
        None => None,
    };
    let mut state = handle.state();
    if kept.is_some() {
        state.worktree = kept;
    }
    state.conversation = Some(conversation);
    state.status = status;
    if status == AgentStatus::Stopped && state.reason.is_none() {
        state.reason = Some(reason.unwrap_or_else(|| "stopped: its parent's turn was cancelled".into()));
    } else if let Some(reason) = reason {
        state.reason = Some(reason);
    }
    if status == AgentStatus::Completed {
        state.reason = None;
    }
}

/// The `SubagentStop` hooks (the settings', then the definition's own): the first
/// that asks to go on gives the reason.
async fn stop_hooks(
    runtime: &Subagents,
    handle: &Handle,
    turn: &TurnContext,
    active: bool,
    last: &str,
) -> Option<String> {
    let session = turn.extensions().get::<crate::SessionInfo>();
    for hooks in runtime.inner.hooks.iter().chain(&handle.own_hooks) {
        let verdict = hooks.subagent_stop(&handle.scope, session, turn.cwd(), handle.mode.name(), active, last).await;
        if let toolwright_permissions::StopVerdict::Continue { reason } = verdict {
            return Some(reason);
        }
    }
    None
}

fn agent_turns(handle: &Handle, limits: &super::Limits) -> usize {
    handle.definition.max_turns.map_or(limits.max_turns, |n| n as usize)
}

/// The report text: the final response's, or (stopped or failed with none) all it
/// said in the run, so partial work is kept.
fn keep_text(handle: &Handle, said: &str, last: &str) {
    let mut state = handle.state();
    state.text = if last.trim().is_empty() { said.trim().to_owned() } else { last.to_owned() };
}

/// The final answer as JSON matching `schema`: the whole text, or its last fenced
/// block.
fn check_answer(schema: &serde_json::Value, text: &str) -> Result<serde_json::Value, String> {
    let trimmed = text.trim();
    let candidate = match trimmed.rfind("```") {
        Some(end) if end > 0 => {
            let before = &trimmed[..end];
            let start = before.rfind("```").map_or(0, |s| s + 3);
            let block = &before[start..];
            block.strip_prefix("json").unwrap_or(block).trim()
        }
        _ => trimmed,
    };
    let validator = crate::validate::Validator::new(schema);
    validator.check(candidate.as_bytes()).map_err(|e| e.to_string())?;
    serde_json::from_str(candidate).map_err(|e| e.to_string())
}

/// Stops the run past its wall clock, or when it stalls (no model event while no
/// call of its runs).
async fn watch(handle: Arc<Handle>, limits: super::Limits) {
    let started = Instant::now();
    let shortest = [limits.wall_clock, limits.stall].into_iter().flatten().min();
    let Some(shortest) = shortest else { return };
    let tick = (shortest / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        tokio::select! {
            () = handle.token.cancelled() => return,
            () = tokio::time::sleep(tick) => {}
        }
        if let Some(wall) = limits.wall_clock
            && started.elapsed() >= wall
        {
            handle.stop(format!("it ran past its wall-clock limit of {} s", wall.as_secs_f64()));
            return;
        }
        if let Some(stall) = limits.stall {
            let idle = {
                let state = handle.state();
                (state.in_flight == 0).then(|| state.last_activity.elapsed())
            };
            if idle.is_some_and(|idle| idle >= stall) {
                handle.stop(format!("it stalled: nothing happened for {} s", stall.as_secs_f64()));
                return;
            }
        }
    }
}

/// The child's loop observer: keeps its counts, usage and budgets, and passes each
/// event on, tagged.
struct ChildObserver<'r> {
    runtime: &'r Subagents,
    handle: &'r Arc<Handle>,
    /// All it said in this run.
    text: String,
    /// Where the parent's call reports progress (a foreground child's).
    progress: Option<&'r (dyn Fn(String) + Send + Sync)>,
}

/// What a run may have besides its agent: a worktree to finish, and where to report
/// progress.
#[derive(Default)]
pub(crate) struct Extras {
    pub(crate) worktree: Option<Worktree>,
    pub(crate) progress: Option<Reporter>,
    /// The call that started or resumed the run.
    pub(crate) call_id: Option<String>,
}

/// Reports a line of progress on the agent call that started the child.
pub(crate) type Reporter = Arc<dyn Fn(String) + Send + Sync>;

impl ChildObserver<'_> {
    fn touch(&self) {
        self.handle.state().last_activity = Instant::now();
    }
}

impl AgentObserver for ChildObserver<'_> {
    fn response_started(&mut self, n: usize, _api: Api) {
        self.touch();
        self.runtime.inner.observer.event(&self.handle.scope, SubagentEvent::Response { n });
    }

    fn text(&mut self, text: &str) {
        self.touch();
        self.text.push_str(text);
        self.runtime.inner.observer.event(&self.handle.scope, SubagentEvent::Text(text));
    }

    fn call(&mut self, event: &CallEvent<'_>) {
        match event {
            CallEvent::Started { call, .. } => {
                if let Some(report) = self.progress {
                    report(format!(
                        "{} {}: {}",
                        self.handle.scope.agent_type,
                        self.handle.scope.id,
                        call.summary_line()
                    ));
                }
                {
                    let mut state = self.handle.state();
                    state.tool_calls += 1;
                    state.tree_tool_calls += 1;
                    state.in_flight += 1;
                    state.last_activity = Instant::now();
                }
                for ancestor in self.runtime.ancestors(self.handle) {
                    ancestor.state().tree_tool_calls += 1;
                }
            }
            CallEvent::Finished { call, result, .. } => {
                if let Some(report) = self.progress {
                    let how = if result.output.is_error { "failed" } else { "done" };
                    report(format!(
                        "{} {}: {} {how}",
                        self.handle.scope.agent_type,
                        self.handle.scope.id,
                        result.summary_line(call)
                    ));
                }
                let mut state = self.handle.state();
                state.in_flight = state.in_flight.saturating_sub(1);
                state.last_activity = Instant::now();
                if let Some(line) = refusal(result) {
                    state.denied.push(line);
                }
            }
            _ => {}
        }
        self.runtime.inner.observer.event(&self.handle.scope, SubagentEvent::Call(event));
    }

    fn usage(&mut self, _n: usize, usage: &Usage) {
        let own = {
            let mut state = self.handle.state();
            state.usage.add(usage);
            state.tree_usage.add(usage);
            state.last_activity = Instant::now();
            state.usage.total_tokens()
        };
        for ancestor in self.runtime.ancestors(self.handle) {
            ancestor.state().tree_usage.add(usage);
        }
        self.runtime.add_usage(usage);
        self.runtime.inner.observer.event(&self.handle.scope, SubagentEvent::Usage(usage));
        let limits = &self.runtime.inner.limits;
        if let Some(budget) = limits.agent_tokens
            && own >= budget
        {
            self.handle.stop(format!("it used {own} tokens, its budget is {budget}"));
        }
        if let Some(budget) = limits.tree_tokens {
            let root = self.runtime.root_of(self.handle);
            let used = root.state().tree_usage.total_tokens();
            if used >= budget {
                let reason = format!("its tree used {used} tokens, the budget is {budget}");
                self.runtime.stop(&root.scope.id, &reason);
            }
        }
    }

    fn response_finished(&mut self, _n: usize, _results: &[ToolResult]) {
        self.touch();
    }

    fn retrying(&mut self, _attempt: usize, _wait: Duration, _error: &ModelError) {
        self.touch();
    }
}

/// A refused call, as the parent's report lists it.
fn refusal(result: &ToolResult) -> Option<String> {
    if !matches!(result.error, Some(ErrorKind::Denied | ErrorKind::HookDenied)) {
        return None;
    }
    let text = result.output.text_content();
    let first = text.lines().next().unwrap_or("").trim();
    Some(if first.starts_with(&*result.tool) { first.to_owned() } else { format!("{}: {first}", result.tool) })
}
