//! `toolwright serve --http` holds to its session and in-flight limits, each
//! refusal a documented status with `Retry-After` and a JSON-RPC error, and closes
//! idle sessions: raw HTTP over 127.0.0.1.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/serve.rs"]
mod serve;

use serve::{HttpServe, header, initialize, post, post_until, status};
use std::time::Duration;

/// A session: its id, after `initialize` and `notifications/initialized`.
fn open_session(serve: &HttpServe) -> String {
    let response = initialize(&serve.addr, "/mcp", &serve.addr, &[]);
    assert_eq!(status(&response), 200, "{response}");
    let id = header(&response, "mcp-session-id").unwrap_or_else(|| panic!("no session id: {response}")).to_owned();
    let done = post(
        &serve.addr,
        "/mcp",
        &serve.addr,
        &[("Mcp-Session-Id", &id), ("Mcp-Protocol-Version", "2025-06-18")],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(status(&done), 202, "{done}");
    id
}

#[test]
fn a_session_past_the_limit_gets_503_and_an_idle_one_is_closed() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &["--max-sessions", "1", "--idle-timeout", "1"]);
    let first = open_session(&serve);
    let second = initialize(&serve.addr, "/mcp", &serve.addr, &[]);
    assert_eq!(status(&second), 503, "{second}");
    assert_eq!(header(&second, "retry-after"), Some("1"), "{second}");
    assert!(second.contains("too many open sessions") && second.contains("\"id\":1"), "{second}");

    // Idle past the timeout: the session is gone, and its place is free again.
    std::thread::sleep(Duration::from_millis(2500));
    let ping = post(
        &serve.addr,
        "/mcp",
        &serve.addr,
        &[("Mcp-Session-Id", &first), ("Mcp-Protocol-Version", "2025-06-18")],
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    );
    assert_eq!(status(&ping), 404, "{ping}");
    open_session(&serve);
}

#[test]
fn a_request_past_the_calls_in_flight_gets_429() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &["--max-calls-per-session", "1"]);
    let id = open_session(&serve);
    let headers = [("Mcp-Session-Id", id.as_str()), ("Mcp-Protocol-Version", "2025-06-18")];
    let slow =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell","arguments":{"command":"sleep 3"}}}"#;
    let addr = serve.addr.clone();
    let (hid, hid2) = (id.clone(), id.clone());
    // Read to its result: the request is in flight until then.
    let running = std::thread::spawn(move || {
        let headers = [("Mcp-Session-Id", hid.as_str()), ("Mcp-Protocol-Version", "2025-06-18")];
        post_until(&addr, "/mcp", &addr, &headers, slow, Some("\"id\":3"))
    });
    std::thread::sleep(Duration::from_millis(700));
    let second = post(&serve.addr, "/mcp", &serve.addr, &headers, r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    assert_eq!(status(&second), 429, "{second}");
    assert!(second.contains("calls in flight in this session") && second.contains("\"id\":4"), "{second}");
    let first = running.join().unwrap();
    assert_eq!(status(&first), 200, "{first}");
    assert!(first.contains("\"id\":3"), "the slow call's result came: {first}");
    // The first is done: there is room again.
    let again = post(
        &serve.addr,
        "/mcp",
        &serve.addr,
        &[("Mcp-Session-Id", &hid2), ("Mcp-Protocol-Version", "2025-06-18")],
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    );
    assert_eq!(status(&again), 200, "{again}");
}

