//! Answers as short text for a model: `path:line:character` (1-based, paths as the
//! caller shows them) with the line's text, grouped and bounded. Locations the
//! caller hides (gitignored, denied by the read rules) are left out and counted.

use crate::position::character_of;
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, DocumentSymbol, DocumentSymbolResponse,
    GotoDefinitionResponse, Hover, HoverContents, Location, MarkedString, Range, SymbolInformation, SymbolKind, Url,
    WorkspaceSymbolResponse,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most characters of one answer.
pub const MAX_ANSWER_CHARS: usize = 20_000;
/// The most entries (locations, symbols, calls) listed.
pub const MAX_ENTRIES: usize = 200;
/// The most characters of a line's text shown beside a location.
const MAX_LINE_CHARS: usize = 160;
/// Files larger than this are not read for a line's text.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// How paths are shown: the display of a path, or `None` to leave it out.
pub type ShowPath<'a> = &'a (dyn Fn(&Path) -> Option<String> + Send + Sync);

/// One answer being written.
pub(crate) struct Render<'a> {
    show: ShowPath<'a>,
    lines: HashMap<PathBuf, Option<Vec<String>>>,
    pub hidden: usize,
}

impl<'a> Render<'a> {
    pub fn new(show: ShowPath<'a>) -> Render<'a> {
        Render { show, lines: HashMap::new(), hidden: 0 }
    }

    /// `path:line:character` and the path, or `None` (counted) when hidden.
    fn place(&mut self, uri: &Url, range: &Range) -> Option<(String, String)> {
        let Ok(path) = uri.to_file_path() else {
            self.hidden += 1;
            return None;
        };
        let Some(display) = (self.show)(&path) else {
            self.hidden += 1;
            return None;
        };
        let line = range.start.line;
        let text = self.line_text(&path, line);
        let character =
            text.as_deref().map(|t| character_of(t, range.start.character)).unwrap_or(range.start.character + 1);
        Some((format!("{display}:{}:{character}", line + 1), display))
    }

    fn line_text(&mut self, path: &Path, line: u32) -> Option<String> {
        let lines = self.lines.entry(path.to_path_buf()).or_insert_with(|| {
            let meta = std::fs::metadata(path).ok()?;
            if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
                return None;
            }
            let text = std::fs::read_to_string(path).ok()?;
            Some(text.lines().map(str::to_owned).collect())
        });
        lines.as_ref()?.get(line as usize).cloned()
    }

    /// `place: code` for a location.
    fn entry(&mut self, uri: &Url, range: &Range) -> Option<(String, String)> {
        let (place, display) = self.place(uri, range)?;
        let Ok(path) = uri.to_file_path() else { return Some((place, display)) };
        match self.line_text(&path, range.start.line) {
            Some(text) if !text.trim().is_empty() => Some((format!("{place}: {}", cut(text.trim())), display)),
            _ => Some((place, display)),
        }
    }

    /// The note on what was left out, if anything.
    fn hidden_note(&self) -> String {
        match self.hidden {
            0 => String::new(),
            1 => "\n(1 result in a gitignored or unreadable file is left out.)".to_owned(),
            n => format!("\n({n} results in gitignored or unreadable files are left out.)"),
        }
    }

    /// Locations: "Found N <what>s in M files:" then one line each.
    pub fn locations(&mut self, what: &str, none: &str, locations: Vec<(Url, Range)>) -> String {
        let mut entries: Vec<(String, String, u32)> = Vec::new();
        let total = locations.len();
        for (uri, range) in locations.into_iter().take(MAX_ENTRIES * 2) {
            if let Some((entry, display)) = self.entry(&uri, &range) {
                entries.push((display, entry, range.start.line));
            }
        }
        if entries.is_empty() {
            return format!("{none}{}", self.hidden_note());
        }
        entries.sort_by(|a, b| (&a.0, a.2).cmp(&(&b.0, b.2)));
        entries.dedup_by(|a, b| a.1 == b.1);
        let files = {
            let mut names: Vec<&String> = entries.iter().map(|e| &e.0).collect();
            names.dedup();
            names.len()
        };
        let n = entries.len();
        let mut out = format!(
            "Found {n} {what}{} in {files} file{}:\n",
            if n == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" }
        );
        for (_, entry, _) in entries.iter().take(MAX_ENTRIES) {
            let _ = writeln!(out, "{entry}");
        }
        // (The entries come from the locations: never more of them.)
        if total > MAX_ENTRIES {
            let _ = writeln!(out, "... and {} more", total - MAX_ENTRIES);
        }
        bounded(out.trim_end().to_owned() + &self.hidden_note())
    }

