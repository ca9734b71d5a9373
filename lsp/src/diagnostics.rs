//! Diagnostics after an edit: the server is given the file's new text, and the
//! errors and warnings it then publishes that were not there before the edit
//! (for that file and any other it republishes) come back as Claude Code's
//! `<new-diagnostics>` reminder, within a short wait and a size bound.

use crate::connection::{Connection, Published};
use crate::render::ShowPath;
use crate::servers::LspServers;
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Url};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;
use tokio::time::Instant;

/// New diagnostics listed per file at most.
const MAX_PER_FILE: usize = 10;
/// Files listed at most.
const MAX_FILES: usize = 5;
/// The most characters of the reminder.
const MAX_CHARS: usize = 4_000;
/// After a publication, how long to wait for the next (servers publish syntax
/// then semantic results).
const SETTLE: Duration = Duration::from_millis(300);

impl LspServers {
    /// The new errors and warnings after `path` (absolute, in the workspace `root`)
    /// changed from `before` (`None`: a new file, or not known) to `after`, as the
    /// text to add to the edit's result; `None` when no server covers the file, its
    /// `diagnostics` are off, it could not answer in time, or nothing is new. Never
    /// fails the edit: a server that cannot start is logged and skipped.
    pub async fn after_edit(
        &self,
        path: &Path,
        root: &Path,
        before: Option<&str>,
        after: &str,
        show: ShowPath<'_>,
    ) -> Option<String> {
        let server = self.server_for(path, root).ok()?;
        if !server.config.diagnostics {
            return None;
        }
        let wait = self.diagnostics_wait();
        // The state before the edit: what the server says of the old text, given
        // now (and waited for) unless it already holds it.
        let connection = log_err(server.connection().await)?;
        if let Some(before) = before {
            let since = connection.last_publication();
            let synced = log_err(server.sync(path, before, false).await)?;
            if synced.changed {
                wait_for(&synced.connection, &synced.uri, since, synced.version, Instant::now() + wait).await;
            }
        }
        let baseline = connection.diagnostics();
        let since = connection.last_publication();
        let synced = log_err(server.sync(path, after, true).await)?;
        let deadline = Instant::now() + wait;
        let fresh = wait_for(&synced.connection, &synced.uri, since, synced.version, deadline).await?;
        let now = synced.connection.diagnostics();
        let mut files: Vec<(String, Vec<Diagnostic>)> = Vec::new();
        // The edited file first, then the others it republished since.
        let mut uris: Vec<&Url> = vec![&synced.uri];
        uris.extend(now.iter().filter(|(uri, p)| **uri != synced.uri && p.seq > since).map(|(uri, _)| uri));
        for uri in uris {
            let current = if *uri == synced.uri { &fresh } else { now.get(uri)? };
            let old = baseline.get(uri).map(|p| p.diagnostics.as_slice()).unwrap_or(&[]);
            let new = new_problems(old, &current.diagnostics);
            if new.is_empty() {
                continue;
            }
            let Some(display) = uri.to_file_path().ok().and_then(|p| show(&p)) else { continue };
            files.push((display, new));
        }
        render(files)
    }
}

fn log_err<T>(result: Result<T, crate::LspError>) -> Option<T> {
    result.map_err(|e| tracing::warn!(error = %e, "no diagnostics after the edit")).ok()
}

/// The publication for `uri` after publication `since` and for `version` or later
/// (when the server says which), then any that follows within [`SETTLE`]; `None`
/// if none came by `deadline`.
async fn wait_for(
    connection: &Connection,
    uri: &Url,
    since: u64,
    version: i32,
    deadline: Instant,
) -> Option<Published> {
    let mut publications = connection.publications();
    let fits = |p: &Published| p.seq > since && p.version.is_none_or(|v| v >= version);
    let mut found: Option<Published> = None;
    let mut settle_until = deadline;
    loop {
        if let Some(p) = connection.published(uri).filter(|p| fits(p)) {
            if found.as_ref().is_none_or(|f| f.seq < p.seq) {
                settle_until = (Instant::now() + SETTLE).min(deadline);
            }
            found = Some(p);
        }
        if connection.stopped().is_some() {
            return found;
        }
        let until = if found.is_some() { settle_until } else { deadline };
        match tokio::time::timeout_at(until, publications.changed()).await {
            Ok(Ok(())) => continue,
            _ => return found,
        }
    }
}

