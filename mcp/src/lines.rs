//! Newline-delimited JSON-RPC (MCP's stdio framing) with [`MessageLimits`], for
//! both sides. A message is never buffered past the size limit. The server answers
//! every request, one over a limit with an error naming it; the client turns a
//! server's oversized or broken answer into an error for the request it answers (a
//! call fails at once instead of waiting out its timeout) and takes a tool list
//! tool by tool. A peer that stops reading is detected: a write that does not end
//! within [`WRITE_TIMEOUT`] closes the connection.

use super::limits::{MessageLimits, Scan};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleClient, RoleServer};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify};

/// How long one message may take to write before the peer counts as gone.
pub(crate) const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// What each side does with a message it cannot take.
pub(crate) trait Side: ServiceRole + Sized {
    /// A message over the limits or not parsable, with `error` the JSON-RPC error
    /// for it: sent to the peer, or delivered in place of the message.
    fn refused<R, W>(
        transport: &LineTransport<Self, R, W>,
        scan: &Scan,
        error: Vec<u8>,
    ) -> Option<RxJsonRpcMessage<Self>>
    where
        W: AsyncWrite + Send + Unpin + 'static;

    /// Parses one line.
    fn parse(line: &[u8], warn: &Warn) -> Result<RxJsonRpcMessage<Self>, serde_json::Error> {
        let _ = warn;
        serde_json::from_slice(line)
    }
}

/// Where a transport says what it dropped (a tool it could not read).
pub(crate) type Warn = Arc<dyn Fn(String) + Send + Sync>;

/// What a dropped oversized line leaves allocated for the next one.
const KEPT_CAPACITY: usize = 64 << 10;

pub(crate) struct LineTransport<Role, R, W> {
    read: BufReader<R>,
    /// The line read so far, while it is within the limit. Lives here, not in
    /// `receive`, because the service polls `receive` in a `select!` and may drop
    /// it mid-line: the next call resumes.
    line: Vec<u8>,
    scan: Scan,
    limits: MessageLimits,
    write: Arc<Mutex<Option<W>>>,
    /// Notified when a write timed out: the connection is closed.
    dead: Arc<Notify>,
    write_timeout: Duration,
    warn: Warn,
    role: std::marker::PhantomData<fn() -> Role>,
}

enum Read {
    Line,
    End,
}

impl<Role, R, W> LineTransport<Role, R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(read: R, write: W, limits: MessageLimits) -> Self {
        LineTransport {
            read: BufReader::with_capacity(64 << 10, read),
            line: Vec::new(),
            scan: Scan::default(),
            limits,
            write: Arc::new(Mutex::new(Some(write))),
            dead: Arc::new(Notify::new()),
            write_timeout: WRITE_TIMEOUT,
            warn: Arc::new(|warning| tracing::warn!("{warning}")),
            role: std::marker::PhantomData,
        }
    }

    /// Counts the peer as gone when one write takes longer than `timeout`.
    pub(crate) fn with_write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Says what was dropped through `warn` (as well as the log).
    pub(crate) fn with_warnings(mut self, warn: Warn) -> Self {
        self.warn = warn;
        self
    }

    /// Reads to the next newline, keeping the line only while it is within the
    /// size limit and measuring it all the way.
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(e) => {
                    tracing::error!(error = %e, "reading an MCP message");
                    return Read::End;
                }
            };
            if available.is_empty() {
                // A last line without its newline is still a message.
                return if self.scan.bytes() > 0 { Read::Line } else { Read::End };
            }
            let newline = memchr::memchr(b'\n', available);
            let part = &available[..newline.unwrap_or(available.len())];
            self.scan.feed(part);
            if self.scan.bytes() <= self.limits.max_bytes() {
                self.line.extend_from_slice(part);
            } else if !self.line.is_empty() {
                self.line.clear();
                self.line.shrink_to(KEPT_CAPACITY);
            }
            let consumed = newline.map_or(available.len(), |at| at + 1);
            self.read.consume(consumed);
            if newline.is_some() {
                return Read::Line;
            }
        }
    }
}

impl<Role, R, W: AsyncWrite + Send + Unpin + 'static> LineTransport<Role, R, W> {
    /// Sends `answer` on its own task, so that a `receive` dropped by the service's
    /// `select!` never leaves half a line written.
    fn answer(&self, mut answer: Vec<u8>) {
        answer.push(b'\n');
        let send = write_line(Arc::clone(&self.write), Arc::clone(&self.dead), self.write_timeout, answer);
        tokio::spawn(async move {
            if let Err(e) = send.await {
                tracing::debug!(error = %e, "answering an MCP message");
            }
        });
    }
}

