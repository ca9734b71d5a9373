//! Serving a registry over MCP, driven by rmcp's client in process; the binary's
//! `serve` is tested in `cli/tests/serve.rs`.

mod common;

use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolwright::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ErrorCode, Implementation, InitializeRequestParams, ProgressNotificationParam, Request,
};
use toolwright::mcp::rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RoleClient, ServiceError,
};
use toolwright::mcp::rmcp::{ClientHandler, ErrorData, ServiceExt};
use toolwright::mcp::{AskMode, McpServer};
use toolwright::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::prelude::*;
use toolwright::{Executor, Registry};

/// Count down `steps` steps, reporting progress at each.
#[tool(read_only, pure, title = "Count down", icons = ["https://example.com/icons/countdown.svg?v=2"])]
pub struct Countdown {
    /// How many steps.
    pub steps: u32,
}

impl Tool for Countdown {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        for i in 1..=self.steps {
            tokio::time::sleep(Duration::from_millis(20)).await;
            cx.progress(Progress::fraction(format!("step {i}"), f64::from(i), f64::from(self.steps)));
        }
        Ok(format!("counted {}", self.steps))
    }
}

static SAW_CANCELLATION: AtomicBool = AtomicBool::new(false);

/// Wait until cancelled.
#[tool(read_only, pure)]
pub struct WaitForCancel {}

impl Tool for WaitForCancel {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        cx.cancellation().cancelled().await;
        SAW_CANCELLATION.store(true, Ordering::SeqCst);
        Err(ToolError::Cancelled)
    }
}

/// The structured output of `add_up`.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Totals {
    sum: i64,
}

/// Add numbers, returning structured output.
#[tool(read_only, pure)]
pub struct AddUp {
    /// The numbers.
    pub numbers: Vec<i64>,
}

impl Tool for AddUp {
    type Output = Json<Totals>;
    async fn call(self, _cx: &ToolContext) -> Result<Json<Totals>, ToolError> {
        Ok(Json(Totals { sum: self.numbers.iter().sum() }))
    }
}

