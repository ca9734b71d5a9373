//! toolwright's permission rules, compatible with Claude Code's settings.
//!
//! A [`RulePolicy`] is a [`PermissionPolicy`](toolwright_core::permission::PermissionPolicy):
//! rules `Tool` or `Tool(specifier)` in allow, ask and deny lists, checked deny, then
//! ask, then allow, across every source; then the [`Mode`]'s default. Claude Code's tool
//! names reach toolwright's tools (`Bash` is `shell`, `Read` covers read_file, glob,
//! grep and list_dir, `Edit` covers the tools that write files).
//!
//! ```
//! use toolwright_permissions::RulePolicy;
//! use toolwright_core::permission::PermissionDecision;
//! use serde_json::json;
//!
//! let policy = RulePolicy::new().allow("Bash(npm run *)").deny("Bash(git push *)");
//! let cwd = std::path::Path::new("/work");
//! let decide = |command: &str| policy.decide("shell", &json!({ "command": command }), false, cwd);
//! assert_eq!(decide("npm run test && ls"), PermissionDecision::Allow);
//! assert!(matches!(decide("npm run build; git -C .. push origin"), PermissionDecision::Deny(_)));
//! assert!(matches!(decide("npm run x > out.txt"), PermissionDecision::Ask(_)));
//! ```
//!
//! Why a crate of its own: the shell parser (`brush-parser`, chosen because the shell
//! tool runs bash and the rules must read a command as bash does) is a sizeable build
//! that agents which only use core's seams should not pay for.

pub mod hooks;
pub mod path;
pub mod pattern;
mod policy;
pub mod rule;
pub mod settings;
pub mod shell;

pub use pattern::CommandPattern;
pub use policy::{Mode, ReadDenials, RulePolicy, SAFE_ENV_VARS, host_of};
pub use rule::{Effect, Source};
pub use settings::SettingsError;
