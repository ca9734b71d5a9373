//! Protected paths: writes to repository state and tool configuration are never
//! approved by a mode or an allow rule, only by a person (or `bypassPermissions`), as
//! Claude Code documents. A path is protected when a directory on it is one of
//! [`PROTECTED_DIRS`] or its file name is one of [`PROTECTED_FILES`], wherever it is.

use std::path::{Component, Path};

/// Directories whose contents are protected (`.claude/worktrees` excepted).
pub const PROTECTED_DIRS: &[&str] =
    &[".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn", ".claude", ".toolwright"];

/// Protected file names.
pub const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".profile",
    ".envrc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    ".ripgreprc",
    "pyrightconfig.json",
    ".mcp.json",
    ".claude.json",
];

/// Whether writing `path` (absolute, normalised) touches a protected path.
pub fn is_protected(path: &Path) -> bool {
    let names: Vec<&str> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    // `.config/git` is protected as a pair.
    if names.windows(2).any(|pair| pair == [".config", "git"]) {
        return true;
    }
    for (i, name) in names.iter().enumerate() {
        let below = i + 1 < names.len();
        if below && PROTECTED_DIRS.contains(name) {
            // Claude Code keeps its own git worktrees in `.claude/worktrees`.
            if *name == ".claude" && names.get(i + 1) == Some(&"worktrees") {
                continue;
            }
            return true;
        }
        // A protected directory itself (created or replaced), or a protected file.
        if !below && (PROTECTED_DIRS.contains(name) || PROTECTED_FILES.contains(name)) {
            return true;
        }
    }
    false
}

/// The filesystem commands acceptEdits approves for paths inside the working
/// directories (Claude Code's list).
pub const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"];

#[cfg(test)]
mod tests {
    use super::is_protected;
    use std::path::Path;

    #[test]
    fn protected_directories_and_files() {
        for p in [
            "/p/.git/config",
            "/p/.git",
            "/p/sub/.claude/settings.json",
            "/h/.config/git/config",
            "/p/.bashrc",
            "/p/a/.mcp.json",
            "/p/.husky/pre-commit",
        ] {
            assert!(is_protected(Path::new(p)), "{p}");
        }
        for p in ["/p/src/main.rs", "/p/.claude/worktrees/x/file", "/p/.gitignore", "/p/git/config", "/p/docs/.env"] {
            assert!(!is_protected(Path::new(p)), "{p}");
        }
    }
}
