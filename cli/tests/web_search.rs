//! WebSearch through the real binary against a local stand-in for each backend
//! (Brave Search, Tavily, SearXNG) on 127.0.0.1: the request each API documents,
//! titles and URLs back, the domain lists enforced on what comes back, rules.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A request as seen: request line, headers (lowercased), body.
type Seen = Arc<Mutex<Vec<(String, Vec<String>, String)>>>;

/// A server answering every request with `body`; the requests seen.
fn stand_in(body: Value) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let (mut headers, mut length) = (Vec::new(), 0usize);
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end().to_ascii_lowercase();
                if h.is_empty() {
                    break;
                }
                if let Some(v) = h.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                headers.push(h);
            }
            let mut raw = vec![0; length];
            reader.read_exact(&mut raw).unwrap();
            log.lock().unwrap().push((line.trim().to_owned(), headers, String::from_utf8_lossy(&raw).into_owned()));
            let text = body.to_string();
            let mut out = stream;
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (url, seen)
}

fn search(dir: &Path, env: &[(&str, &str)], input: Value, yes: bool) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command.args(["call", "WebSearch", &input.to_string(), "--json", "--cwd"]).arg(dir).env("HOME", dir);
    if yes {
        command.arg("--yes");
    }
    for key in ["BRAVE_SEARCH_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL", "TOOLWRIGHT_SEARCH_BACKEND"] {
        command.env_remove(key);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
}

fn results() -> Vec<Value> {
    vec![
        json!({"title": "Tokio docs", "url": "https://docs.rs/tokio", "description": "An async runtime", "content": "An async runtime"}),
        json!({"title": "Spam", "url": "https://spam.example/tokio", "description": "x", "content": "x"}),
        json!({"title": "Tokio site", "url": "https://tokio.rs/tokio/tutorial", "description": "Tutorial", "content": "Tutorial"}),
    ]
}

#[test]
fn brave_gets_its_token_and_site_operators_and_the_lists_hold() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = stand_in(json!({"web": {"results": results()}}));
    let env = [("BRAVE_SEARCH_API_KEY", "brave-secret"), ("BRAVE_SEARCH_BASE_URL", url.as_str())];
    let result =
        search(dir.path(), &env, json!({"query": "tokio runtime", "allowed_domains": ["docs.rs", "tokio.rs"]}), true);
    assert_eq!(result["is_error"], false, "{result}");
    let shown = text(&result);
    assert!(
        shown.contains("1. Tokio docs\n   https://docs.rs/tokio") && shown.contains("https://tokio.rs/tokio/tutorial"),
        "{shown}"
    );
    assert!(!shown.contains("spam.example"), "a result outside allowed_domains: {shown}");
    assert!(shown.contains("Sources:"), "{shown}");
    assert_eq!(result["structured"]["results"][0]["content"].as_array().unwrap().len(), 2);
    let (line, headers, _) = seen.lock().unwrap()[0].clone();
    assert!(
        line.starts_with("GET /res/v1/web/search?q=tokio+runtime+%28site%3Adocs.rs+OR+site%3Atokio.rs%29"),
        "{line}"
    );
    assert!(headers.iter().any(|h| h == "x-subscription-token: brave-secret"), "{headers:?}");
    // blocked_domains drops what it names; both lists at once is refused.
    let blocked = search(dir.path(), &env, json!({"query": "tokio", "blocked_domains": ["spam.example"]}), true);
    assert!(!text(&blocked).contains("spam.example") && text(&blocked).contains("docs.rs"), "{blocked}");
    let both = search(
        dir.path(),
        &env,
        json!({"query": "tokio", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}),
        true,
    );
    assert!(both["is_error"] == true && text(&both).contains("not both"), "{both}");
}

