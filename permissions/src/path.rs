//! Path patterns in gitignore syntax, with Claude Code's anchors: `//abs` (the file
//! system root), `~/` (home), `/` (the settings file's project), and `./` or a bare
//! pattern (the working directory).

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};

/// The user's home directory (`~/` in rules), if known.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// What a path pattern is relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Anchor {
    /// An absolute directory.
    Dir(PathBuf),
    /// The working directory of the call.
    Cwd,
}

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub struct PathPattern {
    /// As written.
    pub raw: String,
    anchor: Anchor,
    /// The pattern, matched against paths made relative to the anchor and rooted at `/`.
    matcher: Gitignore,
    /// For an anchored pattern, its leading literal directories: a path not under
    /// them cannot match, and is turned away without the glob matcher.
    literal_prefix: Option<PathBuf>,
}

impl PathPattern {
    /// Compiles `raw` with the settings file's anchors, for a rule of `effect`: in deny
    /// and ask rules a relative pattern with a single directory segment (`secrets/**`,
    /// `src/`) matches that directory at any depth below the working directory; in
    /// allow rules only at the top (Claude Code's documented depths).
    pub fn new(raw: &str, anchors: &crate::rule::Anchors, effect: crate::rule::Effect) -> Result<PathPattern, String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err("the path pattern is empty".into());
        }
        if raw.contains('\0') {
            return Err("the path pattern has a NUL character".into());
        }
        let (anchor, line) = if let Some(rest) = raw.strip_prefix("//") {
            (Anchor::Dir(PathBuf::from("/")), format!("/{rest}"))
        } else if let Some(rest) = raw.strip_prefix("~/") {
            let home = anchors.home.clone().ok_or_else(|| format!("`{raw}`: the home directory is not known"))?;
            (Anchor::Dir(home), format!("/{rest}"))
        } else if raw.starts_with('/') {
            match &anchors.project {
                Some(project) => (Anchor::Dir(project.clone()), raw.to_owned()),
                None => (Anchor::Cwd, raw.to_owned()),
            }
        } else if let Some(rest) = raw.strip_prefix("./") {
            (Anchor::Cwd, format!("/{rest}"))
        } else if effect != crate::rule::Effect::Allow && single_directory_segment(raw) {
            (Anchor::Cwd, format!("**/{raw}"))
        } else {
            (Anchor::Cwd, raw.to_owned())
        };
        let mut builder = GitignoreBuilder::new("/");
        builder.add_line(None, &line).map_err(|e| format!("`{raw}`: {e}"))?;
        let matcher = builder.build().map_err(|e| format!("`{raw}`: {e}"))?;
        // `/a/b/*.rs` can only match below `a/b`; a negation or an unanchored pattern
        // has no such prefix.
        let literal_prefix = line.strip_prefix('/').filter(|_| !line.starts_with('!')).map(|rest| {
            rest.split('/').take_while(|c| !c.is_empty() && !c.contains(['*', '?', '[', '\\'])).collect::<PathBuf>()
        });
        let literal_prefix = literal_prefix.filter(|p| !p.as_os_str().is_empty());
        Ok(PathPattern { raw: raw.to_owned(), anchor, matcher, literal_prefix })
    }

    /// The one path an OS sandbox can deny for this pattern, for a call in `cwd`: an
    /// anchored literal path, or a literal directory followed by `/**` or `/`.
    /// Wildcards elsewhere (`**/.env`, `*.key`) name no single path: `None`.
    pub fn literal_path(&self, cwd: &Path) -> Option<PathBuf> {
        let raw = self.raw.as_str();
        let rest = raw
            .strip_prefix("//")
            .or_else(|| raw.strip_prefix("~/"))
            .or_else(|| raw.strip_prefix("./"))
            .or_else(|| raw.strip_prefix('/'))?;
        let rest = rest.trim_end_matches("/**").trim_end_matches('/');
        if rest.contains(['*', '?', '[', '\\', '!']) {
            return None;
        }
        Some(crate::path::absolute(rest, self.base(cwd), None))
    }

    /// The paths under the pattern's base that match it now, for a sandbox to deny:
    /// a walk beneath its literal directories (hidden files included, symlinks not
    /// followed), a matching directory taken whole, at most `limit` entries looked at.
    /// The second value is whether the walk stopped at the limit.
    pub fn matching_paths(&self, cwd: &Path, limit: usize) -> (Vec<PathBuf>, bool) {
        let base = self.base(cwd);
        let start = match &self.literal_prefix {
            Some(prefix) => base.join(prefix),
            None => base.to_owned(),
        };
        let mut found = Vec::new();
        let mut seen = 0;
        let mut walk = ignore::WalkBuilder::new(&start);
        walk.standard_filters(false).follow_links(false);
        for entry in walk.build() {
            let Ok(entry) = entry else { continue };
            seen += 1;
            if seen > limit {
                return (found, true);
            }
            // (Depth first: what is inside a matching directory comes right after it.)
            if found.last().is_some_and(|dir: &PathBuf| entry.path().starts_with(dir)) {
                continue;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if self.matches(entry.path(), cwd, is_dir) {
                found.push(entry.path().to_owned());
            }
        }
        (found, false)
    }

    /// Whether the absolute, normalised `path` matches, for a call in `cwd`.
    pub fn matches(&self, path: &Path, cwd: &Path, is_dir: bool) -> bool {
        let base = self.base(cwd);
        if !self.may_hold(path, base) {
            return false;
        }
        let Ok(relative) = path.strip_prefix(base) else { return false };
        if let Some(prefix) = &self.literal_prefix
            && !relative.starts_with(prefix)
        {
            return false;
        }
        let rooted = Path::new("/").join(relative);
        self.matcher.matched_path_or_any_parents(&rooted, is_dir).is_ignore()
    }

    /// Whether the pattern matches `path` or what is inside it (a directory given to a
    /// command may be read through: `Read(./secrets/**)` covers `grep -r key secrets`).
    pub fn matches_at_or_below(&self, path: &Path, cwd: &Path) -> bool {
        // Both probes are under the pattern's literal directories, or neither is.
        if !self.may_hold(path, self.base(cwd)) {
            return false;
        }
        self.matches(path, cwd, false) || self.matches(&path.join(PROBE_CHILD), cwd, false)
    }

    /// Whether the pattern could match `dir` or something below it: a recursive read
    /// of `dir` could reach what it denies. Over-approximate: it looks only at the
    /// pattern's anchor and literal directories.
    pub fn may_match_below(&self, dir: &Path, cwd: &Path) -> bool {
        let base = self.base(cwd);
        let root = match &self.literal_prefix {
            Some(literal) => base.join(literal),
            None => base.to_path_buf(),
        };
        dir.starts_with(&root) || root.starts_with(dir)
    }

    /// The directory the pattern is relative to, for a call in `cwd`.
    #[inline(always)]
    fn base<'a>(&'a self, cwd: &'a Path) -> &'a Path {
        match &self.anchor {
            Anchor::Dir(dir) => dir.as_path(),
            Anchor::Cwd => cwd,
        }
    }

    /// Whether `path` may be under `base` and the pattern's literal directories: most
    /// paths are turned away here, on bytes, before any component parsing.
    #[inline(always)]
    fn may_hold(&self, path: &Path, base: &Path) -> bool {
        under(path.as_os_str().as_encoded_bytes(), base.as_os_str().as_encoded_bytes(), self.literal_bytes())
    }
}

