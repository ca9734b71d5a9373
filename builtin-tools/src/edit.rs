//! Exact-string edits, shared by edit_file, multi_edit and replace_in_file: one
//! implementation of matching, errors the model can act on, and the atomic write.

use crate::code_intelligence::Written;
use crate::fsio::{TextFile, unified_diff, write_atomic};
use crate::session::check_fresh;
use crate::workspace::resolve_existing;
use toolwright_core::{ToolContext, ToolError};

/// One replacement.
#[derive(Debug, Clone, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "toolwright_core::__private::schemars")]
pub struct Edit {
    /// The exact text to replace, including indentation. It must occur exactly once
    /// unless `replace_all` is set.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence. Defaults to false.
    #[serde(default)]
    pub replace_all: bool,
}

/// Applies `edits` in order, each to the result of the one before, to the file at
/// `requested`; all or nothing. Returns a report with a unified diff.
pub(crate) fn edit_file(cx: &ToolContext, requested: &str, edits: &[Edit]) -> Result<(String, Written), ToolError> {
    let target = resolve_existing(cx, requested)?;
    let file = TextFile::load(&target)?;
    check_fresh(cx, &target.path, &target.display, &file.raw)?;
    let mut text = file.text.clone();
    let mut replaced = 0;
    for (i, edit) in edits.iter().enumerate() {
        let which = if edits.len() > 1 { format!("edit {} of {}: ", i + 1, edits.len()) } else { String::new() };
        let (next, count) = apply(&text, edit, &target.display).map_err(|e| ToolError::msg(format!("{which}{e}")))?;
        text = next;
        replaced += count;
    }
    write_atomic(cx, &target, &file.encode(&text))?;
    let diff = unified_diff(&target.display, &file.text, &text);
    let what = if replaced == 1 { "1 replacement".to_owned() } else { format!("{replaced} replacements") };
    let message = format!("Edited `{}`: {what}.\n{diff}", target.display).trim_end().to_owned();
    Ok((message, Written::new(&target, Some(file.text), text)))
}

/// One edit applied to `text` (with `\n` line endings): the new text and the number
/// of replacements, or why it cannot be applied.
fn apply(text: &str, edit: &Edit, display: &str) -> Result<(String, usize), String> {
    let old = edit.old_string.replace("\r\n", "\n");
    let new = edit.new_string.replace("\r\n", "\n");
    if old.is_empty() {
        return Err("`old_string` is empty; give the exact text to replace (use write_file for a new file)".into());
    }
    if old == new {
        return Err("`old_string` and `new_string` are the same; nothing would change".into());
    }
    let starts: Vec<usize> = text.match_indices(&old).map(|(at, _)| at).collect();
    match starts.len() {
        0 => Err(no_match(text, &old, display)),
        1 => Ok((text.replacen(&old, &new, 1), 1)),
        n if edit.replace_all => Ok((text.replace(&old, &new), n)),
        n => {
            // The first few lines, counted in one pass (not from the start for each).
            const LISTED: usize = 10;
            let (mut line, mut from) = (1, 0);
            let mut lines: Vec<String> = Vec::with_capacity(LISTED + 1);
            for &at in starts.iter().take(LISTED) {
                line += memchr::memchr_iter(b'\n', &text.as_bytes()[from..at]).count();
                from = at;
                lines.push(line.to_string());
            }
            if n > LISTED {
                lines.push(format!("and {} more", n - LISTED));
            }
            Err(format!(
                "`old_string` occurs {n} times in `{display}` (lines {}); add surrounding lines to make it unique, \
                 or set `replace_all`",
                lines.join(", ")
            ))
        }
    }
}

/// "Not found", with the lines that come closest to the first line of `old`.
fn no_match(text: &str, old: &str, display: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut message = format!("`old_string` was not found in `{display}`");
    // The same text up to whitespace: say where.
    let wanted = squash(old);
    let lines: Vec<&str> = text.lines().collect();
    let old_lines = old.lines().count().max(1);
    if let Some(start) =
        (0..lines.len()).find(|&i| squash(&lines[i..(i + old_lines).min(lines.len())].join("\n")) == wanted)
    {
        message.push_str(&format!(
            "; lines {}-{} match it except for whitespace (indentation or line breaks): copy them exactly",
            start + 1,
            start + old_lines
        ));
        return message;
    }
    let first = old.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut scored: Vec<(f32, usize)> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (similar::TextDiff::from_chars(first, line.trim()).ratio(), i))
        .filter(|(ratio, _)| *ratio >= 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    if scored.is_empty() {
        message.push_str("; no line resembles its first line. Read the file again to see its current content");
    } else {
        message.push_str("; the closest lines are:");
        for (_, i) in scored.iter().take(3) {
            message.push_str(&format!("\n{:>6}\t{}", i + 1, lines[*i]));
        }
    }
    message
}

