//! `isolation: worktree`: a child that works in a git worktree of its own, at the
//! commit its parent is on, removed when the child changed nothing and kept (and
//! named in the report) when it did.

use std::path::{Path, PathBuf};
use toolwright_builtin::git::git;

/// A worktree made for one child.
#[derive(Debug)]
pub(crate) struct Worktree {
    /// The worktree's root.
    pub(crate) root: PathBuf,
    /// The child's working directory in it (the parent's, relative to the repository).
    pub(crate) cwd: PathBuf,
    /// The repository it belongs to.
    repo: PathBuf,
    /// The commit it started at.
    head: String,
}

impl Worktree {
    /// A detached worktree of the repository `cwd` is in, at its `HEAD`, under the
    /// system's temporary directory.
    pub(crate) async fn create(cwd: &Path, id: &str) -> Result<Worktree, String> {
        let repo = git(cwd, &["rev-parse", "--show-toplevel"])
            .await
            .map_err(|e| format!("`isolation: worktree` needs a git repository: {e}"))?;
        let repo = PathBuf::from(repo);
        let head = git(&repo, &["rev-parse", "HEAD"])
            .await
            .map_err(|e| format!("`isolation: worktree` needs a commit to start from: {e}"))?;
        let root = std::env::temp_dir().join(format!("toolwright-worktree-{id}"));
        let target = root.to_string_lossy().into_owned();
        git(&repo, &["worktree", "add", "--detach", "--quiet", &target, &head]).await?;
        let relative = cwd.strip_prefix(&repo).unwrap_or(Path::new(""));
        Ok(Worktree { cwd: root.join(relative), root, repo, head })
    }

    /// Removes the worktree if the child changed nothing (no commit, no change to a
    /// tracked or untracked file); returns it when it is kept.
    pub(crate) async fn finish(self) -> Option<PathBuf> {
        let status = git(&self.root, &["status", "--porcelain", "--untracked-files=all"]).await;
        let head = git(&self.root, &["rev-parse", "HEAD"]).await;
        let unchanged = matches!((&status, &head), (Ok(s), Ok(h)) if s.is_empty() && *h == self.head);
        if !unchanged {
            return Some(self.root);
        }
        let target = self.root.to_string_lossy().into_owned();
        if git(&self.repo, &["worktree", "remove", "--force", &target]).await.is_err() {
            return Some(self.root);
        }
        None
    }
}