/// Whether a bare relative pattern names one directory and then only globs below it
/// (`secrets/**`, `src/`, `build/*.o`): such a deny or ask rule matches at any depth.
fn single_directory_segment(raw: &str) -> bool {
    let glob = |c: char| matches!(c, '*' | '?' | '[');
    let Some((dir, rest)) = raw.split_once('/') else { return false };
    !dir.is_empty()
        && dir != "."
        && dir != ".."
        && !dir.contains(glob)
        && rest.split('/').all(|segment| segment.is_empty() || segment.contains(glob))
}

/// A file name no real file has: a probe below a directory, standing for what is in it.
pub(crate) const PROBE_CHILD: &str = "\u{1}";

impl PathPattern {
    fn literal_bytes(&self) -> &[u8] {
        self.literal_prefix.as_ref().map_or(&[], |p| p.as_os_str().as_encoded_bytes())
    }
}

/// Whether the normalised absolute `path` may be under `base` and then under
/// `literal` (a byte check: false means certainly not).
fn under(path: &[u8], base: &[u8], literal: &[u8]) -> bool {
    // Most paths are too short for the literal directories, or differ from them at
    // their first or last byte: look there before comparing whole prefixes.
    let start = base.len() + usize::from(!base.ends_with(b"/"));
    if let (Some(first), Some(last)) = (literal.first(), literal.last())
        && (path.len() < start + literal.len() || path[start] != *first || path[start + literal.len() - 1] != *last)
    {
        return false;
    }
    let Some(rest) = path.strip_prefix(base) else { return false };
    let rest = if base.ends_with(b"/") {
        rest
    } else {
        match rest.split_first() {
            None => return literal.is_empty(),
            Some((b'/', rest)) => rest,
            Some(_) => return false,
        }
    };
    if literal.is_empty() {
        return true;
    }
    rest.strip_prefix(literal).is_some_and(|after| after.is_empty() || after.starts_with(b"/"))
}

pub use toolwright_shell::absolute;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Anchors;

    fn m(pattern: &str, path: &str) -> bool {
        let anchors = Anchors { project: Some("/proj".into()), home: Some("/home/u".into()) };
        PathPattern::new(pattern, &anchors, crate::rule::Effect::Allow).unwrap().matches(
            Path::new(path),
            Path::new("/proj/sub"),
            false,
        )
    }

    #[test]
    fn anchors_and_gitignore_syntax() {
        assert!(m("//etc/**", "/etc/passwd") && !m("//etc/**", "/proj/etc/x"));
        assert!(m("~/.ssh/**", "/home/u/.ssh/id_rsa") && !m("~/.ssh/**", "/proj/.ssh/x"));
        assert!(m("/src/**", "/proj/src/a.rs") && !m("/src/**", "/proj/sub/src/a.rs"));
        assert!(m("./src/**", "/proj/sub/src/a.rs") && !m("./src/**", "/proj/src/a.rs"));
        assert!(m("*.env", "/proj/sub/deep/prod.env") && !m("*.env", "/proj/prod.env"));
        assert!(m("secrets/", "/proj/sub/secrets/k") || m("secrets", "/proj/sub/secrets/k"));
        assert!(m("//tmp/x.txt", "/tmp/x.txt") && !m("//tmp/x.txt", "/tmp/y.txt"));
    }

    #[test]
    fn absolute_folds_dots() {
        assert_eq!(absolute("../x", Path::new("/a/b"), None), PathBuf::from("/a/x"));
        assert_eq!(absolute("~/k", Path::new("/a"), Some(Path::new("/h"))), PathBuf::from("/h/k"));
        assert_eq!(absolute("~", Path::new("/a"), Some(Path::new("/h"))), PathBuf::from("/h"));
        assert_eq!(absolute("~x", Path::new("/a"), Some(Path::new("/h"))), PathBuf::from("/a/~x"));
        assert_eq!(absolute("/abs/./y", Path::new("/a"), None), PathBuf::from("/abs/y"));
    }
}
