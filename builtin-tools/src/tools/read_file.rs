//! `read_file`: numbered lines of a text file, read lazily.

use crate::workspace::resolve_existing;
use std::fs::File;
use std::io::{BufRead, BufReader};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Lines returned when `limit` is not given.
pub const DEFAULT_LINE_LIMIT: u32 = 2000;
/// Characters kept of one line; the rest is replaced by a marker.
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes inspected for NUL to decide that a file is binary.
const BINARY_SNIFF_BYTES: usize = 8192;

/// Read a text file from the workspace.
///
/// Lines come back numbered, `cat -n` style (line number, tab, text). At most
/// `limit` lines (default 2000) are returned per call; use `offset` to continue
/// further down a long file. Lines longer than 2000 characters are cut with a marker.
/// Binary files are refused.
#[tool(read_only, concurrency_safe, idempotent)]
pub struct ReadFile {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    pub path: String,
    /// The first line to return, 1-based. Defaults to 1.
    #[schemars(range(min = 1))]
    pub offset: Option<u64>,
    /// How many lines to return at most. Defaults to 2000.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
}

impl Tool for ReadFile {
    type Output = String;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.path.trim().is_empty() {
            return Err(ToolError::msg("`path` is empty; give the file to read"));
        }
        if self.offset == Some(0) {
            return Err(ToolError::msg("`offset` is 1-based: the first line is 1"));
        }
        if self.limit == Some(0) {
            return Err(ToolError::msg("`limit` must be at least 1"));
        }
        Ok(())
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let file = resolve_existing(cx, &self.path)?;
        let offset = self.offset.unwrap_or(1);
        let limit = self.limit.unwrap_or(DEFAULT_LINE_LIMIT);
        let display = file.display.clone();
        let read = move || read_lines(&file.path, &display, offset, limit);
        match tokio::task::spawn_blocking(read).await {
            Ok(result) => result,
            Err(e) => Err(ToolError::msg(format!("reading `{}` failed: {e}", self.path))),
        }
    }
}

fn read_lines(path: &std::path::Path, display: &str, offset: u64, limit: u32) -> Result<String, ToolError> {
    let meta = std::fs::metadata(path).map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
    if meta.is_dir() {
        return Err(ToolError::msg(format!("`{display}` is a directory; use glob or list_dir to see what it contains")));
    }
    let mut reader =
        BufReader::with_capacity(64 * 1024, File::open(path).map_err(|e| ToolError::io(format!("cannot open `{display}`"), e))?);
    let head = reader.fill_buf().map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
    if head.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return Err(ToolError::msg(format!("`{display}` is a binary file ({} bytes); read_file only reads text", meta.len())));
    }
    if head.is_empty() {
        return Ok(format!("(`{display}` is empty)"));
    }

    let mut out = String::new();
    let mut line = Vec::new();
    let mut number: u64 = 0;
    let mut shown: u32 = 0;
    let mut lossy = false;
    let mut more = false;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
        if n == 0 {
            break;
        }
        number += 1;
        if number < offset {
            continue;
        }
        if shown == limit {
            more = true;
            break;
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => {
                lossy = true;
                String::from_utf8_lossy(&line)
            }
        };
        push_numbered(&mut out, number, &text);
        shown += 1;
    }
    if number < offset {
        return Err(ToolError::msg(format!("`offset` {offset} is past the end of `{display}`, which has {number} lines")));
    }
    if lossy {
        out.push_str("\n(some bytes were not valid UTF-8 and are shown as \u{FFFD})");
    }
    if more {
        let next = offset + u64::from(shown);
        out.push_str(&format!(
            "\n(showing lines {offset}-{}; the file continues: call again with offset={next})",
            next - 1
        ));
    }
    // The loop stopped at `limit`: the rest of the file is never read.
    Ok(out)
}

fn push_numbered(out: &mut String, number: u64, text: &str) {
    use std::fmt::Write as _;
    if !out.is_empty() {
        out.push('\n');
    }
    let _ = write!(out, "{number:>6}\t");
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            let rest = text[cut..].chars().count();
            out.push_str(&text[..cut]);
            let _ = write!(out, "… [line cut: {rest} more characters]");
        }
        None => out.push_str(text),
    }
}
