//! Every call gets an `execute_tool {tool}` span in the OpenTelemetry GenAI
//! conventions, with its hooks, permission decision and approval wait as children,
//! and its arguments and result only when content capture is on.
#![allow(missing_docs)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Say yes.
#[tool(read_only, pure)]
pub struct Yes {}
impl Tool for Yes {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("yes")
    }
}

/// Touch something, without saying what.
#[tool]
pub struct Touch {}
impl Tool for Touch {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("touched")
    }
}

/// Fail, always.
#[tool(read_only, pure)]
pub struct Fail {}
impl Tool for Fail {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Err(ToolError::msg("it broke"))
    }
}

/// A span's name, its fields and its parent (index + 1).
type SpanRecord = (String, HashMap<String, String>, Option<u64>);

/// Spans by id (index + 1), warning events' fields, and the spans entered.
#[derive(Default, Clone)]
struct Recorder(
    Arc<Mutex<Vec<SpanRecord>>>,
    Arc<Mutex<Vec<HashMap<String, String>>>>,
    Arc<Mutex<Vec<u64>>>,
    /// The duration metric's events.
    Arc<Mutex<Vec<HashMap<String, String>>>>,
);

struct Fields<'a>(&'a mut HashMap<String, String>);
impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut spans = self.0.lock().unwrap();
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = match attrs.parent() {
            Some(id) => Some(id.into_u64()),
            None if attrs.is_contextual() => self.2.lock().unwrap().last().copied(),
            None => None,
        };
        spans.push((attrs.metadata().name().to_owned(), fields, parent));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.0.lock().unwrap();
        values.record(&mut Fields(&mut spans[span.into_u64() as usize - 1].1));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        if event.metadata().fields().field("histogram.gen_ai.client.operation.duration").is_some() {
            let mut fields = HashMap::new();
            event.record(&mut Fields(&mut fields));
            self.3.lock().unwrap().push(fields);
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut fields = HashMap::new();
            event.record(&mut Fields(&mut fields));
            self.1.lock().unwrap().push(fields);
        }
    }
    fn enter(&self, id: &Id) {
        self.2.lock().unwrap().push(id.into_u64());
    }
    fn exit(&self, _: &Id) {
        self.2.lock().unwrap().pop();
    }
}

#[test]
fn each_call_has_an_execute_tool_span_in_the_genai_conventions() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ex = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    rt.block_on(async {
        ex.execute(&ToolCall::new("c1", "yes", "{}"), &TurnContext::new(".")).await;
        ex.execute(&ToolCall::new("c2", "nope", "{}"), &TurnContext::new(".")).await;
    });
    let spans = recorder.0.lock().unwrap();
    let calls: Vec<_> = spans.iter().filter(|(name, ..)| name == "execute_tool").map(|(_, f, _)| f).collect();
    assert_eq!(calls.len(), 2);
    let yes = calls[0];
    assert_eq!(yes["otel.name"], "execute_tool yes");
    assert_eq!(yes["otel.kind"], "internal");
    assert_eq!(yes["gen_ai.operation.name"], "execute_tool");
    assert_eq!(yes["gen_ai.tool.name"], "yes");
    assert_eq!(yes["gen_ai.tool.call.id"], "c1");
    assert_eq!(yes["gen_ai.tool.type"], "function");
    assert_eq!(yes["gen_ai.tool.description"], "Say yes.");
    assert!(!yes.contains_key("error.type") && !yes.contains_key("gen_ai.tool.call.arguments"), "{yes:?}");
    let nope = calls[1];
    assert_eq!((nope["gen_ai.tool.name"].as_str(), nope["error.type"].as_str()), ("nope", "unknown_tool"));
    assert_eq!(nope["otel.status_code"], "ERROR");
}

/// Asks about everything.
struct AskAll;
impl toolwright::permission::PermissionPolicy for AskAll {
    fn check(&self, _: &toolwright::permission::PermissionRequest<'_>) -> toolwright::permission::PermissionDecision {
        toolwright::permission::PermissionDecision::Ask("May it?".into())
    }
}

/// Says yes.
struct Approve;
impl toolwright::permission::Approver for Approve {
    fn approve<'a>(
        &'a self,
        _: &'a toolwright::permission::PermissionRequest<'a>,
        _: &'a str,
    ) -> toolwright::BoxFuture<'a, toolwright::permission::Approval> {
        Box::pin(async { toolwright::permission::Approval::AllowOnce })
    }
}

/// A hook that lets everything by.
struct Pass;
impl toolwright::hooks::PreToolHook for Pass {
    fn name(&self) -> &str {
        "pass"
    }
    fn before<'a>(
        &'a self,
        _: &'a toolwright::hooks::HookCall<'a>,
    ) -> toolwright::BoxFuture<'a, Result<toolwright::hooks::PreToolOutcome, String>> {
        Box::pin(async { Ok(toolwright::hooks::PreToolOutcome::default()) })
    }
}

