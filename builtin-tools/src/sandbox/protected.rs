//! Paths a confined command must not change even inside the places it may write:
//! they decide what later commands may do (rules and the sandbox itself, MCP servers
//! to start, git hooks and settings that run code, editor tasks, shell start-up
//! files, agent definitions), or they are toolwright's own state.
//!
//! Two lines hold them. Under namespaces (`namespaces.rs`) those that exist are
//! mounted read-only, so a write fails as it happens. Whatever the layers, the
//! [`Guard`] keeps them as they were before the command and puts them back after it
//! (a path made where there was none is removed), and the result says so: this is
//! what covers a path that did not exist yet, and a machine without namespaces.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files, relative to every writable root: Claude Code's sandbox list (git and shell
/// settings, ripgrep's, MCP servers) and the settings files of both tools.
pub(crate) const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".ripgreprc",
    ".mcp.json",
    ".git/config",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude.json",
];

/// Directories, relative to every writable root, protected with all they hold:
/// Claude Code's sandbox list (editor folders, agent commands and definitions, git
/// hooks) and toolwright's own state (settings, the `call` session).
pub(crate) const PROTECTED_DIRS: &[&str] =
    &[".vscode", ".idea", ".claude/commands", ".claude/agents", ".git/hooks", ".toolwright"];

/// The user's settings, agent definitions and shell start-up files, wherever they
/// are (`$HOME`, `$CLAUDE_CONFIG_DIR`).
fn user_paths() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from) {
        paths.extend(PROTECTED_FILES.iter().chain(PROTECTED_DIRS).map(|name| home.join(name)));
    }
    if let Some(config) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|c| !c.is_empty()).map(PathBuf::from) {
        for name in ["settings.json", "settings.local.json", "commands", "agents"] {
            paths.push(config.join(name));
        }
    }
    paths
}

/// How deep below a writable root nested projects are looked for, and how many
/// directories at most: enough for a monorepo's packages, bounded for a huge tree.
const NESTED_DEPTH: usize = 3;
const NESTED_DIRS: usize = 5_000;

/// The directories below `root` (down to [`NESTED_DEPTH`]) that hold a protected
/// name, such as a nested repository's `.git` or a package's `.vscode`. Links are not
/// followed, and the usual heavy directories are not entered.
fn nested(root: &Path) -> Vec<PathBuf> {
    const SKIP: &[&str] = &[".git", "node_modules", "target", ".venv", "venv", "__pycache__", ".cache"];
    let first: Vec<&str> =
        PROTECTED_FILES.iter().chain(PROTECTED_DIRS).filter_map(|name| name.split('/').next()).collect();
    let mut found = Vec::new();
    let mut pending = vec![(root.to_owned(), 0usize)];
    let mut seen = 0;
    while let Some((dir, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut holds = false;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if depth > 0 && first.contains(&name) {
                holds = true;
            }
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && depth < NESTED_DEPTH && !SKIP.contains(&name) && seen < NESTED_DIRS {
                seen += 1;
                pending.push((entry.path(), depth + 1));
            }
        }
        if holds {
            found.push(dir);
        }
    }
    found
}

/// The most of a protected path kept to put it back.
const KEEP_BYTES: u64 = 8 * 1024 * 1024;
/// The most entries of a protected directory kept.
const KEEP_ENTRIES: usize = 2_000;

/// A protected path's state.
#[derive(PartialEq, Eq, Debug)]
enum Kept {
    Missing,
    File(Vec<u8>, u32),
    Link(PathBuf),
    /// A directory, by path relative to it.
    Dir(BTreeMap<PathBuf, Kept>),
    /// Too big to keep, or not a file, link or directory: left as it is.
    Other,
}

fn kept(path: &Path, budget: &mut (u64, usize)) -> Kept {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Kept::Missing };
    budget.1 += 1;
    if budget.1 > KEEP_ENTRIES {
        return Kept::Other;
    }
    if meta.is_symlink() {
        return std::fs::read_link(path).map_or(Kept::Other, Kept::Link);
    }
    if meta.is_file() {
        budget.0 += meta.len();
        if budget.0 > KEEP_BYTES {
            return Kept::Other;
        }
        return std::fs::read(path).map_or(Kept::Other, |bytes| Kept::File(bytes, meta.permissions().mode()));
    }
    if meta.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return Kept::Other };
        let mut inside = BTreeMap::new();
        for entry in entries.flatten() {
            let state = kept(&entry.path(), budget);
            if state == Kept::Other {
                return Kept::Other;
            }
            inside.insert(PathBuf::from(entry.file_name()), state);
        }
        return Kept::Dir(inside);
    }
    Kept::Other
}

fn put(path: &Path, state: &Kept) {
    use std::os::unix::fs::PermissionsExt as _;
    match state {
        Kept::File(bytes, mode) => {
            let _ = std::fs::write(path, bytes);
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode));
        }
        Kept::Link(target) => {
            let _ = std::os::unix::fs::symlink(target, path);
        }
        Kept::Dir(inside) => {
            let _ = std::fs::create_dir(path);
            for (name, state) in inside {
                put(&path.join(name), state);
            }
        }
        Kept::Missing | Kept::Other => {}
    }
}

fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            let _ = std::fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// The ancestors of `path` below `root` that exist and are not directories.
fn non_dirs_between(root: &Path, path: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .skip(1)
        .take_while(|a| *a != root && a.starts_with(root))
        .filter(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.is_file()))
        .map(Path::to_path_buf)
        .collect()
}

