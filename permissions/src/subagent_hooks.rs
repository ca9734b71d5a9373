//! Claude Code's `SubagentStart` and `SubagentStop` command hooks: run by the subagent
//! runtime when a child starts and when it is about to finish. Their matcher names the
//! agent type; their input has the common fields plus the agent's.

use crate::hook_event::HookEvent;
use crate::hooks::{CommandHooks, Ran, blocking_reason, specific, text};
use serde_json::{Value, json};
use std::path::Path;
use toolwright_core::{AgentScope, SessionInfo};

/// What `SubagentStop` hooks said.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopVerdict {
    /// Let the child finish.
    Finish,
    /// Keep it going: `reason` is its next instruction.
    Continue {
        /// What the hook said (the JSON's `reason`, or stderr on exit 2).
        reason: String,
    },
}

/// The fields every hook gets, for a subagent event.
fn common(event: HookEvent, agent: &AgentScope, session: Option<&SessionInfo>, cwd: &Path, mode: &str) -> Value {
    json!({
        "session_id": session.map_or("", |s| s.id.as_str()),
        "transcript_path": session
            .and_then(|s| s.transcript_path.as_deref())
            .map_or(String::new(), |p| p.display().to_string()),
        "cwd": cwd,
        "permission_mode": mode,
        "hook_event_name": event.name(),
        "agent_id": agent.id,
        "agent_type": agent.agent_type,
    })
}

impl CommandHooks {
    /// Runs the `SubagentStart` hooks whose matcher takes the agent's type; returns the
    /// context they add (`hookSpecificOutput.additionalContext`), in order. They cannot
    /// block; a failing one is logged.
    pub async fn subagent_start(
        &self,
        agent: &AgentScope,
        session: Option<&SessionInfo>,
        cwd: &Path,
        mode: &str,
    ) -> Vec<String> {
        let payload = common(HookEvent::SubagentStart, agent, session, cwd, mode);
        let mut added = Vec::new();
        for hook in
            self.hooks.iter().filter(|h| h.event == HookEvent::SubagentStart && h.matches_name(&agent.agent_type))
        {
            match hook.run(&payload, cwd).await {
                Ran::Ok(Some(value)) => added.extend(text(specific(&value), "additionalContext")),
                Ran::Ok(None) => {}
                Ran::Blocked(why) | Ran::Failed(why) => {
                    tracing::warn!(hook = %hook.command(), "SubagentStart hook: {why}");
                }
                Ran::TimedOut => tracing::warn!(hook = %hook.command(), "SubagentStart hook timed out"),
            }
        }
        added
    }

    /// Runs the `SubagentStop` hooks whose matcher takes the agent's type, with Claude
    /// Code's input (`stop_hook_active`, `agent_transcript_path`,
    /// `last_assistant_message`, ...). The first that blocks (`decision: "block"` with
    /// a `reason`, or exit 2) keeps the child going.
    #[allow(clippy::too_many_arguments)]
    pub async fn subagent_stop(
        &self,
        agent: &AgentScope,
        session: Option<&SessionInfo>,
        cwd: &Path,
        mode: &str,
        stop_hook_active: bool,
        last_assistant_message: &str,
    ) -> StopVerdict {
        let mut payload = common(HookEvent::SubagentStop, agent, session, cwd, mode);
        payload["stop_hook_active"] = json!(stop_hook_active);
        payload["agent_transcript_path"] =
            json!(agent.transcript_path.as_deref().map_or(String::new(), |p| p.display().to_string()));
        payload["last_assistant_message"] = json!(last_assistant_message);
        payload["background_tasks"] = json!([]);
        payload["session_crons"] = json!([]);
        for hook in
            self.hooks.iter().filter(|h| h.event == HookEvent::SubagentStop && h.matches_name(&agent.agent_type))
        {
            match hook.run(&payload, cwd).await {
                Ran::Ok(Some(value)) if value.get("decision").and_then(Value::as_str) == Some("block") => {
                    let reason = blocking_reason(&value).unwrap_or_else(|| "a SubagentStop hook asks to go on".into());
                    return StopVerdict::Continue { reason };
                }
                Ran::Ok(Some(value)) => {
                    if let Some(context) = text(specific(&value), "additionalContext") {
                        return StopVerdict::Continue { reason: context };
                    }
                }
                Ran::Ok(None) => {}
                Ran::Blocked(reason) => return StopVerdict::Continue { reason },
                Ran::Failed(why) => tracing::warn!(hook = %hook.command(), "SubagentStop hook: {why}"),
                Ran::TimedOut => tracing::warn!(hook = %hook.command(), "SubagentStop hook timed out"),
            }
        }
        StopVerdict::Finish
    }

    /// Whether any hook is for a subagent event.
    pub fn has_subagent_hooks(&self) -> bool {
        self.hooks.iter().any(|h| h.event.matches_agent_types())
    }
}
