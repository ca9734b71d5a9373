//! Paths as a command names them, resolved without touching the file system: the
//! rules and the tools that open the files must agree on where a path leads.

use std::path::{Component, Path, PathBuf};

/// `requested` made absolute against `cwd`, with `.` and `..` folded (no file system
/// access: a path that does not exist yet still resolves).
pub fn absolute(requested: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let expanded: std::borrow::Cow<'_, Path> = match (requested.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.into(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]).into(),
        _ => Path::new(requested).into(),
    };
    let mut out = PathBuf::with_capacity(cwd.as_os_str().len() + expanded.as_os_str().len() + 1);
    if !expanded.is_absolute() {
        out.push(cwd);
    }
    for component in expanded.components() {
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