/// A client that records progress and list_changed, and answers elicitations.
#[derive(Clone, Default)]
struct TestClient {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    list_changed: Arc<AtomicUsize>,
    /// Some(answer) to declare elicitation and answer: accept with `allow: true`,
    /// or decline.
    elicit: Option<bool>,
    /// Dismiss the question instead (MCP's `cancel`).
    dismiss: bool,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> InitializeRequestParams {
        let capabilities = match self.elicit {
            Some(_) => ClientCapabilities::builder().enable_elicitation().build(),
            None => ClientCapabilities::default(),
        };
        InitializeRequestParams::new(capabilities, Implementation::new("test-client", "1"))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _cx: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(match self.elicit {
            _ if self.dismiss => ElicitResult::new(ElicitationAction::Cancel),
            Some(true) => ElicitResult::new(ElicitationAction::Accept).with_content(json!({"allow": true})),
            _ => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

type Running = toolwright::mcp::rmcp::service::RunningService<RoleClient, TestClient>;

async fn connect(server: McpServer, client: TestClient) -> Running {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("client connects")
}

fn registry() -> Arc<Registry> {
    Arc::new(toolwright::registry().unwrap())
}

fn text_of(result: &toolwright::mcp::rmcp::model::CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

async fn call(
    client: &Running,
    name: &str,
    args: serde_json::Value,
) -> Result<toolwright::mcp::rmcp::model::CallToolResult, ServiceError> {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = args.as_object().cloned();
    client.call_tool(params).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_lists_calls_and_gets_errors_where_mcp_puts_them() {
    let registry = registry();
    let client =
        connect(McpServer::new(Arc::clone(&registry)).with_cwd(env!("CARGO_MANIFEST_DIR")), TestClient::default())
            .await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, registry.names(), "every tool, in the registry's (sorted) order");
    let countdown = tools.iter().find(|t| t.name == "countdown").unwrap();
    assert_eq!(countdown.title.as_deref(), Some("Count down"));
    let icons = countdown.icons.as_ref().expect("the declared icon");
    assert_eq!(icons[0].src, "https://example.com/icons/countdown.svg?v=2");
    assert_eq!(icons[0].mime_type.as_deref(), Some("image/svg+xml"));
    assert_eq!(countdown.annotations.as_ref().unwrap().read_only_hint, Some(true));
    assert_eq!(countdown.input_schema["properties"]["steps"]["type"], "integer");
    let add_up = tools.iter().find(|t| t.name == "add_up").unwrap();
    assert_eq!(add_up.output_schema.as_ref().unwrap()["properties"]["sum"]["type"], "integer");
    assert!(tools.iter().find(|t| t.name == "read_file").unwrap().output_schema.is_none());
    // Rendered once: listing again gives the same tools.
    assert_eq!(client.list_all_tools().await.unwrap(), tools);

    let read = call(&client, "read_file", json!({"path": "Cargo.toml"})).await.unwrap();
    assert_eq!(read.is_error, Some(false));
    assert!(text_of(&read).contains("[workspace]"));

    let sum = call(&client, "add_up", json!({"numbers": [1, 2, 39]})).await.unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 42})));

    let bad = call(&client, "countdown", json!({"steps": "ten"})).await.unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert!(text_of(&bad).contains("steps"), "{}", text_of(&bad));

    match call(&client, "count_down", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert!(e.message.contains("count_down") && e.message.contains("countdown"), "{}", e.message);
        }
        other => panic!("an unknown tool must be a protocol error, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_goes_to_the_client_that_sent_a_token_and_cancellation_reaches_the_tool() {
    let test_client = TestClient::default();
    let client = connect(McpServer::new(registry()), test_client.clone()).await;
    let done = call(&client, "countdown", json!({"steps": 4})).await.unwrap();
    assert_eq!(text_of(&done), "counted 4");
    // The server sends every report before the result (one task); the client may hand
    // notifications and responses to different tasks, so under load the last report can
    // be handled a moment after the response: wait for it, boundedly.
    let deadline = Instant::now() + Duration::from_secs(5);
    while test_client.progress.lock().unwrap().len() < 4 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let progress = test_client.progress.lock().unwrap().clone();
    let steps: Vec<(f64, Option<f64>, Option<String>)> =
        progress.iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
    assert_eq!(
        steps,
        (1..=4).map(|i| (f64::from(i), Some(4.0), Some(format!("step {i}")))).collect::<Vec<_>>(),
        "every report arrives, in order"
    );

    let request = ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("wait_for_cancel")));
    let handle = client.send_request_with_option(request, PeerRequestOptions::no_options()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!SAW_CANCELLATION.load(Ordering::SeqCst));
    handle.cancel(Some("test".into())).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !SAW_CANCELLATION.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "notifications/cancelled never reached the tool");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The session goes on.
    assert_eq!(text_of(&call(&client, "countdown", json!({"steps": 1})).await.unwrap()), "counted 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_is_sent_when_runtime_tools_change() {
    let registry = registry();
    let test_client = TestClient::default();
    let client = connect(McpServer::new(Arc::clone(&registry)), test_client.clone()).await;
    let before = client.list_all_tools().await.unwrap().len();
    registry.register(common::runtime_tool::Runtime::shared("late_tool")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while test_client.list_changed.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no notifications/tools/list_changed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let after = client.list_all_tools().await.unwrap();
    assert_eq!(after.len(), before + 1);
    assert!(after.iter().any(|t| t.name == "late_tool"));
}

struct AskEverything;
impl PermissionPolicy for AskEverything {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Ask(format!("May {} run?", request.tool))
    }
}

