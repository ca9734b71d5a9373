//! The 2026-07-28 revision over streamable HTTP: no `initialize`, no session,
//! each request standing alone with its protocol version in `_meta`. Deferred
//! tools still work: a search returns the definitions it loaded, and a call that
//! names a deferred tool runs it.

mod common;

use common::stateless::{request, request_as};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use toolwright::mcp::McpServer;
use toolwright::{Executor, Registry};

/// Serves `server` on 127.0.0.1 in a runtime of its own; the address.
fn serve(server: McpServer) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    runtime.spawn(server.serve_http_on(listener));
    (runtime, addr)
}

fn registry_with_a_deferred_tool() -> Arc<Registry> {
    let registry = Arc::new(toolwright::registry().unwrap());
    let mut deferred = common::runtime_tool::Runtime {
        spec: toolwright::ToolSpec::runtime("mcp__wiki__page_history", "Show the edit history of a wiki page.", "test"),
    };
    deferred.spec.defer = toolwright::Defer::Always;
    registry.register(Arc::new(deferred)).unwrap();
    registry
}

#[test]
fn a_2026_client_is_served_without_a_session_and_deferred_tools_still_work() {
    use toolwright::deferred::{Deferral, TOOL_SEARCH};
    let registry = registry_with_a_deferred_tool();
    let executor = Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let server = McpServer::with_executor(Arc::new(executor)).with_deferral(Deferral::default());
    let (_runtime, addr) = serve(server);

    let (status, discovered) = request(&addr, "server/discover", json!({}), &[]);
    assert_eq!(status, 200, "{discovered}");
    let versions = &discovered["result"]["supportedVersions"];
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        assert!(versions.as_array().unwrap().iter().any(|v| v == version), "{version} not offered: {versions}");
    }

    let (_, listed) = request(&addr, "tools/list", json!({}), &[]);
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&TOOL_SEARCH) && !names.contains(&"mcp__wiki__page_history"), "{names:?}");

    // The search answers with the definitions it loaded: there is no session to list them in.
    let (_, found) = request(
        &addr,
        "tools/call",
        json!({"name": TOOL_SEARCH, "arguments": {"query": "who edited the wiki page"}}),
        &[],
    );
    let result = &found["result"];
    assert_ne!(result["isError"], true, "{found}");
    let tools = result["structuredContent"]["tools"].as_array().unwrap_or_else(|| panic!("{found}"));
    assert_eq!(tools.len(), 1, "{found}");
    assert_eq!(tools[0]["name"], "mcp__wiki__page_history");
    assert!(tools[0]["inputSchema"].is_object());

    // A later request, on no session, calls the deferred tool by name.
    let (_, ran) =
        request(&addr, "tools/call", json!({"name": "mcp__wiki__page_history", "arguments": {"q": "Home"}}), &[]);
    assert_eq!(ran["result"]["isError"], false, "{ran}");
    let (_, listed_again) = request(&addr, "tools/list", json!({}), &[]);
    // Stateless: nothing stays loaded (the search tool's catalogue still names it).
    let listed: Vec<&str> =
        listed_again["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(!listed.contains(&"mcp__wiki__page_history"), "stateless: nothing stays loaded: {listed:?}");
}

#[test]
fn requests_without_a_session_are_not_refused_when_the_sessions_are_full() {
    let registry = Arc::new(toolwright::registry().unwrap());
    let server = McpServer::new(registry).with_http_limits(toolwright::mcp::HttpLimits::default().max_sessions(1));
    let (_runtime, addr) = serve(server);
    // One legacy session takes the only place.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
        "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    .to_string();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{init}",
        init.len()
    )
    .unwrap();
    let mut first = [0u8; 512];
    let n = stream.read(&mut first).unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).starts_with("HTTP/1.1 200"));
    // A stateless request opens no session: it is served.
    let (status, _) = request(&addr, "tools/list", json!({}), &[]);
    assert_eq!(status, 200);
}

struct AskEverything;
impl toolwright::permission::PermissionPolicy for AskEverything {
    fn check(
        &self,
        request: &toolwright::permission::PermissionRequest<'_>,
    ) -> toolwright::permission::PermissionDecision {
        toolwright::permission::PermissionDecision::Ask(format!("May {} run?", request.tool))
    }
}

/// A server of the built-ins in `dir` whose rules ask about every call, asking the
/// client by elicitation.
fn asking_in(dir: &std::path::Path) -> McpServer {
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor = Executor::builder(registry)
        .policy(AskEverything)
        .approver(toolwright::mcp::approver(toolwright::mcp::AskMode::Elicit))
        .build();
    McpServer::with_executor(Arc::new(executor)).with_cwd(dir)
}