#[test]
fn a_client_that_hangs_up_does_not_free_its_calls_place() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &["--max-calls-per-session", "1"]);
    let id = open_session(&serve);
    let headers = [("Mcp-Session-Id", id.as_str()), ("Mcp-Protocol-Version", "2025-06-18")];
    let slow =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell","arguments":{"command":"sleep 2"}}}"#;
    // Send the call, read only the status line, and hang up.
    {
        use std::io::{BufRead, BufReader, Write};
        let mut stream = std::net::TcpStream::connect(&serve.addr).unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{slow}",
            serve.addr,
            slow.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    }
    std::thread::sleep(Duration::from_millis(300));
    let busy = post(&serve.addr, "/mcp", &serve.addr, &headers, r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    assert_eq!(status(&busy), 429, "the call runs on, so its place is held: {busy}");
    std::thread::sleep(Duration::from_millis(2500));
    let free = post(&serve.addr, "/mcp", &serve.addr, &headers, r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    assert_eq!(status(&free), 200, "{free}");
}

#[test]
fn a_session_the_client_ends_gets_200_and_is_gone() {
    use std::io::{Read, Write};
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &[]);
    let id = open_session(&serve);
    let mut stream = std::net::TcpStream::connect(&serve.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        stream,
        "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\nConnection: close\r\n\r\n",
        serve.addr
    )
    .unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    assert_eq!(status(&response), 200, "{response}");
    let after = post(
        &serve.addr,
        "/mcp",
        &serve.addr,
        &[("Mcp-Session-Id", &id), ("Mcp-Protocol-Version", "2025-06-18")],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(status(&after), 404, "{after}");
}

#[test]
fn mcp_is_served_at_its_endpoint_only() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &[]);
    for path in ["/", "/mcpx", "/mcp/extra", "/other"] {
        let response = initialize(&serve.addr, path, &serve.addr, &[]);
        assert_eq!(status(&response), 404, "{path}: {response}");
        assert!(response.contains("there is no MCP endpoint") && response.contains("/mcp"), "{response}");
    }
    for path in ["/mcp", "/mcp/"] {
        let response = initialize(&serve.addr, path, &serve.addr, &[]);
        assert_eq!(status(&response), 200, "{path}: {response}");
    }
}

#[test]
fn what_the_transport_forbids_is_its_status_with_a_jsonrpc_error() {
    let (ws, home) = common::workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &[]);
    let list = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#;
    let json_error = |response: &str| -> serde_json::Value {
        assert_eq!(header(response, "content-type"), Some("application/json"), "{response}");
        let body: serde_json::Value = serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["jsonrpc"], "2.0", "{body}");
        body["error"].clone()
    };
    // A revision this server does not know.
    let response = post(&serve.addr, "/mcp", &serve.addr, &[("Mcp-Protocol-Version", "1999-01-01")], list);
    assert_eq!(status(&response), 400, "{response}");
    assert!(json_error(&response)["message"].as_str().unwrap().contains("MCP-Protocol-Version"));
    // A session this server never opened (or closed): initialize again.
    let gone = [("Mcp-Session-Id", "no-such-session"), ("Mcp-Protocol-Version", "2025-06-18")];
    let response = post(&serve.addr, "/mcp", &serve.addr, &gone, list);
    assert_eq!(status(&response), 404, "{response}");
    let error = json_error(&response);
    assert_eq!(error["code"], -32001);
    assert!(error["message"].as_str().unwrap().contains("initialize"), "{error}");
}

/// The headers of a request in `session` by the caller whose `Authorization` is `auth`.
fn as_caller<'a>(session: &'a str, auth: &'a str) -> [(&'a str, &'a str); 3] {
    [("Mcp-Session-Id", session), ("Mcp-Protocol-Version", "2025-06-18"), ("Authorization", auth)]
}

/// Ends the handshake of `session` (`notifications/initialized`).
fn initialized(serve: &HttpServe, session: &str, auth: &str) {
    let body = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let done = post(&serve.addr, "/mcp", &serve.addr, &as_caller(session, auth), body);
    assert_eq!(status(&done), 202, "{done}");
}

/// A session of the caller whose `Authorization` is `auth`.
fn open_session_as(serve: &HttpServe, auth: &str) -> Result<String, String> {
    let response = initialize(&serve.addr, "/mcp", &serve.addr, &[("Authorization", auth)]);
    if status(&response) != 200 {
        return Err(response);
    }
    let id = header(&response, "mcp-session-id").unwrap_or_else(|| panic!("no session id: {response}")).to_owned();
    initialized(serve, &id, auth);
    Ok(id)
}

