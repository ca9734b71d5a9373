//! `read_file`: numbered lines of a text file, read lazily.

use crate::session::{FileStates, stamp_now};
use crate::workspace::{Resolved, resolve_existing};
use base64::Engine as _;
use std::hash::Hasher;
use std::io::{BufRead, BufReader};
use std::path::Path;
use toolwright_core::{Content, Tool, ToolContext, ToolError, ToolOutput, tool};

/// Lines returned when `limit` is not given.
pub const DEFAULT_LINE_LIMIT: u32 = 2000;
/// Characters kept of one line; the rest is replaced by a marker.
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes inspected for NUL to decide that a file is binary.
const BINARY_SNIFF_BYTES: usize = 8192;
/// The largest image returned (providers reject larger ones).
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// Read a file from the workspace and show its contents: source code, text, config or
/// logs (or an image).
///
/// Lines come back numbered, `cat -n` style (line number, tab, text). At most
/// `limit` lines (default 2000) are returned per call; use `offset` to continue
/// further down a long file. Lines longer than 2000 characters are cut with a marker.
/// Images (png, jpg, gif, webp) come back as images; Jupyter notebooks (`.ipynb`) as
/// their cells, each with its id, source and outputs; PDFs as their text, page by page
/// (whole up to 10 pages; longer ones by `pages`, at most 20 a call). Other binary
/// files are refused.
#[tool(read_only, concurrency_safe, idempotent, rule_name = "Read", aliases = ["Read"])]
pub struct ReadFile {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    #[access(read)]
    pub path: String,
    /// The first line to return, 1-based. Defaults to 1.
    #[schemars(range(min = 1))]
    pub offset: Option<u64>,
    /// How many lines to return at most. Defaults to 2000.
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// PDFs only: the pages to read, such as "1-5" (at most 20 a call; needed for a
    /// PDF over 10 pages).
    pub pages: Option<String>,
}

impl Tool for ReadFile {
    /// Claude Code's name for the path.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("file_path", "path")];