/// Errors and warnings of `now` that `before` did not have (by severity, message,
/// code and source: an edit moves the lines of the old ones).
fn new_problems(before: &[Diagnostic], now: &[Diagnostic]) -> Vec<Diagnostic> {
    let key = |d: &Diagnostic| (d.severity.map(|s| format!("{s:?}")), d.message.clone(), code(d), d.source.clone());
    let mut old: HashMap<_, usize> = HashMap::new();
    for d in before {
        *old.entry(key(d)).or_default() += 1;
    }
    now.iter()
        .filter(|d| matches!(d.severity, None | Some(DiagnosticSeverity::ERROR) | Some(DiagnosticSeverity::WARNING)))
        .filter(|d| match old.get_mut(&key(d)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

fn code(d: &Diagnostic) -> Option<String> {
    d.code.as_ref().map(|c| match c {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.clone(),
    })
}

fn render(files: Vec<(String, Vec<Diagnostic>)>) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let total: usize = files.iter().map(|(_, d)| d.len()).sum();
    let mut out = format!(
        "<new-diagnostics>Found {total} new diagnostic issue{} in {} file{}:\n",
        if total == 1 { "" } else { "s" },
        files.len(),
        if files.len() == 1 { "" } else { "s" }
    );
    for (display, diagnostics) in files.iter().take(MAX_FILES) {
        let _ = writeln!(out, "\n{display}:");
        for d in diagnostics.iter().take(MAX_PER_FILE) {
            let mark = if d.severity == Some(DiagnosticSeverity::WARNING) { "⚠" } else { "✘" };
            let code = code(d).map(|c| format!(" [{c}]")).unwrap_or_default();
            let source = d.source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
            let message: String = d.message.lines().next().unwrap_or("").chars().take(300).collect();
            let _ = writeln!(
                out,
                "  {mark} [Line {}:{}] {message}{code}{source}",
                d.range.start.line + 1,
                d.range.start.character + 1
            );
        }
        if diagnostics.len() > MAX_PER_FILE {
            let _ = writeln!(out, "  ... and {} more", diagnostics.len() - MAX_PER_FILE);
        }
    }
    if files.len() > MAX_FILES {
        let _ = writeln!(out, "\n... and {} more files", files.len() - MAX_FILES);
    }
    if out.len() > MAX_CHARS {
        let mut end = MAX_CHARS;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(out[..end].rfind('\n').unwrap_or(end));
        out.push_str("\n...");
    }
    out.push_str("</new-diagnostics>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn diagnostic(line: u32, message: &str, severity: DiagnosticSeverity) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 4), Position::new(line, 9)),
            severity: Some(severity),
            message: message.to_owned(),
            source: Some("Pyright".to_owned()),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn only_new_errors_and_warnings_are_reported_even_when_old_ones_moved() {
        let before = [diagnostic(3, "old problem", DiagnosticSeverity::ERROR)];
        let now = [
            diagnostic(5, "old problem", DiagnosticSeverity::ERROR),
            diagnostic(8, "new problem", DiagnosticSeverity::ERROR),
            diagnostic(9, "a hint", DiagnosticSeverity::HINT),
            diagnostic(9, "unused", DiagnosticSeverity::WARNING),
        ];
        let new = new_problems(&before, &now);
        let messages: Vec<&str> = new.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["new problem", "unused"]);
        let text = render(vec![("src/a.py".to_owned(), new)]).unwrap();
        assert!(text.starts_with("<new-diagnostics>Found 2 new diagnostic issues in 1 file:"), "{text}");
        assert!(text.contains("✘ [Line 9:5] new problem (Pyright)"), "{text}");
        assert!(text.contains("⚠ [Line 10:5] unused (Pyright)"), "{text}");
        assert!(text.ends_with("</new-diagnostics>"));
        assert_eq!(render(Vec::new()), None);
    }

    #[test]
    fn the_reminder_is_bounded() {
        let many: Vec<Diagnostic> =
            (0..50).map(|i| diagnostic(i, &"x".repeat(500), DiagnosticSeverity::ERROR)).collect();
        let files = (0..9).map(|i| (format!("f{i}.py"), many.clone())).collect();
        let text = render(files).unwrap();
        assert!(text.len() <= MAX_CHARS + 40, "{}", text.len());
        assert!(text.ends_with("</new-diagnostics>"));
    }
}
