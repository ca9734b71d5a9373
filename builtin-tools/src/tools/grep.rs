//! `grep`: search file contents with ripgrep's own crates.

use crate::workspace::{Resolved, Workspace};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use ignore::WalkState;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolwright_core::access::{Access, Accesses};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Output entries returned when `head_limit` is not given.
pub const DEFAULT_HEAD_LIMIT: u32 = 500;

/// What grep returns. (The variants are described on the field: doc comments here
/// would turn the schema's plain `enum` into an `anyOf`.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum GrepOutput {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

/// Search the code and text of files for a string or regular expression, to find where
/// something is defined or used (ripgrep's syntax and engine).
///
/// Files ignored by .gitignore, .ignore or .toolwrightignore, hidden files and binary
/// files are skipped. Narrow with `glob` (such as `*.rs`) or `type` (such as `rust`,
/// `py`, `js`). `output_mode` is `files_with_matches` (default), `content` or `count`.
/// Results are sorted by path; `head_limit` and `offset` page through them.
#[tool(read_only, concurrency_safe, idempotent, rule_name = "Grep", aliases = ["Grep"])]
pub struct Grep {
    /// The regular expression, such as `fn\s+main` or `TODO`.
    pub pattern: String,
    /// File or directory, relative to the workspace root. Defaults to the root.
    pub path: Option<String>,
    /// Only files matching this glob, such as `*.rs`.
    pub glob: Option<String>,
    /// Only search files of this type, such as `rust`, `py`, `js`, `md`.
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// `files_with_matches` (paths; the default), `content` (`path:line:text`) or `count` (`path:count`).
    pub output_mode: Option<GrepOutput>,
    /// Ignore case (`-i`).
    #[serde(rename = "-i", default)]
    pub case_insensitive: bool,
    /// Line numbers in `content` mode. Defaults to true.
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Lines after each match, in `content` mode.
    #[serde(rename = "-A")]
    pub after: Option<u32>,
    /// Lines before each match, in `content` mode.
    #[serde(rename = "-B")]
    pub before: Option<u32>,
    /// Lines around each match, in `content` mode.
    #[serde(rename = "-C")]
    pub context: Option<u32>,
    /// Only the matched parts, in `content` mode.
    #[serde(rename = "-o", default)]
    pub only_matching: bool,
    /// Let the pattern span lines; `.` then matches newlines too.
    #[serde(default)]
    pub multiline: bool,
    /// At most this many entries. Defaults to 500.
    #[schemars(range(min = 1))]
    pub head_limit: Option<u32>,
    /// Skip this many entries first. Defaults to 0.
    pub offset: Option<u32>,
}

impl Tool for Grep {
    type Output = String;

    /// Claude Code's Grep takes `context` as well as `-C`.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("context", "-C")];

    /// A search of its directory (the working directory when none is given).
    fn access(&self) -> Accesses {
        Accesses::of([Access::Search(self.path.clone().unwrap_or_else(|| ".".to_owned()))])
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.pattern.is_empty() {
            return Err(ToolError::msg("`pattern` is empty; give a regular expression"));
        }
        if self.only_matching && self.mode() != GrepOutput::Content {
            return Err(ToolError::msg("`-o` needs `output_mode: \"content\"`: only lines have matched parts to show"));
        }
        if self.head_limit == Some(0) {
            return Err(ToolError::msg("`head_limit` must be at least 1"));
        }
        self.matcher().map(drop)
    }

    fn summary(&self) -> Option<String> {
        Some(format!("grep {:?} in {}", self.pattern, self.path.as_deref().unwrap_or(".")))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let workspace = Workspace::of(cx)?;
        let base = workspace.existing(cx, self.path.as_deref().unwrap_or("."))?;
        tokio::task::spawn_blocking(move || self.search(&workspace, base))
            .await
            .map_err(|e| ToolError::msg(format!("grep failed: {e}")))?
    }
}

impl Grep {
    fn mode(&self) -> GrepOutput {
        self.output_mode.unwrap_or_default()
    }

