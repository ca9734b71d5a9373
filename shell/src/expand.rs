//! A word's paths as bash will see them: brace expansion (`sec{rets,x}/key`), then
//! pathname expansion (`*`, `?`, `[..]`) against the file system, as bash does by
//! default (no `globstar`: `**` is `*`; names starting with `.` only where the pattern
//! spells the dot; a pattern that matches nothing stays as written). Bounded: a word
//! that would expand to more than [`MAX_EXPANSION`] paths, or make the walk look at
//! more than [`MAX_VISITS`] entries, is [`Expansion::TooMany`] and the caller treats
//! it as touching everything below its literal directory.

use globset::GlobBuilder;
use std::path::{Path, PathBuf};

/// The most paths one word may expand to before it counts as "anything below".
pub const MAX_EXPANSION: usize = 1_000;
/// The most directory entries one word's expansion may look at.
pub const MAX_VISITS: usize = 20_000;

/// What a word expands to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expansion {
    /// These paths (absolute, relative to nothing).
    Paths(Vec<PathBuf>),
    /// Too many to know: anything below this directory.
    TooMany(PathBuf),
}

/// Whether `text` has a character bash expands in a pathname.
pub fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// Whether `text` has a brace expansion (`{a,b}` or `{1..3}`).
pub fn has_braces(text: &str) -> bool {
    match (text.find('{'), text.rfind('}')) {
        (Some(open), Some(close)) if open < close => {
            let inner = &text[open + 1..close];
            inner.contains(',') || inner.contains("..")
        }
        _ => false,
    }
}

/// `text` with its brace expansions done, at most [`MAX_EXPANSION`] words; `None` if
/// there would be more.
pub fn braces(text: &str) -> Option<Vec<String>> {
    // Depth first with a stack of its own (a recursion, one level a group, overflowed on
    // a 10 KB word of 2,000 groups). Each pending word yields at least one word, so
    // once the words and the pending ones are over the limit, so is the expansion.
    let mut out = Vec::new();
    let mut pending = vec![text.to_owned()];
    while let Some(word) = pending.pop() {
        match first_expansion(&word)? {
            None => out.push(word),
            Some((head, alternatives, tail)) => {
                pending.extend(alternatives.iter().rev().map(|alternative| format!("{head}{alternative}{tail}")));
            }
        }
        if out.len() + pending.len() > MAX_EXPANSION {
            return None;
        }
    }
    Some(out)
}

/// The first brace expansion of `text`: the first `{` whose matching `}` holds a
/// top-level `,` or a `..` range, as the text before it, its alternatives and the text
/// after. `Some(None)` when it has none; `None` when a range is too long.
#[allow(clippy::type_complexity)]
fn first_expansion(text: &str) -> Option<Option<(&str, Vec<String>, &str)>> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(open) = text[start..].find('{').map(|i| i + start) {
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else { break };
        let (head, inner, tail) = (&text[..open], &text[open + 1..close], &text[close + 1..]);
        if !commas.is_empty() {
            let mut parts = Vec::with_capacity(commas.len() + 1);
            let mut from = open + 1;
            for &comma in &commas {
                parts.push(text[from..comma].to_owned());
                from = comma + 1;
            }
            parts.push(text[from..close].to_owned());
            return Some(Some((head, parts, tail)));
        }
        if let Some(range) = sequence(inner) {
            return Some(Some((head, range?, tail)));
        }
        start = open + 1;
    }
    Some(None)
}

/// `a..b` (numbers or single letters): `Some(None)` when too long.
fn sequence(inner: &str) -> Option<Option<Vec<String>>> {
    let (a, b) = inner.split_once("..")?;
    let b = b.split("..").next()?;
    if let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) {
        if a.abs_diff(b) >= MAX_EXPANSION as u64 {
            return Some(None);
        }
        let range: Vec<i64> = if a <= b { (a..=b).collect() } else { (b..=a).rev().collect() };
        return Some(Some(range.into_iter().map(|n| n.to_string()).collect()));
    }
    let (mut a, mut b) = (a.chars(), b.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            Some(Some((lo..=hi).map(String::from).collect()))
        }
        _ => None,
    }
}

/// `pattern`, named from `base`, expanded against the file system.
pub fn glob(pattern: &str, base: &Path) -> Expansion {
    let absolute = pattern.starts_with('/');
    let mut frontier = vec![if absolute { PathBuf::from("/") } else { base.to_path_buf() }];
    let mut literal_dir = frontier[0].clone();
    let mut globbed = false;
    let mut visits = 0;
    let components: Vec<&str> = pattern.split('/').filter(|c| !c.is_empty()).collect();
    for (i, component) in components.iter().enumerate() {
        if !has_glob(component) {
            for path in &mut frontier {
                path.push(component);
            }
            if !globbed {
                literal_dir.push(component);
            }
            continue;
        }
        globbed = true;
        let Ok(matcher) = GlobBuilder::new(component).literal_separator(true).backslash_escape(true).build() else {
            // Not a valid pattern to bash either: the word stays as written.
            return Expansion::Paths(vec![base.join(pattern)]);
        };
        let matcher = matcher.compile_matcher();
        let dotted = component.starts_with('.');
        let last = i + 1 == components.len();
        let mut next = Vec::new();
        for dir in &frontier {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for entry in entries.flatten() {
                visits += 1;
                if visits > MAX_VISITS {
                    return Expansion::TooMany(literal_dir);
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if (name.starts_with('.') && !dotted) || !matcher.is_match(name) {
                    continue;
                }
                // Inner components need a directory to go on in.
                if !last && !entry.path().is_dir() {
                    continue;
                }
                next.push(dir.join(name));
                if next.len() > MAX_EXPANSION {
                    return Expansion::TooMany(literal_dir);
                }
            }
        }
        frontier = next;
    }
    // bash produces only paths that exist (a literal component after a glob included).
    if globbed {
        frontier.retain(|path| std::fs::symlink_metadata(path).is_ok());
    }
    if globbed && frontier.is_empty() {
        // bash keeps a pattern that matches nothing as it is.
        return Expansion::Paths(vec![if absolute { PathBuf::from(pattern) } else { base.join(pattern) }]);
    }
    frontier.sort();
    Expansion::Paths(frontier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_expand_like_bash() {
        assert_eq!(braces("sec{rets,x}/key").unwrap(), ["secrets/key", "secx/key"]);
        assert_eq!(braces("{a,b{c,d}}e").unwrap(), ["ae", "bce", "bde"]);
        assert_eq!(braces("f{1..3}").unwrap(), ["f1", "f2", "f3"]);
        assert_eq!(braces("{x}").unwrap(), ["{x}"]);
        assert!(braces("{1..100000}").is_none());
        assert!(has_braces("a{b,c}") && !has_braces("a{b}") && !has_braces("}{"));
    }

    #[test]
    fn globs_expand_against_the_file_system() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["secrets/key.txt", "src/a.rs", "src/b.rs", ".env", "docs/key.txt"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let paths = |pattern: &str| match glob(pattern, root) {
            Expansion::Paths(paths) => {
                paths.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(paths("*/key.txt"), ["docs/key.txt", "secrets/key.txt"]);
        assert_eq!(paths("sec*/key.txt"), ["secrets/key.txt"]);
        assert_eq!(paths("src/?.rs"), ["src/a.rs", "src/b.rs"]);
        assert_eq!(paths("*"), ["docs", "secrets", "src"]);
        assert_eq!(paths(".e*"), [".env"]);
        assert_eq!(paths("nothing*"), ["nothing*"]);
        assert_eq!(paths("[s]ecrets/*"), ["secrets/key.txt"]);
    }
}
