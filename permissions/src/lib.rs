//! toolwright's permission rules, compatible with Claude Code's settings.
//!
//! A [`RulePolicy`] is a [`PermissionPolicy`](toolwright_core::permission::PermissionPolicy):
//! rules `Tool` or `Tool(specifier)` in allow, ask and deny lists, checked deny, then
//! ask, then allow, across every source; then the [`Mode`]'s default.
//!
//! The policy decides on what a call touches, as the tool states it
//! ([`toolwright_core::access`]), and on the tool's names: `Bash(..)` rules govern every
//! command a call runs, `Read(..)` every file it reads and directory it searches,
//! `Edit(..)` every file it writes, `WebFetch(domain:..)` every URL it fetches, whatever
//! the tool; a rule naming a tool (its own name, or its rule name such as `Grep`)
//! governs that tool. There is no table of tool names: a new tool that declares what it
//! touches is governed by the rules as it is.
//!
//! ```
//! use toolwright_permissions::RulePolicy;
//! use toolwright_core::permission::PermissionDecision;
//!
//! let registry = toolwright_builtin::registry().unwrap();
//! let shell = registry.resolve("shell").unwrap();
//! let policy = RulePolicy::new().allow("Bash(npm run *)").deny("Bash(git push *)");
//! let cwd = std::path::Path::new("/work");
//! let decide = |command: &str| {
//!     let input = serde_json::json!({ "command": command }).to_string();
//!     policy.decide_for(shell.tool().as_ref(), &input, cwd).unwrap()
//! };
//! assert_eq!(decide("npm run test && ls"), PermissionDecision::Allow);
//! assert!(matches!(decide("npm run build; ( (git -C .. push origin) )"), PermissionDecision::Deny(_)));
//! assert!(matches!(decide("npm run x > out.txt"), PermissionDecision::Ask(_)));
//! ```
//!
//! Why a crate of its own: the rule engine (settings, rule kinds, hooks) is a policy
//! that agents which only use core's seams should not pay for. Reading a command
//! line is a crate below it, [`toolwright_shell`] (`brush-parser`, chosen because the
//! shell tool runs bash and the rules must read a command as bash does), which the
//! shell tool uses without the rules; it is re-exported here as [`shell`].

pub mod domain;
pub mod grants;
/// Shell command analysis, from [`toolwright_shell`].
pub use toolwright_shell as shell;
pub use toolwright_shell::{expand, sed};
pub mod callers;
mod hook_event;
pub mod hooks;
mod mode;
pub mod path;
pub mod pattern;
mod policy;
pub mod protected;
pub mod rule;
pub mod sandbox;
pub mod settings;
mod subagent_hooks;
pub mod trust;

pub use hook_event::{HookEvent, UnknownHookEvent};
pub use pattern::CommandPattern;
pub use policy::{DEFAULT_AGENT_TYPE, Mode, ModeOverride, PlanMode, ReadDenials, RulePolicy, SAFE_ENV_VARS};
pub use rule::{Effect, Source};
pub use settings::SettingsError;
pub use subagent_hooks::StopVerdict;
