//! Newline-delimited JSON-RPC (MCP's stdio framing) with [`MessageLimits`]: every
//! request gets an answer, one over a limit an error naming it, and a message is
//! never buffered past the size limit.

use super::limits::{MessageLimits, Scan};
use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// What a dropped oversized line leaves allocated for the next one.
const KEPT_CAPACITY: usize = 64 << 10;

pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far, while it is within the limit. Lives here, not in
    /// `receive`, because the service polls `receive` in a `select!` and may drop
    /// it mid-line: the next call resumes.
    line: Vec<u8>,
    scan: Scan,
    limits: MessageLimits,
    write: Arc<Mutex<Option<W>>>,
}

enum Read {
    Line,
    End,
}

impl<R, W> LineTransport<R, W>
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
        }
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

    /// Sends `answer` on its own task, so that a `receive` dropped by the service's
    /// `select!` never leaves half a line written.
    fn answer(&self, mut answer: Vec<u8>) {
        answer.push(b'\n');
        let write = Arc::clone(&self.write);
        tokio::spawn(async move {
            if let Some(write) = write.lock().await.as_mut()
                && let Err(e) = async {
                    write.write_all(&answer).await?;
                    write.flush().await
                }
                .await
            {
                tracing::debug!(error = %e, "answering an MCP message");
            }
        });
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            let mut write = write.lock().await;
            let write = write
                .as_mut()
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed"))?;
            write.write_all(&line).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Read::End = self.read_line().await {
                return None;
            }
            let scan = std::mem::take(&mut self.scan);
            if let Some(breach) = scan.breach(&self.limits) {
                tracing::warn!(%breach, max_bytes = self.limits.max_bytes(), max_depth = self.limits.max_depth(),
                    "refusing an MCP message over the limits");
                self.line.clear();
                if !scan.is_notification() {
                    self.answer(scan.limit_error(breach, &self.limits));
                }
                continue;
            }
            let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
            let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                self.line.clear();
                continue;
            }
            let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line);
            self.line.clear();
            match parsed {
                Ok(message) => return Some(message),
                // JSON-RPC answers no notification, not even a broken one.
                Err(e) if scan.is_notification() => tracing::debug!(error = %e, "ignoring an MCP notification"),
                Err(e) => {
                    tracing::debug!(error = %e, "answering a message that is not a request");
                    self.answer(scan.parse_error(&e));
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn exchange(input: Vec<u8>, limits: MessageLimits) -> (Vec<String>, Vec<serde_json::Value>) {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut transport = LineTransport::new(read, write, limits);
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
