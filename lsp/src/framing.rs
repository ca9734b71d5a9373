//! The base protocol's framing: `Content-Length: N\r\n\r\n` then N bytes of JSON.
//!
//! Written here rather than taken from `lsp-server` (rust-analyzer's): that crate
//! reads on blocking threads and takes any length a server states; a client must
//! bound what a broken server sends (Claude Code's limits: headers up to 64 KiB,
//! bodies up to 32 MiB) and read asynchronously, beside the requests it waits on.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The most header bytes of one message.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// The largest body of one message.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// Why a message could not be read: the server is then treated as crashed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FramingError {
    /// The stream ended between messages.
    #[error("it closed its output")]
    Closed,
    /// Reading failed.
    #[error("reading its output: {0}")]
    Io(#[from] std::io::Error),
    /// The headers broke the base protocol.
    #[error("it wrote something that is not a protocol message ({0})")]
    Header(String),
    /// A message larger than [`MAX_BODY_BYTES`].
    #[error("it announced a message of {0} bytes (the limit is 32 MiB)")]
    TooLarge(usize),
    /// The body was not JSON.
    #[error("it wrote a message that is not JSON ({0})")]
    Json(#[from] serde_json::Error),
}

/// Reads one message's JSON.
pub async fn read_message(reader: &mut (impl AsyncBufRead + Unpin)) -> Result<serde_json::Value, FramingError> {
    let mut length: Option<usize> = None;
    let mut header_bytes = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut *reader).take((MAX_HEADER_BYTES - header_bytes + 1) as u64).read_until(b'\n', &mut line).await?;
        if n == 0 {
            return if header_bytes == 0 {
                Err(FramingError::Closed)
            } else {
                Err(FramingError::Header("the stream ended inside the headers".to_owned()))
            };
        }
        header_bytes += n;
        if header_bytes > MAX_HEADER_BYTES {
            return Err(FramingError::Header("headers over 64 KiB".to_owned()));
        }
        let Some(text) = line.strip_suffix(b"\r\n") else {
            return Err(FramingError::Header(format!("a header line without CRLF: {}", preview(&line))));
        };
        if text.is_empty() {
            break;
        }
        let text = std::str::from_utf8(text).map_err(|_| FramingError::Header(preview(text)))?;
        let Some((name, value)) = text.split_once(':') else {
            return Err(FramingError::Header(format!("not a header: {}", preview(text.as_bytes()))));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value
                .trim()
                .parse::<usize>()
                .map_err(|_| FramingError::Header(format!("Content-Length `{}`", value.trim())))?;
            length = Some(n);
        }
    }
    let length = length.ok_or_else(|| FramingError::Header("no Content-Length".to_owned()))?;
    if length > MAX_BODY_BYTES {
        return Err(FramingError::TooLarge(length));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FramingError::Header("the stream ended inside a message".to_owned()),
        _ => FramingError::Io(e),
    })?;
    Ok(serde_json::from_slice(&body)?)
}

/// Writes one message.
pub async fn write_message(writer: &mut (impl AsyncWrite + Unpin), message: &serde_json::Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(&body);
    writer.write_all(&frame).await?;
    writer.flush().await
}

fn preview(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]);
    format!("`{}`", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read(bytes: &[u8]) -> Result<serde_json::Value, FramingError> {
        let mut reader = tokio::io::BufReader::new(bytes);
        read_message(&mut reader).await
    }

    #[tokio::test]
    async fn reads_a_message_and_its_other_headers() {
        let body = br#"{"jsonrpc":"2.0","id":1,"result":null}"#;
        let frame = [
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
            body,
        ]
        .concat();
        assert_eq!(read(&frame).await.unwrap()["id"], 1);
    }

    #[tokio::test]
    async fn refuses_what_breaks_the_protocol() {
        assert!(matches!(read(b"").await, Err(FramingError::Closed)));
        assert!(read(b"hello world\n").await.unwrap_err().to_string().contains("not a protocol message"));
        assert!(matches!(read(b"Content-Length: 999999999999\r\n\r\n").await, Err(FramingError::TooLarge(_))));
        assert!(read(b"Content-Length: 10\r\n\r\n{}").await.unwrap_err().to_string().contains("inside a message"));
        let endless = vec![b'a'; MAX_HEADER_BYTES + 10];
        assert!(read(&endless).await.unwrap_err().to_string().contains("64 KiB"));
        let long_header = [b"X-A: ".as_slice(), &vec![b'a'; MAX_HEADER_BYTES], b"\r\n"].concat();
        assert!(read(&long_header).await.unwrap_err().to_string().contains("64 KiB"));
    }

    #[tokio::test]
    async fn writes_what_it_reads() {
        let mut out = Vec::new();
        write_message(&mut out, &serde_json::json!({"a": "é"})).await.unwrap();
        assert_eq!(read(&out).await.unwrap()["a"], "é");
    }
}