    /// Definitions or implementations.
    pub fn definitions(&mut self, what: &str, none: &str, answer: Option<GotoDefinitionResponse>) -> String {
        let locations: Vec<(Url, Range)> = match answer {
            None => Vec::new(),
            Some(GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range)],
            Some(GotoDefinitionResponse::Array(ls)) => ls.into_iter().map(|l| (l.uri, l.range)).collect(),
            Some(GotoDefinitionResponse::Link(links)) => {
                links.into_iter().map(|l| (l.target_uri, l.target_selection_range)).collect()
            }
        };
        self.locations(what, none, locations)
    }

    /// References.
    pub fn references(&mut self, none: &str, answer: Option<Vec<Location>>) -> String {
        let locations = answer.unwrap_or_default().into_iter().map(|l| (l.uri, l.range)).collect();
        self.locations("reference", none, locations)
    }

    /// A document's symbols, nested by indentation.
    pub fn document_symbols(&mut self, display: &str, answer: Option<DocumentSymbolResponse>) -> String {
        let mut lines = Vec::new();
        match answer {
            None => {}
            Some(DocumentSymbolResponse::Nested(symbols)) => nested(&symbols, 0, &mut lines),
            Some(DocumentSymbolResponse::Flat(symbols)) => {
                for symbol in symbols {
                    let container = symbol.container_name.as_deref().map(|c| format!(" in {c}")).unwrap_or_default();
                    lines.push(format!(
                        "{} ({}) - Line {}{container}",
                        symbol.name,
                        kind(symbol.kind),
                        symbol.location.range.start.line + 1
                    ));
                }
            }
        }
        if lines.is_empty() {
            return format!("No symbols found in {display}.");
        }
        let n = lines.len();
        let mut out = format!("{n} symbol{} in {display}:\n", if n == 1 { "" } else { "s" });
        listed(&mut out, &lines);
        bounded(out.trim_end().to_owned())
    }

    /// Symbols across the workspace.
    pub fn workspace_symbols(&mut self, query: &str, answer: Option<WorkspaceSymbolResponse>) -> String {
        let symbols: Vec<Symbol> = match answer {
            None => Vec::new(),
            Some(WorkspaceSymbolResponse::Flat(symbols)) => symbols.into_iter().map(flat_symbol).collect(),
            Some(WorkspaceSymbolResponse::Nested(symbols)) => symbols
                .into_iter()
                .map(|s| {
                    let place = match s.location {
                        lsp_types::OneOf::Left(l) => Some((l.uri, l.range)),
                        lsp_types::OneOf::Right(w) => Some((w.uri, Range::default())),
                    };
                    (s.name, s.kind, s.container_name, place)
                })
                .collect(),
        };
        let mut lines = Vec::new();
        for (name, symbol_kind, container, place) in symbols {
            let Some((uri, range)) = place else { continue };
            let Some((at, _)) = self.place(&uri, &range) else { continue };
            let container = container.filter(|c| !c.is_empty()).map(|c| format!(" in {c}")).unwrap_or_default();
            lines.push(format!("{name} ({}) - {at}{container}", kind(symbol_kind)));
        }
        if lines.is_empty() {
            return format!("No symbols match `{query}`.{}", self.hidden_note());
        }
        let n = lines.len();
        let mut out = format!("{n} symbol{} match `{query}`:\n", if n == 1 { "" } else { "s" });
        listed(&mut out, &lines);
        bounded(out.trim_end().to_owned() + &self.hidden_note())
    }

    /// Call hierarchy items.
    pub fn call_items(&mut self, none: &str, items: &[CallHierarchyItem]) -> String {
        let lines: Vec<String> = items.iter().filter_map(|item| self.item(item)).collect();
        if lines.is_empty() {
            return format!("{none}{}", self.hidden_note());
        }
        let n = lines.len();
        let mut out = format!("{n} call hierarchy item{}:\n", if n == 1 { "" } else { "s" });
        listed(&mut out, &lines);
        bounded(out.trim_end().to_owned() + &self.hidden_note())
    }

    fn item(&mut self, item: &CallHierarchyItem) -> Option<String> {
        let (at, _) = self.place(&item.uri, &item.selection_range)?;
        let detail =
            item.detail.as_deref().filter(|d| !d.is_empty()).map(|d| format!(" [{}]", cut(d))).unwrap_or_default();
        Some(format!("{} ({}) - {at}{detail}", item.name, kind(item.kind)))
    }

    /// Who calls the item: each caller with the lines of its calls.
    pub fn incoming(&mut self, target: &CallHierarchyItem, calls: Vec<CallHierarchyIncomingCall>) -> String {
        let calls = calls.into_iter().map(|c| (c.from, c.from_ranges)).collect();
        let n = |n: usize| format!("{n} caller{} of {}:", if n == 1 { "" } else { "s" }, target.name);
        self.calls(calls, "calls at", &format!("No calls to {} found.", target.name), n)
    }

    /// What the item calls: each callee with the lines of the calls in the item.
    pub fn outgoing(&mut self, source: &CallHierarchyItem, calls: Vec<CallHierarchyOutgoingCall>) -> String {
        let calls = calls.into_iter().map(|c| (c.to, c.from_ranges)).collect();
        let n = |n: usize| format!("{} calls {n} function{}:", source.name, if n == 1 { "" } else { "s" });
        self.calls(calls, "called at", &format!("{} calls nothing found.", source.name), n)
    }

    fn calls(
        &mut self,
        calls: Vec<(CallHierarchyItem, Vec<Range>)>,
        verb: &str,
        none: &str,
        heading: impl Fn(usize) -> String,
    ) -> String {
        let mut lines = Vec::new();
        for (item, ranges) in calls {
            let Some(item) = self.item(&item) else { continue };
            let at = call_lines(&ranges);
            lines.push(format!("{item}, {verb} line{} {}", if at.len() == 1 { "" } else { "s" }, at.join(", ")));
        }
        if lines.is_empty() {
            return format!("{none}{}", self.hidden_note());
        }
        let mut out = heading(lines.len()) + "\n";
        listed(&mut out, &lines);
        bounded(out.trim_end().to_owned() + &self.hidden_note())
    }
}