#[test]
fn tavily_and_searxng_are_asked_as_their_apis_document() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = stand_in(json!({"results": results()}));
    let env = [("TAVILY_API_KEY", "tvly-secret"), ("TAVILY_BASE_URL", url.as_str())];
    let result = search(dir.path(), &env, json!({"query": "tokio", "blocked_domains": ["spam.example"]}), true);
    assert_eq!(result["is_error"], false, "{result}");
    let (line, headers, body) = seen.lock().unwrap()[0].clone();
    assert!(line.starts_with("POST /search"), "{line}");
    assert!(headers.iter().any(|h| h == "authorization: bearer tvly-secret"), "{headers:?}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((body["query"].clone(), body["exclude_domains"].clone()), (json!("tokio"), json!(["spam.example"])));
    let (url, seen) = stand_in(json!({"results": results()}));
    let result = search(dir.path(), &[("SEARXNG_URL", url.as_str())], json!({"query": "tokio"}), true);
    assert!(text(&result).contains("SearXNG") && text(&result).contains("3. Tokio site"), "{result}");
    assert!(seen.lock().unwrap()[0].0.starts_with("GET /search?q=tokio&format=json"));
}

#[test]
fn web_search_asks_is_ruled_by_websearch_and_needs_a_backend() {
    let dir = tempfile::tempdir().unwrap();
    let (url, _) = stand_in(json!({"results": results()}));
    let env = [("SEARXNG_URL", url.as_str())];
    let asked = search(dir.path(), &env, json!({"query": "tokio"}), false);
    assert!(asked["is_error"] == true && text(&asked).contains("approval"), "{asked}");
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(dir.path().join(".claude/settings.json"), r#"{"permissions": {"deny": ["WebSearch"]}}"#).unwrap();
    let denied = search(dir.path(), &env, json!({"query": "tokio"}), true);
    assert!(denied["is_error"] == true && text(&denied).contains("denied"), "{denied}");
    let none = search(dir.path(), &[], json!({"query": "tokio"}), true);
    assert_eq!(none["is_error"], true, "{none}");
}

#[path = "../../tests/common/mod.rs"]
mod common;

/// Anthropic's server-side web search through `agent --web-search`: the tool is
/// declared as the API documents it, the search's blocks and the text's citations go
/// back in the next request exactly as they came, and the trace shows them.
#[test]
fn the_providers_own_search_is_declared_and_its_blocks_kept() {
    use common::scripted::{Block, Reply, serve};
    let result = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
        {"type": "web_search_result", "url": "https://tokio.rs/blog/2026-tokio-2", "title": "Tokio 2.0", "encrypted_content": "EqgfCioI", "page_age": "2 days ago"}
    ]});
    let citation = json!({"type": "web_search_result_location", "url": "https://tokio.rs/blog/2026-tokio-2", "title": "Tokio 2.0", "encrypted_index": "Eo8BCioI", "cited_text": "Tokio 2.0 is out."});
    let (sent_result, sent_citation) = (result.clone(), citation.clone());
    let (url, log) = serve(move |req| match req.messages().len() {
        1 => Reply {
            blocks: vec![
                Block::Raw(
                    json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
                    vec![json!({"type": "input_json_delta", "partial_json": "{\"query\": \"tokio 2.0 release\"}"})],
                ),
                Block::Raw(sent_result.clone(), vec![]),
                Block::Raw(
                    json!({"type": "text", "text": "", "citations": []}),
                    vec![
                        json!({"type": "citations_delta", "citation": sent_citation.clone()}),
                        json!({"type": "text_delta", "text": "Tokio 2.0 is out."}),
                    ],
                ),
                Block::Call("list_dir".into(), json!({"path": "."})),
            ],
            ..Reply::text("")
        },
        _ => Reply::text("Done."),
    });
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args([
            "agent",
            "--provider",
            "anthropic",
            "--json",
            "--yes",
            "--web-search",
            "--web-search-max-uses",
            "3",
            "--web-search-allowed-domain",
            "tokio.rs",
            "--timeline",
        ])
        .arg(home.path().join("t.html"))
        .arg("--workspace")
        .arg(dir.path())
        .arg("What is new in tokio?")
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", &url)
        .env("HOME", home.path())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}{}", String::from_utf8_lossy(&out.stderr));
    let log = log.lock().unwrap().clone();
    let tools = log[0].body["tools"].as_array().unwrap();
    let declared = tools.iter().find(|t| t["type"] == "web_search_20250305").expect("the web search tool");
    assert_eq!(
        declared,
        &json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 3, "allowed_domains": ["tokio.rs"]})
    );
    // The next request carries the assistant's blocks as they came.
    let assistant = &log[1].messages()[1]["content"];
    assert_eq!(
        assistant[0],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tokio 2.0 release"}})
    );
    assert_eq!(assistant[1], result);
    assert_eq!(assistant[2], json!({"type": "text", "text": "Tokio 2.0 is out.", "citations": [citation]}));
    assert!(shown.contains("\"type\":\"server_tool\"") && shown.contains("tokio 2.0 release"), "{shown}");
    assert!(
        shown.contains("\"type\":\"server_tool_result\"") && shown.contains("https://tokio.rs/blog/2026-tokio-2"),
        "{shown}"
    );
    // The timeline marks the search and what it found on the model's lane.
    let html = std::fs::read_to_string(home.path().join("t.html")).unwrap();
    assert!(html.contains("title=\"the provider's web_search: tokio 2.0 release\""), "{html}");
    assert!(html.contains("title=\"the provider's web_search: 1 result\""), "{html}");
    // Chat Completions has no such tool: said before anything is sent.
    let chat = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "openai", "--web-search", "--workspace"])
        .arg(dir.path())
        .arg("x")
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", &url)
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(!chat.status.success() && String::from_utf8_lossy(&chat.stderr).contains("no server-side web search"));
}

