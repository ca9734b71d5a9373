//! `write_file`: create or overwrite a file, atomically.

use crate::code_intelligence::{Written, with_diagnostics};
use crate::fsio::{TextFile, unified_diff, write_atomic};
use crate::session::{check_fresh, check_fresh_by};
use crate::workspace::resolve_for_write;
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Past this size an existing file is replaced without a diff (and without being read
/// whole: its freshness is checked by a streamed hash).
const DIFF_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Write a whole file in the workspace: create a new file with the given content (and
/// its directories), or replace one.
///
/// Overwriting an existing file requires that it was read with read_file in this
/// session and has not changed since. Prefer edit_file for changes to part of a file.
/// Not destructive in the irreversible sense: the previous content was read first.
#[tool(rule_name = "Write", title = "Write file", aliases = ["Write"])]
pub struct WriteFile {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    #[access(write)]
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

impl Tool for WriteFile {
    /// Claude Code's name for the path.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("file_path", "path")];

    type Output = String;

    fn summary(&self) -> Option<String> {
        Some(format!("write {} ({} bytes)", self.path, self.content.len()))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let target = resolve_for_write(cx, &self.path)?;
        match std::fs::metadata(&target.path) {
            Ok(meta) if meta.is_dir() => {
                Err(ToolError::msg(format!("`{}` is a directory; give a file path", target.display)))
            }
            // A file too large to diff is checked by a streamed hash, and replaced
            // without a diff: the call's memory is bounded by what it writes.
            Ok(meta) if meta.len() > DIFF_FILE_LIMIT => {
                check_fresh_by(cx, &target.path, &target.display, || crate::confined::hash_file(&target))?;
                write_atomic(cx, &target, self.content.as_bytes())?;
                let lines = self.content.lines().count();
                Ok(format!(
                    "Overwrote `{}` ({lines} lines). It was {} bytes: no diff is shown for files over {} MB.",
                    target.display,
                    meta.len(),
                    DIFF_FILE_LIMIT / (1024 * 1024)
                ))
            }
            Ok(_) => {
                let existing = TextFile::load(&target);
                let raw = match &existing {
                    Ok(file) => file.raw.clone(),
                    Err(_) => crate::confined::read_all(&target, DIFF_FILE_LIMIT)?,
                };
                check_fresh(cx, &target.path, &target.display, &raw)?;
                write_atomic(cx, &target, self.content.as_bytes())?;
                let after = self.content.replace("\r\n", "\n");
                let (diff, before) = match existing {
                    Ok(file) => (unified_diff(&target.display, &file.text, &after), Some(file.text)),
                    Err(_) => (String::new(), None),
                };
                let lines = self.content.lines().count();
                let message = format!("Overwrote `{}` ({lines} lines).\n{diff}", target.display).trim_end().to_owned();
                Ok(with_diagnostics(cx, Written::new(&target, before, after), message).await)
            }
            Err(_) => {
                write_atomic(cx, &target, self.content.as_bytes())?;
                let lines = self.content.lines().count();
                let message = format!("Created `{}` ({lines} lines, {} bytes).", target.display, self.content.len());
                Ok(with_diagnostics(cx, Written::new(&target, None, self.content), message).await)
            }
        }
    }
}
