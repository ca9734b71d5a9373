//! The workspace guard: every path a tool touches is resolved here, once, for every
//! tool. A path is resolved against the working directory, canonicalised, and refused
//! if it leaves the workspace roots (by `..`, an absolute path or a symlink) or if a
//! `.toolwrightignore` file matches it.

use ignore::gitignore::GitignoreBuilder;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_core::permission::ReadFilter;
use toolwright_core::{ToolContext, ToolError, suggest};

/// The file, in a workspace root or any directory below it, whose gitignore-syntax
/// patterns block the tools from matching paths.
pub const IGNORE_FILE: &str = ".toolwrightignore";

/// Where the path tools may go. Put one in the turn's extensions to set the roots;
/// without one, the working directory is the only root.
///
/// ```
/// use toolwright_builtin::Workspace;
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = Workspace::new(dir.path()).unwrap();
/// assert_eq!(workspace.roots().len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Canonical roots; the first is the main one.
    roots: Vec<PathBuf>,
    /// What the permission rules deny reading (the policy's read filter).
    denials: Option<Arc<dyn ReadFilter>>,
    /// Whether files with several hard links may be read and written.
    hard_links: bool,
}

impl Workspace {
    /// A workspace with one root.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Workspace> {
        Ok(Workspace { roots: vec![root.as_ref().canonicalize()?], denials: None, hard_links: false })
    }

    /// Also allows paths inside `dir` (Claude Code's "additional directories").
    pub fn with_additional_dir(mut self, dir: impl AsRef<Path>) -> std::io::Result<Workspace> {
        self.roots.push(dir.as_ref().canonicalize()?);
        Ok(self)
    }

    /// Lets the tools open files with several hard links (refused by default: another
    /// name of such a file may be outside the workspace). For trees that share files by
    /// hard links on purpose (a pnpm store).
    pub fn with_hard_links_allowed(mut self, allowed: bool) -> Workspace {
        self.hard_links = allowed;
        self
    }

    /// The canonical roots, the main one first.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The workspace of a call: its extension, or the working directory.
    /// With the policy's read filter in the context (the executor puts it there),
    /// denied paths are refused and walks skip them.
    pub(crate) fn of(cx: &ToolContext) -> Result<Workspace, ToolError> {
        let denials = cx.read_filter().cloned();
        if let Some(workspace) = cx.extension::<Workspace>() {
            return Ok(Workspace { denials, ..workspace.clone() });
        }
        let root = cx
            .cwd()
            .canonicalize()
            .map_err(|e| ToolError::io(format!("the workspace `{}` is not accessible", cx.cwd().display()), e))?;
        Ok(Workspace { roots: vec![root], denials, hard_links: false })
    }

    fn root_of(&self, path: &Path) -> Option<&Path> {
        self.roots.iter().map(PathBuf::as_path).find(|root| path.starts_with(root))
    }

    /// `path` as the model should see it: relative to its root (`.` for the root),
    /// absolute if it is in an additional directory.
    pub(crate) fn display(&self, path: &Path) -> String {
        match self.roots.first() {
            Some(main) if path.starts_with(main) => relative_display(path, main),
            _ => path.display().to_string(),
        }
    }

    /// Whether a `.toolwrightignore` in `path`'s root, or in a directory between the
    /// root and `path`, matches it (or one of its parents).
    pub(crate) fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Some(root) = self.root_of(path) else { return false };
        let Ok(relative) = path.strip_prefix(root) else { return false };
        let mut dir = root.to_path_buf();
        let mut below = relative.components();
        loop {
            let file = dir.join(IGNORE_FILE);
            if file.is_file() {
                let mut builder = GitignoreBuilder::new(&dir);
                builder.add(&file);
                if let Ok(rules) = builder.build()
                    && rules.matched_path_or_any_parents(path, is_dir).is_ignore()
                {
                    return true;
                }
            }
            match below.next() {
                Some(component) => dir.push(component.as_os_str()),
                None => return false,
            }
            if dir == path {
                return false;
            }
        }
    }

    /// Resolves `requested`, which must exist, to a canonical path inside a root.
    pub(crate) fn existing(&self, cx: &ToolContext, requested: &str) -> Result<Resolved, ToolError> {
        let joined = self.join(cx, requested)?;
        let path = match joined.canonicalize() {
            Ok(path) => path,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ToolError::msg(self.not_found_message(requested, &joined)));
            }
            Err(e) => return Err(ToolError::io(format!("cannot open `{requested}`"), e)),
        };
        self.admit(requested, path)
    }

    /// Resolves `requested` for writing: it may not exist yet (nor its parents), but
    /// everything that does exist, links included, must stay inside a root.
    pub(crate) fn for_write(&self, cx: &ToolContext, requested: &str) -> Result<Resolved, ToolError> {
        // `dir/` names a directory, whatever is there: never a file called `dir`.
        if requested.ends_with('/') || requested.ends_with("/.") || requested.ends_with("/..") {
            return Err(ToolError::msg(format!(
                "`{requested}` names a directory (it ends with `/`); give the path of a file in it"
            )));
        }
        let joined = self.join(cx, requested)?;
        let mut existing = joined.as_path();
        let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
        while std::fs::symlink_metadata(existing).is_err() {
            let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else { break };
            missing.push(name);
            existing = parent;
        }
        let mut path =
            existing.canonicalize().map_err(|e| ToolError::io(format!("cannot resolve `{requested}`"), e))?;
        for name in missing.iter().rev() {
            path.push(name);
        }
        self.admit(requested, path)
    }

    fn join(&self, cx: &ToolContext, requested: &str) -> Result<PathBuf, ToolError> {
        if requested.trim().is_empty() {
            return Err(ToolError::msg("the path is empty"));
        }
        let base = cx.cwd().canonicalize().unwrap_or_else(|_| cx.cwd().to_path_buf());
        let joined = lexical_join(&base, requested);
        if self.root_of(&joined).is_none() {
            return Err(self.outside(requested));
        }
        Ok(joined)
    }

    fn admit(&self, requested: &str, path: PathBuf) -> Result<Resolved, ToolError> {
        if self.root_of(&path).is_none() {
            return Err(ToolError::msg(format!(
                "`{requested}` is a link to `{}`, which is outside the workspace `{}`",
                path.display(),
                self.roots[0].display()
            )));
        }
        let display = self.display(&path);
        if self.ignored(&path, path.is_dir()) {
            return Err(ToolError::msg(format!("`{display}` is blocked by {IGNORE_FILE}")));
        }
        if let Some(why) = self.denied(&path, path.is_dir()) {
            return Err(ToolError::msg(format!("`{display}` is {why}")));
        }
        let root = self.root_of(&path).map(Path::to_path_buf).unwrap_or_else(|| self.roots[0].clone());
        Ok(Resolved { path, display, root, hard_links: self.hard_links })
    }

    fn outside(&self, requested: &str) -> ToolError {
        ToolError::msg(format!(
            "`{requested}` is outside the workspace `{}`; use a path inside it",
            self.roots[0].display()
        ))
    }

    /// "No such file", with the closest names in the nearest existing directory.
    fn not_found_message(&self, requested: &str, joined: &Path) -> String {
        let mut dir = joined.parent();
        while let Some(d) = dir.filter(|d| !d.is_dir()) {
            dir = d.parent();
        }
        let wanted = joined.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let mut entries: Vec<(String, String)> = dir
            .and_then(|d| std::fs::read_dir(d).ok())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| (entry.file_name().to_string_lossy().into_owned(), self.display(&entry.path())))
            .collect();
        entries.sort();
        let names = suggest::closest(&wanted, entries.iter().map(|(name, _)| name.as_str()), 3);
        let mut message = format!("`{requested}` does not exist");
        if !names.is_empty() {
            let shown: Vec<String> = names
                .iter()
                .filter_map(|n| entries.iter().find(|(name, _)| name == n))
                .map(|(_, rel)| format!("`{rel}`"))
                .collect();
            message.push_str(&format!("; did you mean {}?", shown.join(" or ")));
        }
        message
    }

    /// A gitignore-aware walker of `dir` that also skips `.toolwrightignore` matches.
    pub(crate) fn walker(&self, dir: &Path) -> ignore::WalkBuilder {
        // Ignore files in the directories above `dir` apply too (`parents`, on by default).
        let mut builder = ignore::WalkBuilder::new(dir);
        builder.require_git(false).add_custom_ignore_filename(IGNORE_FILE);
        if let Some(denials) = self.denials.clone() {
            builder.filter_entry(move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                denials.denied(entry.path(), is_dir).is_none()
            });
        }
        builder
    }

    /// Why the permission rules deny reading `path`, if they do.
    pub(crate) fn denied(&self, path: &Path, is_dir: bool) -> Option<String> {
        self.denials.as_ref().and_then(|d| d.denied(path, is_dir))
    }
}

