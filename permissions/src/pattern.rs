//! Shell command patterns: `*` matches anything (spaces too); a trailing ` *` needs a
//! word boundary (`ls *` matches `ls` and `ls -la`, not `lsof`); a trailing `:*` is the
//! legacy spelling of ` *`; no `*` means the whole command.

/// A compiled command pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    /// As written.
    pub raw: String,
    /// The literal pieces between the `*`s.
    pieces: Vec<String>,
    /// Whether the pattern starts / ends with `*`.
    open_start: bool,
    open_end: bool,
    /// The pattern ended in ` *` (or `:*`): the last piece may also end the text.
    boundary: bool,
    /// The same pattern with its leading short flags merged and sorted, if that differs.
    canonical: Option<Box<CommandPattern>>,
    /// The length of the literal first word, if there is one.
    first_word_len: Option<usize>,
}

impl CommandPattern {
    /// Compiles `raw`.
    pub fn new(raw: &str) -> Result<CommandPattern, String> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err("the command pattern is empty".into());
        }
        let normalized = match trimmed.strip_suffix(":*") {
            Some(prefix) => format!("{prefix} *"),
            None => trimmed.to_owned(),
        };
        let boundary = normalized.ends_with(" *") && normalized.len() > 2;
        let body = if boundary { &normalized[..normalized.len() - 2] } else { normalized.as_str() };
        let open_start = body.starts_with('*');
        let open_end = boundary || body.ends_with('*');
        let pieces: Vec<String> = body.split('*').filter(|p| !p.is_empty()).map(str::to_owned).collect();
        let mut pattern = CommandPattern {
            raw: trimmed.to_owned(),
            pieces,
            open_start,
            open_end,
            boundary,
            canonical: None,
            first_word_len: None,
        };
        pattern.first_word_len = pattern.find_first_word().map(str::len);
        if let Some(canonical) = canonical_flags(&normalized) {
            let mut other = CommandPattern::new(&canonical)?;
            other.canonical = None;
            pattern.canonical = Some(Box::new(other));
        }
        Ok(pattern)
    }

    /// The pattern with its short flags merged and sorted (`rm -rf *` → `rm -fr *`),
    /// if that is a different pattern.
    pub fn canonical(&self) -> Option<&CommandPattern> {
        self.canonical.as_deref()
    }

    /// Whether the pattern has no wildcard: it names one whole command.
    pub fn is_exact(&self) -> bool {
        !self.open_start && !self.open_end && self.pieces.len() <= 1
    }

    /// Whether `text` (one simple command, words joined by spaces) matches.
    pub fn matches(&self, text: &str) -> bool {
        if self.pieces.is_empty() {
            return self.open_start || self.open_end;
        }
        if !self.boundary {
            return self.match_pieces(text, self.open_end);
        }
        // `P *` with a literal P: P alone, or P and a space.
        if self.pieces.len() == 1 && !self.open_start {
            return text
                .strip_prefix(self.pieces[0].as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '));
        }
        // `P *`: exactly P, or P, a space, and anything.
        if self.match_pieces(text, false) {
            return true;
        }
        let last = &self.pieces[self.pieces.len() - 1];
        // Every match of the last piece that is followed by a space.
        let mut from = 0;
        while let Some(at) = text[from..].find(last.as_str()) {
            let end = from + at + last.len();
            if text[end..].starts_with(' ') && self.match_pieces(&text[..end], false) {
                return true;
            }
            from += at + 1;
            while !text.is_char_boundary(from) {
                from += 1;
            }
        }
        false
    }

    fn match_pieces(&self, text: &str, open_end: bool) -> bool {
        let mut rest = text;
        for (i, piece) in self.pieces.iter().enumerate() {
            let first = i == 0;
            let last = i == self.pieces.len() - 1;
            if first && !self.open_start {
                let Some(after) = rest.strip_prefix(piece.as_str()) else { return false };
                rest = after;
                if last && !open_end {
                    return rest.is_empty();
                }
                continue;
            }
            if last && !open_end {
                return rest.ends_with(piece.as_str());
            }
            match rest.find(piece.as_str()) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        true
    }

    /// The first word, if it is literal (no `*` in it and a space after it, or the
    /// whole pattern): a command whose first word differs cannot match.
    pub fn first_word(&self) -> Option<&str> {
        self.first_word_len.map(|len| &self.pieces[0][..len])
    }

    fn find_first_word(&self) -> Option<&str> {
        if self.open_start {
            return None;
        }
        let first = self.pieces.first()?;
        match first.find(' ') {
            Some(end) => Some(&first[..end]),
            // The whole first piece is one word: literal only if nothing follows it
            // directly (`ls*` continues the word; `ls *` does not).
            None if self.pieces.len() == 1 && (!self.open_end || self.boundary) => Some(first),
            None => None,
        }
    }
}

/// `rm -r -f x` and `rm -rf x` both become `rm -fr x`: the short flags right after
/// the command name, merged, sorted and deduplicated. `None` if that is `text` itself.
pub fn canonical_flags(text: &str) -> Option<String> {
    let is_short = |w: &str| {
        w.len() > 1 && w.starts_with('-') && !w.starts_with("--") && w[1..].chars().all(|c| c.is_ascii_alphabetic())
    };
    // Most commands have no short flag right after their name: nothing to build.
    let bytes = text.as_bytes();
    let second = bytes.iter().position(|&b| b == b' ').map_or(&[][..], |space| &bytes[space + 1..]);
    if !(second.first() == Some(&b'-') && second.get(1).is_some_and(u8::is_ascii_alphabetic)) {
        return None;
    }
    let words: Vec<&str> = text.split(' ').collect();
    let mut flags: Vec<char> = Vec::new();
    let mut i = 1;
    while let Some(w) = words.get(i).filter(|w| is_short(w)) {
        flags.extend(w[1..].chars());
        i += 1;
    }
    if flags.is_empty() {
        return None;
    }
    flags.sort_unstable();
    flags.dedup();
    let mut out = vec![words[0].to_owned(), format!("-{}", flags.iter().collect::<String>())];
    out.extend(words[i..].iter().map(|w| (*w).to_owned()));
    let out = out.join(" ");
    (out != text).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::{CommandPattern, canonical_flags};

    #[test]
    fn short_flags_are_merged_and_sorted() {
        assert_eq!(canonical_flags("rm -r -f x").as_deref(), Some("rm -fr x"));
        assert_eq!(canonical_flags("ls -la").as_deref(), Some("ls -al"));
        for unchanged in ["ls -al", "cmd -a1 x", "git diff", "x --force", "x", "x -", ""] {
            assert_eq!(canonical_flags(unchanged), None, "{unchanged}");
        }
    }

    fn m(pattern: &str, text: &str) -> bool {
        CommandPattern::new(pattern).unwrap().matches(text)
    }

    #[test]
    fn wildcards_and_boundaries() {
        assert!(m("ls *", "ls -la") && m("ls *", "ls") && !m("ls *", "lsof"));
        assert!(m("ls*", "lsof") && m("ls*", "ls -la"));
        assert!(m("ls:*", "ls -la") && !m("ls:*", "lsof") && m("ls:*", "ls"));
        assert!(m("git * main", "git push origin main") && !m("git * main", "git push origin dev"));
        assert!(m("npm run test", "npm run test") && !m("npm run test", "npm run test --watch"));
        assert!(m("* --version", "node --version") && m("*", "anything at all"));
        assert!(m("rm -rf *", "rm -rf /") && !m("rm -rf *", "rm -r -f /"));
        assert!(m("a*b*c", "a-b-c") && !m("a*b*c", "a-c-b"));
    }
}