/// Writes one line within `timeout`; past it the writer is dropped (the peer
/// stopped reading) and the reading side told to end.
async fn write_line<W: AsyncWrite + Unpin>(
    write: Arc<Mutex<Option<W>>>,
    dead: Arc<Notify>,
    timeout: Duration,
    line: Vec<u8>,
) -> std::io::Result<()> {
    let mut guard = write.lock().await;
    let writer = guard
        .as_mut()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed"))?;
    let written = tokio::time::timeout(timeout, async {
        writer.write_all(&line).await?;
        writer.flush().await
    });
    match written.await {
        Ok(result) => result,
        Err(_) => {
            *guard = None;
            dead.notify_one();
            Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("the peer read nothing for {:.1} s; the connection is closed", timeout.as_secs_f64()),
            ))
        }
    }
}

impl<Role, R, W> Transport<Role> for LineTransport<Role, R, W>
where
    Role: Side,
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(&mut self, item: TxJsonRpcMessage<Role>) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let (write, dead, timeout) = (Arc::clone(&self.write), Arc::clone(&self.dead), self.write_timeout);
        async move { write_line(write, dead, timeout, line?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<Role>> {
        loop {
            let dead = Arc::clone(&self.dead);
            let read = tokio::select! {
                read = self.read_line() => read,
                () = dead.notified() => Read::End,
            };
            if let Read::End = read {
                return None;
            }
            let scan = std::mem::take(&mut self.scan);
            if let Some(breach) = scan.breach(&self.limits) {
                tracing::warn!(%breach, max_bytes = self.limits.max_bytes(), max_depth = self.limits.max_depth(),
                    "refusing an MCP message over the limits");
                self.line.clear();
                if !scan.is_notification()
                    && let Some(message) = Role::refused(self, &scan, scan.limit_error(breach, &self.limits))
                {
                    return Some(message);
                }
                continue;
            }
            let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
            let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                self.line.clear();
                continue;
            }
            let parsed = Role::parse(line, &self.warn);
            self.line.clear();
            match parsed {
                Ok(message) => return Some(message),
                // JSON-RPC answers no notification, not even a broken one.
                Err(e) if scan.is_notification() => tracing::debug!(error = %e, "ignoring an MCP notification"),
                Err(e) => {
                    tracing::debug!(error = %e, "refusing a message that does not parse");
                    if let Some(message) = Role::refused(self, &scan, scan.parse_error(&e)) {
                        return Some(message);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(mut write) = self.write.lock().await.take() {
            write.flush().await?;
        }
        Ok(())
    }
}

impl Side for RoleServer {
    /// Answers the client.
    fn refused<R, W>(
        transport: &LineTransport<Self, R, W>,
        _scan: &Scan,
        error: Vec<u8>,
    ) -> Option<RxJsonRpcMessage<Self>>
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        transport.answer(error);
        None
    }
}

impl Side for RoleClient {
    /// Delivers the error as the server's answer to the request, so that the call
    /// waiting for it fails now. Without an id there is no one waiting.
    fn refused<R, W>(
        transport: &LineTransport<Self, R, W>,
        scan: &Scan,
        error: Vec<u8>,
    ) -> Option<RxJsonRpcMessage<Self>>
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        if !scan.has_id() {
            return None;
        }
        (transport.warn)(format!("an answer was dropped: {}", String::from_utf8_lossy(&error)));
        serde_json::from_slice(&error).ok()
    }

    /// A tool list with a tool that does not parse (a schema that is not an object,
    /// one nested past the parser's depth) keeps its other tools.
    fn parse(line: &[u8], warn: &Warn) -> Result<RxJsonRpcMessage<Self>, serde_json::Error> {
        let error = match serde_json::from_slice(line) {
            // A result no known shape takes is the catch-all `CustomResult`: a tool
            // list with one bad tool lands there whole, so it is repaired too.
            Ok(rmcp::model::JsonRpcMessage::Response(rmcp::model::JsonRpcResponse {
                result: rmcp::model::ServerResult::CustomResult(_),
                ..
            })) if memchr::memmem::find(line, b"\"tools\"").is_some() => match repair_tool_list(line, warn) {
                Some(repaired) => return Ok(repaired),
                None => return serde_json::from_slice(line),
            },
            Ok(message) => return Ok(message),
            Err(error) => error,
        };
        repair_tool_list(line, warn).ok_or(error)
    }
}

/// The tool list in `line` with the tools that do not parse left out (each with a
/// warning); `None` when it is no tool list.
fn repair_tool_list(line: &[u8], warn: &Warn) -> Option<RxJsonRpcMessage<RoleClient>> {
    let mut list = serde_json::from_slice::<ToolListAnswer<'_>>(line).ok()?;
    let mut kept = Vec::with_capacity(list.result.tools.len());
    for raw in list.result.tools {
        match serde_json::from_str::<rmcp::model::Tool>(raw.get()) {
            Ok(_) => kept.push(serde_json::from_str::<serde_json::Value>(raw.get()).ok()?),
            Err(e) => {
                let name = serde_json::from_str::<Named>(raw.get()).map_or_else(|_| "?".to_owned(), |n| n.name);
                warn(format!("tool `{name}` skipped: its definition does not parse ({e})"));
            }
        }
    }
    list.result.rest.insert("tools".into(), serde_json::Value::Array(kept));
    let repaired = serde_json::json!({"jsonrpc": "2.0", "id": list.id, "result": list.result.rest});
    serde_json::from_value(repaired).ok()
}

/// A `tools/list` answer with each tool left unparsed.
#[derive(serde::Deserialize)]
struct ToolListAnswer<'a> {
    id: serde_json::Value,
    #[serde(borrow)]
    result: ToolList<'a>,
}

#[derive(serde::Deserialize)]
struct ToolList<'a> {
    #[serde(borrow)]
    tools: Vec<&'a serde_json::value::RawValue>,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

#[derive(serde::Deserialize)]
struct Named {
    name: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn exchange(input: Vec<u8>, limits: MessageLimits) -> (Vec<String>, Vec<serde_json::Value>) {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut transport = LineTransport::<RoleServer, _, _>::new(read, write, limits);
        let writer = tokio::spawn(async move {
            client.write_all(&input).await.unwrap();
            client.shutdown().await.unwrap();
            let mut out = Vec::new();
            client.read_to_end(&mut out).await.unwrap();
            out
        });
        let mut received = Vec::new();
        while let Some(message) = transport.receive().await {
            received.push(serde_json::to_string(&message).unwrap());
        }
        // Let the answering tasks finish, then close so the client's read ends.
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        transport.close().await.unwrap();
        drop(transport);
        let out = writer.await.unwrap();
        let answers = out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap());
        (received, answers.collect())
    }

    fn request(id: u32, pad: usize) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"x","arguments":{{"pad":"{}"}}}},"id":{id}}}"#,
            "a".repeat(pad)
        )
    }

    #[tokio::test]
    async fn an_oversized_request_is_answered_and_the_next_one_read() {
        let limits = MessageLimits::default().with_max_bytes(4096).unwrap();
        let input = format!("{}\n{}\n", request(1, 10_000), request(2, 10));
        let (received, answers) = exchange(input.into_bytes(), limits).await;
        assert_eq!(received.len(), 1, "{received:?}");
        assert!(received[0].contains(r#""id":2"#));
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0]["id"], 1);
        assert_eq!(answers[0]["error"]["data"]["max"], 4096);
        assert!(answers[0]["error"]["message"].as_str().unwrap().contains("limit of 4096 bytes"));
    }

    #[tokio::test]
    async fn deep_broken_and_notification_messages() {
        let deep = format!(r#"{{"id":"d","method":"m","params":{}1{}}}"#, "[".repeat(100), "]".repeat(100));
        let input = format!(
            "{deep}\n{{\"id\":5,\"method\":\n{{\"method\":\"notifications/x\",\"params\":{}\n{}",
            "[".repeat(200),
            request(9, 1)
        );
        let (received, answers) = exchange(input.into_bytes(), MessageLimits::default()).await;
        assert_eq!(received.len(), 1, "the last line, without its newline, still counts");
        let codes: Vec<_> = answers.iter().map(|a| (a["id"].clone(), a["error"]["code"].clone())).collect();
        assert!(codes.contains(&(serde_json::json!("d"), serde_json::json!(-32600))), "{answers:?}");
        assert!(codes.contains(&(serde_json::json!(5), serde_json::json!(-32700))), "{answers:?}");
        assert_eq!(answers.len(), 2, "the broken notification is not answered: {answers:?}");
    }
}
