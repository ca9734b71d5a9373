//! Claude Code's permission modes, and the override a turn may carry.

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