    /// The entries skipped and the entries shown.
    fn page(&self) -> (usize, usize) {
        (self.offset.unwrap_or(0) as usize, self.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT) as usize)
    }

    fn matcher(&self) -> Result<grep_regex::RegexMatcher, ToolError> {
        let mut builder = RegexMatcherBuilder::new();
        builder.case_insensitive(self.case_insensitive).multi_line(true);
        if self.multiline {
            builder.dot_matches_new_line(true);
        } else {
            builder.line_terminator(Some(b'\n'));
        }
        // The error text is regex-syntax's, which marks where the pattern is wrong.
        builder.build(&self.pattern).map_err(|e| ToolError::msg(format!("invalid regex:\n{e}")))
    }

    fn searcher(&self) -> Searcher {
        let content = self.mode() == GrepOutput::Content;
        // As with `rg -o`, matched parts come without context lines.
        let context = |n: Option<u32>| match content && !self.only_matching {
            true => n.or(self.context).unwrap_or(0) as usize,
            false => 0,
        };
        SearcherBuilder::new()
            .line_number(true)
            .multi_line(self.multiline)
            .before_context(context(self.before))
            .after_context(context(self.after))
            .binary_detection(BinaryDetection::quit(0))
            .build()
    }

    fn search(&self, workspace: &Workspace, base: Resolved) -> Result<String, ToolError> {
        let matcher = self.matcher()?;
        let walk = workspace.walker(&base.path);
        // The `glob` and `type` filters narrow the walk, file by file. (Given to the
        // walker as overrides they would be whitelists, which win over ignore files: a
        // `glob` of `*` would reach what `.toolwrightignore` hides.)
        let glob = match &self.glob {
            Some(glob) => {
                let mut overrides = OverrideBuilder::new(&base.path);
                overrides.add(glob).map_err(|e| ToolError::msg(format!("invalid glob `{glob}`: {e}")))?;
                Some(overrides.build().map_err(|e| ToolError::msg(format!("invalid glob `{glob}`: {e}")))?)
            }
            None => None,
        };
        let types = match &self.file_type {
            Some(name) => {
                let mut types = TypesBuilder::new();
                types.add_defaults();
                types.select(name);
                Some(types.build().map_err(|e| ToolError::msg(format!("`type`: {e}")))?)
            }
            None => None,
        };
        let wanted = |path: &std::path::Path| {
            glob.as_ref().is_none_or(|g| g.matched(path, false).is_whitelist())
                && types.as_ref().is_none_or(|t| t.matched(path, false).is_whitelist())
        };
        // Every file is opened through the root's handle: one swapped for a link after
        // the walk saw it cannot lead outside, nor to another file.
        let root = crate::confined::Root::open(&base.root, base.hard_links)?;
        let root = &root;
        let found: Mutex<Vec<FileHits>> = Mutex::new(Vec::new());
        let budget = AtomicUsize::new(FIRST_PASS_BYTES);
        walk.build_parallel().run(|| {
            let matcher = matcher.clone();
            let mut searcher = self.searcher();
            let (found, budget) = (&found, &budget);
            Box::new(move |entry| {
                let Ok(entry) = entry else { return WalkState::Continue };
                if !entry.file_type().is_some_and(|t| t.is_file()) || !wanted(entry.path()) {
                    return WalkState::Continue;
                }
                // Each file is checked against the read denials before it is opened,
                // whatever the walk let through (a match list is an oracle of content).
                if workspace.denied(entry.path(), false).is_some() {
                    return WalkState::Continue;
                }
                let display = workspace.display(entry.path());
                let Ok((file, _)) = root.read(entry.path(), &display) else { return WalkState::Continue };
                let (offset, limit) = self.page();
                let mut sink = Collect::new(self, &display, 0, offset.saturating_add(limit), budget);
                if searcher.search_file(&matcher, &file, &mut sink).is_ok()
                    && let Some(hits) = sink.finish(entry.path())
                {
                    found.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(hits);
                }
                WalkState::Continue
            })
        });
        let mut found = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        found.sort_by(|a, b| a.display.cmp(&b.display));
        // A file whose entries the page needs but the first pass did not keep (its
        // budget ran out) is searched again for just those.
        let again = |hits: &FileHits, skip: usize, keep: usize| -> Option<Vec<String>> {
            let (file, _) = root.read(&hits.path, &hits.display).ok()?;
            let page_budget = AtomicUsize::new(PAGE_BYTES);
            let mut sink = Collect::new(self, &hits.display, skip, keep, &page_budget);
            self.searcher().search_file(&matcher, &file, &mut sink).ok()?;
            Some(sink.entries)
        };
        Ok(self.render(&base.display, found, again))
    }

    fn render(
        &self,
        base: &str,
        found: Vec<FileHits>,
        again: impl Fn(&FileHits, usize, usize) -> Option<Vec<String>>,
    ) -> String {
        if found.is_empty() {
            return format!("No matches for `{}` in `{base}`.", self.pattern);
        }
        let files = found.len();
        let content = self.mode() == GrepOutput::Content;
        let separated =
            content && !self.only_matching && self.before.or(self.after).or(self.context).unwrap_or(0) > 0;
        let (offset, limit) = self.page();
        let end = offset.saturating_add(limit);
        let mut shown: Vec<String> = Vec::new();
        let (mut total, mut bytes, mut full) = (0usize, 0usize, false);
        for (i, hits) in found.iter().enumerate() {
            if separated && i > 0 {
                if total >= offset && total < end && !full {
                    shown.push("--".to_owned());
                }
                total += 1;
            }
            // This file's entries the page needs, by their index in the file.
            let from = offset.saturating_sub(total).min(hits.total);
            let to = end.saturating_sub(total).min(hits.total);
            total += hits.total;
            if from >= to || full {
                continue;
            }
            let needed: Vec<String> = if to <= hits.entries.len() {
                hits.entries[from..to].to_vec()
            } else {
                again(hits, from, to - from).unwrap_or_default()
            };
            // Fewer than asked for: the search again stopped at the page's size.
            full = needed.len() < to - from;
            for entry in needed {
                // Always at least one entry, so paging goes on.
                if bytes + entry.len() + std::mem::size_of::<String>() > PAGE_BYTES && !shown.is_empty() {
                    full = true;
                    break;
                }
                bytes += entry.len() + std::mem::size_of::<String>();
                shown.push(entry);
            }
        }
        let mut out = shown.join("\n");
        let what = match self.mode() {
            GrepOutput::Content => "lines",
            GrepOutput::FilesWithMatches => "files",
            GrepOutput::Count => "counts",
        };
        if offset + shown.len() < total || offset > 0 {
            let _ = write!(
                out,
                "\n(showing {what} {}-{} of {total} in {files} files; {}use `offset` and `head_limit` for more)",
                (offset + 1).min(total),
                offset + shown.len(),
                if full { "the page stops at 8 MiB of text; " } else { "" }
            );
        }
        out
    }
}

