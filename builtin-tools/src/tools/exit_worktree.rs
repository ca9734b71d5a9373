//! `exit_worktree` (Claude Code's `ExitWorktree`): back to where the session was,
//! keeping the worktree or removing it, never one with work in it unless told.

use crate::worktree_session::WorktreeSession;
use serde_json::json;
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// What to do with the worktree.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum WorktreeAction {
    Keep,
    Remove,
}

/// Leave the worktree entered with enter_worktree and go back to the original
/// directory: `keep` leaves the worktree and its branch on disk; `remove` deletes them,
/// and is refused while it has uncommitted files or commits not on the original
/// branch unless `discard_changes` is true.
#[tool(title = "Leave the worktree", rule_name = "ExitWorktree", aliases = ["ExitWorktree"], pure)]
pub struct ExitWorktree {
    /// `keep` or `remove`.
    pub action: WorktreeAction,
    /// With `remove`: delete it even with uncommitted files or unmerged commits.
    #[serde(default)]
    pub discard_changes: bool,
}

impl Tool for ExitWorktree {
    type Output = ToolOutput;

    fn summary(&self) -> Option<String> {
        Some(match self.action {
            WorktreeAction::Keep => "leave the worktree (keep it)".to_owned(),
            WorktreeAction::Remove => "leave the worktree (remove it)".to_owned(),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(session) = cx.extension::<WorktreeSession>().cloned().filter(|w| w.path.exists()) else {
            return Ok(ToolOutput::text(
                "Not in a worktree this session entered: nothing to do (ExitWorktree acts only on worktrees \
                 EnterWorktree made or entered).",
            ));
        };
        let mut discarded_files = Vec::new();
        let mut discarded_commits = Vec::new();
        if self.action == WorktreeAction::Remove {
            if !session.created {
                return Err(ToolError::msg(format!(
                    "{} was entered by `path`, not made by this session: it is never removed here; use action keep",
                    session.path.display()
                )));
            }
            let status = crate::git::git(&session.path, &["status", "--porcelain", "--untracked-files=all"])
                .await
                .map_err(ToolError::msg)?;
            discarded_files = status.lines().map(|l| l.get(3..).unwrap_or(l).to_owned()).collect::<Vec<_>>();
            if let Some(base) = &session.base {
                let range = format!("{base}..HEAD");
                let log = crate::git::git(&session.path, &["log", "--oneline", &range]).await.map_err(ToolError::msg)?;
                discarded_commits = log.lines().map(str::to_owned).collect();
            }
            if (!discarded_files.is_empty() || !discarded_commits.is_empty()) && !self.discard_changes {
                let mut why = format!("{} has work that removing it would lose:", session.path.display());
                for file in &discarded_files {
                    why.push_str(&format!("\n  uncommitted: {file}"));
                }
                for commit in &discarded_commits {
                    why.push_str(&format!("\n  commit: {commit}"));
                }
                why.push_str("\nCommit or merge it, use action keep, or pass discard_changes: true to delete it.");
                return Err(ToolError::msg(why));
            }
            let target = session.path.to_string_lossy().into_owned();
            let repo = &session.original_cwd;
            crate::git::git(repo, &["worktree", "remove", "--force", &target]).await.map_err(ToolError::msg)?;
            if let Some(branch) = &session.branch {
                let _ = crate::git::git(repo, &["branch", "-D", branch]).await;
            }
        }
        let action = match self.action {
            WorktreeAction::Keep => "keep",
            WorktreeAction::Remove => "remove",
        };
        let message = match self.action {
            WorktreeAction::Keep => format!(
                "Left the worktree (kept at {}); the session is back in {}.",
                session.path.display(),
                session.original_cwd.display()
            ),
            WorktreeAction::Remove => format!(
                "Removed the worktree {}{}; the session is back in {}.",
                session.path.display(),
                session.branch.as_ref().map(|b| format!(" and its branch `{b}`")).unwrap_or_default(),
                session.original_cwd.display()
            ),
        };
        let mut output = ToolOutput::text(message.clone());
        let mut structured = json!({
            "action": action, "originalCwd": session.original_cwd, "worktreePath": session.path,
            "worktreeBranch": session.branch, "message": message,
        });
        if self.action == WorktreeAction::Remove {
            structured["discardedFiles"] = json!(discarded_files);
            structured["discardedCommits"] = json!(discarded_commits);
        }
        output.structured = Some(structured);
        let back = session.original_cwd.clone();
        let left = WorktreeSession { path: std::path::PathBuf::new(), ..session };
        Ok(output.with_modifier(ContextModifier::new(move |turn| {
            turn.set_cwd(back.clone());
            turn.insert_extension(left.clone());
        })))
    }
}