/// Whether an ancestor that was a plain file before is now something else (a link).
fn changed_kind(path: &Path) -> bool {
    !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The git directory a `.git` file names (`gitdir: <path>`, relative to the file's
/// directory), as git reads it.
fn gitdir_of(dot_git: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(dot_git).ok()?;
    if !meta.is_file() || meta.len() > 4096 {
        return None;
    }
    let text = std::fs::read_to_string(dot_git).ok()?;
    let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    if named.is_empty() {
        return None;
    }
    let base = dot_git.parent()?;
    Some(base.join(named))
}

/// For a root whose `.git` is a file: that file, and the config and hooks of the git
/// directory it names and of that directory's common directory (`commondir`, where a
/// worktree's config and hooks live), each with the directory its swap walk stops at.
fn linked_git_paths(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    let dot_git = root.join(".git");
    let Some(gitdir) = gitdir_of(&dot_git) else { return Vec::new() };
    let mut paths = vec![(root.to_owned(), dot_git)];
    let mut dirs = vec![gitdir.clone()];
    if let Ok(common) = std::fs::read_to_string(gitdir.join("commondir")) {
        let common = common.trim();
        if !common.is_empty() {
            dirs.push(gitdir.join(common));
        }
    }
    for dir in dirs {
        for name in ["config", "config.worktree", "hooks"] {
            paths.push((dir.clone(), dir.join(name)));
        }
    }
    paths
}

/// One protected path before the command.
struct Entry {
    /// Where the walk for swapped directories stops: the writable root holding the
    /// path, or the git directory a `.git` file names.
    root: PathBuf,
    path: PathBuf,
    before: Kept,
    /// The ancestors between `root` and `path` that were not directories before the
    /// command (a worktree's `.git` is a file): they are not swaps.
    non_dirs_before: Vec<PathBuf>,
    /// The path is inside a `.git` that did not exist before the command: a
    /// repository it made (`git init`), whose config and hooks are its own.
    fresh_repository: bool,
}

/// The protected paths as they were before a command.
pub(crate) struct Guard {
    entries: Vec<Entry>,
}

impl Guard {
    /// Keeps the state of the protected paths in each of `writable`.
    pub(crate) fn take(writable: &[PathBuf]) -> Guard {
        let mut entries: Vec<Entry> = Vec::new();
        let mut add = |root: &Path, path: PathBuf| {
            if entries.iter().any(|e| e.path == path) {
                return;
            }
            let before = kept(&path, &mut (0, 0));
            let git = root.join(".git");
            let fresh_repository = path.starts_with(&git) && std::fs::symlink_metadata(&git).is_err();
            let non_dirs_before = non_dirs_between(root, &path);
            entries.push(Entry { root: root.to_owned(), path, before, fresh_repository, non_dirs_before });
        };
        let dirs: Vec<&PathBuf> =
            writable.iter().filter(|root| std::fs::symlink_metadata(root).is_ok_and(|m| m.is_dir())).collect();
        for root in &dirs {
            for name in PROTECTED_FILES.iter().chain(PROTECTED_DIRS) {
                add(root, root.join(name));
            }
            // A worktree's or submodule's `.git` is a file naming its git directory:
            // the file and the config and hooks of the directory it names are as live
            // as a `.git` directory's.
            for (anchor, path) in linked_git_paths(root) {
                add(&anchor, path);
            }
            // Nested repositories and projects: their hooks and settings are as live
            // as the root's (those that exist; a new one is the root's own to make).
            for dir in nested(root) {
                for name in PROTECTED_FILES.iter().chain(PROTECTED_DIRS) {
                    let path = dir.join(name);
                    if std::fs::symlink_metadata(&path).is_ok() {
                        add(root, path);
                    }
                }
            }
        }
        // The user's own settings wherever a writable root holds them: `allowWrite`
        // naming `~/.claude` must not let a command rewrite `~/.claude/settings.json`.
        for path in user_paths() {
            if let Some(root) = writable.iter().find(|root| path.starts_with(root)) {
                add(root, path);
            }
        }
        Guard { entries }
    }

    /// The protected paths that exist, to mount read-only.
    pub(crate) fn existing(&self) -> Vec<PathBuf> {
        self.entries.iter().filter(|e| e.before != Kept::Missing).map(|e| e.path.clone()).collect()
    }

    /// Puts back what changed; the paths it put back.
    pub(crate) fn restore(&self) -> Vec<PathBuf> {
        let mut undone = Vec::new();
        for entry in &self.entries {
            if entry.before == Kept::Other || (entry.before == Kept::Missing && entry.fresh_repository) {
                continue;
            }
            // A directory between the root and the path swapped for a link (out of
            // the workspace) or a file goes first, so the put-back lands here.
            let swapped: Vec<&Path> = entry
                .path
                .ancestors()
                .skip(1)
                .take_while(|a| *a != entry.root.as_path())
                .filter(|a| std::fs::symlink_metadata(a).is_ok_and(|m| !m.is_dir()))
                .filter(|a| !entry.non_dirs_before.iter().any(|b| b == a) || changed_kind(a))
                .collect();
            if swapped.is_empty() && kept(&entry.path, &mut (0, 0)) == entry.before {
                continue;
            }
            for ancestor in swapped.iter().rev() {
                let _ = std::fs::remove_file(ancestor);
            }
            remove(&entry.path);
            if entry.before != Kept::Missing {
                if let Some(parent) = entry.path.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                put(&entry.path, &entry.before);
            }
            undone.push(entry.path.clone());
        }
        undone
    }
}
