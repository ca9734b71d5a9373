//! Positions: the tool's 1-based line and character (as an editor shows them) and
//! LSP's 0-based line and UTF-16 offset.

use crate::error::LspError;
use lsp_types::Position;

/// The LSP position of 1-based `line` and `character` in `text` (`display` names
/// the file in errors).
pub fn to_lsp(text: &str, line: u32, character: u32, display: &str) -> Result<Position, LspError> {
    let lines = text.split('\n').count() - usize::from(text.ends_with('\n'));
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1) as usize).filter(|_| line >= 1) else {
        return Err(LspError::Position(format!(
            "`line` {line} is not in `{display}`, which has {lines} lines (lines count from 1)"
        )));
    };
    let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
    let chars = line_text.chars().count();
    if character < 1 || character as usize > chars + 1 {
        return Err(LspError::Position(format!(
            "`character` {character} is not on line {line} of `{display}`, which has {chars} characters (characters count from 1)"
        )));
    }
    let utf16: usize = line_text.chars().take(character as usize - 1).map(char::len_utf16).sum();
    Ok(Position { line: line - 1, character: utf16 as u32 })
}

/// The 1-based character of UTF-16 offset `utf16` in `line_text`.
pub fn character_of(line_text: &str, utf16: u32) -> u32 {
    let mut units = 0;
    for (i, c) in line_text.chars().enumerate() {
        if units >= utf16 as usize {
            return i as u32 + 1;
        }
        units += c.len_utf16();
    }
    line_text.chars().count() as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_based_characters_become_utf16_offsets_and_back() {
        let text = "a = 1\nπ𝄞x = f(y)\n";
        assert_eq!(to_lsp(text, 1, 1, "t").unwrap(), Position { line: 0, character: 0 });
        // π is one UTF-16 unit, 𝄞 two: `x`, the third character, is at offset 3.
        assert_eq!(to_lsp(text, 2, 3, "t").unwrap(), Position { line: 1, character: 3 });
        assert_eq!(character_of("π𝄞x = f(y)", 3), 3);
        let error = to_lsp(text, 9, 1, "a.py").unwrap_err().to_string();
        assert!(error.contains("`line` 9") && error.contains("has 2 lines"), "{error}");
        assert!(to_lsp(text, 0, 1, "a.py").unwrap_err().to_string().contains("`line` 0"));
        assert!(to_lsp(text, 1, 40, "a.py").unwrap_err().to_string().contains("`character` 40"));
    }
}