/// A workspace symbol: name, kind, container, place.
type Symbol = (String, SymbolKind, Option<String>, Option<(Url, Range)>);

/// The 1-based lines of calls, each once.
fn call_lines(ranges: &[Range]) -> Vec<String> {
    let mut lines: Vec<u32> = ranges.iter().map(|r| r.start.line + 1).collect();
    lines.sort_unstable();
    lines.dedup();
    lines.iter().map(u32::to_string).collect()
}

fn flat_symbol(s: SymbolInformation) -> Symbol {
    (s.name, s.kind, s.container_name, Some((s.location.uri, s.location.range)))
}

fn nested(symbols: &[DocumentSymbol], depth: usize, lines: &mut Vec<String>) {
    for symbol in symbols {
        if lines.len() > MAX_ENTRIES {
            return;
        }
        let detail =
            symbol.detail.as_deref().filter(|d| !d.is_empty()).map(|d| format!(" {}", cut(d))).unwrap_or_default();
        lines.push(format!(
            "{}{} ({}){detail} - Line {}",
            "  ".repeat(depth),
            symbol.name,
            kind(symbol.kind),
            symbol.selection_range.start.line + 1
        ));
        if let Some(children) = &symbol.children {
            nested(children, depth + 1, lines);
        }
    }
}

fn listed(out: &mut String, lines: &[String]) {
    for line in lines.iter().take(MAX_ENTRIES) {
        let _ = writeln!(out, "{line}");
    }
    if lines.len() > MAX_ENTRIES {
        let _ = writeln!(out, "... and {} more", lines.len() - MAX_ENTRIES);
    }
}

/// The hover text: markdown as the server wrote it, bounded.
pub(crate) fn hover(at: &str, answer: Option<Hover>) -> String {
    let text = match answer.map(|h| h.contents) {
        None => String::new(),
        Some(HoverContents::Markup(markup)) => markup.value,
        Some(HoverContents::Scalar(marked)) => marked_string(marked),
        Some(HoverContents::Array(items)) => items.into_iter().map(marked_string).collect::<Vec<_>>().join("\n\n"),
    };
    if text.trim().is_empty() {
        return format!("No hover information at {at}.");
    }
    bounded(format!("Hover at {at}:\n\n{}", text.trim()))
}

fn marked_string(marked: MarkedString) -> String {
    match marked {
        MarkedString::String(s) => s,
        MarkedString::LanguageString(l) => format!("```{}\n{}\n```", l.language, l.value),
    }
}

/// A symbol kind's name (`Function`, `Class`).
pub(crate) fn kind(kind: SymbolKind) -> String {
    format!("{kind:?}")
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_LINE_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{cut}…")
}

/// `text` within [`MAX_ANSWER_CHARS`], cut at a line with a note.
pub(crate) fn bounded(text: String) -> String {
    if text.len() <= MAX_ANSWER_CHARS {
        return text;
    }
    let mut end = MAX_ANSWER_CHARS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(end);
    format!("{}\n... (cut at {} characters)", &text[..end], MAX_ANSWER_CHARS)
}