/// What the first pass keeps of all files together; past it, files are only
/// counted, and the page's entries are searched for again (memory by the page, not
/// by how much matched).
const FIRST_PASS_BYTES: usize = 16 * 1024 * 1024;

/// The most text one page returns.
const PAGE_BYTES: usize = 8 * 1024 * 1024;

/// One file's part of the output: its first entries, and how many it has in all.
struct FileHits {
    path: std::path::PathBuf,
    display: String,
    entries: Vec<String>,
    total: usize,
}

/// Collects one file's output in the requested mode: the entries from index `skip`,
/// at most `keep` of them and while `budget` (bytes, shared) lasts, and the count of
/// all.
struct Collect<'a> {
    grep: &'a Grep,
    display: &'a str,
    entries: Vec<String>,
    /// Entries seen, kept or not.
    seen: usize,
    skip: usize,
    keep: usize,
    budget: &'a AtomicUsize,
    matches: u64,
    line_numbers: bool,
    /// With `-o`: finds the matched parts of a line.
    parts: Option<grep_regex::RegexMatcher>,
}

/// How much of a matching line an entry shows (characters).
const MAX_ENTRY_CHARS: usize = 2000;

impl<'a> Collect<'a> {
    fn new(grep: &'a Grep, display: &'a str, skip: usize, keep: usize, budget: &'a AtomicUsize) -> Self {
        Collect {
            grep,
            display,
            entries: Vec::new(),
            seen: 0,
            skip,
            keep,
            budget,
            matches: 0,
            line_numbers: grep.line_numbers.unwrap_or(true),
            parts: grep.only_matching.then(|| grep.matcher().ok()).flatten(),
        }
    }

