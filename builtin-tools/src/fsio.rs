//! File writing shared by write_file and the edit tools: atomic replacement, and
//! text that keeps its line endings and byte-order mark.

use crate::session::{FileStates, stamp_now};
use std::io::Write as _;
use std::path::Path;
use toolwright_core::{ToolContext, ToolError};

/// Files larger than this are not loaded whole for editing.
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// Writes `bytes` to `path` atomically: a temporary file in the same directory,
/// flushed to disk, then renamed over the target, keeping the target's permissions.
/// A crash leaves the old content or the new one, never a mix. Parent directories
/// are created. Records the new state in the session's file cache.
pub(crate) fn write_atomic(cx: &ToolContext, path: &Path, display: &str, bytes: &[u8]) -> Result<(), ToolError> {
    let dir = path.parent().ok_or_else(|| ToolError::msg(format!("`{display}` has no parent directory")))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| ToolError::io(format!("cannot create the directories of `{display}`"), e))?;
    let failed = |e| ToolError::io(format!("cannot write `{display}`"), e);
    // An existing file keeps its permissions; a new one gets the usual 0644.
    let permissions = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => std::os::unix::fs::PermissionsExt::from_mode(0o644),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".toolwright-")
        .suffix(".tmp")
        .permissions(permissions)
        .tempfile_in(dir)
        .map_err(failed)?;
    temp.write_all(bytes).map_err(failed)?;
    temp.as_file().sync_all().map_err(failed)?;
    temp.persist(path).map_err(|e| failed(e.error))?;
    if let Some(states) = cx.extension::<FileStates>()
        && let Some(stamp) = stamp_now(path, Some(bytes), None)
    {
        states.record(path, stamp);
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
    /// Loads an existing text file, refusing directories, binary and oversized files.
    pub(crate) fn load(path: &Path, display: &str) -> Result<TextFile, ToolError> {
        let meta = std::fs::metadata(path).map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
        if meta.is_dir() {
            return Err(ToolError::msg(format!("`{display}` is a directory, not a file")));
        }
        if meta.len() > MAX_EDIT_BYTES {
            return Err(ToolError::msg(format!(
                "`{display}` is {} bytes; files over {MAX_EDIT_BYTES} bytes cannot be edited whole",
                meta.len()
            )));
        }
        let raw = std::fs::read(path).map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
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

/// A unified diff of `before` and `after`, three lines of context.
pub(crate) fn unified_diff(display: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}
