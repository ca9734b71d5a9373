//! Partial input: a tool that opts in sees its input while the model is still
//! streaming it, so a UI can show `path` before `content` has arrived.
//!
//! [`PartialObject`] scans the growing input once, byte by byte, and keeps every
//! top-level field whose value is complete (each parsed once, from its own bytes).
//! It offers a snapshot when a field completes, and for a long string still
//! streaming, when it has doubled since the last snapshot. The work is therefore
//! linear in the bytes received: no re-parse of the whole prefix per fragment.
//!
//! ```
//! # extern crate toolwright_core as toolwright;
//! use toolwright_core::partial::PartialObject;
//!
//! let mut input = String::new();
//! let mut scan = PartialObject::new();
//! input.push_str(r#"{"path": "src/ma"#);
//! assert!(scan.advance(&input).is_none()); // nothing complete yet
//! input.push_str(r#"in.rs", "content": "fn ma"#);
//! // `path` completed; the string still streaming comes along as far as it goes.
//! let snapshot = scan.advance(&input).unwrap();
//! assert_eq!(snapshot, serde_json::json!({"path": "src/main.rs", "content": "fn ma"}));
//! input.push_str("in() {}");
//! assert!(scan.advance(&input).is_none()); // short strings are not offered per fragment
//! ```

use crate::progress::Progress;
use crate::tool::Tool;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A tool that wants its input while it streams. Opt in with
/// `#[tool(partial_input)]` and implement this trait.
///
/// `Partial` is a type every prefix of the input fits: usually the input's fields
/// as `Option`s, with `#[serde(default)]`. A snapshot that does not deserialize
/// into it is skipped.
#[diagnostic::on_unimplemented(
    message = "`{Self}` asks for partial input but does not implement `PartialInput`",
    label = "`#[tool(partial_input)]` needs `impl PartialInput for {Self}`",
    note = "implement it: `impl toolwright::partial::PartialInput for {Self} {{ type Partial = ..; fn on_partial_input(partial: Self::Partial) -> Option<Progress> {{ .. }} }}`"
)]
pub trait PartialInput: Tool {
    /// What a prefix of the input deserializes into.
    type Partial: DeserializeOwned;

    /// Turns a partial input into a progress report for the call (or none).
    fn on_partial_input(partial: Self::Partial) -> Option<Progress>;
}

/// The type-erased [`PartialInput::on_partial_input`] of a tool: a snapshot of the
/// completed fields in, a progress report out.
pub type PartialInputFn = fn(&Value) -> Option<Progress>;

/// The [`PartialInputFn`] of a `#[tool(partial_input)]` struct.
pub fn partial_input_of<T: PartialInput>(snapshot: &Value) -> Option<Progress> {
    T::Partial::deserialize(snapshot).ok().and_then(T::on_partial_input)
}

/// A string still streaming is offered once it has this many bytes, and again each
/// time it doubles.
pub const FIRST_STRING_REPORT: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `{`.
    Start,
    /// After `{` (`first`) or `,`: a key, or `}` if first.
    Key { first: bool },
    /// Inside a key's string; `escaped` after a backslash.
    KeyText { start: usize, escaped: bool },
    /// After a key: the `:`.
    Colon,
    /// After `:`: the value's first byte.
    Value,
    /// Inside a string value.
    Text { start: usize, escaped: bool },
    /// Inside an object or array value.
    Nested { start: usize, depth: usize, in_string: bool, escaped: bool },
    /// Inside a number or literal.
    Scalar { start: usize },
    /// After a value: `,` or `}`.
    Next,
    /// The object is closed.
    Done,
    /// Not a JSON object, or not valid JSON: no more snapshots.
    Broken,
}

/// An incremental scanner over a growing JSON object. See the module docs.
#[derive(Debug, Clone)]
pub struct PartialObject {
    state: State,
    /// Bytes of the input scanned so far.
    scanned: usize,
    fields: Map<String, Value>,
    key: Option<String>,
    /// A field completed since the last snapshot.
    changed: bool,
    /// The length a streaming string must reach to be offered again.
    next_string_report: usize,
}

impl Default for PartialObject {
    fn default() -> Self {
        PartialObject::new()
    }
}

impl PartialObject {
    /// A scanner that has seen nothing.
    pub fn new() -> Self {
        PartialObject {
            state: State::Start,
            scanned: 0,
            fields: Map::new(),
            key: None,
            changed: false,
            next_string_report: FIRST_STRING_REPORT,
        }
    }