/// A path inside the workspace, resolved and canonical. Open it with
/// [`crate::confined`], never by name: what was checked is what is opened.
pub(crate) struct Resolved {
    /// The canonical absolute path (symlinks resolved).
    pub(crate) path: PathBuf,
    /// The path as the model sees it.
    pub(crate) display: String,
    /// The workspace root it is in (canonical).
    pub(crate) root: PathBuf,
    /// Whether a file with several hard links may be opened.
    pub(crate) hard_links: bool,
}

/// Resolves `requested` (relative to the working directory, or absolute) and checks
/// that it exists, stays inside the workspace (symlinks included) and is not ignored.
pub(crate) fn resolve_existing(cx: &ToolContext, requested: &str) -> Result<Resolved, ToolError> {
    Workspace::of(cx)?.existing(cx, requested)
}

/// Like [`resolve_existing`], for a path that may not exist yet.
pub(crate) fn resolve_for_write(cx: &ToolContext, requested: &str) -> Result<Resolved, ToolError> {
    Workspace::of(cx)?.for_write(cx, requested)
}

/// `path` relative to `root`, with `/` separators; `.` for the root itself.
pub(crate) fn relative_display(path: &Path, root: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.display().to_string(),
    }
}

/// Joins without touching the file system, folding `.` and `..`, so `a/../../x` is
/// seen to leave the root before anything is opened (the permission rules resolve
/// paths the same way).
fn lexical_join(base: &Path, requested: &str) -> PathBuf {
    toolwright_shell::absolute(requested, base, None)
}
