//! web_fetch against a real HTTP server on 127.0.0.1.
#![allow(missing_docs)]

mod common;

use common::Session;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Answers each request by path: a minimal HTTP/1.1 server, one response per
/// connection.
async fn serve(listener: tokio::net::TcpListener) {
    loop {
        let Ok((mut socket, _)) = listener.accept().await else { return };
        tokio::spawn(async move {
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let head = String::from_utf8_lossy(&request);
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let (status, headers, body): (&str, String, Vec<u8>) = match path.as_str() {
                "/page.html" => (
                    "200 OK",
                    "Content-Type: text/html; charset=utf-8\r\n".into(),
                    b"<html><body><h1>Title</h1><p>Some <b>bold</b> text and a <a href=\"/x\">link</a>.</p></body></html>".to_vec(),
                ),
                "/plain.txt" => ("200 OK", "Content-Type: text/plain\r\n".into(), b"just text\n".to_vec()),
                // 100,000 nested elements (1 MB): the converter walks recursively.
                "/deep.html" => {
                    let n = 100_000;
                    let page = format!(
                        "<html><body><p>at the top</p>{}<b>deep</b> inside<br>still there{}</body></html>",
                        "<div><span>".repeat(n / 2),
                        "</span></div>".repeat(n / 2)
                    );
                    ("200 OK", "Content-Type: text/html\r\n".into(), page.into_bytes())
                }
                "/same" => ("302 Found", "Location: /plain.txt\r\n".into(), Vec::new()),
                "/away" => ("302 Found", "Location: http://elsewhere.invalid/next\r\n".into(), Vec::new()),
                "/image.png" => ("200 OK", "Content-Type: image/png\r\n".into(), vec![0x89, b'P', b'N', b'G']),
                "/big" => ("200 OK", "Content-Type: text/plain\r\n".into(), vec![b'a'; 6 * 1024 * 1024]),
                _ => ("404 Not Found", "Content-Type: text/plain\r\n".into(), b"no such page".to_vec()),
            };
            let response =
                format!("HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.write_all(&body).await;
            let _ = socket.shutdown().await;
        });
    }
}

fn start(s: &Session) -> String {
    let listener = s.rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    s.rt.spawn(serve(listener));
    format!("http://{addr}")
}

#[test]
fn html_becomes_markdown_and_text_comes_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let base = start(&s);
    let page = s.ok("web_fetch", json!({"url": format!("{base}/page.html")}));
    assert!(page.contains("# Title") && page.contains("**bold**") && page.contains("[link](/x)"), "{page}");
    assert_eq!(s.ok("web_fetch", json!({"url": format!("{base}/plain.txt")})), "just text");
    assert_eq!(s.ok("web_fetch", json!({"url": format!("{base}/same")})), "just text", "same-host redirect followed");
}

#[test]
fn a_page_nested_past_any_stack_comes_as_html_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let base = start(&s);
    // Its HTML as it is (the output limit cuts it), with a note, in no time.
    let page = s.ok("web_fetch", json!({"url": format!("{base}/deep.html")}));
    assert!(page.contains("<p>at the top</p>"), "{}", &page[..page.len().min(300)]);
    assert!(page.contains("more than 256 levels deep"), "{}", &page[page.len().saturating_sub(300)..]);
}

#[test]
fn a_redirect_to_another_host_is_reported_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let base = start(&s);
    let out = s.ok("web_fetch", json!({"url": format!("{base}/away")}));
    assert!(out.contains("redirects (302 Found) to another host: http://elsewhere.invalid/next"), "{out}");
}

#[test]
fn limits_and_failures_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let base = start(&s);
    let big = s.ok("web_fetch", json!({"url": format!("{base}/big")}));
    assert!(big.ends_with(&format!("(the response was cut at {} bytes)", 5 * 1024 * 1024)));
    let e = s.err("web_fetch", json!({"url": format!("{base}/missing")}));
    assert!(e.contains("answered 404 Not Found: no such page"), "{e}");
    let e = s.err("web_fetch", json!({"url": format!("{base}/image.png")}));
    assert!(e.contains("is `image/png` (4 bytes), not text"), "{e}");
    let e = s.err("web_fetch", json!({"url": "ftp://example.com/file"}));
    assert!(e.contains("uses the `ftp` scheme; only http and https"), "{e}");
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let e = s.err("web_fetch", json!({"url": format!("http://{closed}/")}));
    assert!(e.contains("cannot connect to `127.0.0.1`"), "{e}");
}

/// Counts the connections a listener accepts, answering each with a page.
fn counting_listener(s: &Session) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let listener = s.rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&hits);
    s.rt.spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf).await;
                let body = "reached";
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    (port, hits)
}

#[test]
fn the_host_the_rules_check_is_the_host_the_request_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let policy = toolwright_permissions::RulePolicy::new()
        .with_mode(toolwright_permissions::Mode::BypassPermissions)
        .deny("WebFetch(domain:127.0.0.1)")
        .deny("WebFetch(domain:localhost)");
    let mut s = Session::with_policy(dir.path(), policy);
    let (port, hits) = counting_listener(&s);
    // Every spelling of the denied host: decimal, hex and octal forms, percent-encoding,
    // userinfo, a control character before the port, upper case, a trailing dot.
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.0.0.1:{port}/"),
        format!("http://0177.0.0.1:{port}/"),
        format!("http://127.1:{port}/"),
        format!("http://%31%32%37.0.0.1:{port}/"),
        format!("http://user:pass@127.0.0.1:{port}/"),
        format!("http://evil.example@127.0.0.1:{port}/"),
        format!("http://127.0.0.1\t:{port}/"),
        format!("http://127.0.0.1\n:{port}/"),
        format!("http://LOCALHOST:{port}/"),
        format!("http://localhost.:{port}/"),
        format!("  http://127.0.0.1:{port}/  "),
    ] {
        let result = s.call("web_fetch", json!({ "url": url }));
        assert_eq!(result.error, Some(toolwright_core::ErrorKind::Denied), "{url:?}: {}", result.output.text_content());
    }
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0, "no request reached the denied host");
    // A backslash before `@` makes it a path (`http://a\@127.0.0.1` is host `a`): the
    // rules see host `a`, and so does the request, which never reaches 127.0.0.1.
    let result = s.call("web_fetch", json!({ "url": format!("http://a\\@127.0.0.1:{port}/") }));
    assert_ne!(result.error, Some(toolwright_core::ErrorKind::Denied), "{}", result.output.text_content());
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 0);
    // An allowed host is reached.
    let policy = toolwright_permissions::RulePolicy::new().allow("WebFetch(domain:127.0.0.1)");
    let mut s2 = Session::with_policy(dir.path(), policy);
    let (port, hits) = counting_listener(&s2);
    assert_eq!(s2.ok("web_fetch", json!({ "url": format!("http://0x7f.1:{port}/") })), "reached");
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
}
