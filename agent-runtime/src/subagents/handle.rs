//! One agent of the tree: its state while it runs and the report it leaves.

use crate::AgentScope;
use crate::provider::{Conversation, Usage};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};
use toolwright_core::CancellationToken;
use toolwright_core::Profile;
use toolwright_permissions::Mode;

/// How a run ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentStatus {
    /// Still running.
    Running,
    /// The model finished its report.
    Completed,
    /// The model could not be asked, or the run could not start.
    Failed,
    /// Stopped: `task_stop`, the parent's cancellation, or a limit.
    Stopped,
}

impl AgentStatus {
    /// `running`, `completed`, `failed`, `stopped`.
    pub fn name(self) -> &'static str {
        match self {
            AgentStatus::Running => "running",
            AgentStatus::Completed => "completed",
            AgentStatus::Failed => "failed",
            AgentStatus::Stopped => "stopped",
        }
    }
}

/// What a child leaves: the typed result of an agent call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentReport {
    /// How it ended.
    pub status: AgentStatus,
    /// The agent's id.
    pub agent_id: String,
    /// Its type (the definition's name).
    pub agent_type: String,
    /// Its final text, whole (a failed or stopped run's partial text).
    pub text: String,
    /// Whether the parent's model was shown only part of `text`.
    pub truncated: bool,
    /// The structured answer, when the definition gives an output schema.
    pub structured: Option<serde_json::Value>,
    /// The tokens of every response of this agent and its descendants.
    pub usage: Usage,
    /// The tokens of its own responses.
    pub own_usage: Usage,
    /// Its own tool calls.
    pub tool_calls: usize,
    /// Tool calls of it and its descendants.
    pub tree_tool_calls: usize,
    /// From start to end (over every run, when resumed).
    pub duration: Duration,
    /// Its calls that were refused (`tool: why`).
    pub denied: Vec<String>,
    /// Why it stopped early or failed.
    pub reason: Option<String>,
    /// Its transcript, if it keeps one.
    pub transcript: Option<PathBuf>,
    /// The model it ran on.
    pub model: String,
    /// The git worktree it worked in, kept because it changed something
    /// (`isolation: worktree`; one it left unchanged is removed).
    pub worktree: Option<PathBuf>,
}

pub(crate) struct State {
    pub(crate) status: AgentStatus,
    pub(crate) text: String,
    pub(crate) structured: Option<serde_json::Value>,
    pub(crate) usage: Usage,
    pub(crate) tree_usage: Usage,
    pub(crate) tool_calls: usize,
    pub(crate) tree_tool_calls: usize,
    pub(crate) in_flight: usize,
    pub(crate) denied: Vec<String>,
    pub(crate) reason: Option<String>,
    pub(crate) conversation: Option<Conversation>,
    pub(crate) last_activity: Instant,
    pub(crate) busy: Duration,
    pub(crate) run_started: Instant,
    pub(crate) pending: Vec<String>,
    pub(crate) truncated: bool,
    /// The worktree it changed, kept.
    pub(crate) worktree: Option<PathBuf>,
}

/// What an agent is, fixed when it starts.
pub(crate) struct Parts {
    pub(crate) scope: AgentScope,
    pub(crate) description: String,
    pub(crate) profile: Profile,
    pub(crate) mode: Mode,
    pub(crate) definition: toolwright_agents::AgentDefinition,
    pub(crate) model: String,
    pub(crate) serial: u64,
    /// The definition's own hooks, for this child only.
    pub(crate) own_hooks: Option<crate::rules::hooks::CommandHooks>,
}