fn asking_server(mode: AskMode) -> McpServer {
    let executor =
        Executor::builder(registry()).policy(AskEverything).approver(toolwright::mcp::approver(mode)).build();
    McpServer::with_executor(Arc::new(executor))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asks_are_denied_or_elicited_as_configured() {
    // Deny mode: no question, a denial that says approval was needed.
    let client =
        connect(asking_server(AskMode::Deny), TestClient { elicit: Some(true), ..TestClient::default() }).await;
    let denied = call(&client, "countdown", json!({"steps": 1})).await.unwrap();
    assert_eq!(denied.is_error, Some(true));
    assert!(text_of(&denied).contains("needs approval"), "{}", text_of(&denied));

    // Elicit mode: the client's user is asked; yes runs the call.
    let yes = TestClient { elicit: Some(true), ..TestClient::default() };
    let client = connect(asking_server(AskMode::Elicit), yes.clone()).await;
    let ran = call(&client, "countdown", json!({"steps": 1})).await.unwrap();
    assert_eq!(text_of(&ran), "counted 1");
    assert!(yes.asked.lock().unwrap()[0].contains("May countdown run?"), "{:?}", yes.asked);

    // ... no denies it.
    let client =
        connect(asking_server(AskMode::Elicit), TestClient { elicit: Some(false), ..TestClient::default() }).await;
    let declined = call(&client, "countdown", json!({"steps": 1})).await.unwrap();
    assert_eq!(declined.is_error, Some(true));
    assert!(text_of(&declined).contains("the user denied this call: the user declined"), "{}", text_of(&declined));

    // ... and dismissing the question is no yes (nor the user's no).
    let dismissing = TestClient { elicit: Some(true), dismiss: true, ..TestClient::default() };
    let client = connect(asking_server(AskMode::Elicit), dismissing).await;
    let dismissed = call(&client, "countdown", json!({"steps": 1})).await.unwrap();
    assert_eq!(dismissed.is_error, Some(true));
    assert!(text_of(&dismissed).contains("dismissed the question"), "{}", text_of(&dismissed));

    // A client without elicitation is not asked.
    let client = connect(asking_server(AskMode::Elicit), TestClient::default()).await;
    let denied = call(&client, "countdown", json!({"steps": 1})).await.unwrap();
    assert!(text_of(&denied).contains("does not support elicitation"), "{}", text_of(&denied));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_server_from_workspace_settings_keeps_their_rules() {
    let (ws, home) = common::workspace();
    let cwd = ws.path().canonicalize().unwrap();
    // Where nothing trusts the workspace, its own grants wait (a warning says so):
    // no acceptEdits, no `Bash(sleep *)`.
    let nobody = tempfile::tempdir().unwrap();
    let untrusted = toolwright::WorkspaceSettings::load_with_home(&cwd, Some(nobody.path())).unwrap();
    let warnings = untrusted.warnings();
    assert!(warnings.len() == 1 && warnings[0].contains("not used until this workspace is trusted"), "{warnings:?}");
    let client = connect(untrusted.mcp_server(registry(), AskMode::Deny), TestClient::default()).await;
    let sleep = call(&client, "shell", json!({"command": "sleep 0"})).await.unwrap();
    assert_eq!(sleep.is_error, Some(true), "{sleep:?}");
    // Claude Code's record in the workspace's home trusts it: they apply.
    let settings = toolwright::WorkspaceSettings::load_with_home(&cwd, Some(home.path())).unwrap();
    assert!(settings.warnings().is_empty(), "{:?}", settings.warnings());
    let server = settings.mcp_server(registry(), AskMode::Deny);
    let client = connect(server, TestClient::default()).await;
    // Allowed by `Bash(echo *)`; an edit by acceptEdits, with the session's read.
    let echo = call(&client, "shell", json!({"command": "echo from the rules"})).await.unwrap();
    assert_eq!(text_of(&echo), "from the rules", "{echo:?}");
    let read = call(&client, "read_file", json!({"path": "hello.txt"})).await.unwrap();
    assert!(text_of(&read).contains("hello from the workspace"));
    let edit = call(&client, "edit_file", json!({"path": "hello.txt", "old_string": "hello", "new_string": "bye"}))
        .await
        .unwrap();
    assert_ne!(edit.is_error, Some(true), "{}", text_of(&edit));
    assert!(std::fs::read_to_string(cwd.join("hello.txt")).unwrap().starts_with("bye"));
    // Not allowed by a rule nor by the mode: it asks, and asks are denied here.
    let init = call(&client, "shell", json!({"command": "git init"})).await.unwrap();
    assert_eq!(init.is_error, Some(true), "{}", text_of(&init));
    assert!(text_of(&init).contains("needs approval"), "{}", text_of(&init));
    assert!(!cwd.join(".git").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_tools_are_served_through_a_search_that_loads_per_client() {
    use toolwright::deferred::{Deferral, TOOL_SEARCH};
    let registry = registry();
    let mut deferred = common::runtime_tool::Runtime {
        spec: toolwright::ToolSpec::runtime("mcp__wiki__page_history", "Show the edit history of a wiki page.", "test"),
    };
    deferred.spec.defer = toolwright::Defer::Always;
    registry.register(Arc::new(deferred)).unwrap();
    let executor = Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let server = McpServer::with_executor(Arc::new(executor)).with_deferral(Deferral::default());
    let test_client = TestClient::default();
    let client = connect(server.for_session(), test_client.clone()).await;
    let other = connect(server.for_session(), TestClient::default()).await;
    let listed = client.list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == TOOL_SEARCH), "the search is listed");
    assert!(!listed.iter().any(|t| t.name == "mcp__wiki__page_history"), "the deferred tool is not");
    let refused = call(&client, "mcp__wiki__page_history", json!({"q": "Home"})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text_of(&refused).contains("not loaded yet"), "{}", text_of(&refused));
    let found = call(&client, TOOL_SEARCH, json!({"query": "who edited the wiki page"})).await.unwrap();
    assert!(text_of(&found).contains("mcp__wiki__page_history"), "{}", text_of(&found));
    let deadline = Instant::now() + Duration::from_secs(5);
    while test_client.list_changed.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "no list_changed after a load");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listed = client.list_all_tools().await.unwrap();
    assert_eq!(listed.last().map(|t| t.name.as_ref()), Some("mcp__wiki__page_history"), "appended last");
    let ran = call(&client, "mcp__wiki__page_history", json!({"q": "Home"})).await.unwrap();
    assert_ne!(ran.is_error, Some(true), "{}", text_of(&ran));
    // The other client's session loaded nothing.
    assert!(!other.list_all_tools().await.unwrap().iter().any(|t| t.name == "mcp__wiki__page_history"));
}

/// An Anthropic response for a recording: one call, or text.
fn recorded(call: Option<(&str, serde_json::Value)>, text: &str) -> String {
    let event = |name: &str, data: serde_json::Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "r",
            "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}}),
    );
    let (block, delta, stop) = match &call {
        Some((name, input)) => (
            json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        None => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": text}), "end_turn"),
    };
    out += &event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": block}));
    out += &event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": delta}));
    out += &event("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
    out += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 3}}),
    );
    out + &event("message_stop", json!({"type": "message_stop"}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_agent_tool_reports_its_childs_calls_as_progress() {
    use toolwright::subagents::{RecordedTree, Subagents};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
    let registry = registry();
    let executor =
        toolwright::Executor::builder(Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let orchestrator = Arc::new(toolwright::orchestrate::Orchestrator::new(Arc::new(executor)));
    let session = format!(
        "--- agent: main\n{}--- agent: read the notes\n{}{}",
        recorded(None, "unused"),
        recorded(Some(("read_file", json!({"path": "notes.txt"}))), ""),
        recorded(None, "The notes say 42."),
    );
    let tree = RecordedTree::parse(&session).unwrap();
    let main: Arc<dyn toolwright::agent::Model> = tree.main();
    let subagents = Subagents::builder(orchestrator, main).models(tree).build();
    subagents.install(&registry).unwrap();
    let test_client = TestClient::default();
    let server = McpServer::new(Arc::clone(&registry))
        .with_cwd(dir.path())
        .with_extensions(move || subagents.extensions(toolwright::builtin::session()));
    let client = connect(server, test_client.clone()).await;
    let done = call(&client, "agent", json!({"description": "read the notes", "prompt": "What do the notes say?"}))
        .await
        .unwrap();
    assert_eq!(done.is_error, Some(false), "{}", text_of(&done));
    assert!(text_of(&done).starts_with("The notes say 42."), "{}", text_of(&done));
    assert_eq!(done.structured_content.as_ref().unwrap()["status"], "completed");
    let deadline = Instant::now() + Duration::from_secs(5);
    while test_client.progress.lock().unwrap().len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let messages: Vec<String> = test_client.progress.lock().unwrap().iter().filter_map(|p| p.message.clone()).collect();
    assert!(messages.iter().any(|m| m.starts_with("general-purpose a") && m.contains("read_file")), "{messages:?}");
    assert!(messages.iter().any(|m| m.ends_with("read notes.txt done")), "{messages:?}");
    client.cancel().await.unwrap();
}
