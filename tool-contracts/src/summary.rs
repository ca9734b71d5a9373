//! One line for humans about a call: the tool's name and its input, folded.

/// Characters of a summary line.
pub(crate) const SUMMARY_CHARS: usize = 80;

/// `read_file {"path":"src/main.rs"}`: the name and the input with runs of
/// whitespace folded, cut to one line. One pass, one allocation.
pub fn default_summary(tool: &str, input: &str) -> String {
    let mut line = String::with_capacity(tool.len() + SUMMARY_CHARS + 8);
    line.push_str(tool);
    let input = input.trim();
    if input.is_empty() || input == "{}" {
        return line;
    }
    line.push(' ');
    push_folded(&mut line, input, SUMMARY_CHARS);
    line
}

/// Appends `text` with whitespace runs folded to one space, stopping (with `…`) once
/// `line` holds `max_chars` chars.
pub(crate) fn push_folded(line: &mut String, text: &str, max_chars: usize) {
    let mut chars = line.chars().count();
    // Most inputs are compact one-line JSON that fits: copy it whole.
    let fits = chars + text.len() <= max_chars;
    if fits && !text.bytes().any(|b| b.is_ascii_whitespace() && b != b' ') && !text.contains("  ") {
        line.push_str(text);
        return;
    }
    let mut in_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            in_space = true;
            continue;
        }
        if chars >= max_chars {
            line.push('…');
            return;
        }
        if in_space {
            line.push(' ');
            chars += 1;
            in_space = false;
        }
        line.push(c);
        chars += 1;
    }
}