#[test]
fn hooks_the_decision_and_the_approval_wait_are_children_and_content_is_opt_in() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ex = Executor::builder(Arc::new(toolwright::registry().unwrap()))
        .policy(AskAll)
        .approver(Approve)
        .pre_hook(Pass)
        .capture_content(true)
        .build();
    let result = rt.block_on(ex.execute(&ToolCall::new("c1", "yes", "{}"), &TurnContext::new(".")));
    assert!(result.is_ok(), "{result:?}");
    let spans = recorder.0.lock().unwrap();
    let index = |name: &str| spans.iter().position(|(n, ..)| n == name).unwrap_or_else(|| panic!("no {name} span"));
    let call = index("execute_tool") as u64 + 1;
    for child in ["hook", "permission"] {
        assert_eq!(spans[index(child)].2, Some(call), "{child} is the call's child");
    }
    let permission = index("permission") as u64 + 1;
    assert_eq!(spans[index("approval")].2, Some(permission), "the wait is the decision's child");
    assert_eq!(spans[index("hook")].1["otel.name"], "hook PreToolUse pass");
    assert_eq!(spans[index("permission")].1["toolwright.permission.decision"], "allowed when asked");
    assert_eq!(spans[index("approval")].1["toolwright.approval.answer"], "allow once");
    let fields = &spans[index("execute_tool")].1;
    assert_eq!(fields["gen_ai.tool.call.arguments"], "{}");
    assert_eq!(fields["gen_ai.tool.call.result"], "yes");
}

#[test]
fn a_call_denied_for_want_of_an_approver_tells_the_developer_once_with_the_fixes() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = toolwright::Registry::builder().register::<Touch>().register::<Yes>().build().unwrap();
    let ex = Executor::new(Arc::new(registry));
    let results = rt.block_on(async {
        let a = ex.execute(&ToolCall::new("c1", "touch", "{}"), &TurnContext::new(".")).await;
        let b = ex.execute(&ToolCall::new("c2", "touch", "{}"), &TurnContext::new(".")).await;
        let c = ex.execute(&ToolCall::new("c3", "yes", "{}"), &TurnContext::new(".")).await;
        [a, b, c]
    });
    assert!(!results[0].is_ok() && !results[1].is_ok() && results[2].is_ok());
    // The model's message names no developer fix; the developer gets one warning.
    assert!(results[0].output.text_content().contains("no one is there to approve it"));
    let warnings = recorder.1.lock().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let message = &warnings[0]["message"];
    for fix in ["`pure`", "#[access(read)]", "ExecutorBuilder::approver"] {
        assert!(message.contains(fix), "{message}");
    }
    assert_eq!(warnings[0]["tool"], "touch");
}

#[path = "common/http.rs"]
#[allow(dead_code)]
mod http;
#[path = "common/scripted.rs"]
mod scripted;

