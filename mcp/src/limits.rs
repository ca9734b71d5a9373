//! How large and how deep a message the MCP server takes, and the scan that measures
//! a message as its bytes arrive, so that one over a limit is answered (with the
//! request's own id) without ever being held or parsed.

use std::fmt;

/// The largest and deepest JSON-RPC message an [`McpServer`](super::McpServer)
/// reads, on stdio and HTTP alike. A request over a limit gets a JSON-RPC error
/// naming the limit (code `-32600`, the limit in `data`); its bytes are counted and
/// dropped as they arrive, never buffered past the limit.
///
/// ```
/// use toolwright_mcp::MessageLimits;
/// let limits = MessageLimits::default().with_max_bytes(64 << 20).unwrap().with_max_depth(32).unwrap();
/// assert_eq!((limits.max_bytes(), limits.max_depth()), (64 << 20, 32));
/// assert!(MessageLimits::default().with_max_depth(500).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageLimits {
    max_bytes: usize,
    max_depth: usize,
}

/// A limit that cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitsError {
    /// A message must be allowed some bytes.
    #[error("the message size limit must be at least {min} bytes, not {given}")]
    TooSmall {
        /// The smallest limit.
        min: usize,
        /// The limit asked for.
        given: usize,
    },
    /// The JSON parser reads no deeper than this.
    #[error("the nesting limit must be from 2 to {max} (the JSON parser reads no deeper), not {given}")]
    Depth {
        /// The deepest limit.
        max: usize,
        /// The limit asked for.
        given: usize,
    },
}

impl MessageLimits {
    /// 16 MiB: what rmcp's clients accept from a server, so whatever fits one way
    /// fits the other.
    pub const DEFAULT_MAX_BYTES: usize = 16 << 20;
    /// 64 levels, the root object counting as one: a tool's arguments sit at level
    /// 3 (`params.arguments`), which leaves them 61.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// serde_json stops at 128 levels; a limit above that could never be reached.
    pub const DEEPEST: usize = 127;
    /// The smallest useful size limit: an `initialize` request fits.
    pub const SMALLEST: usize = 1024;

    /// Messages of at most `bytes` (the line or HTTP body, without the newline).
    pub fn with_max_bytes(mut self, bytes: usize) -> Result<MessageLimits, LimitsError> {
        if bytes < Self::SMALLEST {
            return Err(LimitsError::TooSmall { min: Self::SMALLEST, given: bytes });
        }
        self.max_bytes = bytes;
        Ok(self)
    }

    /// Messages nested at most `depth` levels deep (the root object is level 1).
    pub fn with_max_depth(mut self, depth: usize) -> Result<MessageLimits, LimitsError> {
        if !(2..=Self::DEEPEST).contains(&depth) {
            return Err(LimitsError::Depth { max: Self::DEEPEST, given: depth });
        }
        self.max_depth = depth;
        Ok(self)
    }

    /// No depth limit on the whole message: a client takes a server's tool list
    /// tool by tool, and skips only the tools nested too deep.
    pub(crate) fn any_depth(mut self) -> MessageLimits {
        self.max_depth = usize::MAX;
        self
    }

    /// The size limit in bytes.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The nesting limit in levels.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }
}

impl Default for MessageLimits {
    fn default() -> MessageLimits {
        MessageLimits { max_bytes: Self::DEFAULT_MAX_BYTES, max_depth: Self::DEFAULT_MAX_DEPTH }
    }
}

/// JSON-RPC's code for a message that is not a valid request.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's code for a message that is not JSON.
const PARSE_ERROR: i64 = -32700;

/// The longest request id kept (raw JSON text); a longer one is answered as `null`.
const MAX_ID: usize = 256;

/// A streaming look at one message: its size, its depth, and its top-level `id`
/// and `method`, found wherever they are without keeping the rest.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    bytes: usize,
    depth: usize,
    deepest: usize,
    started: bool,
    root_object: bool,
    in_string: bool,
    escaped: bool,
    /// Inside the root object, the next string is a key.
    key_expected: bool,
    /// The string being read is a key of the root object.
    reading_key: bool,
    key: Key,
    /// The root object's `id` key was read: its value comes next.
    id_next: bool,
    capturing: bool,
    id_raw: Vec<u8>,
    id: Option<Vec<u8>>,
    has_method: bool,
}

/// The first bytes of a root-object key: enough to tell `id` and `method`.
#[derive(Debug, Default)]
struct Key {
    bytes: [u8; 6],
    len: usize,
    long: bool,
}

