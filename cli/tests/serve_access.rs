//! `toolwright serve --http` answers only the hosts and origins it was told to, as
//! the MCP transport asks (DNS rebinding protection): raw HTTP requests over real
//! TCP on 127.0.0.1, with `Host` and `Origin` set as an attacker's page would.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/serve.rs"]
mod serve;

use serve::HttpServe;

use std::path::Path;
use std::process::Command;

struct Serve(HttpServe);

impl Serve {
    fn start(ws: &Path, home: &Path, extra: &[&str]) -> Serve {
        Serve(HttpServe::start(ws, home, extra))
    }

    /// An `initialize` POST with these `Host` and `Origin` headers: the status and
    /// the response.
    fn initialize(&self, host: &str, origin: Option<&str>) -> (u16, String) {
        let headers: Vec<(&str, &str)> = origin.map(|o| ("Origin", o)).into_iter().collect();
        let text = serve::initialize(&self.0.addr, "/mcp", host, &headers);
        (serve::status(&text), text)
    }
}

#[test]
fn a_foreign_origin_or_host_is_refused_with_403_and_a_jsonrpc_error() {
    let (ws, home) = common::workspace();
    let serve = Serve::start(ws.path(), home.path(), &[]);
    let port = serve.0.addr.rsplit(':').next().unwrap().to_owned();
    let local = format!("127.0.0.1:{port}");

    // A client with no browser origin, and pages served from loopback, get through.
    assert_eq!(serve.initialize(&local, None).0, 200);
    assert_eq!(serve.initialize(&format!("localhost:{port}"), Some("http://localhost:5173")).0, 200);

    // DNS rebinding: a page of another site, its name resolved to 127.0.0.1.
    let (status, text) = serve.initialize(&local, Some("http://attacker.example"));
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("\"jsonrpc\":\"2.0\"") && text.contains("Origin"), "{text}");
    assert!(text.contains("--allow-origin"), "the refusal says how to allow it: {text}");
    // `null` (a sandboxed frame, a file) is an origin too.
    assert_eq!(serve.initialize(&local, Some("null")).0, 403);
    // A Host that is not this machine's loopback name.
    let (status, text) = serve.initialize(&format!("attacker.example:{port}"), None);
    assert_eq!(status, 403, "{text}");
    assert!(text.contains("Host") && text.contains("--allow-host"), "{text}");
}

#[test]
fn allowed_hosts_and_origins_are_answered_and_the_rest_still_refused() {
    let (ws, home) = common::workspace();
    let serve = Serve::start(
        ws.path(),
        home.path(),
        &["--allow-host", "tools.internal", "--allow-origin", "https://app.example.com"],
    );
    let port = serve.0.addr.rsplit(':').next().unwrap().to_owned();
    assert_eq!(serve.initialize(&format!("tools.internal:{port}"), None).0, 200);
    assert_eq!(serve.initialize(&format!("tools.internal:{port}"), Some("https://app.example.com")).0, 200);
    // Scheme and port are part of an origin.
    assert_eq!(serve.initialize(&format!("tools.internal:{port}"), Some("http://app.example.com")).0, 403);
    assert_eq!(serve.initialize(&format!("tools.internal:{port}"), Some("https://app.example.com:8443")).0, 403);
    assert_eq!(serve.initialize(&format!("other.internal:{port}"), None).0, 403);
}

#[test]
fn a_bad_host_or_origin_flag_is_one_clear_error() {
    let (ws, home) = common::workspace();
    for (flag, value, says) in [
        ("--allow-origin", "app.example.com", "not an origin"),
        ("--allow-origin", "https://app.example.com/path", "not an origin"),
        ("--allow-host", "http://tools.internal", "not a host"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--cwd"])
            .arg(ws.path())
            .args([flag, value])
            .env("HOME", home.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag} {value} was taken");
        assert!(stderr.contains(flag) && stderr.contains(value) && stderr.contains(says), "{stderr}");
    }
    // Without --http there is nothing for them to apply to.
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--allow-host", "x"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--http"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A raw request (`OPTIONS` has no body) and the response's head.
fn raw(addr: &str, request: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = stream.read_to_string(&mut out);
    out
}

#[test]
fn a_forbidden_origin_is_403_before_any_token_is_asked_for() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start_with_env(
        ws.path(),
        home.path(),
        &["--token-env", "ci=CI_TOKEN"],
        &[("CI_TOKEN", "a-long-static-secret-token")],
    );
    // No token, and a page of another site: the origin is what is wrong.
    let text = serve::initialize(&serve.addr, "/mcp", &serve.addr, &[("Origin", "https://attacker.example")]);
    assert_eq!(serve::status(&text), 403, "{text}");
    assert!(text.contains("Origin") && text.contains("--allow-origin"), "{text}");
    let text = serve::initialize(&serve.addr, "/mcp", "attacker.example", &[]);
    assert_eq!(serve::status(&text), 403, "{text}");
    // Without a token from an accepted page: 401, readable by that page.
    let text = serve::initialize(&serve.addr, "/mcp", &serve.addr, &[("Origin", "http://localhost:5173")]);
    assert_eq!(serve::status(&text), 401, "{text}");
    assert_eq!(serve::header(&text, "access-control-allow-origin"), Some("http://localhost:5173"), "{text}");
    assert!(serve::header(&text, "access-control-expose-headers").is_some_and(|h| h.contains("www-authenticate")));
}

#[test]
fn a_page_of_an_accepted_origin_gets_its_preflight_and_cors_headers() {
    let (ws, home) = common::workspace();
    let serve = Serve::start(ws.path(), home.path(), &["--allow-origin", "https://app.example.com"]);
    let addr = &serve.0.addr;
    let preflight = |origin: &str| {
        raw(
            addr,
            &format!(
                "OPTIONS /mcp HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: POST\r\n\
                 Access-Control-Request-Headers: content-type, authorization, x-team-key\r\nConnection: close\r\n\r\n"
            ),
        )
    };
    let ok = preflight("https://app.example.com");
    assert_eq!(serve::status(&ok), 204, "{ok}");
    assert_eq!(serve::header(&ok, "access-control-allow-origin"), Some("https://app.example.com"));
    let allowed = serve::header(&ok, "access-control-allow-headers").unwrap_or_default();
    assert!(
        ["content-type", "authorization", "mcp-protocol-version", "mcp-session-id", "x-team-key"]
            .iter()
            .all(|h| allowed.contains(h)),
        "{allowed}"
    );
    assert!(serve::header(&ok, "access-control-allow-methods").is_some_and(|m| m.contains("POST")));
    // Another site's page gets no preflight.
    let refused = preflight("https://attacker.example");
    assert_eq!(serve::status(&refused), 403, "{refused}");
    assert!(serve::header(&refused, "access-control-allow-origin").is_none());
    // The page's own requests can read the answer and its session id.
    let (status, text) = serve.initialize(addr, Some("https://app.example.com"));
    assert_eq!(status, 200, "{text}");
    assert_eq!(serve::header(&text, "access-control-allow-origin"), Some("https://app.example.com"));
    assert!(serve::header(&text, "access-control-expose-headers").is_some_and(|h| h.contains("mcp-session-id")));
    // A client that is no browser page gets no CORS headers.
    let (_, text) = serve.initialize(addr, None);
    assert!(serve::header(&text, "access-control-allow-origin").is_none(), "{text}");
}
