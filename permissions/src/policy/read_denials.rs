//! The `Read` deny rules as the read filter every allowed call gets, and the
//! `WebFetch` deny rules as the fetch filter of calls that list URLs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_core::permission::ReadFilter;

/// Paths the `Read` deny rules cover, for a given working directory.
#[derive(Debug, Clone, Default)]
pub struct ReadDenials {
    pub(crate) patterns: Arc<[(crate::path::PathPattern, String)]>,
    pub(crate) cwd: PathBuf,
}

impl ReadDenials {
    /// The rule that denies reading `path` (absolute), if one does. A path through a
    /// symlink is denied when the link or its target is.
    pub fn denied_by(&self, path: &Path, is_dir: bool) -> Option<&str> {
        let found = |path: &Path| {
            self.patterns.iter().find(|(p, _)| p.matches(path, &self.cwd, is_dir)).map(|(_, text)| text.as_str())
        };
        found(path).or_else(|| {
            let real = path.canonicalize().ok()?;
            (real != path).then(|| found(&real)).flatten()
        })
    }

    /// Whether reading `path` could reach a denied path below it (a recursive search
    /// of a directory holding one).
    pub fn covers_below(&self, path: &Path) -> bool {
        self.patterns.iter().any(|(p, _)| p.may_match_below(path, &self.cwd))
    }

    /// Whether there are no such rules.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

impl ReadFilter for ReadDenials {
    fn denied(&self, path: &Path, is_dir: bool) -> Option<String> {
        self.denied_by(path, is_dir).map(|rule| format!("denied by the permission rule `{rule}`"))
    }
}

/// The domains the `WebFetch` deny rules cover (`WebFetch(domain:x)`), or all of
/// them (a bare `WebFetch` deny).
#[derive(Debug, Clone, Default)]
pub struct FetchDenials {
    pub(crate) patterns: Vec<(crate::domain::DomainPattern, String)>,
    /// A rule denying every fetch.
    pub(crate) all: Option<String>,
}

impl FetchDenials {
    /// Whether there are no such rules.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty() && self.all.is_none()
    }
}

impl toolwright_core::permission::FetchFilter for FetchDenials {
    fn denied(&self, url: &url::Url) -> Option<String> {
        let host = url.host_str().unwrap_or("");
        let rule = self.all.as_deref().or_else(|| {
            self.patterns.iter().find(|(pattern, _)| pattern.matches(host)).map(|(_, text)| text.as_str())
        })?;
        Some(format!("denied by the permission rule `{rule}`"))
    }
}
