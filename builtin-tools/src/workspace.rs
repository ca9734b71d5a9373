//! The workspace guard: every path a tool touches is resolved here, against the
//! context's working directory, and refused if it leaves it.

use std::path::{Component, Path, PathBuf};
use toolwright_core::{ToolContext, ToolError, suggest};

/// A path inside the workspace, resolved and canonical.
pub(crate) struct Resolved {
    /// The canonical absolute path (symlinks resolved).
    pub(crate) path: PathBuf,
    /// The path relative to the workspace root, for messages the model reads.
    pub(crate) display: String,
}

/// Resolves `requested` (relative to the working directory, or absolute) and checks
/// that it exists and stays inside the workspace, symlinks included.
pub(crate) fn resolve_existing(cx: &ToolContext, requested: &str) -> Result<Resolved, ToolError> {
    let root = workspace_root(cx)?;
    let joined = lexical_join(&root, requested);
    if !joined.starts_with(&root) {
        return Err(outside(requested, &root));
    }
    let path = match joined.canonicalize() {
        Ok(path) => path,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::msg(not_found_message(requested, &joined, &root)));
        }
        Err(e) => return Err(ToolError::io(format!("cannot open `{requested}`"), e)),
    };
    if !path.starts_with(&root) {
        return Err(ToolError::msg(format!(
            "`{requested}` is a link to `{}`, which is outside the workspace `{}`",
            path.display(),
            root.display()
        )));
    }
    let display = relative_display(&path, &root);
    Ok(Resolved { path, display })
}

/// The canonical workspace root.
pub(crate) fn workspace_root(cx: &ToolContext) -> Result<PathBuf, ToolError> {
    cx.cwd()
        .canonicalize()
        .map_err(|e| ToolError::io(format!("the workspace `{}` is not accessible", cx.cwd().display()), e))
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
/// seen to leave the root before anything is opened.
fn lexical_join(root: &Path, requested: &str) -> PathBuf {
    let mut out = if Path::new(requested).is_absolute() { PathBuf::new() } else { root.to_path_buf() };
    for component in Path::new(requested).components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn outside(requested: &str, root: &Path) -> ToolError {
    ToolError::msg(format!("`{requested}` is outside the workspace `{}`; use a path inside it", root.display()))
}

/// "No such file", with the closest names in the nearest existing directory.
fn not_found_message(requested: &str, joined: &Path, root: &Path) -> String {
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
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), relative_display(&entry.path(), root)))
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
