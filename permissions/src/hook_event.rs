//! The hook events toolwright runs, by Claude Code's names: the one place an event
//! is declared. Adding one: a variant, its line in [`HookEvent::ALL`] and
//! [`HookEvent::name`], and the call that fires it (see `ARCHITECTURE.md`).

use std::fmt;
use std::str::FromStr;

/// A hook event of Claude Code's settings that toolwright runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a call, before the permission check: may rewrite the input, deny, ask
    /// or allow.
    PreToolUse,
    /// After a call that succeeded: may add context or replace the output.
    PostToolUse,
    /// After a call that failed.
    PostToolUseFailure,
    /// When a call would ask the user: may answer for them.
    PermissionRequest,
    /// When a subagent starts (the matcher takes the agent type).
    SubagentStart,
    /// When a subagent is about to finish: may send it back to work.
    SubagentStop,
}

impl HookEvent {
    /// Every event, in the order the documentation lists them.
    pub const ALL: &'static [HookEvent] = &[
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PermissionRequest,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
    ];

    /// The event's name in settings files and in `hook_event_name`.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
        }
    }

    /// Whether the matcher is matched against agent types, not tool names.
    pub fn matches_agent_types(self) -> bool {
        matches!(self, HookEvent::SubagentStart | HookEvent::SubagentStop)
    }

    /// Whether the event's hooks run around a tool call (executor and turn hooks).
    pub fn is_tool_event(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse | HookEvent::PostToolUseFailure)
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A hook event name toolwright does not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook event `{0}` is not supported")]
pub struct UnknownHookEvent(pub String);

impl FromStr for HookEvent {
    type Err = UnknownHookEvent;

    fn from_str(name: &str) -> Result<HookEvent, UnknownHookEvent> {
        HookEvent::ALL.iter().copied().find(|e| e.name() == name).ok_or_else(|| UnknownHookEvent(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::HookEvent;

    #[test]
    fn every_event_reads_back_from_its_name() {
        for event in HookEvent::ALL {
            assert_eq!(event.name().parse::<HookEvent>(), Ok(*event));
        }
        assert!("Stop".parse::<HookEvent>().is_err());
        assert!("pretooluse".parse::<HookEvent>().is_err(), "names are case-sensitive, as in Claude Code");
    }
}