/// Parses Cline's SEARCH/REPLACE blocks into edits:
///
/// ```text
/// ------- SEARCH
/// old lines
/// =======
/// new lines
/// +++++++ REPLACE
/// ```
///
/// The older `<<<<<<< SEARCH` / `>>>>>>> REPLACE` markers are accepted too.
pub(crate) fn parse_search_replace(diff: &str) -> Result<Vec<Edit>, String> {
    enum Part {
        Outside,
        Search(Vec<String>),
        Replace(Vec<String>, Vec<String>),
    }
    let is = |line: &str, marker: &str, alt: &str| {
        let line = line.trim_end();
        line == marker || line == alt
    };
    let mut edits = Vec::new();
    let mut part = Part::Outside;
    for (n, line) in diff.lines().enumerate() {
        let n = n + 1;
        part = match part {
            Part::Outside if is(line, "------- SEARCH", "<<<<<<< SEARCH") => Part::Search(Vec::new()),
            Part::Outside if line.trim().is_empty() => Part::Outside,
            Part::Outside => return Err(format!("line {n}: expected `------- SEARCH`, found `{line}`")),
            Part::Search(old) if is(line, "=======", "=======") => Part::Replace(old, Vec::new()),
            Part::Search(mut old) => {
                old.push(line.to_owned());
                Part::Search(old)
            }
            Part::Replace(old, new) if is(line, "+++++++ REPLACE", ">>>>>>> REPLACE") => {
                if old.iter().all(|l| l.trim().is_empty()) {
                    return Err(format!(
                        "line {n}: the SEARCH section is empty; it must hold the exact lines to replace"
                    ));
                }
                let mut old_string = old.join("\n");
                let mut new_string = new.join("\n");
                old_string.push('\n');
                if !new.is_empty() {
                    new_string.push('\n');
                }
                edits.push(Edit { old_string, new_string, replace_all: false });
                Part::Outside
            }
            Part::Replace(old, mut new) => {
                new.push(line.to_owned());
                Part::Replace(old, new)
            }
        };
    }
    match part {
        Part::Outside if edits.is_empty() => Err("no SEARCH/REPLACE block found".into()),
        Part::Outside => Ok(edits),
        Part::Search(_) => Err("the last block has no `=======` line".into()),
        Part::Replace(..) => Err("the last block has no `+++++++ REPLACE` line".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit { old_string: old.into(), new_string: new.into(), replace_all: false }
    }

    #[test]
    fn a_unique_match_is_replaced_and_several_are_listed() {
        let text = "a\nb\na\n";
        assert_eq!(apply(text, &edit("b", "c"), "f").unwrap(), ("a\nc\na\n".into(), 1));
        let err = apply(text, &edit("a", "x"), "f").unwrap_err();
        assert!(err.contains("occurs 2 times") && err.contains("lines 1, 3"), "{err}");
        let all = Edit { replace_all: true, ..edit("a", "x") };
        assert_eq!(apply(text, &all, "f").unwrap(), ("x\nb\nx\n".into(), 2));
    }

    #[test]
    fn no_match_shows_the_closest_lines_or_the_whitespace_difference() {
        let text = "fn main() {\n    println!(\"hello\");\n}\n";
        let err = apply(text, &edit("println!(\"helo\");", "x"), "m.rs").unwrap_err();
        assert!(err.contains("closest lines") && err.contains("     2\t    println!(\"hello\");"), "{err}");
        let err = apply(text, &edit("fn main() {\n  println!(\"hello\");", "x"), "m.rs").unwrap_err();
        assert!(err.contains("lines 1-2 match it except for whitespace"), "{err}");
        let err = apply(text, &edit("zzzz qqqq", "x"), "m.rs").unwrap_err();
        assert!(err.contains("no line resembles"), "{err}");
    }

    #[test]
    fn search_replace_blocks_parse_in_both_marker_styles() {
        let diff = "------- SEARCH\nold one\n=======\nnew one\n+++++++ REPLACE\n\n<<<<<<< SEARCH\nold two\n=======\n>>>>>>> REPLACE\n";
        let edits = parse_search_replace(diff).unwrap();
        assert_eq!(edits.len(), 2);
        assert_eq!((edits[0].old_string.as_str(), edits[0].new_string.as_str()), ("old one\n", "new one\n"));
        assert_eq!((edits[1].old_string.as_str(), edits[1].new_string.as_str()), ("old two\n", ""));
        assert!(parse_search_replace("------- SEARCH\nx\n").unwrap_err().contains("no `=======`"));
        assert!(parse_search_replace("hello").unwrap_err().contains("line 1: expected"));
        assert!(parse_search_replace("------- SEARCH\n=======\nx\n+++++++ REPLACE").unwrap_err().contains("empty"));
    }
}
