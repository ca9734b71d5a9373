//! What the built-ins add to the language servers (`toolwright_lsp`): how result
//! paths are shown (relative to the workspace; gitignored, `.toolwrightignore`d and
//! read-denied files left out), and the new diagnostics an edit tool appends to
//! its result.

use crate::workspace::{Resolved, Workspace};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use toolwright_core::ToolContext;
use toolwright_lsp::LspServers;

/// The largest file whose edit is sent to a language server for diagnostics.
const MAX_DIAGNOSED_BYTES: usize = 2 * 1024 * 1024;

/// Decides how a path in a server's answer is shown to the model, if at all.
pub(crate) struct Visible {
    workspace: Workspace,
    /// Each folder's `.gitignore`, read once per answer.
    gitignores: Mutex<HashMap<PathBuf, Option<Gitignore>>>,
}

impl Visible {
    pub fn new(workspace: Workspace) -> Visible {
        Visible { workspace, gitignores: Mutex::default() }
    }

    /// The path as shown, or `None` to leave it out.
    pub fn show(&self, path: &Path) -> Option<String> {
        if self.workspace.denied(path, false).is_some() || self.workspace.ignored(path, false) {
            return None;
        }
        match self.workspace.roots().iter().find(|root| path.starts_with(root)) {
            Some(root) if self.gitignored(root, path) => None,
            Some(_) => Some(self.workspace.display(path)),
            // Outside the workspace (a library's stubs): shown whole.
            None => Some(path.display().to_string()),
        }
    }

    /// Whether a `.gitignore` between `root` and `path` (or `.git/info/exclude`)
    /// ignores it: the deepest file that decides wins, as in git.
    fn gitignored(&self, root: &Path, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(root) else { return false };
        let mut dirs = vec![root.to_path_buf()];
        let mut dir = root.to_path_buf();
        for component in relative.parent().into_iter().flat_map(Path::components) {
            dir.push(component);
            dirs.push(dir.clone());
        }
        let mut cache = self.gitignores.lock().unwrap_or_else(PoisonError::into_inner);
        for dir in dirs.iter().rev() {
            let rules = cache.entry(dir.clone()).or_insert_with(|| rules_in(dir, dir == root));
            if let Some(rules) = rules {
                let found = rules.matched_path_or_any_parents(path, false);
                if found.is_ignore() {
                    return true;
                }
                if found.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }
}

/// The `.gitignore` of `dir` (and, at the root, `.git/info/exclude`).
fn rules_in(dir: &Path, is_root: bool) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(dir);
    let mut any = false;
    let mut files = vec![dir.join(".gitignore")];
    if is_root {
        files.push(dir.join(".git/info/exclude"));
    }
    for file in files {
        if file.is_file() && builder.add(&file).is_none() {
            any = true;
        }
    }
    any.then(|| builder.build().ok()).flatten()
}

/// A file an edit tool wrote: where, and its text before and after.
pub(crate) struct Written {
    pub path: PathBuf,
    pub root: PathBuf,
    pub before: Option<String>,
    pub after: String,
}

impl Written {
    pub fn new(file: &Resolved, before: Option<String>, after: String) -> Written {
        Written { path: file.path.clone(), root: file.root.clone(), before, after }
    }
}

/// `message` with the new diagnostics the session's language servers report for
/// the written file, if any server covers it.
pub(crate) async fn with_diagnostics(cx: &ToolContext, written: Written, message: String) -> String {
    let Some(servers) = cx.extension::<LspServers>().cloned() else { return message };
    if !servers.covers(&written.path) || written.after.len() > MAX_DIAGNOSED_BYTES {
        return message;
    }
    let Ok(workspace) = Workspace::of(cx) else { return message };
    let visible = Visible::new(workspace);
    let show = |path: &Path| visible.show(path);
    let new = servers.after_edit(&written.path, &written.root, written.before.as_deref(), &written.after, &show).await;
    match new {
        Some(new) => format!("{message}\n\n{new}"),
        None => message,
    }
}
