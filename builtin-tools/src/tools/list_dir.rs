//! `list_dir`: a directory tree that respects ignore rules.

use crate::workspace::Workspace;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use toolwright_core::access::{Access, Accesses};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Entries listed when `limit` is not given.
pub const DEFAULT_LIST_LIMIT: u32 = 500;

/// List the files and folders in a directory as a tree, down to `depth` levels
/// (default 2).
///
/// Directories end with `/`. Files ignored by .gitignore, .ignore or
/// .toolwrightignore, and hidden files, are left out.
#[tool(read_only, concurrency_safe, idempotent, rule_name = "LS", aliases = ["LS"])]
pub struct ListDir {
    /// Directory, relative to the workspace root. Defaults to the root.
    pub path: Option<String>,
    /// How many levels to descend. Defaults to 2.
    #[schemars(range(min = 1, max = 20))]
    pub depth: Option<u32>,
    /// How many entries to list at most. Defaults to 500.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Globs to leave out, such as `*.log`.
    pub ignore: Option<Vec<String>>,
}

impl ListDir {
    /// The `ignore` globs as the walk's overrides: each one only leaves out (a glob
    /// given to the walker plainly would list only what it matches).
    fn ignored(&self, dir: &std::path::Path) -> Result<ignore::overrides::Override, ToolError> {
        let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
        for glob in self.ignore.iter().flatten() {
            overrides
                .add(&format!("!{glob}"))
                .map_err(|e| ToolError::msg(format!("`ignore`: invalid glob `{glob}`: {e}")))?;
        }
        overrides.build().map_err(|e| ToolError::msg(format!("`ignore`: {e}")))
    }
}

impl Tool for ListDir {
    type Output = String;

    /// A search of its directory (the working directory when none is given).
    fn access(&self) -> Accesses {
        Accesses::of([Access::Search(self.path.clone().unwrap_or_else(|| ".".to_owned()))])
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.depth == Some(0) {
            return Err(ToolError::msg("`depth` must be at least 1"));
        }
        if self.limit == Some(0) {
            return Err(ToolError::msg("`limit` must be at least 1"));
        }
        self.ignored(std::path::Path::new(".")).map(drop)
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let workspace = Workspace::of(cx)?;
        let dir = workspace.existing(cx, self.path.as_deref().unwrap_or("."))?;
        if !dir.path.is_dir() {
            return Err(ToolError::msg(format!("`{}` is a file, not a directory; use read_file to read it", dir.display)));
        }
        let ignored = self.ignored(&dir.path)?;
        let depth = self.depth.unwrap_or(2) as usize;
        let limit = self.limit.unwrap_or(DEFAULT_LIST_LIMIT) as usize;
        let list = move || {
            let mut walk = workspace.walker(&dir.path);
            walk.max_depth(Some(depth)).sort_by_file_name(|a, b| a.cmp(b)).overrides(ignored);
            // Path components relative to `dir`, directories marked.
            let mut tree: BTreeMap<Vec<String>, bool> = BTreeMap::new();
            let mut listing = crate::confined::Listing::new(&dir.root);
            for entry in walk.build().filter_map(Result::ok) {
                let Ok(relative) = entry.path().strip_prefix(&dir.path) else { continue };
                if relative.as_os_str().is_empty() || !listing.confirms(entry.path(), entry.ino()) {
                    continue;
                }
                let parts = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                tree.insert(parts, entry.file_type().is_some_and(|t| t.is_dir()));
            }
            let total = tree.len();
            let mut out = format!("{}/", dir.display.trim_end_matches('/'));
            for (parts, is_dir) in tree.iter().take(limit) {
                let indent = "  ".repeat(parts.len());
                let _ = write!(out, "\n{indent}{}{}", parts[parts.len() - 1], if *is_dir { "/" } else { "" });
            }
            if total == 0 {
                out.push_str("\n  (empty)");
            } else if total > limit {
                let _ = write!(out, "\n(showing {limit} of {total} entries; list a subdirectory or raise `limit`)");
            }
            out
        };
        tokio::task::spawn_blocking(list).await.map_err(|e| ToolError::msg(format!("list_dir failed: {e}")))
    }
}
