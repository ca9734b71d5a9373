//! `enter_worktree` (Claude Code's `EnterWorktree`): a git worktree under
//! `.claude/worktrees/<name>/` on a new branch, and the session moved into it.

use crate::worktree_session::WorktreeSession;
use serde_json::json;
use std::path::{Path, PathBuf};
use toolwright_core::access::Accesses;
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// The longest worktree name.
const MAX_NAME: usize = 64;

/// Create a git worktree (a second checkout of the repository on a new branch, under
/// `.claude/worktrees/<name>/`) and move the session into it: every later command and
/// edit happens there, apart from the main checkout. Or enter an existing worktree by
/// `path`. Use it only when the user asks for a worktree. Leave with exit_worktree.
#[tool(title = "Enter a worktree", rule_name = "EnterWorktree", aliases = ["EnterWorktree"])]
pub struct EnterWorktree {
    /// A name for the new worktree: letters, digits, `.`, `_`, `-`, segments separated
    /// by `/`, at most 64 characters. A random one when neither this nor `path` is given.
    #[serde(default)]
    pub name: Option<String>,
    /// An existing worktree of this repository to enter instead.
    #[serde(default)]
    pub path: Option<String>,
}

impl Tool for EnterWorktree {
    type Output = ToolOutput;

    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        if self.name.is_some() && self.path.is_some() {
            return Err(ToolError::msg("give `name` (a new worktree) or `path` (an existing one), not both"));
        }
        if let Some(name) = &self.name {
            check_name(name)?;
        }
        // Plan mode changes nothing, and a worktree is a change to the repository.
        if cx.extension::<toolwright_core::mode::ModeOverride>().is_some_and(|m| m.0 == toolwright_core::mode::Mode::Plan) {
            return Err(ToolError::msg("plan mode changes nothing: have the plan approved (ExitPlanMode) first"));
        }
        if cx.extension::<WorktreeSession>().is_some_and(|w| w.path == cx.cwd()) {
            return Err(ToolError::msg("already in a worktree: leave it with exit_worktree first"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(match (&self.name, &self.path) {
            (_, Some(path)) => format!("enter worktree {path}"),
            (Some(name), _) => format!("enter new worktree {name}"),
            _ => "enter a new worktree".to_owned(),
        })
    }

    fn access(&self) -> Accesses {
        // A new worktree under `.claude/worktrees/` needs no permission (Claude Code's);
        // entering one elsewhere is decided like any undeclared act: it asks.
        match &self.path {
            Some(path) if !path.contains(".claude/worktrees/") => Accesses::undeclared(),
            _ => Accesses::none(),
        }
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let fail = |e: String| ToolError::msg(e);
        let repo = crate::git::git(cx.cwd(), &["rev-parse", "--show-toplevel"]).await.map_err(|_| {
            ToolError::msg(format!("{} is not in a git repository: a worktree needs one", cx.cwd().display()))
        })?;
        let repo = PathBuf::from(repo);
        let original = cx.extension::<WorktreeSession>().map_or_else(|| cx.cwd().to_path_buf(), |w| w.original_cwd.clone());
        let session = match &self.path {
            Some(path) => enter_existing(&repo, &cx.cwd().join(path), original).await?,
            None => {
                let name = self.name.clone().unwrap_or_else(random_name);
                create(&repo, &name, original).await.map_err(fail)?
            }
        };
        let message = match &session.branch {
            Some(branch) if session.created => format!(
                "Created a worktree at {} on the new branch `{branch}` and moved the session into it; every later \
                 command and edit happens there. Leave with ExitWorktree (keep or remove).",
                session.path.display()
            ),
            _ => format!("Entered the worktree at {}. Leave with ExitWorktree (action keep).", session.path.display()),
        };
        let mut output = ToolOutput::text(message.clone());
        output.structured = Some(json!({
            "worktreePath": session.path, "worktreeBranch": session.branch, "message": message,
        }));
        let cwd = session.path.clone();
        Ok(output.with_modifier(ContextModifier::new(move |turn| {
            turn.set_cwd(cwd.clone());
            turn.insert_extension(session.clone());
        })))
    }
}

/// Claude Code's name rule: `/`-separated segments of letters, digits, `.`, `_`, `-`.
fn check_name(name: &str) -> Result<(), ToolError> {
    let bad = name.is_empty()
        || name.len() > MAX_NAME
        || name.split('/').any(|seg| {
            seg.is_empty()
                || seg == "."
                || seg == ".."
                || !seg.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        });
    if bad {
        return Err(ToolError::msg(format!(
            "`name` `{name}` is not a worktree name: 1 to {MAX_NAME} characters of letters, digits, `.`, `_` and `-`, \
             segments separated by `/`"
        )));
    }
    Ok(())
}

fn random_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    format!("wt-{:08x}", hasher.finish() as u32)
}

/// A new worktree `.claude/worktrees/<name>` of `repo` at its HEAD, on a new branch.
async fn create(repo: &Path, name: &str, original_cwd: PathBuf) -> Result<WorktreeSession, String> {
    // Never through a link: `.claude` or `.claude/worktrees` planted as a symlink would
    // put the checkout anywhere.
    for dir in [repo.join(".claude"), repo.join(".claude/worktrees")] {
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("{} is a symbolic link; a worktree is not created through one", dir.display()));
        }
    }
    let path = repo.join(".claude/worktrees").join(name);
    if path.exists() {
        return Err(format!("{} exists already; enter it with `path`, or choose another name", path.display()));
    }
    let base = crate::git::git(repo, &["rev-parse", "HEAD"])
        .await
        .map_err(|e| format!("the repository has no commit to start a worktree from: {e}"))?;
    let branch = format!("worktree-{}", name.replace('/', "-"));
    let target = path.to_string_lossy().into_owned();
    crate::git::git(repo, &["worktree", "add", "--quiet", "-b", &branch, &target, &base]).await?;
    Ok(WorktreeSession { original_cwd, path, branch: Some(branch), base: Some(base), created: true })
}

/// An existing worktree of `repo` at `path`.
async fn enter_existing(repo: &Path, path: &Path, original_cwd: PathBuf) -> Result<WorktreeSession, ToolError> {
    let path = path
        .canonicalize()
        .map_err(|e| ToolError::msg(format!("the worktree {} cannot be entered: {e}", path.display())))?;
    let list = crate::git::git(repo, &["worktree", "list", "--porcelain"]).await.map_err(ToolError::msg)?;
    let registered = list
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .any(|w| Path::new(w).canonicalize().is_ok_and(|w| w == path));
    if !registered {
        return Err(ToolError::msg(format!(
            "{} is not a worktree of this repository (`git worktree list`)",
            path.display()
        )));
    }
    let branch = crate::git::git(&path, &["branch", "--show-current"]).await.ok().filter(|b| !b.is_empty());
    Ok(WorktreeSession { original_cwd, path, branch, base: None, created: false })
}
