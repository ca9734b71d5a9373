//! Skills in the Agent Skills format (`SKILL.md`), found where Claude Code and the
//! other agents look, checked against the specification and Claude Code's extras.
//!
//! - [`SkillCatalog::load`]: every skill for a working directory, one per name by
//!   Claude Code's precedence (managed, given in code, the user's `~/.claude/skills/`
//!   and `~/.agents/skills/`, the workspace's `.claude/skills/` and `.agents/skills/`
//!   from the working directory up to the repository's root, added directories,
//!   plugins as `plugin:skill`, legacy `.claude/commands/*.md`), with every
//!   [`Problem`](crate::Problem): path, key and why. A workspace's skills wait for its
//!   trust, like its settings. Loading reads the files anew: edits are seen at the
//!   next turn.
//! - [`listing`]: what the model sees of them, within a budget.
//! - [`render`]: a body with `$ARGUMENTS`, `$N`, `$name` and `${CLAUDE_…}` substituted
//!   and its `!` commands found, for the runtime to run through the permission
//!   pipeline (never asked about: a command no rule allows aborts the skill).

mod catalog;
mod fields;
mod listing;
mod render;
mod skill;

pub use catalog::{SkillCatalog, SkillOptions};
pub use listing::{DEFAULT_BUDGET_CHARS, Listing, MAX_DESCRIPTION_CHARS, budget_from_env, listing};
pub use render::{Piece, RenderVars, commands, render, split_args, substitute};
pub use skill::{Skill, SkillSource};