    type Output = ToolOutput;

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
        if self.pages.is_some() && !is_pdf(Path::new(&self.path)) {
            return Err(ToolError::msg("`pages` is for PDFs; read other files by `offset` and `limit`"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(match (self.offset, self.limit) {
            (None, None) => format!("read {}", self.path),
            (offset, limit) => format!("read {} from line {} ({} lines)", self.path, offset.unwrap_or(1), limit.unwrap_or(DEFAULT_LINE_LIMIT)),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let file = resolve_existing(cx, &self.path)?;
        let offset = self.offset.unwrap_or(1);
        let limit = self.limit.unwrap_or(DEFAULT_LINE_LIMIT);
        let states = cx.extension::<FileStates>().cloned();
        let pages = self.pages.clone();
        let read = move || {
            if is_pdf(&file.path) {
                return read_pdf(&file, pages.as_deref());
            }
            if let Some(media_type) = image_type(&file.path) {
                return read_image(&file, media_type);
            }
            if file.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ipynb")) {
                return read_notebook(&file, states.as_ref());
            }
            let lines = read_lines(&file, offset, limit)?;
            // What this session has seen of the file: its stamp, and a hash when the
            // whole file was read, for the staleness check before a write.
            if let Some(states) = states
                && let Some(mut stamp) = stamp_now(&file.path, None, Some((offset, lines.last_line)))
            {
                stamp.hash = lines.whole_hash;
                states.record(&file.path, stamp);
            }
            Ok(ToolOutput::text(lines.text))
        };
        match tokio::task::spawn_blocking(read).await {
            Ok(result) => result,
            Err(e) => Err(ToolError::msg(format!("reading `{}` failed: {e}", self.path))),
        }
    }
}

/// The image type of a file the model can look at, by extension.
fn image_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

fn read_image(file: &Resolved, media_type: &str) -> Result<ToolOutput, ToolError> {
    let display = &file.display;
    let (opened, meta) = crate::confined::open_read(file)?;
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(ToolError::msg(format!(
            "`{display}` is a {} byte image; images over {MAX_IMAGE_BYTES} bytes cannot be shown",
            meta.len()
        )));
    }
    let bytes = crate::confined::read_at_most(opened, meta.len(), MAX_IMAGE_BYTES, display)?;
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(ToolOutput {
        content: vec![Content::Image { media_type: media_type.to_owned(), data }],
        ..ToolOutput::default()
    })
}

fn is_pdf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

/// Without the `pdf` feature, a PDF is refused with the feature named.
#[cfg(not(feature = "pdf"))]
fn read_pdf(file: &Resolved, _pages: Option<&str>) -> Result<ToolOutput, ToolError> {
    Err(ToolError::msg(format!(
        "`{}` is a PDF, and this build reads none (toolwright-builtin's `pdf` feature is off)",
        file.display
    )))
}

/// A PDF's text, page by page (see `crate::pdf`).
#[cfg(feature = "pdf")]
fn read_pdf(file: &Resolved, pages: Option<&str>) -> Result<ToolOutput, ToolError> {
    let display = &file.display;
    let (opened, meta) = crate::confined::open_read(file)?;
    if meta.len() > crate::pdf::MAX_PDF_BYTES {
        return Err(ToolError::msg(format!(
            "`{display}` is a {} MB PDF; PDFs over 20 MB are not read (split it with a shell command, such as `qpdf`)",
            meta.len() / (1024 * 1024)
        )));
    }
    let bytes = crate::confined::read_at_most(opened, meta.len(), crate::pdf::MAX_PDF_BYTES, display)?;
    let read = crate::pdf::read(&bytes, display, pages)?;
    // The pages as a document for providers that read PDFs (their text for the rest).
    Ok(match read.pdf {
        Some(pdf) => ToolOutput {
            content: vec![Content::Document {
                media_type: "application/pdf".to_owned(),
                data: base64::engine::general_purpose::STANDARD.encode(pdf),
                text: read.text,
            }],
            ..ToolOutput::default()
        },
        None => ToolOutput::text(read.text),
    })
}

/// A notebook's cells, with their ids (what notebook_edit takes), sources and outputs;
/// the whole file is recorded as read.
fn read_notebook(file: &Resolved, states: Option<&FileStates>) -> Result<ToolOutput, ToolError> {
    use crate::notebook::{MAX_NOTEBOOK_BYTES, Notebook};
    let display = &file.display;
    let (opened, meta) = crate::confined::open_read(file)?;
    if meta.len() > MAX_NOTEBOOK_BYTES {
        return Err(ToolError::msg(format!(
            "`{display}` is a {} MB notebook; notebooks over 100 MB are not read whole. Read a slice with a shell \
             command, such as `jq '.cells[0:20]' {display}`",
            meta.len() / (1024 * 1024)
        )));
    }
    let bytes = crate::confined::read_at_most(opened, meta.len(), MAX_NOTEBOOK_BYTES, display)?;
    let notebook = Notebook::parse(&bytes, display)?;
    if let Some(states) = states
        && let Some(stamp) = stamp_now(&file.path, Some(&bytes), None)
    {
        states.record(&file.path, stamp);
    }
    Ok(ToolOutput { content: notebook.render(display), ..ToolOutput::default() })
}

/// The numbered lines, the last line shown, and a hash of the whole file if it was
/// read to the end.
struct Lines {
    text: String,
    last_line: u64,
    whole_hash: Option<u64>,
}

fn read_lines(file: &Resolved, offset: u64, limit: u32) -> Result<Lines, ToolError> {
    let display = file.display.as_str();
    let (opened, meta) = crate::confined::open_read(file)?;
    let mut reader = BufReader::with_capacity(64 * 1024, opened);
    let head = reader.fill_buf().map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
    if head.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return Err(ToolError::msg(format!("`{display}` is a binary file ({} bytes); read_file only reads text", meta.len())));
    }
    if head.is_empty() {
        let whole_hash = Some(crate::session::content_hash(b""));
        return Ok(Lines { text: format!("(`{display}` is empty)"), last_line: 0, whole_hash });
    }
    let mut hasher = crate::session::ContentHasher::default();

    // Files too large to edit are not hashed: nothing will check the hash.
    let hash_it = meta.len() <= crate::fsio::MAX_EDIT_BYTES;
    // Lines before `offset` are skipped a buffer at a time, counting newlines.
    let mut number: u64 = 0;
    while number + 1 < offset {
        let buf = reader.fill_buf().map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
        if buf.is_empty() {
            break;
        }
        let wanted = offset - 1 - number;
        let (mut consumed, mut found) = (buf.len(), 0);
        for at in memchr::memchr_iter(b'\n', buf) {
            found += 1;
            if found == wanted {
                consumed = at + 1;
                break;
            }
        }
        if hash_it {
            hasher.write(&buf[..consumed]);
        }
        number += found;
        reader.consume(consumed);
    }
    let mut out = String::new();
    let mut line = Vec::new();
    let mut shown: u32 = 0;
    let mut lossy = false;
    let mut more = false;
    loop {
        line.clear();
        // A line is kept up to what can be shown; the rest streams past, counted (a
        // 2 GB line costs a buffer, not 2 GB).
        let (n, mut dropped) = read_line_capped(&mut reader, &mut line, 4 * MAX_LINE_CHARS + 4, |bytes| {
            if hash_it {
                hasher.write(bytes);
            }
        })
        .map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
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
        if dropped > 0 {
            // Cut where it was kept: not inside a character.
            let valid = std::str::from_utf8(&line).map_or_else(|e| e.valid_up_to(), str::len);
            if line.len() > valid && line.len() - valid < 4 {
                line.truncate(valid);
                dropped += 1;
            }
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => {
                lossy = true;
                String::from_utf8_lossy(&line)
            }
        };
        push_numbered(&mut out, number, &text, dropped);
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
    let whole_hash = (!more && hash_it).then(|| hasher.finish());
    Ok(Lines { text: out, last_line: offset + u64::from(shown).saturating_sub(1), whole_hash })
}

fn push_numbered(out: &mut String, number: u64, text: &str, dropped: u64) {
    use std::fmt::Write as _;
    if !out.is_empty() {
        out.push('\n');
    }
    let _ = write!(out, "{number:>6}\t");
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            let rest = text[cut..].chars().count() as u64 + dropped;
            out.push_str(&text[..cut]);
            let _ = write!(out, "… [line cut: {rest} more characters]");
        }
        None if dropped > 0 => {
            out.push_str(text);
            let _ = write!(out, "… [line cut: {dropped} more characters]");
        }
        None => out.push_str(text),
    }
}

/// Reads one line (through its `\n`) into `line`, keeping at most `keep` bytes of it;
/// every byte read is passed to `seen`. Returns the bytes read and the characters not
/// kept (line endings not counted).
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    keep: usize,
    mut seen: impl FnMut(&[u8]),
) -> std::io::Result<(usize, u64)> {
    let (mut total, mut dropped) = (0usize, 0u64);
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(end) => (&buf[..=end], true),
            None => (buf, false),
        };
        seen(chunk);
        let kept = keep.saturating_sub(line.len()).min(chunk.len());
        line.extend_from_slice(&chunk[..kept]);
        // Characters are counted by their first bytes.
        dropped += chunk[kept..].iter().filter(|&&b| (b & 0xC0) != 0x80 && b != b'\n' && b != b'\r').count() as u64;
        let n = chunk.len();
        total += n;
        reader.consume(n);
        if done {
            break;
        }
    }
    Ok((total, dropped))
}
