//! The loopback redirect: a listener on 127.0.0.1 that takes the one request the
//! browser makes after the user approves, `GET /callback?code=..&state=..`, answers
//! with a short page, and hands the code and state over. Anything else on the port
//! gets a 404 and is not taken for the answer.

use super::LoginError;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// The path of the redirect URI.
pub(crate) const CALLBACK_PATH: &str = "/callback";

/// The largest request head read from the browser.
const MAX_REQUEST: usize = 16 * 1024;

/// What the authorization server sent back through the browser.
#[derive(Debug)]
pub(crate) struct Callback {
    pub code: String,
    pub state: String,
    pub issuer: Option<String>,
}

/// A listener waiting for the redirect.
pub(crate) struct Loopback {
    listener: TcpListener,
}

impl Loopback {
    /// Listens on 127.0.0.1:`port` (0: a free port).
    pub async fn bind(port: u16) -> Result<Self, LoginError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| LoginError::Callback(format!("cannot listen on 127.0.0.1:{port} for the redirect: {e}")))?;
        Ok(Loopback { listener })
    }

    /// The redirect URI to register and send.
    pub fn redirect_uri(&self) -> String {
        let port = self.listener.local_addr().map(|a| a.port()).unwrap_or_default();
        format!("http://127.0.0.1:{port}{CALLBACK_PATH}")
    }

    /// Waits up to `timeout` for the redirect.
    pub async fn wait(self, timeout: Duration) -> Result<Callback, LoginError> {
        tokio::time::timeout(timeout, self.accept_callback()).await.map_err(|_| {
            LoginError::Callback(format!(
                "no answer from the browser within {} s; run the login again",
                timeout.as_secs()
            ))
        })?
    }

    async fn accept_callback(self) -> Result<Callback, LoginError> {
        loop {
            let (mut stream, _) = self
                .listener
                .accept()
                .await
                .map_err(|e| LoginError::Callback(format!("the redirect listener: {e}")))?;
            let Some(target) = read_target(&mut stream).await else {
                let _ = respond(&mut stream, "400 Bad Request", "Not a request this listener understands.").await;
                continue;
            };
            let Some(query) = target.strip_prefix(CALLBACK_PATH).and_then(|rest| match rest {
                "" => Some(""),
                rest => rest.strip_prefix('?'),
            }) else {
                let _ = respond(&mut stream, "404 Not Found", "Nothing here.").await;
                continue;
            };
            let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let param = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            if let Some(error) = param("error") {
                let _ = respond(&mut stream, "200 OK", "The login was not completed; you can close this window.").await;
                let description = param("error_description").map(|d| format!(": {d}")).unwrap_or_default();
                return Err(LoginError::Refused(format!("{error}{description}")));
            }
            match (param("code"), param("state")) {
                (Some(code), Some(state)) => {
                    let _ = respond(&mut stream, "200 OK", "Logged in; you can close this window.").await;
                    return Ok(Callback { code, state, issuer: param("iss") });
                }
                _ => {
                    let _ = respond(&mut stream, "400 Bad Request", "The redirect has no code or no state.").await;
                    return Err(LoginError::Callback("the redirect came back without a code or a state".into()));
                }
            }
        }
    }
}

/// The target of a `GET` request, from its request line.
async fn read_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await.ok()?.ok()?;
        if n == 0 || head.len() + n > MAX_REQUEST {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = std::str::from_utf8(&head).ok()?.lines().next()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Some(target.to_owned()),
        _ => None,
    }
}

async fn respond(stream: &mut tokio::net::TcpStream, status: &str, text: &str) -> std::io::Result<()> {
    let body = format!("<!doctype html><meta charset=utf-8><title>toolwright</title><p>{text}</p>\n");
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}