    /// Scans what `input` has beyond what was seen before (`input` must extend the
    /// previous input) and returns a snapshot if there is something new worth
    /// showing: a field completed, or a streaming string doubled.
    pub fn advance(&mut self, input: &str) -> Option<Value> {
        let bytes = input.as_bytes();
        while self.scanned < bytes.len() {
            // Inside a string only `"` and `\` matter: skip to the next one at once.
            if let State::Text { escaped: false, .. } | State::Nested { in_string: true, escaped: false, .. } =
                self.state
            {
                match memchr::memchr2(b'"', b'\\', &bytes[self.scanned..]) {
                    Some(skip) => self.scanned += skip,
                    None => {
                        self.scanned = bytes.len();
                        break;
                    }
                }
            }
            let at = self.scanned;
            if self.step(bytes, at) {
                self.scanned += 1;
            }
            if matches!(self.state, State::Broken) {
                self.scanned = bytes.len();
            }
        }
        if self.changed {
            self.changed = false;
            return Some(self.snapshot(input));
        }
        // The string's body so far: after its opening quote.
        if let State::Text { start, .. } = self.state
            && let body = bytes.len() - (start + 1)
            && body >= self.next_string_report
        {
            self.next_string_report = body * 2;
            return Some(self.snapshot(input));
        }
        None
    }

    /// The fields complete so far, plus the streaming string value, if any.
    pub fn snapshot(&self, input: &str) -> Value {
        let mut fields = self.fields.clone();
        if let (State::Text { start, .. }, Some(key)) = (self.state, &self.key) {
            fields.insert(key.clone(), Value::String(decode_prefix(&input[start + 1..])));
        }
        Value::Object(fields)
    }

    /// Whether the input so far cannot begin a JSON object.
    pub fn is_broken(&self) -> bool {
        self.state == State::Broken
    }

    /// Bytes scanned so far: each byte of the input is scanned once.
    pub fn scanned(&self) -> usize {
        self.scanned
    }

    /// One byte; returns false when the byte must be looked at again in the new state.
    fn step(&mut self, bytes: &[u8], at: usize) -> bool {
        let byte = bytes[at];
        let ws = byte.is_ascii_whitespace();
        self.state = match self.state {
            State::Start if ws => State::Start,
            State::Start if byte == b'{' => State::Key { first: true },
            State::Key { .. } if ws => self.state,
            State::Key { .. } if byte == b'"' => State::KeyText { start: at, escaped: false },
            State::Key { first: true } if byte == b'}' => State::Done,
            State::KeyText { start, escaped } => match (escaped, byte) {
                (false, b'"') => match serde_json::from_slice::<String>(&bytes[start..=at]) {
                    Ok(key) => {
                        self.key = Some(key);
                        State::Colon
                    }
                    Err(_) => State::Broken,
                },
                (false, b'\\') => State::KeyText { start, escaped: true },
                _ => State::KeyText { start, escaped: false },
            },
            State::Colon if ws => State::Colon,
            State::Colon if byte == b':' => State::Value,
            State::Value if ws => State::Value,
            State::Value if byte == b'"' => {
                self.next_string_report = FIRST_STRING_REPORT;
                State::Text { start: at, escaped: false }
            }
            State::Value if byte == b'{' || byte == b'[' => {
                State::Nested { start: at, depth: 1, in_string: false, escaped: false }
            }
            State::Value => State::Scalar { start: at },
            State::Text { start, escaped } => match (escaped, byte) {
                (false, b'"') => self.complete(&bytes[start..=at]),
                (false, b'\\') => State::Text { start, escaped: true },
                _ => State::Text { start, escaped: false },
            },
            State::Nested { start, depth, in_string: true, escaped } => match (escaped, byte) {
                (false, b'"') => State::Nested { start, depth, in_string: false, escaped: false },
                (false, b'\\') => State::Nested { start, depth, in_string: true, escaped: true },
                _ => State::Nested { start, depth, in_string: true, escaped: false },
            },
            State::Nested { start, depth, in_string: false, .. } => match byte {
                b'"' => State::Nested { start, depth, in_string: true, escaped: false },
                b'{' | b'[' => State::Nested { start, depth: depth + 1, in_string: false, escaped: false },
                b'}' | b']' if depth == 1 => self.complete(&bytes[start..=at]),
                b'}' | b']' => State::Nested { start, depth: depth - 1, in_string: false, escaped: false },
                _ => self.state,
            },
            State::Scalar { start } if ws || byte == b',' || byte == b'}' => {
                self.state = self.complete(&bytes[start..at]);
                return self.state == State::Broken; // look at the delimiter again
            }
            State::Scalar { .. } => self.state,
            State::Next if ws => State::Next,
            State::Next if byte == b',' => State::Key { first: false },
            State::Next if byte == b'}' => State::Done,
            State::Done if ws => State::Done,
            _ => State::Broken,
        };
        true
    }

    /// A value's bytes are complete: parse them once and keep the field.
    fn complete(&mut self, value: &[u8]) -> State {
        match (serde_json::from_slice::<Value>(value), self.key.take()) {
            (Ok(value), Some(key)) => {
                self.fields.insert(key, value);
                self.changed = true;
                State::Next
            }
            _ => State::Broken,
        }
    }
}