/// The fetch rules' deny list is the search's too: a result web_fetch may not read
/// is left out, and said to be.
#[test]
fn results_on_sites_web_fetch_is_denied_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["WebFetch(domain:spam.example)"]}}).to_string(),
    )
    .unwrap();
    let (url, _) = stand_in(json!({"web": {"results": results()}}));
    let env = [("BRAVE_SEARCH_API_KEY", "k"), ("BRAVE_SEARCH_BASE_URL", url.as_str())];
    let result = search(dir.path(), &env, json!({"query": "tokio"}), true);
    assert_eq!(result["is_error"], false, "{result}");
    let shown = text(&result);
    assert!(!shown.contains("spam.example"), "{shown}");
    assert!(shown.contains("https://docs.rs/tokio") && shown.contains("https://tokio.rs/tokio/tutorial"), "{shown}");
    assert!(shown.contains("(1 result is left out: the permission rules deny fetching their sites.)"), "{shown}");
    // A bare WebFetch deny leaves nothing to offer.
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["WebFetch"]}}).to_string(),
    )
    .unwrap();
    let none = search(dir.path(), &env, json!({"query": "tokio"}), true);
    assert!(text(&none).contains("No results.") && text(&none).contains("3 results are left out"), "{none}");
}

/// The provider's search is narrowed by the fetch rules too: with no list given,
/// Anthropic's gets the domains the `WebFetch` deny rules name as its blocked list.
#[test]
fn the_providers_search_blocks_what_web_fetch_is_denied() {
    use common::scripted::{Reply, serve};
    let (url, log) = serve(|_| Reply::text("Done."));
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["WebFetch(domain:*.spam.example)", "WebFetch(domain:ads.example)"]}})
            .to_string(),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_toolwright");
    let out = common::scripted::run_agent(bin, &url, dir.path(), home.path(), &["--web-search"], "Search.");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = log.lock().unwrap().clone();
    let tools = log[0].body["tools"].as_array().unwrap();
    let declared = tools.iter().find(|t| t["type"] == "web_search_20250305").unwrap();
    assert_eq!(declared["blocked_domains"], json!(["ads.example", "spam.example"]), "{declared}");
}
