//! `serve --http` on a network: HTTPS from a certificate and key, plain HTTP off
//! loopback only when a proxy in front is declared, and clients that are slow or
//! too many answered and cut off, never left hanging.

#[path = "support/serve.rs"]
mod serve;

use serve::{HttpServe, initialize, status};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A self-signed certificate for 127.0.0.1 and localhost, by the openssl CLI.
fn certificate(dir: &Path) -> (String, String) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let out = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"])
        .args(["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl (.ci/run installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (cert.display().to_string(), key.display().to_string())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_serves_mcp_and_plain_http_on_its_port_gets_nothing() {
    let (ws, home, certs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (cert, key) = certificate(certs.path());
    let serve = HttpServe::start(ws.path(), home.path(), &["--tls-cert", &cert, "--tls-key", &key]);
    let root = reqwest::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap();
    // reqwest's rustls has no provider of its own in this build: ring, as the CLI's.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder().add_root_certificate(root).build().unwrap();
    let response = client
        .post(format!("https://{}/mcp", serve.addr))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = tokio::time::timeout(Duration::from_secs(20), response.text()).await.unwrap().unwrap();
    assert!(body.contains("protocolVersion"), "{body}");

    // Plain HTTP to the TLS port: no answer a client could mistake, and no hang.
    let started = Instant::now();
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(40))).unwrap();
    write!(stream, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{{}}").unwrap();
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    assert!(!String::from_utf8_lossy(&got).contains("protocolVersion"));
    assert!(started.elapsed() < Duration::from_secs(35));

    // A client that does not trust the certificate does not get in.
    let untrusting = reqwest::Client::new();
    assert!(untrusting.post(format!("https://{}/mcp", serve.addr)).body(INITIALIZE).send().await.is_err());
}

#[test]
fn plain_http_off_loopback_needs_tls_or_a_declared_proxy() {
    let (ws, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let stderr = serve::refused(ws.path(), home.path(), "0.0.0.0:0", &[], &[]);
    assert!(stderr.contains("--tls-cert") && stderr.contains("--behind-proxy"), "{stderr}");

    // Behind a proxy: the public name of --resource-url is answered, others are not.
    let serve = HttpServe::start_bound(
        ws.path(),
        home.path(),
        "0.0.0.0:0",
        &["--behind-proxy", "--resource-url", "https://tools.example.com/mcp"],
    );
    let local = format!("127.0.0.1:{}", serve.addr.rsplit(':').next().unwrap());
    assert_eq!(status(&initialize(&local, "/mcp", "tools.example.com", &[])), 200);
    assert_eq!(status(&initialize(&local, "/mcp", "evil.example.com", &[])), 403);
}

#[test]
fn slow_clients_are_cut_off_and_a_slow_body_gets_408() {
    let (ws, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let serve = HttpServe::start(ws.path(), home.path(), &["--read-timeout", "1"]);

    // Headers that never finish: the connection is closed after the timeout.
    let started = Instant::now();
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(!String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));

    // A body shorter than its Content-Length: 408 with a JSON-RPC error.
    let started = Instant::now();
    let mut stream = TcpStream::connect(&serve.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .unwrap();
    let mut got = vec![0; 4096];
    let n = stream.read(&mut got).unwrap_or(0);
    let text = String::from_utf8_lossy(&got[..n]);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn connections_past_the_limit_get_503_at_once() {
    let (ws, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let serve = HttpServe::start(ws.path(), home.path(), &["--max-connections", "2"]);
    let held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(&serve.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let response = initialize(&serve.addr, "/mcp", "127.0.0.1", &[]);
    assert_eq!(status(&response), 503, "{response}");
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(status(&initialize(&serve.addr, "/mcp", "127.0.0.1", &[])), 200);
}