    /// Whether the next entry would be kept.
    fn keeping(&self) -> bool {
        self.seen >= self.skip && self.entries.len() < self.keep && self.budget.load(Ordering::Relaxed) > 0
    }

    fn push_entry(&mut self, entry: String) {
        if self.keeping() {
            let taken = entry.len() + std::mem::size_of::<String>();
            let _ = self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| Some(b.saturating_sub(taken)));
            self.entries.push(entry);
        }
        self.seen += 1;
    }

    fn push_lines(&mut self, first: Option<u64>, bytes: &[u8], separator: char) {
        // Past what is kept, lines are only counted.
        if !self.keeping() && (self.seen >= self.skip || self.entries.len() >= self.keep) {
            // (Counted as `lines()` splits them: a last line may lack its newline.)
            self.seen += memchr::memchr_iter(b'\n', bytes).count() + usize::from(!bytes.ends_with(b"\n") && !bytes.is_empty());
            return;
        }
        let text = String::from_utf8_lossy(bytes);
        for (i, line) in text.lines().enumerate() {
            if !self.keeping() {
                self.seen += 1;
                continue;
            }
            let line = match line.char_indices().nth(MAX_ENTRY_CHARS) {
                Some((cut, _)) => &line[..cut],
                None => line,
            };
            let mut entry = String::with_capacity(self.display.len() + line.len() + 8);
            entry.push_str(self.display);
            entry.push(separator);
            if self.line_numbers
                && let Some(first) = first
            {
                let _ = write!(entry, "{}{separator}", first + i as u64);
            }
            entry.push_str(line);
            self.push_entry(entry);
        }
    }

    /// With `-o`: each matched part of each line as an entry of its own.
    fn push_parts(&mut self, first: Option<u64>, bytes: &[u8]) {
        use grep_matcher::Matcher as _;
        let Some(matcher) = self.parts.take() else { return };
        let mut parts: Vec<(u64, String)> = Vec::new();
        for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let _ = matcher.find_iter(line, |m| {
                // (An empty match shows nothing, as with `rg -o`.)
                if !m.is_empty() {
                    parts.push((i as u64, String::from_utf8_lossy(&line[m]).into_owned()));
                }
                true
            });
        }
        self.parts = Some(matcher);
        for (i, part) in parts {
            let number = first.filter(|_| self.line_numbers).map(|n| format!("{}:", n + i)).unwrap_or_default();
            self.push_entry(format!("{}:{number}{part}", self.display));
        }
    }

    fn finish(self, path: &std::path::Path) -> Option<FileHits> {
        if self.matches == 0 {
            return None;
        }
        let (entries, total) = match self.grep.mode() {
            GrepOutput::Content => (self.entries, self.seen),
            GrepOutput::FilesWithMatches => (vec![self.display.to_owned()], 1),
            GrepOutput::Count => (vec![format!("{}:{}", self.display, self.matches)], 1),
        };
        Some(FileHits { path: path.to_owned(), display: self.display.to_owned(), entries, total })
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.matches += 1;
        match self.grep.mode() {
            GrepOutput::Content if self.parts.is_some() => self.push_parts(mat.line_number(), mat.bytes()),
            GrepOutput::Content => self.push_lines(mat.line_number(), mat.bytes(), ':'),
            // One match is enough to list the file.
            GrepOutput::FilesWithMatches => return Ok(false),
            GrepOutput::Count => {}
        }
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if !matches!(context.kind(), SinkContextKind::Other) {
            self.push_lines(context.line_number(), context.bytes(), '-');
        }
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, std::io::Error> {
        self.push_entry("--".to_owned());
        Ok(true)
    }
}
