//! What a child agent may have: never more than its parent. Its tools are the
//! parent's profile narrowed by the definition's `tools` and `disallowedTools`, minus
//! what a subagent never gets, minus the agent tools at the depth limit, and, for a
//! background child, only what a background agent may use (Claude Code's lists). Its
//! permission mode follows Claude Code's precedence between parent and definition.

use crate::definition::AgentDefinition;
use toolwright_core::Profile;
use toolwright_permissions::Mode;

/// Tools a subagent never gets: asking the user, the plan-mode tools, reading other
/// agents' output, scheduling (Claude Code's names and toolwright's).
pub const NEVER_FOR_SUBAGENTS: &[&str] = &[
    "AskUserQuestion",
    "ask_user",
    "EnterPlanMode",
    "enter_plan_mode",
    "ExitPlanMode",
    "exit_plan_mode",
    "TaskOutput",
    "task_output",
    "CronCreate",
    "cron_create",
    "CronDelete",
    "cron_delete",
    "CronList",
    "cron_list",
];

/// The tools that start agents: a child at the depth limit gets none of them.
pub const AGENT_TOOLS: &[&str] = &["Agent", "Task", "agent", "task", "use_subagent_*"];

/// What a background child may use (Claude Code's list; toolwright's tools match by
/// their rule names), and every MCP tool.
pub const BACKGROUND_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "Bash",
    "Edit",
    "Write",
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "Skill",
    "ToolSearch",
    "tool_search",
    "TaskStop",
    "SendMessage",
    "EnterWorktree",
    "ExitWorktree",
    "shell_output",
    "mcp__*",
];

/// Where a child is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Spawn {
    /// The child's depth: 1 for a child of the main agent.
    pub depth: usize,
    /// The deepest a child may be (Claude Code's default: 3).
    pub max_depth: usize,
    /// Whether the child runs in the background.
    pub background: bool,
}

impl Spawn {
    /// A foreground child at `depth` under the default limit of 3.
    pub fn at_depth(depth: usize) -> Spawn {
        Spawn { depth, max_depth: 3, background: false }
    }

    /// Under another depth limit.
    pub fn max_depth(mut self, max: usize) -> Spawn {
        self.max_depth = max;
        self
    }

    /// In the background.
    pub fn in_background(mut self) -> Spawn {
        self.background = true;
        self
    }
}

impl AgentDefinition {
    /// The child's profile: within `parent`, narrowed as the module says. A call
    /// outside it is refused at dispatch when the agent runs with it
    /// (`toolwright::agent::Agent::profile`).
    pub fn profile(&self, parent: &Profile, spawn: Spawn) -> Profile {
        let mut profile = Profile::new(format!("agent:{}", self.name));
        if let Some(tools) = &self.tools {
            profile = profile.allow(tools.iter().cloned());
        }
        // A subagent in plan mode keeps ExitPlanMode, to present its plan.
        let planning = self.permission_mode == Some(Mode::Plan);
        let never = NEVER_FOR_SUBAGENTS
            .iter()
            .copied()
            .filter(|name| !(planning && matches!(*name, "ExitPlanMode" | "exit_plan_mode")));
        profile = profile.deny(self.disallowed_tools.iter().cloned()).deny(never);
        // A child pinned to a worktree of its own does not leave it.
        if self.isolation == Some(crate::definition::Isolation::Worktree) {
            profile = profile.deny(["ExitWorktree", "exit_worktree"]);
        }
        if spawn.depth >= spawn.max_depth {
            let reason = format!(
                "this agent is at depth {} and the depth limit for subagents is {}, so it cannot start another; \
                 do the task yourself",
                spawn.depth, spawn.max_depth
            );
            profile = profile.deny_because(AGENT_TOOLS.iter().copied(), reason);
        }
        profile = profile.within(parent);
        if spawn.background || self.background {
            profile = profile.within(&Profile::new("background").allow(BACKGROUND_TOOLS.iter().copied()));
        }
        profile
    }
}

/// The child's permission mode: the parent's, or the definition's `permissionMode`,
/// except that a parent in `bypassPermissions` or `acceptEdits` keeps its own (Claude
/// Code's precedence). A child of a parent in plan or dontAsk mode keeps that mode
/// too: nothing its parent would be denied may run in it.
pub fn child_mode(parent: Mode, definition: Option<Mode>) -> Mode {
    match (parent, definition) {
        (Mode::BypassPermissions | Mode::AcceptEdits | Mode::Plan | Mode::DontAsk, _) => parent,
        (_, Some(mode)) => mode,
        (_, None) => parent,
    }
}
