//! `glob`: files matching a pattern, gitignore-aware, newest first.

use crate::workspace::Workspace;
use globset::GlobBuilder;
use ignore::WalkState;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;
use toolwright_core::access::{Access, Accesses};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Paths returned when `limit` is not given.
pub const DEFAULT_GLOB_LIMIT: u32 = 100;

/// Find files by name, extension or path pattern (a glob): all files named like
/// `test_*.py`, `**/*.rs` or `src/**/mod.rs`.
///
/// Patterns match paths relative to the search directory; `*` stays within one
/// directory and `**` crosses directories. Hidden files and files ignored by
/// .gitignore, .ignore or .toolwrightignore are skipped. Results are sorted by
/// modification time, newest first.
#[tool(read_only, concurrency_safe, idempotent, rule_name = "Glob", aliases = ["Glob"])]
pub struct Glob {
    /// The glob pattern, such as `**/*.rs`.
    pub pattern: String,
    /// Directory, relative to the workspace root. Defaults to the root.
    pub path: Option<String>,
    /// How many paths to return at most. Defaults to 100.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

impl Tool for Glob {
    type Output = String;

    /// A search of its directory (the working directory when none is given).
    fn access(&self) -> Accesses {
        Accesses::of([Access::Search(self.path.clone().unwrap_or_else(|| ".".to_owned()))])
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.pattern.trim().is_empty() {
            return Err(ToolError::msg("`pattern` is empty; give a glob such as `**/*.rs`"));
        }
        if self.limit == Some(0) {
            return Err(ToolError::msg("`limit` must be at least 1"));
        }
        Ok(())
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let matcher = GlobBuilder::new(&self.pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| ToolError::msg(format!("invalid glob `{}`: {}", self.pattern, e.kind())))?
            .compile_matcher();
        let workspace = Workspace::of(cx)?;
        let base = workspace.existing(cx, self.path.as_deref().unwrap_or("."))?;
        if !base.path.is_dir() {
            return Err(ToolError::msg(format!("`{}` is not a directory", base.display)));
        }
        let limit = self.limit.unwrap_or(DEFAULT_GLOB_LIMIT) as usize;
        let pattern = self.pattern.clone();
        let search = move || {
            // A parallel walk that keeps only the `limit` newest (memory by what is
            // returned, not by what matched); the sort makes the order deterministic.
            let found = Mutex::new(Newest::new(limit));
            workspace.walker(&base.path).build_parallel().run(|| {
                let (found, matcher, workspace, base) = (&found, &matcher, &workspace, &base);
                let mut listing = crate::confined::Listing::new(&base.root);
                Box::new(move |entry| {
                    let Ok(entry) = entry else { return WalkState::Continue };
                    if entry.file_type().is_some_and(|t| t.is_file())
                        && let Ok(relative) = entry.path().strip_prefix(&base.path)
                        && matcher.is_match(relative)
                        && listing.confirms(entry.path(), entry.ino())
                    {
                        let modified =
                            entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
                        let shown = workspace.display(entry.path());
                        found.lock().unwrap_or_else(PoisonError::into_inner).offer(modified, shown);
                    }
                    WalkState::Continue
                })
            });
            let found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
            format_matches(&pattern, &base.display, found, limit)
        };
        tokio::task::spawn_blocking(search).await.map_err(|e| ToolError::msg(format!("glob search failed: {e}")))
    }
}

/// The `limit` newest matches seen, and how many matched in all.
struct Newest {
    /// The worst kept on top: oldest, then the greatest path.
    kept: BinaryHeap<(Reverse<SystemTime>, String)>,
    limit: usize,
    total: usize,
}

impl Newest {
    fn new(limit: usize) -> Newest {
        Newest { kept: BinaryHeap::new(), limit, total: 0 }
    }

    fn offer(&mut self, modified: SystemTime, path: String) {
        self.total += 1;
        self.kept.push((Reverse(modified), path));
        if self.kept.len() > self.limit {
            self.kept.pop();
        }
    }

    /// Newest first; equal times by path.
    fn sorted(self) -> Vec<String> {
        self.kept.into_sorted_vec().into_iter().map(|(_, path)| path).collect()
    }
}

fn format_matches(pattern: &str, dir: &str, found: Newest, limit: usize) -> String {
    let total = found.total;
    if total == 0 {
        return format!("No files match `{pattern}` in `{dir}`.");
    }
    let mut out = found.sorted().join("\n");
    if total > limit {
        out.push_str(&format!("\n(showing {limit} of {total} matches, newest first; narrow the pattern or raise `limit`)"));
    }
    out
}
