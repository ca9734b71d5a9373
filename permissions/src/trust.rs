//! Workspace trust, as Claude Code has it: a repository's own settings may restrict
//! from the start, but may grant only once the workspace is trusted.
//!
//! Until then, the `permissions.allow` rules and `additionalDirectories` of its
//! project settings (`.claude/settings.json`, `.toolwright/settings.json`) are not
//! used, nor a starting mode that loosens (`acceptEdits`, `bypassPermissions`); deny
//! and ask rules apply. A local settings file (`settings.local.json`) is the user's
//! own, unless the repository supplies it: tracked in git, or under a settings
//! directory that is a symlink; then it waits for trust like the project's.
//!
//! Trust is the host's to give ([`Trust::Trusted`]), or the one Claude Code records:
//! `projects["<root>"].hasTrustDialogAccepted` in `~/.claude.json`, keyed on the
//! repository root (the main checkout's, for a worktree), or on the directory itself
//! outside a repository. As in Claude Code's non-interactive sessions, a trusted
//! parent directory does not count.
//!
//! Nothing here runs git: a repository's config can make git run commands
//! (`core.fsmonitor`), and the point is not to trust it yet. Whether a file is tracked
//! is read from the index file itself.

use std::path::{Path, PathBuf};

/// Whether a workspace's own settings may grant capabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trust {
    /// Its allow rules, additional directories and starting mode apply.
    Trusted,
    /// Only what restricts applies (deny and ask rules, a stricter mode).
    Untrusted,
}

impl Trust {
    /// The trust Claude Code has recorded for `project` in `<home>/.claude.json`;
    /// untrusted without a home, a record, or a readable file.
    pub fn recorded(project: &Path, home: Option<&Path>) -> Trust {
        let Some(home) = home else { return Trust::Untrusted };
        let Ok(text) = std::fs::read_to_string(home.join(".claude.json")) else { return Trust::Untrusted };
        let Ok(config) = serde_json::from_str::<serde_json::Value>(&text) else { return Trust::Untrusted };
        let root = trust_root(project);
        let accepted = config
            .get("projects")
            .and_then(|projects| projects.get(root.to_string_lossy().as_ref()))
            .and_then(|entry| entry.get("hasTrustDialogAccepted"))
            .and_then(serde_json::Value::as_bool);
        if accepted == Some(true) { Trust::Trusted } else { Trust::Untrusted }
    }

    /// Whether this is [`Trust::Trusted`].
    pub fn is_trusted(self) -> bool {
        self == Trust::Trusted
    }
}

/// The directory trust is keyed on: the root of the git repository `project` is in
/// (the main checkout's, for a worktree; a submodule is a repository of its own), or
/// `project` itself outside one.
pub fn trust_root(project: &Path) -> PathBuf {
    match repository(project) {
        Some(repo) => match main_checkout(&repo.root) {
            Some(main) => main,
            None => repo.root,
        },
        None => project.to_path_buf(),
    }
}

/// A git repository found above a directory: its work tree's root and its git
/// directory.
struct Repository {
    root: PathBuf,
    git_dir: PathBuf,
}

/// The nearest repository at or above `dir`.
fn repository(dir: &Path) -> Option<Repository> {
    dir.ancestors().find_map(|at| {
        let dot_git = at.join(".git");
        let meta = std::fs::symlink_metadata(&dot_git).ok()?;
        let git_dir = if meta.is_dir() { dot_git } else { linked_git_dir(&dot_git, at)? };
        Some(Repository { root: at.to_path_buf(), git_dir })
    })
}

/// The git directory a `.git` file names (`gitdir: <path>`: a worktree, a submodule).
fn linked_git_dir(file: &Path, at: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let named = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?.trim();
    Some(at.join(named))
}

/// For a linked worktree (`.git` names `<main>/.git/worktrees/<name>`), the main
/// checkout.
fn main_checkout(root: &Path) -> Option<PathBuf> {
    let git_dir = linked_git_dir(&root.join(".git"), root)?;
    let parts: Vec<_> = git_dir.components().collect();
    let at = parts.windows(2).rposition(|w| w[0].as_os_str() == ".git" && w[1].as_os_str() == "worktrees")?;
    Some(parts[..at].iter().collect())
}

/// Whether the repository supplies a local settings file: its settings directory
/// (`.claude`, `.toolwright`) is a symlink, or git tracks the file.
pub fn repository_supplies(file: &Path) -> bool {
    let Some(settings_dir) = file.parent() else { return false };
    if std::fs::symlink_metadata(settings_dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return true;
    }
    let Some(repo) = settings_dir.parent().and_then(repository) else { return false };
    let Ok(relative) = file.strip_prefix(&repo.root) else { return false };
    let Some(relative) = relative.to_str() else { return true };
    index_lists(&repo.git_dir.join("index"), relative)
}

/// Whether the git index at `index` lists `path` (relative to the work tree, `/`
/// separated). Index versions 2 and 3 store each path whole; version 4 compresses
/// them against the one before, so the entries are read in order.
fn index_lists(index: &Path, path: &str) -> bool {
    let Ok(bytes) = std::fs::read(index) else { return false };
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return false;
    }
    let version = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
    let count = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
    index_has(&bytes, version, count, path.as_bytes()).unwrap_or(false)
}