#[test]
fn an_agent_run_nests_its_requests_its_calls_and_its_subagents() {
    use scripted::{Reply, sse};
    use serde_json::json;
    use toolwright::subagents::{RecordedTree, Subagents};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
    let session = format!(
        "--- agent: main\n{}{}--- agent: read the notes\n{}{}",
        sse(&Reply::calls(vec![("agent", json!({"description": "read the notes", "prompt": "What do they say?"}))])),
        sse(&Reply::text("They say 42.")),
        sse(&Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))])),
        sse(&Reply::text("The notes say 42.")),
    );
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let outcome = rt.block_on(async {
        let registry = Arc::new(toolwright::registry().unwrap());
        let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
        let orchestrator = Arc::new(toolwright::orchestrate::Orchestrator::new(Arc::new(executor)));
        let tree = RecordedTree::parse(&session).unwrap();
        let main: Arc<dyn toolwright::agent::Model> = tree.main();
        let subagents = Subagents::builder(Arc::clone(&orchestrator), Arc::clone(&main)).models(tree).build();
        subagents.install(&registry).unwrap();
        let mut turn =
            TurnContext::new(dir.path()).with_extensions(subagents.extensions(toolwright::builtin::session()));
        let agent = toolwright::agent::Agent::new_shared(main, orchestrator);
        agent.run("Read the notes through a subagent.", &mut turn, &mut ()).await
    });
    let outcome = outcome.unwrap();
    assert_eq!(outcome.text, "They say 42.");
    let spans = recorder.0.lock().unwrap();
    let named = |name: &str, key: &str, value: &str| -> Vec<u64> {
        (0..spans.len())
            .filter(|&i| spans[i].0 == name && spans[i].1.get(key).is_some_and(|v| v == value))
            .map(|i| i as u64 + 1)
            .collect()
    };
    let parent = |id: u64| spans[id as usize - 1].2;
    let main = named("invoke_agent", "gen_ai.agent.name", "main");
    assert_eq!(main.len(), 1, "{:?}", spans.iter().map(|s| &s.0).collect::<Vec<_>>());
    let main = main[0];
    assert_eq!(parent(main), None, "the run is the root");
    assert_eq!(spans[main as usize - 1].1["gen_ai.usage.output_tokens"], "20");
    let chats = named("chat", "gen_ai.operation.name", "chat");
    assert_eq!(chats.len(), 4, "two requests each");
    assert_eq!(chats.iter().filter(|&&c| parent(c) == Some(main)).count(), 2);
    let chat = &spans[chats[0] as usize - 1].1;
    assert_eq!(chat["gen_ai.provider.name"], "anthropic");
    assert_eq!(chat["gen_ai.usage.input_tokens"], "100");
    assert_eq!(chat["gen_ai.response.finish_reasons"], "[\"tool_use\"]");
    // The subagent's run is under the call that started it; its call under its run.
    let call = named("execute_tool", "gen_ai.tool.name", "agent");
    assert_eq!(call.len(), 1);
    assert_eq!(parent(call[0]), Some(main), "calls are the agent's, not the request's");
    let child = (1..=spans.len() as u64)
        .find(|&i| spans[i as usize - 1].0 == "invoke_agent" && i != main)
        .expect("the subagent's run");
    assert_eq!(parent(child), Some(call[0]));
    let read = named("execute_tool", "gen_ai.tool.name", "read_file");
    assert_eq!(read.len(), 1);
    assert_eq!(parent(read[0]), Some(child));
}

#[test]
fn a_request_to_a_model_server_names_its_address_and_port() {
    use scripted::Reply;
    let (url, _log) = scripted::serve(|_| Reply::text("Hello."));
    let port = url.rsplit(':').next().unwrap().to_owned();
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let outcome = rt.block_on(async {
        let registry = Arc::new(toolwright::registry().unwrap());
        let executor = Executor::builder(registry).policy(AllowAll).build();
        let orchestrator = toolwright::orchestrate::Orchestrator::new(Arc::new(executor));
        let model = toolwright::agent::HttpModel::new(toolwright::provider::Api::Anthropic, "test-key", "test-model")
            .with_base_url(&url);
        let agent = toolwright::agent::Agent::new(model, orchestrator);
        let mut turn = TurnContext::new(".");
        agent.run("Say hello.", &mut turn, &mut ()).await
    });
    assert_eq!(outcome.unwrap().text, "Hello.");
    let spans = recorder.0.lock().unwrap();
    let chat = spans.iter().find(|s| s.0 == "chat").expect("a chat span");
    assert_eq!(chat.1.get("server.address").map(String::as_str), Some("127.0.0.1"), "{:?}", chat.1);
    assert_eq!(chat.1.get("server.port"), Some(&port), "{:?}", chat.1);
}

