//! Keeping a long output to its limit: the head and the tail stay (a failing build's
//! error is at the end), the middle is cut, and the model is told how much and where
//! the full text is.

use crate::{Content, ToolOutput};
use std::path::{Path, PathBuf};

/// Bytes kept back from the limit for the marker that reports the cut.
const MARKER_RESERVE: usize = 300;

/// Text cut to `limit` bytes: head and tail, cut at line breaks where one is near.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut<'a> {
    /// The start that is kept.
    pub head: &'a str,
    /// The end that is kept.
    pub tail: &'a str,
    /// Bytes cut from the middle.
    pub cut_bytes: usize,
    /// Lines cut from the middle.
    pub cut_lines: usize,
}

/// Splits `text` into a kept head and tail totalling at most `budget` bytes, or `None`
/// if it fits. Cuts fall on char boundaries, and on line breaks within the last (or
/// first) fifth of each side.
///
/// ```
/// use toolwright_core::truncate::cut_middle;
/// let text = (1..=100).map(|i| format!("line {i}\n")).collect::<String>();
/// let cut = cut_middle(&text, 100).unwrap();
/// assert!(cut.head.starts_with("line 1\n") && cut.tail.ends_with("line 100\n"));
/// assert!(cut.head.len() + cut.tail.len() <= 100);
/// assert_eq!(cut.head.len() + cut.tail.len() + cut.cut_bytes, text.len());
/// ```
pub fn cut_middle(text: &str, budget: usize) -> Option<Cut<'_>> {
    if text.len() <= budget {
        return None;
    }
    let head_budget = budget / 2;
    let tail_budget = budget - head_budget;
    let mut head_end = floor_boundary(text, head_budget);
    if let Some(nl) = text[..head_end].rfind('\n')
        && nl + 1 >= head_end - head_end / 5
    {
        head_end = nl + 1;
    }
    let mut tail_start = ceil_boundary(text, text.len() - tail_budget);
    let window = (text.len() - tail_start) / 5;
    if let Some(nl) = text[tail_start..].find('\n')
        && nl < window
    {
        tail_start += nl + 1;
    }
    let middle = &text[head_end..tail_start];
    Some(Cut {
        head: &text[..head_end],
        tail: &text[tail_start..],
        cut_bytes: middle.len(),
        cut_lines: middle.matches('\n').count(),
    })
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Where full outputs go when they are cut.
#[derive(Debug, Clone)]
pub(crate) struct Spill<'a> {
    pub(crate) dir: &'a Path,
    pub(crate) tool: &'a str,
    pub(crate) call_id: &'a str,
}

/// Cuts `output`'s text to `limit` bytes (all text blocks together, joined into one
/// where they stood), writing the full text to a spill file if one is configured.
/// Returns whether anything was cut.
pub(crate) async fn limit_output(output: &mut ToolOutput, limit: usize, spill: Option<Spill<'_>>) -> bool {
    if !needs_limit(output, limit) {
        return false;
    }
    let text = output.text_content();
    let Some(cut) = cut_middle(&text, limit.saturating_sub(MARKER_RESERVE).max(limit / 2)) else { return false };
    let saved = match spill {
        Some(spill) => Some(write_spill(spill, &text).await),
        None => None,
    };
    let where_full = match saved {
        Some(Ok(path)) => format!("; the full output is in `{}`", path.display()),
        Some(Err(e)) => format!("; the full output could not be saved: {e}"),
        None => "; narrow the request to see it".to_owned(),
    };
    let marker = format!(
        "\n[… {} of {} bytes ({} lines) cut from the middle{where_full} …]\n",
        cut.cut_bytes,
        text.len(),
        cut.cut_lines
    );
    let joined = format!("{}{marker}{}", cut.head, cut.tail);
    let first_text = output.content.iter().position(|c| matches!(c, Content::Text(_))).unwrap_or(0);
    output.content.retain(|c| !matches!(c, Content::Text(_)));
    output.content.insert(first_text.min(output.content.len()), Content::Text(joined));
    true
}

/// Whether `output`'s text is over `limit` bytes.
pub(crate) fn needs_limit(output: &ToolOutput, limit: usize) -> bool {
    output.content.iter().map(text_len).sum::<usize>() > limit
}

fn text_len(content: &Content) -> usize {
    match content {
        Content::Text(t) => t.len(),
        _ => 0,
    }
}

async fn write_spill(spill: Spill<'_>, text: &str) -> std::io::Result<PathBuf> {
    let safe: String = format!("{}-{}", spill.tool, spill.call_id)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect();
    let path = spill.dir.join(format!("{safe}.txt"));
    let (dir, target, body) = (spill.dir.to_path_buf(), path.clone(), text.to_owned());
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(&target, body)
    })
    .await
    .map_err(std::io::Error::other)??;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_left_alone() {
        assert_eq!(cut_middle("abc", 3), None);
    }

    #[test]
    fn cuts_respect_char_boundaries() {
        let text = "é".repeat(100);
        let cut = cut_middle(&text, 51).unwrap();
        assert!(cut.head.len() + cut.tail.len() <= 51);
        assert_eq!(cut.head.len() + cut.tail.len() + cut.cut_bytes, text.len());
    }

    #[test]
    fn the_tail_keeps_the_last_line_whole() {
        let mut text = "x".repeat(1000);
        text.push_str("\nerror[E0308]: mismatched types\n");
        let cut = cut_middle(&text, 100).unwrap();
        assert!(cut.tail.ends_with("error[E0308]: mismatched types\n"));
    }
}
