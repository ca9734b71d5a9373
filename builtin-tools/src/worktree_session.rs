//! The worktree a session entered with `enter_worktree`, kept in the turn's
//! extensions until `exit_worktree`.

use std::path::PathBuf;

/// A worktree the session works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeSession {
    /// The working directory before it was entered.
    pub original_cwd: PathBuf,
    /// The worktree's root.
    pub path: PathBuf,
    /// Its branch, when this session made it.
    pub branch: Option<String>,
    /// The commit it started from (for the commits made since).
    pub base: Option<String>,
    /// Whether this session made it (only those are removed).
    pub created: bool,
}
