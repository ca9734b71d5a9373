//! Shell commands as the rules see them.
//!
//! A command is parsed with `brush-parser`, a maintained parser of bash's own grammar:
//! the shell tool runs `bash -c`, so the rules must read a command the way bash will,
//! including bash-only syntax (`|&`, `[[ ]]`, `$'..'`, process substitution). The tree
//! is flattened into the simple commands that would run: the parts of compound
//! commands, pipelines and lists; the commands inside `$(...)`, backticks and process
//! substitutions; and the commands hidden behind `bash -c`, `eval`, `xargs` and
//! `find -exec`, with wrappers (`timeout`, `nice`, ...) stripped. Redirections to files
//! are collected as writes, and each command records the directories it may run in
//! (after `cd src &&`, `src`; a `cd` in a subshell does not leak out of it). What cannot be known statically is collected as a reason
//! to ask.
//!
//! This crate is the analysis alone: the rule engine (`toolwright-permissions`)
//! matches rules against what it finds, and the shell tool (`toolwright-builtin`)
//! uses it to tell read-only commands from the rest without the rules.
//!
//! ```
//! let analysis = toolwright_shell::analyze("cd src && timeout 5 rm -rf build > log.txt");
//! let names: Vec<_> = analysis.commands.iter().filter_map(|c| c.base_name()).collect();
//! assert_eq!(names, ["cd", "rm"]);
//! assert_eq!(analysis.writes, ["log.txt"]);
//! assert!(!toolwright_shell::analysis_is_read_only(&analysis));
//! assert!(toolwright_shell::analysis_is_read_only(&toolwright_shell::analyze("git log | head -5")));
//! ```

mod command;
mod env;
pub mod expand;
mod lexical;
mod read_only;
pub mod sed;
mod walker;
mod wrappers;

pub use command::{Analysis, Command, DirChange, Word, analysis_is_read_only};
pub use env::SAFE_ENV_VARS;
pub use lexical::absolute;
pub use read_only::{by_length_then_text, git_subcommand, is_read_only, runs_the_system_program};
pub use walker::{MAX_COMMAND_LEN, MAX_NESTING, analyze};

#[cfg(test)]
mod tests;
