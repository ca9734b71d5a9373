//! Claude Code's permission modes, the override a turn may carry, and plan mode's
//! state (the plan file it may write).

/// Claude Code's permission modes. Deny rules win in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Reads run; anything else not allowed by a rule asks.
    #[default]
    Default,
    /// As default, and edits inside the workspace run without asking.
    AcceptEdits,
    /// Only reading: anything that could change things is denied.
    Plan,
    /// What would ask is denied.
    DontAsk,
    /// What would ask runs.
    BypassPermissions,
}

impl Mode {
    /// The mode Claude Code spells `name` (`acceptEdits`), if there is one.
    pub fn from_name(name: &str) -> Option<Mode> {
        [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::DontAsk, Mode::BypassPermissions]
            .into_iter()
            .find(|m| m.name() == name)
    }

    /// The mode as Claude Code spells it (`acceptEdits`), as hooks get it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
            Mode::BypassPermissions => "bypassPermissions",
        }
    }
}

/// A permission mode for the calls of one turn, put in its extensions: a subagent's
/// own mode (see `toolwright_agents::child_mode` for the precedence) under the same
/// rules as its parent. Deny rules and explicit ask rules hold in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeOverride(pub Mode);

/// Plan mode entered by a tool (Claude Code's `EnterPlanMode`), in the turn's
/// extensions beside its [`ModeOverride`]: where the plan is written (the one file
/// plan mode lets the model write) and the override there was before, to go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanMode {
    /// The plan file, absolute.
    pub file: std::path::PathBuf,
    /// The mode override before plan mode, if there was one.
    pub before: Option<Mode>,
}
