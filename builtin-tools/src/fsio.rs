//! File writing shared by write_file and the edit tools: atomic replacement, and
//! text that keeps its line endings and byte-order mark.

use crate::session::{FileStates, stamp_now};
use crate::workspace::Resolved;
use toolwright_core::{ToolContext, ToolError};

/// Files larger than this are not loaded whole for editing.
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// Writes `bytes` to the checked file atomically, confined to its root (see
/// [`crate::confined::write_atomic`]): a crash leaves the old content or the new one,
/// never a mix. Records the new state in the session's file cache.
pub(crate) fn write_atomic(cx: &ToolContext, file: &Resolved, bytes: &[u8]) -> Result<(), ToolError> {
    crate::confined::write_atomic(file, bytes)?;
    if let Some(states) = cx.extension::<FileStates>()
        && let Some(stamp) = stamp_now(&file.path, Some(bytes), None)
    {
        states.record(&file.path, stamp);
    }
    Ok(())
}

/// A text file as loaded for editing: the content with `\n` line endings and no
/// BOM, plus what to restore when writing it back.
pub(crate) struct TextFile {
    pub(crate) text: String,
    pub(crate) crlf: bool,
    pub(crate) bom: bool,
    /// The bytes as read, for the staleness check.
    pub(crate) raw: Vec<u8>,
}

impl TextFile {
    /// Loads an existing text file, confined to its root, refusing directories,
    /// non-regular, binary and oversized files.
    pub(crate) fn load(file: &Resolved) -> Result<TextFile, ToolError> {
        let display = file.display.as_str();
        let (opened, meta) = crate::confined::open_read(file)?;
        if meta.len() > MAX_EDIT_BYTES {
            return Err(ToolError::msg(format!(
                "`{display}` is {} bytes; files over {MAX_EDIT_BYTES} bytes cannot be edited whole",
                meta.len()
            )));
        }
        let raw = crate::confined::read_at_most(opened, meta.len(), MAX_EDIT_BYTES, display)?;
        if raw.iter().take(8192).any(|&b| b == 0) {
            return Err(ToolError::msg(format!("`{display}` is a binary file; only text files can be edited")));
        }
        let text = std::str::from_utf8(&raw).map_err(|e| {
            ToolError::msg(format!(
                "`{display}` is not valid UTF-8 (at byte {}); it cannot be edited as text",
                e.valid_up_to()
            ))
        })?;
        let bom = text.starts_with('\u{feff}');
        let text = text.trim_start_matches('\u{feff}');
        let crlf = text.contains("\r\n");
        let text = if crlf { text.replace("\r\n", "\n") } else { text.to_owned() };
        Ok(TextFile { text, crlf, bom, raw })
    }

    /// `text` in this file's conventions.
    pub(crate) fn encode(&self, text: &str) -> Vec<u8> {
        let mut out = String::with_capacity(text.len() + 3);
        if self.bom {
            out.push('\u{feff}');
        }
        if self.crlf {
            out.push_str(&text.replace('\n', "\r\n"));
        } else {
            out.push_str(text);
        }
        out.into_bytes()
    }
}

/// How long a diff may take: past it, the diff algorithm settles for a coarser answer
/// (a larger, still correct diff) instead of going quadratic on a full rewrite.
const DIFF_TIME_LIMIT: std::time::Duration = std::time::Duration::from_millis(250);

/// How much diff text is built: past it, the rest is summed up in one line (the
/// model gets the change's size, not megabytes of `-`/`+` lines).
const DIFF_TEXT_LIMIT: usize = 64 * 1024;

/// A unified diff of `before` and `after`, three lines of context, bounded in time and
/// size.
pub(crate) fn unified_diff(display: &str, before: &str, after: &str) -> String {
    use std::fmt::Write as _;
    let diff = similar::TextDiff::configure().timeout(DIFF_TIME_LIMIT).diff_lines(before, after);
    let mut out = String::new();
    let mut unified = diff.unified_diff();
    unified.context_radius(3);
    // Line by line, as `similar` writes a unified diff, up to the limit (a hunk of a
    // full rewrite is the whole file).
    for hunk in unified.iter_hunks() {
        for (i, change) in hunk.iter_changes().enumerate() {
            if out.len() > DIFF_TEXT_LIMIT {
                let (removed, added) = diff.iter_all_changes().fold((0usize, 0usize), |(r, a), c| match c.tag() {
                    similar::ChangeTag::Delete => (r + 1, a),
                    similar::ChangeTag::Insert => (r, a + 1),
                    similar::ChangeTag::Equal => (r, a),
                });
                let _ = writeln!(
                    out,
                    "... the rest of the diff is left out (over {} KB): {removed} lines removed and {added} added in all",
                    DIFF_TEXT_LIMIT / 1024
                );
                return out;
            }
            if out.is_empty() {
                let _ = writeln!(out, "--- a/{display}\n+++ b/{display}");
            }
            if i == 0 {
                let _ = writeln!(out, "{}", hunk.header());
            }
            let _ = write!(out, "{}{}", change.tag(), change.value());
            if change.missing_newline() {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}
