//! What a `sed` command does besides editing its files: GNU sed's `e` command and
//! `s///e` flag run shell commands, `w`/`W` and `s///w` write files, `r`/`R` read
//! them, and `-f` takes the script from a file. acceptEdits approves `sed` (as Claude
//! Code does) only when its scripts are plain edits: substitutions, transliterations,
//! deletions, prints and the like, read here command by command.

use crate::command::Command;

/// Whether `sed` only edits the files it names: every script plain, none from a file.
pub fn only_edits(command: &Command) -> bool {
    match scripts(command) {
        Some(at) if !at.is_empty() => {
            at.iter().all(|&(i, from)| command.words[i].literal().and_then(|word| word.get(from..)).is_some_and(plain))
        }
        _ => false,
    }
}

/// Where `command`'s scripts are: each word's position in `command.words` and the byte
/// its script starts at (`-e SCRIPT`, `-eSCRIPT`, `--expression=SCRIPT`, or the first
/// operand without them); `None` when a script comes from a file (`-f`), is computed,
/// or is missing.
pub fn scripts(command: &Command) -> Option<Vec<(usize, usize)>> {
    let mut at: Vec<(usize, usize)> = Vec::new();
    let mut given = false;
    let mut first_operand = None;
    let mut i = 1;
    while let Some(word) = command.words.get(i) {
        let arg = word.literal()?;
        match arg {
            "-e" | "--expression" => {
                given = true;
                command.words.get(i + 1)?.literal()?;
                at.push((i + 1, 0));
                i += 1;
            }
            "-f" | "--file" => return None,
            "-l" | "--line-length" => i += 1,
            a if a.starts_with("--expression=") => {
                given = true;
                at.push((i, "--expression=".len()));
            }
            a if a.starts_with("--file=") => return None,
            a if a.starts_with("--") => {}
            // Short options, clustered: `-e` and `-f` take the rest of the word or the
            // next one; `-i` takes the rest as its backup suffix.
            a if a.starts_with('-') && a.len() > 1 => {
                for (offset, c) in a.char_indices().skip(1) {
                    match c {
                        'i' => break,
                        'f' => return None,
                        'e' => {
                            given = true;
                            if a[offset + 1..].is_empty() {
                                command.words.get(i + 1)?.literal()?;
                                at.push((i + 1, 0));
                                i += 1;
                            } else {
                                at.push((i, offset + 1));
                            }
                            break;
                        }
                        'l' => {
                            if a[offset + 1..].is_empty() {
                                i += 1;
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            _ if first_operand.is_none() => first_operand = Some(i),
            _ => {}
        }
        i += 1;
    }
    if !given {
        at.extend(first_operand.map(|i| (i, 0)));
    }
    Some(at)
}

/// Whether a script only edits: its commands are `s` (without the `e` and `w` flags),
/// `y`, and those that touch no file (`d`, `p`, `=`, `q`, ...), with line and regex
/// addresses; anything else (`e`, `w`, `r`, text commands, labels) is not plain.
fn plain(script: &str) -> bool {
    let text: Vec<char> = script.chars().collect();
    let mut at = 0;
    loop {
        while at < text.len() && (text[at].is_whitespace() || text[at] == ';') {
            at += 1;
        }
        if at == text.len() {
            return true;
        }
        // Up to two addresses, then `!`.
        for _ in 0..2 {
            let Some(next) = address(&text, at) else { return false };
            at = next;
            if text.get(at) == Some(&',') {
                at += 1;
                continue;
            }
            break;
        }
        while at < text.len() && (text[at] == '!' || text[at] == ' ') {
            at += 1;
        }
        let Some(&command) = text.get(at) else { return false };
        at += 1;
        match command {
            's' => {
                let Some(next) = delimited(&text, at, 2) else { return false };
                at = next;
                while let Some(&flag) = text.get(at) {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => at += 1,
                        // `e` runs the result, `w` writes it to a file.
                        'e' | 'w' | 'W' => return false,
                        _ => break,
                    }
                }
            }
            'y' => {
                let Some(next) = delimited(&text, at, 2) else { return false };
                at = next;
            }
            'q' | 'Q' | 'l' | 'L' => {
                while text.get(at).is_some_and(char::is_ascii_digit) {
                    at += 1;
                }
            }
            'd' | 'D' | 'p' | 'P' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'z' | '{' | '}' => {}
            _ => return false,
        }
    }
}

/// Past an optional address at `at`: a line number (with `~step` or `+n`), `$`, or a
/// `/regex/` (with its `I`/`M` flags); `None` if one starts but is malformed.
fn address(text: &[char], mut at: usize) -> Option<usize> {
    match text.get(at) {
        Some(c) if c.is_ascii_digit() => {
            while text.get(at).is_some_and(|c| c.is_ascii_digit() || matches!(c, '~' | '+')) {
                at += 1;
            }
            Some(at)
        }
        Some('$') => Some(at + 1),
        Some('/') => {
            at = delimited(text, at, 1)?;
            while matches!(text.get(at), Some('I' | 'M')) {
                at += 1;
            }
            Some(at)
        }
        _ => Some(at),
    }
}

/// Past `parts` parts delimited by the character at `at` (`/a/b/` for two), with
/// backslash escapes; `None` if they do not close or the delimiter cannot be one.
fn delimited(text: &[char], mut at: usize, parts: usize) -> Option<usize> {
    let delimiter = *text.get(at)?;
    if delimiter == '\\' || delimiter == '\n' {
        return None;
    }
    at += 1;
    let mut closed = 0;
    while closed < parts {
        match *text.get(at)? {
            '\\' => at += 2,
            c if c == delimiter => {
                closed += 1;
                at += 1;
            }
            _ => at += 1,
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze;

    fn edits(command: &str) -> bool {
        only_edits(&analyze(command).commands[0])
    }

    #[test]
    fn plain_edits_are_edits() {
        for command in [
            "sed -i 's/a/b/' x",
            "sed -i 's/a/b/g' x",
            "sed -i.bak -e 's|a|b|2' -e '/^#/d' x",
            "sed --in-place 's/a\\/b/c/gI' x y",
            "sed -i '1,5s/a/b/;$d' x",
            "sed -i 'y/abc/xyz/' x",
            "sed -i -E 's/(a+)/[\\1]/' x",
            "sed -n '/start/,/end/p' x",
            "sed -i '' 's/a/b/' x",
            "sed -ie 's/a/b/' x",
            "sed -i --expression='s/a/b/' x",
        ] {
            assert!(edits(command), "{command}");
        }
    }

    #[test]
    fn commands_that_run_write_or_read_are_not() {
        for command in [
            "sed -i 'e touch /tmp/pwn' x",
            "sed -i '1e id' x",
            "sed -i 's/a/touch y/e' x",
            "sed -i 's/a/b/w /tmp/out' x",
            "sed -i 's/a/b/gw /tmp/out' x",
            "sed -i 'w /tmp/out' x",
            "sed -i 'W /tmp/out' x",
            "sed -i 'r /etc/shadow' x",
            "sed -i 'R /etc/shadow' x",
            "sed -i 's/a/b/;e id' x",
            "sed -i -e 's/a/b/' -e 'e id' x",
            "sed -i --expression='e id' x",
            "sed -i -f script.sed x",
            "sed -i --file=script.sed x",
            "sed -i 'a text' x",
            "sed -i ':a;s/x/y/;ta' x",
            "sed -i 's/a/b' x",
            "sed -i \"$S\" x",
        ] {
            assert!(!edits(command), "{command}");
        }
    }
}