#[test]
fn arguments_are_recorded_for_every_call_and_results_only_for_successes() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ex =
        Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).capture_content(true).build();
    let calls = [
        ToolCall::new("c1", "fail", "{}"),
        ToolCall::new("c2", "nope", r#"{"x": 1}"#),
        ToolCall::new("c3", "yes", "{not json"),
        ToolCall::new("c4", "yes", "{}"),
        ToolCall::new("c5", "Read", r#"{"file_path": "Cargo.toml"}"#),
    ];
    rt.block_on(async {
        for call in &calls {
            ex.execute(call, &TurnContext::new(".")).await;
        }
    });
    let spans = recorder.0.lock().unwrap();
    let by_id = |id: &str| {
        spans
            .iter()
            .find(|(name, f, _)| name == "execute_tool" && f["gen_ai.tool.call.id"] == id)
            .map(|(_, f, _)| f.clone())
            .unwrap()
    };
    // A failed call: its error, no result.
    let fail = by_id("c1");
    assert_eq!(fail["error.type"], "failed");
    assert!(!fail.contains_key("gen_ai.tool.call.result"), "{fail:?}");
    assert_eq!(fail["gen_ai.tool.call.arguments"], "{}");
    // An unknown tool and input that does not parse: the arguments as sent.
    assert_eq!(by_id("c2")["gen_ai.tool.call.arguments"], r#"{"x": 1}"#);
    let bad = by_id("c3");
    assert_eq!(bad["gen_ai.tool.call.arguments"], "{not json");
    assert!(!bad.contains_key("gen_ai.tool.call.result"), "{bad:?}");
    assert_eq!(by_id("c4")["gen_ai.tool.call.result"], "yes");
    // The duration metric names each tool as its span does (an alias as called).
    let metrics = recorder.3.lock().unwrap();
    assert_eq!(metrics.len(), calls.len());
    for (call, metric) in calls.iter().zip(metrics.iter()) {
        assert_eq!(metric["gen_ai.tool.name"], by_id(&call.id)["gen_ai.tool.name"], "{metric:?}");
    }
    assert_eq!(metrics[4]["gen_ai.tool.name"], "Read");
}

#[test]
fn chat_spans_carry_the_cache_tokens_and_a_cancelled_run_is_not_ok() {
    use scripted::{Reply, sse};
    // The scripted reply with Anthropic's cache counts in `message_start`.
    let reply = sse(&Reply::text("Done.")).replacen(
        "\"output_tokens\":1",
        "\"output_tokens\":1,\"cache_read_input_tokens\":300,\"cache_creation_input_tokens\":40",
        1,
    );
    assert!(reply.contains("cache_read_input_tokens"), "{reply}");
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (finished, cancelled) = rt.block_on(async {
        let registry = Arc::new(toolwright::registry().unwrap());
        let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
        let orchestrator = Arc::new(toolwright::orchestrate::Orchestrator::new(Arc::new(executor)));
        let model = toolwright::agent::RecordedModel::from_session(&format!("{reply}{reply}")).unwrap();
        let agent = toolwright::agent::Agent::new(model, orchestrator);
        let finished = agent.run("Do it.", &mut TurnContext::new(dir.path()), &mut ()).await.unwrap();
        // Stopped from outside (as a signal stops the CLI's run).
        let mut turn = TurnContext::new(dir.path());
        turn.cancellation().cancel();
        let cancelled = agent.run("Do it again.", &mut turn, &mut ()).await.unwrap();
        (finished, cancelled)
    });
    assert_eq!(finished.stop, toolwright::agent::Stop::Finished { reason: Some("end_turn".into()) });
    assert_eq!(cancelled.stop, toolwright::agent::Stop::Cancelled);
    let spans = recorder.0.lock().unwrap();
    let chat = spans.iter().find(|(name, ..)| name == "chat").map(|(_, f, _)| f).unwrap();
    assert_eq!(chat["gen_ai.usage.cache_read.input_tokens"], "300", "{chat:?}");
    assert_eq!(chat["gen_ai.usage.cache_creation.input_tokens"], "40", "{chat:?}");
    let runs: Vec<_> = spans.iter().filter(|(name, ..)| name == "invoke_agent").map(|(_, f, _)| f).collect();
    assert_eq!(runs.len(), 2);
    assert!(!runs[0].contains_key("error.type"), "{:?}", runs[0]);
    assert_eq!(runs[1]["error.type"], "cancelled");
    assert_eq!(runs[1]["otel.status_code"], "ERROR");
}

#[test]
fn a_chat_span_counts_the_providers_own_searches_not_their_queries() {
    use scripted::{Block, Reply, sse};
    use serde_json::json;
    let results = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
        {"type": "web_search_result", "url": "https://a.example/1", "title": "One", "encrypted_content": "x"},
        {"type": "web_search_result", "url": "https://a.example/2", "title": "Two", "encrypted_content": "y"}
    ]});
    let reply = Reply {
        blocks: vec![
            Block::Raw(
                json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "secret plans"}}),
                vec![],
            ),
            Block::Raw(results, vec![]),
            Block::Text("Found two.".into()),
        ],
        ..Reply::text("")
    };
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let registry = Arc::new(toolwright::registry().unwrap());
        let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
        let orchestrator = Arc::new(toolwright::orchestrate::Orchestrator::new(Arc::new(executor)));
        let model = toolwright::agent::RecordedModel::from_session(&sse(&reply)).unwrap();
        let agent = toolwright::agent::Agent::new(model, orchestrator);
        struct Seen(usize);
        impl toolwright::agent::AgentObserver for Seen {
            fn server_tool(&mut self, _event: &toolwright::provider::server_tools::ServerToolEvent) {
                self.0 += 1;
            }
        }
        let mut seen = Seen(0);
        let outcome = agent.run("Search.", &mut TurnContext::new(dir.path()), &mut seen).await.unwrap();
        assert_eq!(seen.0, 2, "{:?}", outcome.conversation.items());
    });
    let spans = recorder.0.lock().unwrap();
    let chat = spans.iter().find(|(name, ..)| name == "chat").map(|(_, f, _)| f).unwrap();
    assert_eq!(chat.get("toolwright.server_tool.uses").map(String::as_str), Some("1"), "{chat:?}");
    assert_eq!(chat["toolwright.server_tool.results"], "2", "{chat:?}");
    assert!(!format!("{spans:?}").contains("secret plans"));
}