/// One caller that floods the server with sessions and calls meets its own caps
/// (429 with Retry-After and a JSON-RPC error naming the cap), well before the
/// global ones: another caller still initializes, lists and calls.
#[test]
fn one_caller_cannot_lock_out_the_others() {
    const FLOOD: &str = "flood-secret-0123456789abcdef";
    const OTHER: &str = "other-secret-0123456789abcdef";
    let (ws, home) = common::workspace();
    let serve = HttpServe::start_with_env(
        ws.path(),
        home.path(),
        &[
            "--no-mcp",
            "--token-env",
            "flood=FLOOD_TOKEN",
            "--token-env",
            "other=OTHER_TOKEN",
            "--max-sessions",
            "12",
            "--max-calls-per-caller",
            "4",
        ],
        &[("FLOOD_TOKEN", FLOOD), ("OTHER_TOKEN", OTHER)],
    );
    let (flood, other) = (format!("Bearer {FLOOD}"), format!("Bearer {OTHER}"));
    // The flood: sessions until refused, all at once.
    let threads: Vec<_> = (0..20)
        .map(|_| {
            let (addr, flood) = (serve.addr.clone(), flood.clone());
            std::thread::spawn(move || initialize(&addr, "/mcp", &addr, &[("Authorization", flood.as_str())]))
        })
        .collect();
    let answers: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let opened: Vec<&String> = answers.iter().filter(|a| status(a) == 200).collect();
    assert_eq!(opened.len(), 8, "the default per-caller cap: {answers:?}");
    let refused = answers.iter().find(|a| status(a) != 200).unwrap();
    assert_eq!(status(refused), 429, "{refused}");
    assert_eq!(header(refused, "retry-after"), Some("1"), "{refused}");
    assert!(refused.contains("for this caller") && refused.contains("--max-sessions-per-caller"), "{refused}");
    // Calls in flight: the flood holds its share with slow calls (commands that
    // write may run one at a time, so a small share keeps this short).
    let flood_session = header(opened[0], "mcp-session-id").unwrap().to_owned();
    let slow =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell","arguments":{"command":"sleep 2"}}}"#;
    let sessions: Vec<String> = opened.iter().map(|a| header(a, "mcp-session-id").unwrap().to_owned()).collect();
    for session in &sessions {
        initialized(&serve, session, &flood);
    }
    let running: Vec<_> = (0..4)
        .map(|i| {
            let (addr, flood, session) = (serve.addr.clone(), flood.clone(), sessions[i % sessions.len()].clone());
            std::thread::spawn(move || {
                post_until(&addr, "/mcp", &addr, &as_caller(&session, &flood), slow, Some("\"id\":3"))
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1000));
    let headers = as_caller(&flood_session, &flood);
    let more = post(&serve.addr, "/mcp", &serve.addr, &headers, r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
    assert_eq!(status(&more), 429, "{more}");
    assert!(more.contains("for this caller") && more.contains("--max-calls-per-caller"), "{more}");
    // The other caller: initializes, lists and calls while the flood holds its share.
    let session = open_session_as(&serve, &other).unwrap_or_else(|r| panic!("the other caller was locked out: {r}"));
    let headers = as_caller(&session, &other);
    let listed = post(&serve.addr, "/mcp", &serve.addr, &headers, r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    assert_eq!(status(&listed), 200, "{listed}");
    let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"hello.txt"}}}"#;
    let called = post_until(&serve.addr, "/mcp", &serve.addr, &headers, call, Some("\"id\":5"));
    assert!(called.contains("hello from the workspace"), "{called}");
    for thread in running {
        let answer = thread.join().unwrap();
        assert!(answer.contains("\"id\":3"), "{answer}");
    }
}