/// Decodes the body of a JSON string whose end has not arrived: an escape cut off
/// by the fragment boundary (or a surrogate pair's first half) is left out.
fn decode_prefix(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut end = bytes.len();
    // The longest escape is a surrogate pair, 12 bytes: only the tail can be cut off.
    for at in bytes.len().saturating_sub(12)..bytes.len() {
        // A backslash starts an escape if an even number of backslashes precede it.
        let run = bytes[..=at].iter().rev().take_while(|&&b| b == b'\\').count();
        if bytes[at] != b'\\' || run % 2 == 0 {
            continue;
        }
        let len = match bytes.get(at + 1) {
            Some(b'u') if is_high_surrogate(&bytes[at..]) => 12,
            Some(b'u') => 6,
            _ => 2,
        };
        if at + len > bytes.len() {
            end = at;
            break;
        }
    }
    let mut quoted = String::with_capacity(end + 2);
    quoted.push('"');
    quoted.push_str(&body[..end]);
    quoted.push('"');
    serde_json::from_str(&quoted).unwrap_or_default()
}

fn is_high_surrogate(escape: &[u8]) -> bool {
    escape
        .get(2..6)
        .and_then(|hex| std::str::from_utf8(hex).ok())
        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
        .is_some_and(|unit| (0xD800..0xDC00).contains(&unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds `input` in fragments of `step` bytes (on char boundaries) and returns
    /// every snapshot offered.
    fn feed(input: &str, step: usize) -> (Vec<Value>, PartialObject) {
        let mut scan = PartialObject::new();
        let mut seen = String::new();
        let mut snapshots = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let mut cut = step.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            seen.push_str(&rest[..cut]);
            rest = &rest[cut..];
            snapshots.extend(scan.advance(&seen));
        }
        (snapshots, scan)
    }

    #[test]
    fn fields_appear_as_they_complete_whatever_the_fragment_size() {
        let input = r#" { "path" : "a\"b\\c\u00e9", "n": -12.5e3, "ok": true, "list": [1, {"x": "]}"}], "obj": {}, "z": null } "#;
        for step in 1..=input.len() {
            let (snapshots, scan) = feed(input, step);
            let last = snapshots.last().unwrap();
            assert_eq!(*last, serde_json::from_str::<Value>(input).unwrap(), "step {step}");
            assert!(!scan.is_broken());
            assert_eq!(scan.scanned(), input.len());
        }
        let (snapshots, _) = feed(input, 1);
        assert_eq!(snapshots[0], json!({"path": "a\"b\\cé"}));
        assert_eq!(snapshots[1], json!({"path": "a\"b\\cé", "n": -12500.0}));
        assert_eq!(snapshots.len(), 6);
    }

    #[test]
    fn a_long_string_is_offered_as_it_doubles_not_per_fragment() {
        let content = "x".repeat(1 << 20);
        let input = format!(r#"{{"path": "big.txt", "content": "{content}"}}"#);
        let (snapshots, _) = feed(&input, 100);
        // path complete; content at >= 1 KiB, 2 KiB, ... 512 KiB; content complete.
        assert_eq!(
            snapshots.len(),
            1 + 10 + 1,
            "{:?}",
            snapshots.iter().map(|s| s.to_string().len()).collect::<Vec<_>>()
        );
        let sizes: Vec<usize> = snapshots[1..11].iter().map(|s| s["content"].as_str().unwrap().len()).collect();
        assert!(sizes.windows(2).all(|w| w[1] >= 2 * w[0]), "{sizes:?}");
        // The first fragment holds the whole path and the start of the content.
        assert_eq!(snapshots[0]["path"], "big.txt");
        assert_eq!(snapshots[11]["content"].as_str().map(str::len), Some(1 << 20));
    }

    #[test]
    fn a_cut_escape_is_left_out_of_the_streaming_string() {
        assert_eq!(decode_prefix(r"ab\"), "ab");
        assert_eq!(decode_prefix(r"ab\u00"), "ab");
        assert_eq!(decode_prefix(r"ab\ud83d"), "ab");
        assert_eq!(decode_prefix(r"ab\ud83d\ude0"), "ab");
        assert_eq!(decode_prefix(r"ab\ud83d\ude00c"), "ab😀c");
        assert_eq!(decode_prefix(r#"a\"b\n"#), "a\"b\n");
        assert_eq!(decode_prefix(r"a\\\\"), r"a\\", "two escaped backslashes");
        assert_eq!(decode_prefix(r"a\\\\\"), r"a\\", "an escaped backslash, then a cut escape");
        assert_eq!(decode_prefix(r"\u00e9 and then twenty more\t"), "é and then twenty more\t");
    }

    #[test]
    fn invalid_json_stops_the_snapshots_without_failing() {
        for bad in [r#"[1, 2]"#, r#"{"a": tru }"#, r#"{"a" 1}"#, r#"{"a": 1,, "b": 2}"#, "nonsense"] {
            let (snapshots, scan) = feed(bad, 1);
            assert!(scan.is_broken(), "{bad}");
            assert!(snapshots.iter().all(|s| s.get("b").is_none()), "{bad}: {snapshots:?}");
        }
    }
}
