//! Server-sent events, as the providers stream them: an incremental parser that
//! takes bytes as they arrive (split anywhere, even inside a UTF-8 character or a
//! `\r\n`) and yields whole events.
//!
//! ```
//! use toolwright_core::streaming::sse::SseParser;
//! let mut parser = SseParser::default();
//! assert!(parser.push(b"event: ping\nda").is_empty());
//! let events = parser.push(b"ta: {\"a\":1}\n\n: a comment\ndata: [DONE]\n\n");
//! assert_eq!(events[0].event.as_deref(), Some("ping"));
//! assert_eq!(events[0].data, "{\"a\":1}");
//! assert_eq!(events[1].data, "[DONE]");
//! ```

/// One event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field.
    pub event: Option<String>,
    /// The `data:` fields, joined with newlines.
    pub data: String,
}

/// The incremental parser (see the module docs).
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of an unfinished line.
    line: Vec<u8>,
    /// The last byte was `\r`: a following `\n` belongs to the same line end.
    after_cr: bool,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    /// The events completed by `bytes`.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, &mut out);
                }
                _ => self.line.push(b),
            }
        }
        out
    }

    /// The event left at the end of the stream, if it has data.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.line);
        let mut out = Vec::new();
        if !line.is_empty() {
            self.line_done(&line, &mut out);
        }
        self.line_done(b"", &mut out);
        out.pop()
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                out.push(std::mem::take(&mut self.current));
            }
            self.current = SseEvent::default();
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.current.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_split_gives_the_same_events() {
        let stream = "event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: c\n\ndata: ünï\n\nevent: b\ndata: x";
        let mut whole = SseParser::default();
        let mut expected = whole.push(stream.as_bytes());
        expected.extend(whole.finish());
        assert_eq!(expected.len(), 3);
        assert_eq!(expected[0], SseEvent { event: Some("a".into()), data: "1\n2".into() });
        assert_eq!(expected[1].data, "ünï");
        assert_eq!(expected[2], SseEvent { event: Some("b".into()), data: "x".into() });
        for size in 1..stream.len() {
            let mut parser = SseParser::default();
            let mut got = Vec::new();
            for chunk in stream.as_bytes().chunks(size) {
                got.extend(parser.push(chunk));
            }
            got.extend(parser.finish());
            assert_eq!(got, expected, "chunks of {size}");
        }
    }
}
