//! Subagent definitions: what an agent may delegate to, read from Claude Code's agent
//! files (`.claude/agents/**/*.md`, `~/.claude/agents/`, the managed directory),
//! from Cline-format files (`.cline/agents/`), given in code ([`AgentDefinition`]) or
//! on a command line as Claude Code's `--agents` JSON.
//!
//! A [`Catalog`] is every definition found for a working directory, one per name by
//! Claude Code's precedence (managed, then given, then the project's nearest to the
//! working directory, then the user's), with every [`Problem`]: a file that cannot be
//! used is reported with its path, the key and why, never skipped silently, and an
//! unknown key is a warning. A workspace's own definitions are used only once it is
//! trusted, like its settings. Loading is cheap and reads the files anew, so an agent
//! that loads the catalog each turn sees changed and removed files at the next turn.
//!
//! ```
//! use toolwright_agents::{Catalog, LoadOptions};
//! use toolwright_permissions::trust::Trust;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let agents = dir.path().join(".claude/agents");
//! std::fs::create_dir_all(&agents).unwrap();
//! std::fs::write(
//!     agents.join("reviewer.md"),
//!     "---\nname: reviewer\ndescription: Reviews a change\ntools: Read, Grep\nmodel: haiku\n---\nYou review code.\n",
//! )
//! .unwrap();
//! std::fs::write(agents.join("broken.md"), "---\nname: Broken Name\n---\n").unwrap();
//!
//! let catalog = Catalog::load(dir.path(), &LoadOptions::new().trust(Trust::Trusted).no_user_or_managed());
//! let reviewer = catalog.get("reviewer").unwrap();
//! assert_eq!(reviewer.tools.as_deref(), Some(&["Read".to_owned(), "Grep".to_owned()][..]));
//! assert_eq!(reviewer.prompt, "You review code.");
//! let problem = &catalog.problems()[0];
//! assert!(problem.path.ends_with("broken.md") && problem.key.as_deref() == Some("name"));
//! ```
//!
//! Why a crate of its own: the YAML parser is a build the rest of toolwright does not
//! need, and the subagent runtime that will use these definitions is a concern of its
//! own (as codex-rs keeps cross-cutting concerns in crates).

mod builtin;
mod catalog;
mod child;
mod definition;
mod fields;
mod frontmatter;
mod naming;
pub mod plugins;
mod problem;
pub mod skills;

pub use builtin::{builtin, fork};
pub use catalog::{Catalog, LoadOptions, Shadowed};
pub use child::{AGENT_TOOLS, BACKGROUND_TOOLS, NEVER_FOR_SUBAGENTS, Spawn, child_mode};
pub use definition::{AgentDefinition, DefinitionError, Format, Isolation, McpServerRef, Memory, Source};
pub use naming::{cline_tool_name, cline_tool_names};
pub use problem::{Problem, Severity};