/// Whether an index's entries hold `wanted`; `None` if the index cannot be read.
fn index_has(bytes: &[u8], version: u32, count: usize, wanted: &[u8]) -> Option<bool> {
    // Each entry: 40 bytes of stat data, a 20-byte object id, 2 bytes of flags (and 2
    // more in v3+ when the extended flag is set), then the path.
    const FIXED: usize = 62;
    let mut at = 12;
    // The path before, which a v4 entry's path is compressed against.
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = at;
        let flags = u16::from_be_bytes([*bytes.get(at + 60)?, *bytes.get(at + 61)?]);
        at += FIXED;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        if version == 4 {
            // How many bytes to drop from the previous path (a varint), then the rest.
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + bytes.get(at..)?.iter().position(|&b| b == 0)?;
            previous.truncate(previous.len().checked_sub(strip)?);
            previous.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            if previous == wanted {
                return Some(true);
            }
        } else {
            let end = at + bytes.get(at..)?.iter().position(|&b| b == 0)?;
            if &bytes[at..end] == wanted {
                return Some(true);
            }
            // Padded with NULs to a multiple of 8 bytes from the entry's start.
            at = start + (end + 1 - start).div_ceil(8) * 8;
        }
    }
    Some(false)
}

/// Git's offset varint (as in pack files' `OFS_DELTA`): the value and its length.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value: usize = 0;
    for (i, &b) in bytes.iter().enumerate().take(9) {
        value = if i == 0 { (b & 0x7f) as usize } else { ((value + 1) << 7) | (b & 0x7f) as usize };
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(status.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&status.stderr));
    }

    #[test]
    fn the_index_is_read_in_every_version() {
        for version in ["2", "3", "4"] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            git(&root, &["init", "-q"]);
            git(&root, &["config", "index.version", version]);
            std::fs::create_dir_all(root.join(".claude")).unwrap();
            for name in ["a.txt", ".claude/settings.json", ".claude/settings.local.json", "z/deep/file.rs"] {
                std::fs::create_dir_all(root.join(name).parent().unwrap()).unwrap();
                std::fs::write(root.join(name), "x").unwrap();
            }
            std::fs::write(root.join(".claude/other.json"), "x").unwrap();
            git(&root, &["add", "a.txt", ".claude/settings.local.json", "z/deep/file.rs", ".claude/settings.json"]);
            let index = root.join(".git/index");
            assert!(index_lists(&index, ".claude/settings.local.json"), "v{version}");
            assert!(index_lists(&index, "z/deep/file.rs"), "v{version}");
            assert!(!index_lists(&index, ".claude/other.json"), "v{version}");
            assert!(!index_lists(&index, ".claude/settings"), "v{version}: a prefix is not a path");
            assert!(repository_supplies(&root.join(".claude/settings.local.json")), "v{version}");
            assert!(!repository_supplies(&root.join(".claude/other.json")), "v{version}");
        }
    }

    #[test]
    fn trust_is_keyed_on_the_repository_root_and_a_worktrees_main_checkout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let main = root.join("main");
        std::fs::create_dir_all(main.join("sub/deeper")).unwrap();
        git(&main, &["init", "-q"]);
        std::fs::write(main.join("f"), "x").unwrap();
        git(&main, &["add", "f"]);
        git(&main, &["commit", "-q", "-m", "one"]);
        git(&main, &["worktree", "add", "-q", "../wt"]);
        assert_eq!(trust_root(&main.join("sub/deeper")), main);
        assert_eq!(trust_root(&root.join("wt")), main);
        let outside = root.join("plain");
        std::fs::create_dir_all(&outside).unwrap();
        assert_eq!(trust_root(&outside), outside);

        let home = root.join("home");
        std::fs::create_dir_all(&home).unwrap();
        assert_eq!(Trust::recorded(&main, Some(&home)), Trust::Untrusted, "no record");
        let record = |key: &Path, accepted: bool| {
            let config =
                serde_json::json!({ "projects": { key.to_string_lossy(): { "hasTrustDialogAccepted": accepted } } });
            std::fs::write(home.join(".claude.json"), config.to_string()).unwrap();
        };
        record(&main, true);
        assert_eq!(Trust::recorded(&main.join("sub"), Some(&home)), Trust::Trusted);
        assert_eq!(Trust::recorded(&root.join("wt"), Some(&home)), Trust::Trusted);
        record(&main, false);
        assert_eq!(Trust::recorded(&main, Some(&home)), Trust::Untrusted);
        // A trusted parent does not count.
        record(&root, true);
        assert_eq!(Trust::recorded(&outside, Some(&home)), Trust::Untrusted);
        assert_eq!(Trust::recorded(&main, None), Trust::Untrusted);
    }

    #[test]
    fn a_symlinked_settings_directory_is_the_repositorys() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("elsewhere/settings.local.json"), "{}").unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join(".claude")).unwrap();
        assert!(repository_supplies(&root.join(".claude/settings.local.json")));
        assert!(!repository_supplies(&root.join("elsewhere/settings.local.json")));
    }
}