impl Key {
    fn push(&mut self, byte: u8) {
        if self.len < self.bytes.len() {
            self.bytes[self.len] = byte;
            self.len += 1;
        } else {
            self.long = true;
        }
    }

    fn is(&self, name: &[u8]) -> bool {
        !self.long && &self.bytes[..self.len] == name
    }
}

/// What is wrong with a message, as measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Breach {
    /// Over the size limit: its size.
    Bytes(usize),
    /// Over the depth limit: how deep it went.
    Depth(usize),
}

impl Scan {
    /// Reads `chunk`, the next bytes of the message.
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string {
                i = self.string(chunk, i);
                continue;
            }
            let byte = chunk[i];
            i += 1;
            if !self.started {
                if byte.is_ascii_whitespace() {
                    continue;
                }
                self.started = true;
                self.root_object = byte == b'{';
            }
            self.structure(byte);
        }
    }

    /// Inside a string from `chunk[i]`: skips to its end where nothing is kept.
    fn string(&mut self, chunk: &[u8], mut i: usize) -> usize {
        let keeping = self.reading_key || self.capturing;
        if !keeping && !self.escaped {
            match memchr::memchr2(b'"', b'\\', &chunk[i..]) {
                Some(at) => i += at,
                None => return chunk.len(),
            }
        }
        let byte = chunk[i];
        if self.escaped {
            self.escaped = false;
        } else if byte == b'\\' {
            self.escaped = true;
        } else if byte == b'"' {
            self.in_string = false;
        }
        if self.reading_key {
            if self.in_string {
                self.key.push(byte);
            } else {
                self.reading_key = false;
                self.key_expected = false;
                self.id_next = self.key.is(b"id");
                self.has_method |= self.key.is(b"method");
            }
        } else if self.capturing {
            self.capture(byte);
        }
        i + 1
    }

    fn structure(&mut self, byte: u8) {
        let top = self.root_object && self.depth == 1;
        match byte {
            b'"' => {
                self.in_string = true;
                if top && self.key_expected {
                    self.reading_key = true;
                    self.key = Key::default();
                    return;
                }
                self.start_value(top);
                self.capture(byte);
            }
            b'{' | b'[' => {
                self.start_value(top);
                // An object or array is no request id.
                self.capturing = false;
                self.depth += 1;
                self.deepest = self.deepest.max(self.depth);
                if self.root_object && self.depth == 1 {
                    self.key_expected = true;
                }
            }
            b'}' | b']' => {
                if top {
                    self.end_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if top => {
                self.end_value();
                self.key_expected = true;
            }
            b':' if top => {}
            byte if byte.is_ascii_whitespace() => {}
            byte => {
                self.start_value(top);
                self.capture(byte);
            }
        }
    }

    /// A value of the root object starts: the id's, when its key came last.
    fn start_value(&mut self, top: bool) {
        if top && self.id_next {
            self.id_next = false;
            self.capturing = true;
            self.id_raw.clear();
        }
    }

    fn capture(&mut self, byte: u8) {
        if self.capturing {
            if self.id_raw.len() < MAX_ID {
                self.id_raw.push(byte);
            } else {
                self.capturing = false;
                self.id_raw.clear();
            }
        }
    }

    fn end_value(&mut self) {
        if self.capturing {
            self.capturing = false;
            // Only a number or a string is an id.
            let raw = std::mem::take(&mut self.id_raw);
            if let Ok(serde_json::Value::Number(_) | serde_json::Value::String(_)) = serde_json::from_slice(&raw) {
                self.id = Some(raw);
            }
        }
    }

    /// The bytes read so far.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// What breaks `limits`, the size first.
    pub(crate) fn breach(&self, limits: &MessageLimits) -> Option<Breach> {
        if self.bytes > limits.max_bytes {
            Some(Breach::Bytes(self.bytes))
        } else if self.deepest > limits.max_depth {
            Some(Breach::Depth(self.deepest))
        } else {
            None
        }
    }

    /// Whether the message carries a request id (a request or a response).
    pub(crate) fn has_id(&self) -> bool {
        self.id.is_some()
    }

    /// Whether the message is a notification (a `method` and no `id`): JSON-RPC
    /// answers none, not even with an error.
    pub(crate) fn is_notification(&self) -> bool {
        self.has_method && self.id.is_none()
    }

    /// The JSON-RPC error answering a message over `limits`, with its id.
    pub(crate) fn limit_error(&self, breach: Breach, limits: &MessageLimits) -> Vec<u8> {
        let (message, data) = match breach {
            Breach::Bytes(size) => (
                format!("the message is {size} bytes, over the limit of {} bytes per message", limits.max_bytes),
                serde_json::json!({"limit": "max_message_bytes", "max": limits.max_bytes, "size": size}),
            ),
            Breach::Depth(depth) => (
                format!("the message nests {depth} levels deep, over the limit of {} levels", limits.max_depth),
                serde_json::json!({"limit": "max_depth", "max": limits.max_depth, "depth": depth}),
            ),
        };
        self.error(INVALID_REQUEST, &message, Some(data))
    }

    /// The JSON-RPC error for a message that is not JSON (`-32700`) or not a request
    /// (`-32600`), with its id when one could be read.
    pub(crate) fn parse_error(&self, error: &serde_json::Error) -> Vec<u8> {
        let code = match error.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => PARSE_ERROR,
            _ => INVALID_REQUEST,
        };
        let what = if code == PARSE_ERROR { "the message is not JSON" } else { "the message is not a request" };
        self.error(code, &format!("{what}: {error}"), None)
    }

    fn error(&self, code: i64, message: &str, data: Option<serde_json::Value>) -> Vec<u8> {
        let mut error = serde_json::json!({"code": code, "message": message});
        if let Some(data) = data {
            error["data"] = data;
        }
        let mut out = Vec::with_capacity(128 + message.len());
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(self.id.as_deref().unwrap_or(b"null"));
        out.extend_from_slice(br#","error":"#);
        // A json! value always serializes.
        let _ = serde_json::to_writer(&mut out, &error);
        out.push(b'}');
        out
    }
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breach::Bytes(size) => write!(f, "{size} bytes"),
            Breach::Depth(depth) => write!(f, "{depth} levels deep"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Scan {
        let mut scan = Scan::default();
        // Byte by byte: a split anywhere must not change what is found.
        for byte in text.as_bytes() {
            scan.feed(std::slice::from_ref(byte));
        }
        let mut whole = Scan::default();
        whole.feed(text.as_bytes());
        assert_eq!((whole.id.as_deref(), whole.deepest), (scan.id.as_deref(), scan.deepest), "{text}");
        scan
    }

    fn id(text: &str) -> Option<String> {
        scan(text).id.map(|raw| String::from_utf8(raw).unwrap())
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).as_deref(), Some("7"));
        assert_eq!(id(r#"{"method":"x","params":{"id":3,"a":[{"id":9}]},"id":"abc"}"#).as_deref(), Some(r#""abc""#));
        assert_eq!(id(r#" { "id" : "a\"}" , "x":1 }"#).as_deref(), Some(r#""a\"}""#));
        assert_eq!(id(r#"{"id":-1.5e3}"#).as_deref(), Some("-1.5e3"));
        // No id, or one that is not a number or a string.
        assert_eq!(id(r#"{"method":"x","params":{"id":3}}"#), None);
        assert_eq!(id(r#"{"id":{"x":1},"method":"m"}"#), None);
        assert_eq!(id(r#"{"id":null}"#), None);
        assert_eq!(id(r#"[{"id":1}]"#), None);
        assert_eq!(id(r#"{"idx":1,"xid":2}"#), None);
        // Cut off before the id's value ends: not an id.
        assert_eq!(id(r#"{"id":12"#), None);
    }

    #[test]
    fn measures_depth_outside_strings() {
        assert_eq!(scan(r#"{"a":[[{"b":"[[[["}]]]}"#).deepest, 4);
        assert_eq!(scan(&"[".repeat(100_000)).deepest, 100_000);
        assert_eq!(scan(r#"{"a":"\\"}"#).deepest, 1);
    }

    #[test]
    fn a_breach_is_answered_with_the_id_and_the_limit() {
        let limits = MessageLimits::default().with_max_depth(3).unwrap();
        let scan = scan(r#"{"id":41,"method":"tools/call","params":{"arguments":{"a":{}}}}"#);
        let breach = scan.breach(&limits).unwrap();
        assert_eq!(breach, Breach::Depth(4));
        let answer: serde_json::Value = serde_json::from_slice(&scan.limit_error(breach, &limits)).unwrap();
        assert_eq!(answer["id"], 41);
        assert_eq!(answer["error"]["code"], -32600);
        assert_eq!(answer["error"]["data"]["max"], 3);
        assert!(answer["error"]["message"].as_str().unwrap().contains("limit of 3 levels"));
        assert!(!scan.is_notification());
    }

    #[test]
    fn a_notification_is_told_apart() {
        assert!(scan(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_notification());
        assert!(!scan(r#"{"jsonrpc":"2.0","result":{}}"#).is_notification());
    }
}
