//! The network allow list: a proxy on 127.0.0.1, one per confined command, that
//! forwards only to the hosts `network.allowedDomains` names (and
//! `network.deniedDomains` does not). It speaks HTTP (`CONNECT host:port` for
//! TLS and any TCP, absolute-form requests for plain HTTP) and SOCKS5 on the same
//! port, told apart by the first byte. The command finds it through
//! `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY`; nothing else can leave, because the
//! command's IP sockets may only connect to this port (Landlock's TCP rule) and
//! may only be TCP (seccomp).
//!
//! What it cannot cover: the proxy decides on the host a client names, and does
//! not look inside TLS, so a server on an allowed host (a shared CDN, say) can be
//! asked for another site (domain fronting); a program that ignores the proxy
//! variables gets no network; and Landlock's rule is by port, so a host on the
//! internet listening on this proxy's port number is reachable directly. The port
//! is chosen by the kernel per command, which makes that a guess, not a plan.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use toolwright_core::sandbox::{RequestedHost, Sandbox};

/// The most of a request head read before it is refused.
const HEAD_LIMIT: usize = 16 * 1024;
/// How long a client has to say where it wants to go.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long reaching an allowed host may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Connections open at once; more wait for one to close.
const MAX_CONNECTIONS: usize = 128;

/// A running proxy; stopped, with every connection it carries, when dropped.
pub(crate) struct Proxy {
    port: u16,
    refused: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// Listens on an ephemeral port of 127.0.0.1 for `sandbox`'s lists.
    pub(crate) fn start(sandbox: Arc<Sandbox>) -> std::io::Result<Proxy> {
        let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let listener = TcpListener::from_std(listener)?;
        let refused = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn(accept(listener, sandbox, Arc::clone(&refused)));
        Ok(Proxy { port, refused, task })
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The destinations it refused so far (`host:port`), each once.
    pub(crate) fn refused(&self) -> Vec<String> {
        self.refused.lock().map(|list| list.clone()).unwrap_or_default()
    }
}

async fn accept(listener: TcpListener, sandbox: Arc<Sandbox>, refused: Arc<Mutex<Vec<String>>>) {
    // Dropped with this task: every connection goes when the proxy does.
    let mut connections = JoinSet::new();
    loop {
        while connections.len() >= MAX_CONNECTIONS {
            connections.join_next().await;
        }
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((client, _)) = accepted else { continue };
                let sandbox = Arc::clone(&sandbox);
                let refused = Arc::clone(&refused);
                connections.spawn(async move {
                    let _ = serve(client, &sandbox, &refused).await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Where a client asked to go.
struct Destination {
    host: RequestedHost,
    port: u16,
}

impl Destination {
    fn named(host: &str, port: u16) -> Option<Destination> {
        RequestedHost::parse(host).ok().map(|host| Destination { host, port })
    }

    fn label(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// Decides and connects; `Err` is the reason to give the client.
async fn open(
    destination: &Destination,
    sandbox: &Sandbox,
    refused: &Mutex<Vec<String>>,
) -> Result<TcpStream, Refusal> {
    if !sandbox.admits(&destination.host, destination.port) {
        let label = destination.label();
        if let Ok(mut list) = refused.lock()
            && !list.contains(&label)
        {
            list.push(label);
        }
        return Err(Refusal::NotAllowed);
    }
    let connect = async {
        match destination.host.ip() {
            Some(ip) => TcpStream::connect(SocketAddr::new(ip, destination.port)).await,
            None => TcpStream::connect((destination.host.to_string(), destination.port)).await,
        }
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(_)) => Err(Refusal::Unreachable),
        Err(_) => Err(Refusal::TimedOut),
    }
}

enum Refusal {
    NotAllowed,
    Unreachable,
    TimedOut,
    Malformed,
}

async fn serve(client: TcpStream, sandbox: &Sandbox, refused: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut first = [0u8; 1];
    match tokio::time::timeout(HEAD_TIMEOUT, client.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] == 5 => socks(client, sandbox, refused).await,
        Ok(Ok(1)) => http(client, sandbox, refused).await,
        _ => Ok(()),
    }
}

async fn http(mut client: TcpStream, sandbox: &Sandbox, refused: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let Ok(read) = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await else { return Ok(()) };
    let Some((head, rest)) = read? else {
        return answer(&mut client, Refusal::Malformed, "the request head is too long or incomplete").await;
    };
    let Some(request) = Request::parse(&head) else {
        return answer(&mut client, Refusal::Malformed, "the sandbox's proxy takes CONNECT and http:// requests").await;
    };
    let label = request.destination.label();
    let mut upstream = match open(&request.destination, sandbox, refused).await {
        Ok(upstream) => upstream,
        Err(refusal) => return answer(&mut client, refusal, &label).await,
    };
    match request.forward {
        // A tunnel: the client speaks to the host itself from here on.
        None => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await?,
        Some(head) => upstream.write_all(head.as_bytes()).await?,
    }
    upstream.write_all(&rest).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await.map(|_| ())
}

/// Reads up to the end of the head; the head and what came after it, or `None`
/// when it does not end within [`HEAD_LIMIT`].
async fn read_head(client: &mut TcpStream) -> std::io::Result<Option<(String, Vec<u8>)>> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = memchr::memmem::find(&buffer, b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok(String::from_utf8(buffer).ok().map(|head| (head, rest)));
        }
        if buffer.len() > HEAD_LIMIT {
            return Ok(None);
        }
    }
}

/// A proxy request: where to, and for a plain HTTP request the head to send on.
struct Request {
    destination: Destination,
    forward: Option<String>,
}

impl Request {
    fn parse(head: &str) -> Option<Request> {
        let mut lines = head.split("\r\n");
        let mut words = lines.next()?.split(' ');
        let (method, target, version) = (words.next()?, words.next()?, words.next()?);
        if words.next().is_some() || !version.starts_with("HTTP/1.") {
            return None;
        }
        if method.eq_ignore_ascii_case("CONNECT") {
            let (host, port) = target.rsplit_once(':')?;
            let destination = Destination::named(host, port.parse().ok().filter(|p| *p > 0)?)?;
            return Some(Request { destination, forward: None });
        }
        let url = url::Url::parse(target).ok()?;
        if url.scheme() != "http" || !url.username().is_empty() || url.password().is_some() {
            return None;
        }
        let destination = Destination::named(url.host_str()?, url.port_or_known_default()?)?;
        let mut path = url.path().to_owned();
        if let Some(query) = url.query() {
            path = format!("{path}?{query}");
        }
        // One request per connection, so a second one on it cannot name another
        // host; the proxy's own headers stop here.
        let mut forward = format!("{method} {path} {version}\r\n");
        for line in lines.filter(|l| !l.is_empty()) {
            let name = line.split(':').next().unwrap_or_default().trim().to_ascii_lowercase();
            if !matches!(name.as_str(), "connection" | "proxy-connection" | "proxy-authorization" | "keep-alive") {
                forward.push_str(line);
                forward.push_str("\r\n");
            }
        }
        forward.push_str("Connection: close\r\n\r\n");
        Some(Request { destination, forward: Some(forward) })
    }
}

async fn answer(client: &mut TcpStream, refusal: Refusal, what: &str) -> std::io::Result<()> {
    let (status, why) = match refusal {
        Refusal::NotAllowed => ("403 Forbidden", "is not in sandbox.network.allowedDomains"),
        Refusal::Unreachable => ("502 Bad Gateway", "cannot be reached"),
        Refusal::TimedOut => ("504 Gateway Timeout", "did not answer in time"),
        Refusal::Malformed => ("400 Bad Request", ""),
    };
    let body = format!("toolwright sandbox: {what} {why}\n");
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(reply.as_bytes()).await?;
    client.shutdown().await
}

/// SOCKS5 (RFC 1928), no authentication, CONNECT only.
async fn socks(mut client: TcpStream, sandbox: &Sandbox, refused: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let destination = match tokio::time::timeout(HEAD_TIMEOUT, socks_request(&mut client)).await {
        Ok(Ok(Some(destination))) => destination,
        Ok(Ok(None)) => return socks_reply(&mut client, 0x01).await,
        _ => return Ok(()),
    };
    let mut upstream = match open(&destination, sandbox, refused).await {
        Ok(upstream) => upstream,
        Err(Refusal::NotAllowed) => return socks_reply(&mut client, 0x02).await,
        Err(Refusal::TimedOut) => return socks_reply(&mut client, 0x04).await,
        Err(_) => return socks_reply(&mut client, 0x05).await,
    };
    socks_reply(&mut client, 0x00).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await.map(|_| ())
}

/// The greeting and the request; `None` for one this proxy does not serve (after
/// the method answer, where that applies).
async fn socks_request(client: &mut TcpStream) -> std::io::Result<Option<Destination>> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await?;
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await?;
    if !methods.contains(&0x00) {
        client.write_all(&[0x05, 0xff]).await?;
        return Err(std::io::ErrorKind::PermissionDenied.into());
    }
    client.write_all(&[0x05, 0x00]).await?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    if request[0] != 0x05 || request[1] != 0x01 {
        return Ok(None);
    }
    let host = match request[3] {
        0x01 => {
            let mut octets = [0u8; 4];
            client.read_exact(&mut octets).await?;
            IpAddr::from(octets).to_string()
        }
        0x04 => {
            let mut octets = [0u8; 16];
            client.read_exact(&mut octets).await?;
            IpAddr::from(octets).to_string()
        }
        0x03 => {
            let mut len = [0u8; 1];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            client.read_exact(&mut name).await?;
            match String::from_utf8(name) {
                Ok(name) => name,
                Err(_) => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    let port = u16::from_be_bytes(port);
    Ok(if port == 0 { None } else { Destination::named(&host, port) })
}

async fn socks_reply(client: &mut TcpStream, code: u8) -> std::io::Result<()> {
    client.write_all(&[0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_for_their_destination_and_forwarded_without_proxy_headers() {
        let connect = Request::parse("CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n").unwrap();
        assert_eq!(connect.destination.label(), "github.com:443");
        assert!(connect.forward.is_none());
        let get = Request::parse(
            "GET http://Example.COM/a?b=1 HTTP/1.1\r\nHost: example.com\r\nProxy-Connection: keep-alive\r\n\
             Proxy-Authorization: Basic x\r\nAccept: */*\r\n\r\n",
        )
        .unwrap();
        assert_eq!(get.destination.label(), "example.com:80");
        assert_eq!(
            get.forward.unwrap(),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        );
        let v6 = Request::parse("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(v6.destination.label(), "[::1]:8443");
        for bad in [
            "GET / HTTP/1.1\r\n\r\n",
            "GET https://example.com/ HTTP/1.1\r\n\r\n",
            "GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
            "CONNECT example.com HTTP/1.1\r\n\r\n",
            "CONNECT example.com:0 HTTP/1.1\r\n\r\n",
            "CONNECT exa mple.com:443 HTTP/1.1\r\n\r\n",
        ] {
            assert!(Request::parse(bad).is_none(), "{bad:?}");
        }
    }
}