/// An agent of the tree, shared by the runtime, its tools and its own run.
pub(crate) struct Handle {
    pub(crate) scope: AgentScope,
    pub(crate) description: String,
    pub(crate) token: CancellationToken,
    pub(crate) profile: Profile,
    pub(crate) mode: Mode,
    pub(crate) definition: toolwright_agents::AgentDefinition,
    pub(crate) model: String,
    pub(crate) state: Mutex<State>,
    /// Bumped each time a run ends, so waiters wake without polling.
    pub(crate) ended: tokio::sync::watch::Sender<u64>,
    /// The order agents started in.
    pub(crate) serial: u64,
    /// The definition's own hooks, for this child only.
    pub(crate) own_hooks: Option<crate::rules::hooks::CommandHooks>,
    /// Its deferred tools' session, when its turns have one: kept across a
    /// resume, so what its searches loaded stays loaded.
    pub(crate) tools: Mutex<Option<toolwright_core::deferred::ToolSession>>,
}

impl Handle {
    pub(crate) fn new(parts: Parts, token: CancellationToken) -> Handle {
        let Parts { scope, description, profile, mode, definition, model, serial, own_hooks } = parts;
        let now = Instant::now();
        Handle {
            scope,
            description,
            token,
            profile,
            mode,
            definition,
            model,
            state: Mutex::new(State {
                status: AgentStatus::Running,
                text: String::new(),
                structured: None,
                usage: Usage::default(),
                tree_usage: Usage::default(),
                tool_calls: 0,
                tree_tool_calls: 0,
                in_flight: 0,
                denied: Vec::new(),
                reason: None,
                conversation: None,
                last_activity: now,
                busy: Duration::ZERO,
                run_started: now,
                pending: Vec::new(),
                truncated: false,
                worktree: None,
            }),
            ended: tokio::sync::watch::Sender::new(0),
            serial,
            own_hooks,
            tools: Mutex::new(None),
        }
    }

    /// The same agent, running again under `token` (`send_message` to a finished
    /// one): its report, usage and counts carry on.
    pub(crate) fn resumed(&self, token: CancellationToken) -> Handle {
        let old = self.state();
        let now = Instant::now();
        Handle {
            scope: self.scope.clone(),
            description: self.description.clone(),
            token,
            profile: self.profile.clone(),
            mode: self.mode,
            definition: self.definition.clone(),
            model: self.model.clone(),
            state: Mutex::new(State {
                status: AgentStatus::Running,
                text: old.text.clone(),
                structured: None,
                usage: old.usage,
                tree_usage: old.tree_usage,
                tool_calls: old.tool_calls,
                tree_tool_calls: old.tree_tool_calls,
                in_flight: 0,
                denied: old.denied.clone(),
                reason: None,
                conversation: old.conversation.clone(),
                last_activity: now,
                busy: old.busy,
                run_started: now,
                pending: Vec::new(),
                truncated: false,
                worktree: old.worktree.clone(),
            }),
            ended: tokio::sync::watch::Sender::new(0),
            serial: self.serial,
            own_hooks: self.own_hooks.clone(),
            tools: Mutex::new(self.tools.lock().unwrap_or_else(PoisonError::into_inner).clone()),
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops the run (and, through the token, everything under it); the first reason
    /// given is kept.
    pub(crate) fn stop(&self, reason: impl Into<String>) {
        {
            let mut state = self.state();
            if state.status == AgentStatus::Running && state.reason.is_none() {
                state.reason = Some(reason.into());
            }
        }
        self.token.cancel();
    }

    pub(crate) fn report(&self) -> AgentReport {
        let state = self.state();
        let running = if state.status == AgentStatus::Running { state.run_started.elapsed() } else { Duration::ZERO };
        AgentReport {
            status: state.status,
            agent_id: self.scope.id.clone(),
            agent_type: self.scope.agent_type.clone(),
            text: state.text.clone(),
            truncated: state.truncated,
            structured: state.structured.clone(),
            usage: state.tree_usage,
            own_usage: state.usage,
            tool_calls: state.tool_calls,
            tree_tool_calls: state.tree_tool_calls,
            duration: state.busy + running,
            denied: state.denied.clone(),
            reason: state.reason.clone(),
            transcript: self.scope.transcript_path.clone(),
            model: self.model.clone(),
            worktree: state.worktree.clone(),
        }
    }
}