#[test]
fn a_permission_question_goes_back_as_input_required_and_the_retry_brings_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (_runtime, addr) = serve(asking_in(dir.path()));
    let eliciting = json!({"elicitation": {"form": {}}});
    let write = |path: &str| json!({"name": "write_file", "arguments": {"path": path, "content": "made\n"}});

    // The first round: the question, not a result; nothing is written.
    let (_, first) = request_as(&addr, "tools/call", write("made.txt"), &[], eliciting.clone());
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let question = &result["inputRequests"]["toolwright/approve"];
    assert_eq!(question["method"], "elicitation/create");
    assert!(question["params"]["message"].as_str().unwrap().contains("May write_file run?"), "{question}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert!(!dir.path().join("made.txt").exists());

    let answered = |call: Value, answer: Value| {
        let mut call = call;
        call["inputResponses"] = json!({"toolwright/approve": answer});
        call["requestState"] = json!(state);
        call
    };
    let yes = json!({"action": "accept", "content": {"allow": true}});

    // The same state and a yes on another call: asked again, not run.
    let (_, other) = request_as(&addr, "tools/call", answered(write("other.txt"), yes.clone()), &[], eliciting.clone());
    assert_eq!(other["result"]["resultType"], "input_required", "{other}");
    assert!(!dir.path().join("other.txt").exists());

    // A no: a denial the model can read.
    let (_, no) = request_as(
        &addr,
        "tools/call",
        answered(write("made.txt"), json!({"action": "decline"})),
        &[],
        eliciting.clone(),
    );
    assert_eq!(no["result"]["isError"], true, "{no}");
    assert!(no.to_string().contains("declined"), "{no}");
    assert!(!dir.path().join("made.txt").exists());

    // The retry with a yes runs the call.
    let (_, done) = request_as(&addr, "tools/call", answered(write("made.txt"), yes), &[], eliciting);
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(std::fs::read_to_string(dir.path().join("made.txt")).unwrap(), "made\n");

    // A client that cannot elicit is not asked: the call is denied as unanswerable.
    let (_, unasked) = request(&addr, "tools/call", write("third.txt"), &[]);
    assert_eq!(unasked["result"]["isError"], true, "{unasked}");
    assert!(unasked.to_string().contains("does not support elicitation"), "{unasked}");
}

/// Sleep `ms` milliseconds, then say so.
#[toolwright::tool(read_only)]
pub struct Slow {
    /// How long.
    pub ms: u64,
}

impl toolwright::Tool for Slow {
    type Output = String;
    async fn call(self, _cx: &toolwright::ToolContext) -> Result<String, toolwright::ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        Ok(format!("slept {}", self.ms))
    }
}

#[test]
fn a_call_that_outgrows_its_request_becomes_a_task_the_client_polls() {
    let tokens = toolwright::mcp::BearerTokens::default()
        .with("alice", "alice-secret-0123456789")
        .unwrap()
        .with("bob", "bob-secret-0123456789abc")
        .unwrap();
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor = Executor::builder(registry).policy(toolwright::permission::AllowAll).build();
    let server = McpServer::with_executor(Arc::new(executor))
        .with_bearer_tokens(tokens)
        .with_tasks_after(Duration::from_millis(200));
    let (_runtime, addr) = serve(server);
    let alice = [("Authorization", "Bearer alice-secret-0123456789")];
    let bob = [("Authorization", "Bearer bob-secret-0123456789abc")];
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let slow = |ms: u64| json!({"name": "slow", "arguments": {"ms": ms}});

    // Quick: answered as usual.
    let (_, quick) = request_as(&addr, "tools/call", slow(10), &alice, tasks.clone());
    assert_eq!(quick["result"]["content"][0]["text"], "slept 10", "{quick}");

    // Long: a task, polled to its result.
    let (_, started) = request_as(&addr, "tools/call", slow(1200), &alice, tasks.clone());
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let id = started["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{started}")).to_owned();
    let poll = |who: &[(&str, &str)]| request_as(&addr, "tasks/get", json!({"taskId": id}), who, tasks.clone()).1;
    // Another caller is told there is no such task.
    let stranger = poll(&bob);
    assert!(stranger.get("error").is_some(), "{stranger}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let finished = loop {
        let got = poll(&alice);
        if got["result"]["status"] == "completed" {
            break got;
        }
        assert_eq!(got["result"]["status"], "working", "{got}");
        assert!(std::time::Instant::now() < deadline, "never completed: {got}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(finished.to_string().contains("slept 1200"), "{finished}");

    // Cancelled: the task says so.
    let (_, started) = request_as(&addr, "tools/call", slow(30_000), &alice, tasks.clone());
    let id = started["result"]["taskId"].as_str().unwrap().to_owned();
    let (_, refused) = request_as(&addr, "tasks/cancel", json!({"taskId": id}), &bob, tasks.clone());
    assert!(refused.get("error").is_some(), "bob may not cancel alice's task: {refused}");
    let (_, cancelled) = request_as(&addr, "tasks/cancel", json!({"taskId": id}), &alice, tasks.clone());
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, got) = request_as(&addr, "tasks/get", json!({"taskId": id}), &alice, tasks.clone());
        if got["result"]["status"] == "cancelled" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never cancelled: {got}");
        std::thread::sleep(Duration::from_millis(50));
    }

    // A client that does not take tasks waits for its result.
    let (_, waited) = request(&addr, "tools/call", slow(600), &alice);
    assert_eq!(waited["result"]["content"][0]["text"], "slept 600", "{waited}");
}

/// A toolwright server mounted by a toolwright client over HTTP: spoken to on the
/// 2026-07-28 revision, without a session, where nothing is lost; its tools called
/// through the mount.
#[test]
fn a_mount_speaks_the_current_revision_to_a_server_that_offers_it() {
    use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor = Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let (runtime, addr) = serve(McpServer::with_executor(Arc::new(executor)));
    let config = McpConfig::parse(
        &json!({"mcpServers": {"peer": {"type": "http", "url": format!("http://{addr}/mcp")}}}).to_string(),
        std::path::Path::new("/tmp/.mcp.json"),
    )
    .unwrap();
    let client = Arc::new(Registry::builder().build().unwrap());
    let (revision, answer) = runtime.block_on(async {
        let mounts = McpMounts::mount(Arc::clone(&client), &config, MountOptions::default().credentials(None)).await;
        assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
        let revision = mounts.protocol_version("peer");
        // A tool the server gains reaches the client through its subscription.
        let added = common::runtime_tool::Runtime {
            spec: toolwright::ToolSpec::runtime("wiki_history", "Show the edit history of a wiki page.", "test"),
        };
        registry.register(Arc::new(added)).unwrap();
        let mut waited = 0;
        while client.get("mcp__peer__wiki_history").is_none() && waited < 100 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            waited += 1;
        }
        assert!(client.get("mcp__peer__wiki_history").is_some(), "the new tool did not reach the client");
        let executor = Executor::builder(Arc::clone(&client)).policy(toolwright::permission::AllowAll).build();
        let turn = toolwright::TurnContext::new(std::env::temp_dir());
        let call = toolwright::ToolCall::new("1", "mcp__peer__glob", r#"{"pattern": "*.nothing-here"}"#);
        let answer = executor.execute(&call, &turn).await.output.text_content();
        mounts.shutdown().await;
        (revision, answer)
    });
    eprintln!("revision {revision:?}, answer {answer}");
    assert_eq!(revision.as_deref(), Some("2026-07-28"));
    assert!(!answer.contains("went away") && !answer.contains("refused"), "{answer}");
}

/// A mounted server's `input_required` (here: a toolwright server whose rules ask)
/// goes to the person through the caller's `Questions`; a yes runs the call on the
/// server, and with no one to ask the form is declined and nothing runs.
#[test]
fn a_mounted_servers_question_goes_to_the_person_and_the_answer_back() {
    use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
    use toolwright::question::{Answer, Question, Questions, Unanswered};
    let dir = tempfile::tempdir().unwrap();
    let (runtime, addr) = serve(asking_in(dir.path()));
    let config = McpConfig::parse(
        &json!({"mcpServers": {"peer": {"type": "http", "url": format!("http://{addr}/mcp")}}}).to_string(),
        std::path::Path::new("/tmp/.mcp.json"),
    )
    .unwrap();
    let client = Arc::new(Registry::builder().build().unwrap());
    let asked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&asked);
    let person = Questions::new(move |qs: &[Question]| -> Result<Vec<Answer>, Unanswered> {
        seen.lock().unwrap().extend(qs.iter().map(|q| q.question.clone()));
        Ok(qs.iter().map(|q| Answer::Chosen(vec![q.options[0].label.clone()])).collect())
    });
    let (with_person, alone) = runtime.block_on(async {
        let mounts = McpMounts::mount(Arc::clone(&client), &config, MountOptions::default().credentials(None)).await;
        assert_eq!(mounts.protocol_version("peer").as_deref(), Some("2026-07-28"));
        let executor = Executor::builder(Arc::clone(&client)).policy(toolwright::permission::AllowAll).build();
        let write = |name: &str| {
            let input = json!({"path": name, "content": "made\n"}).to_string();
            toolwright::ToolCall::new("1", "mcp__peer__write_file", input)
        };
        let mut extensions = toolwright::Extensions::new();
        extensions.insert(person);
        let turn = toolwright::TurnContext::new(std::env::temp_dir()).with_extensions(extensions);
        let with_person = executor.execute(&write("made.txt"), &turn).await.output.text_content();
        let turn = toolwright::TurnContext::new(std::env::temp_dir());
        let alone = executor.execute(&write("alone.txt"), &turn).await.output.text_content();
        mounts.shutdown().await;
        (with_person, alone)
    });
    let asked = asked.lock().unwrap().clone();
    assert!(asked.iter().any(|q| q.contains("MCP server `peer` asks") && q.contains("write_file")), "{asked:?}");
    assert!(dir.path().join("made.txt").exists(), "{with_person}");
    assert!(!dir.path().join("alone.txt").exists(), "{alone}");
    assert!(!alone.contains("went away"), "{alone}");
}
