//! Mounting real MCP servers: the npm reference servers and a Python server that
//! misbehaves on request, called through the pipeline and the orchestrator.

mod common;

use common::peers;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
use toolwright::orchestrate::{CallEvent, Orchestrator};
use toolwright::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::{Content, ErrorKind, Executor, Provider, Registry, ToolCall, TurnContext};

/// Allows everything: these tests are about MCP, not permissions.
struct AllowAll;
impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

fn config(json: serde_json::Value) -> McpConfig {
    McpConfig::parse(&json.to_string(), "test.mcp.json".as_ref()).expect("config")
}

async fn mount(json: serde_json::Value) -> (Arc<Registry>, McpMounts, Executor) {
    let registry = Arc::new(Registry::builder().build().unwrap());
    let mounts = McpMounts::mount(Arc::clone(&registry), &config(json), MountOptions::default()).await;
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    (registry, mounts, executor)
}

fn fault_server(timeout_secs: f64) -> serde_json::Value {
    json!({"mcpServers": {"faulty": {
        "command": peers::python(),
        "args": [peers::peer_script("fault_server.py")],
        "trusted": true,
        "timeout": timeout_secs,
    }}})
}

async fn call(executor: &Executor, name: &str, input: serde_json::Value) -> toolwright::ToolResult {
    let turn = TurnContext::new(".");
    executor.execute(&ToolCall::new(format!("c-{name}"), name, input.to_string()), &turn).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_from_npm_mounts_and_its_tools_run_through_the_pipeline() {
    let (registry, mounts, executor) = mount(
        json!({"mcpServers": {"everything": {"command": peers::npm_bin("mcp-server-everything"), "args": ["stdio"]}}}),
    )
    .await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let names = mounts.tools("everything");
    for expected in ["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"] {
        assert!(names.iter().any(|n| n == expected), "{expected} not in {names:?}");
    }
    assert_eq!(registry.mcp_original("mcp__everything__get-sum"), Some(("everything".into(), "get-sum".into())));

    let echo = call(&executor, "mcp__everything__echo", json!({"message": "hello over MCP"})).await;
    assert!(echo.is_ok(), "{echo:?}");
    assert!(echo.output.text_content().contains("hello over MCP"), "{echo:?}");

    let sum = call(&executor, "mcp__everything__get-sum", json!({"a": 2, "b": 40})).await;
    assert!(sum.output.text_content().contains("42"), "{sum:?}");

    let image = call(&executor, "mcp__everything__get-tiny-image", json!({})).await;
    assert!(
        image
            .output
            .content
            .iter()
            .any(|c| matches!(c, Content::Image { media_type, .. } if media_type == "image/png")),
        "{image:?}"
    );

    // Bad arguments come back as an error result naming the problem, not a hang.
    let bad = call(&executor, "mcp__everything__get-sum", json!({"a": "two"})).await;
    assert!(bad.output.is_error, "{bad:?}");

    // Every provider renders the mounted tools (schemas lowered like native ones).
    for provider in Provider::ALL {
        let defs = registry.definitions(provider).unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert!(defs.as_str().contains("mcp__everything__get-sum"), "{provider}");
    }
    mounts.shutdown().await;
    assert!(registry.names().is_empty(), "shutdown removes the tools: {:?}", registry.names());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_filesystem_from_npm_reads_and_writes_through_the_orchestrator() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "alpha\n").unwrap();
    std::fs::write(root.join("b.txt"), "beta\n").unwrap();
    let (_registry, mounts, executor) = mount(json!({"mcpServers": {"fs": {
        "command": peers::npm_bin("mcp-server-filesystem"), "args": [root], "trusted": true
    }}}))
    .await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let orchestrator = Orchestrator::new(Arc::new(executor));
    let calls = vec![
        ToolCall::new("1", "mcp__fs__read_text_file", json!({"path": root.join("a.txt")}).to_string()),
        ToolCall::new("2", "mcp__fs__read_text_file", json!({"path": root.join("b.txt")}).to_string()),
        ToolCall::new("3", "mcp__fs__write_file", json!({"path": root.join("c.txt"), "content": "gamma"}).to_string()),
        ToolCall::new("4", "mcp__fs__read_text_file", json!({"path": "/etc/passwd"}).to_string()),
    ];
    let mut turn = TurnContext::new(&root);
    let results = orchestrator.run(&calls, &mut turn).await;
    assert!(results[0].output.text_content().contains("alpha"), "{:?}", results[0]);
    assert!(results[1].output.text_content().contains("beta"), "{:?}", results[1]);
    assert!(results[2].is_ok(), "{:?}", results[2]);
    assert_eq!(std::fs::read_to_string(root.join("c.txt")).unwrap(), "gamma");
    // The server refuses paths outside its roots; the model reads why.
    assert!(results[3].output.is_error, "{:?}", results[3]);
    assert!(
        results[3].output.text_content().to_lowercase().contains("denied")
            || results[3].output.text_content().contains("outside"),
        "{:?}",
        results[3]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_schemas_are_skipped_with_a_warning_and_refs_are_lowered() {
    let (registry, mounts, executor) = mount(fault_server(20.0)).await;
    let warnings = mounts.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("`faulty`") && warnings[0].contains("`broken`") && warnings[0].contains("Missing"),
        "{warnings:?}"
    );
    let names = mounts.tools("faulty");
    assert!(!names.iter().any(|n| n.contains("broken")), "{names:?}");
    assert!(names.iter().any(|n| n == "mcp__faulty__refs"), "{names:?}");

    // draft-07 definitions inline for Gemini and OpenAI strict.
    for provider in [Provider::Gemini, Provider::OpenAiChat { strict: true }] {
        let defs = registry.definitions(provider).unwrap();
        let text = defs.as_str();
        assert!(!text.contains("$ref") && !text.contains("\"definitions\":"), "{provider}: {text}");
    }
    let refs = call(&executor, "mcp__faulty__refs", json!({"from": {"x": 0, "y": 0}, "to": {"x": 3, "y": 4}})).await;
    assert_eq!(refs.output.text_content(), "7", "{refs:?}");

    // Annotations from a trusted server become flags; others stay conservative.
    let echo = registry.get("mcp__faulty__echo").unwrap();
    assert!(echo.spec().flags.read_only && echo.spec().flags.concurrency_safe);
    let slow = registry.get("mcp__faulty__slow").unwrap();
    assert!(!slow.spec().flags.read_only && slow.spec().flags.destructive);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_servers_read_only_hints_are_ignored() {
    let mut json = fault_server(20.0);
    json["mcpServers"]["faulty"]["trusted"] = json!(false);
    let (registry, _mounts, _executor) = mount(json).await;
    let echo = registry.get("mcp__faulty__echo").unwrap();
    assert!(!echo.spec().flags.read_only && !echo.spec().flags.concurrency_safe);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_concurrent_calls_to_one_slow_tool_overlap_and_report_progress() {
    let (_registry, _mounts, executor) = mount(fault_server(20.0)).await;
    let (sink, mut reports) = toolwright::ProgressSink::channel(256);
    let turn = TurnContext::new(".").with_progress(sink);
    let started = Instant::now();
    let calls: Vec<ToolCall> =
        (0..5).map(|i| ToolCall::new(format!("s{i}"), "mcp__faulty__slow", r#"{"ms": 1000}"#)).collect();
    let results = futures::future::join_all(calls.iter().map(|c| executor.execute(c, &turn))).await;
    let elapsed = started.elapsed();
    for r in &results {
        assert_eq!(r.output.text_content(), "slept 1000 ms", "{r:?}");
    }
    // Serial would take 5 s; overlapping calls take about one.
    assert!(elapsed < Duration::from_millis(3500), "5 x 1 s calls took {elapsed:?}: not multiplexed");
    drop(turn);
    // rmcp's client may dispatch a progress notification a moment after the response
    // it precedes: wait for the reports, boundedly. (On a loaded host it can also
    // handle the response first and drop the call's last notification: every call
    // must report, and no call more than its 4 steps.)
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut per_call: std::collections::BTreeMap<String, usize> = Default::default();
    while per_call.values().sum::<usize>() < 20 {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, reports.recv()).await {
            Ok(Some(report)) => {
                assert!(report.progress.message.starts_with("step "), "{report:?}");
                *per_call.entry(report.call_id.clone()).or_default() += 1;
            }
            _ => break,
        }
    }
    assert_eq!(per_call.len(), 5, "every call reported progress: {per_call:?}");
    assert!(per_call.values().all(|n| (3..=4).contains(n)), "4 progress reports per call: {per_call:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_is_an_error_result_and_the_next_call_reconnects() {
    let (_registry, _mounts, executor) = mount(fault_server(20.0)).await;
    let crashed = call(&executor, "mcp__faulty__crash", json!({})).await;
    assert!(crashed.output.is_error, "{crashed:?}");
    assert!(crashed.output.text_content().contains("went away during the call"), "{crashed:?}");
    let echo = call(&executor, "mcp__faulty__echo", json!({"text": "back"})).await;
    assert_eq!(echo.output.text_content(), "back", "{echo:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_hits_the_per_call_timeout_and_cancellation_ends_the_call() {
    let (_registry, _mounts, executor) = mount(fault_server(1.0)).await;
    let started = Instant::now();
    let hung = call(&executor, "mcp__faulty__hang", json!({})).await;
    assert_eq!(hung.error, Some(ErrorKind::TimedOut), "{hung:?}");
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // The connection is still good for the next call.
    let echo = call(&executor, "mcp__faulty__echo", json!({"text": "still here"})).await;
    assert_eq!(echo.output.text_content(), "still here", "{echo:?}");

    // Cancelling the turn ends a hanging call promptly.
    let token = tokio_util::sync::CancellationToken::new();
    let turn = TurnContext::new(".").with_cancellation(token.clone());
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    });
    let hung = executor.execute(&ToolCall::new("h", "mcp__faulty__hang", "{}"), &turn).await;
    cancel.await.unwrap();
    assert_eq!(hung.error, Some(ErrorKind::Cancelled), "{hung:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_updates_the_registry() {
    let (registry, _mounts, executor) = mount(fault_server(20.0)).await;
    let mut changes = registry.changes();
    changes.borrow_and_update();
    let added = call(&executor, "mcp__faulty__add_tool", json!({"name": "late_tool"})).await;
    assert!(added.is_ok(), "{added:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !registry.contains("mcp__faulty__late_tool") {
        assert!(Instant::now() < deadline, "late_tool never mounted: {:?}", registry.names());
        let _ = tokio::time::timeout(Duration::from_millis(200), changes.changed()).await;
    }
    let late = call(&executor, "mcp__faulty__late_tool", json!({})).await;
    assert_eq!(late.output.text_content(), "late_tool ran", "{late:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_a_warning_and_the_others_mount() {
    let (_registry, mounts, _executor) = mount(json!({"mcpServers": {
        "missing": {"command": "/nonexistent/mcp-server", "comand": "typo"},
        "faulty": fault_server(20.0)["mcpServers"]["faulty"],
    }}))
    .await;
    let warnings = mounts.warnings();
    assert!(warnings.iter().any(|w| w.contains("`missing`") && w.contains("could not connect")), "{warnings:?}");
    // The config's own warnings come once, not once per server.
    assert_eq!(warnings.iter().filter(|w| w.contains("mcpServers.missing.comand")).count(), 1, "{warnings:?}");
    assert!(mounts.tools("faulty").len() >= 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orchestrator_events_show_mounted_calls() {
    let (_registry, _mounts, executor) = mount(fault_server(20.0)).await;
    let orchestrator = Orchestrator::new(Arc::new(executor));
    let calls = vec![
        ToolCall::new("1", "mcp__faulty__echo", r#"{"text":"a"}"#),
        ToolCall::new("2", "mcp__faulty__echo", r#"{"text":"b"}"#),
    ];
    let mut batches = Vec::new();
    let results = orchestrator
        .run_observed(&calls, &mut TurnContext::new("."), None, |event| {
            if let CallEvent::Batch { calls } = event {
                batches.push(calls.len());
            }
        })
        .await;
    assert_eq!(results.iter().map(|r| r.output.text_content()).collect::<Vec<_>>(), ["a", "b"]);
    // A trusted read-only tool runs both calls in one concurrent batch.
    assert_eq!(batches, [2]);
}

fn raw_server(env: serde_json::Value) -> serde_json::Value {
    json!({"mcpServers": {"raw": {
        "command": peers::python(),
        "args": [peers::peer_script("raw_server.py")],
        "env": env,
        "timeout": 20.0,
    }}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_that_do_not_parse_are_skipped_one_by_one() {
    let start = Instant::now();
    let (registry, mounts, executor) = mount(raw_server(json!({}))).await;
    assert!(start.elapsed() < Duration::from_secs(10), "no wait for a timeout: {:?}", start.elapsed());
    // Icons pass on in MCP's forms only: the plain-http one is dropped.
    let echo = registry.resolve("mcp__raw__echo").unwrap();
    assert_eq!(echo.tool().spec().icons.as_ref(), ["https://example.com/echo.png"]);
    let names = mounts.tools("raw");
    assert_eq!(names, ["mcp__raw__echo", "mcp__raw__measure", "mcp__raw__mute"], "{:?}", mounts.warnings());
    let warnings = mounts.warnings().join("\n");
    for skipped in ["`stringy`", "`deep`"] {
        assert!(warnings.contains(skipped) && warnings.contains("`raw`"), "{skipped}: {warnings}");
    }
    let echoed = call(&executor, "mcp__raw__echo", json!({"text": "still here"})).await;
    assert_eq!(echoed.output.text_content(), "still here", "{echoed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_results_are_held_to_the_servers_output_schema() {
    let (_registry, _mounts, executor) = mount(raw_server(json!({}))).await;
    let good = call(&executor, "mcp__raw__measure", json!({"mode": "good"})).await;
    assert!(!good.output.is_error, "{good:?}");
    assert_eq!(good.output.structured, Some(json!({"celsius": 21.5})));
    for (mode, says) in [("wrong", "does not fit"), ("missing", "returned no structuredContent")] {
        let bad = call(&executor, "mcp__raw__measure", json!({"mode": mode})).await;
        assert!(bad.output.is_error, "{mode}: {bad:?}");
        let text = bad.output.text_content();
        assert!(text.contains("`measure`") && text.contains(says), "{mode}: {text}");
        // What the server sent is still there, after the note.
        assert!(text.lines().count() >= 2, "{mode}: {text}");
    }
    let wrong = call(&executor, "mcp__raw__measure", json!({"mode": "wrong"})).await;
    assert!(wrong.output.text_content().contains("celsius"), "the path is named: {}", wrong.output.text_content());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_unusable_tool_the_sdk_reads_as_an_unknown_result_is_skipped_alone() {
    // Without `deep` the list parses whole, as an unknown result: the good tool must
    // still be mounted.
    let (_registry, mounts, executor) = mount(raw_server(json!({"RAW_ONLY_STRINGY": "1"}))).await;
    assert_eq!(mounts.tools("raw"), ["mcp__raw__echo"], "{:?}", mounts.warnings());
    assert!(mounts.warnings().join("\n").contains("`stringy`"), "{:?}", mounts.warnings());
    let echoed = call(&executor, "mcp__raw__echo", json!({"text": "mounted"})).await;
    assert_eq!(echoed.output.text_content(), "mounted", "{echoed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_answers_nothing_any_more_is_restarted() {
    let mut config = raw_server(json!({"RAW_DEAF_AFTER": "1"}));
    config["mcpServers"]["raw"]["timeout"] = json!(1.0);
    let (_registry, mounts, executor) = mount(config).await;
    assert_eq!(call(&executor, "mcp__raw__echo", json!({"text": "one"})).await.output.text_content(), "one");
    // It reads nothing now, though its pipe is far from full.
    let stuck = call(&executor, "mcp__raw__echo", json!({"text": "two"})).await;
    assert!(stuck.output.is_error, "{:?}", stuck.output.text_content());
    assert!(stuck.output.text_content().contains("timed out after 1s"), "{:?}", stuck.output.text_content());
    // Its ping goes unanswered too: the next call, made at once, waits for that
    // verdict, and is answered by a fresh server (which goes deaf after one call
    // again, as this peer does).
    let again = call(&executor, "mcp__raw__echo", json!({"text": "back"})).await;
    assert_eq!(again.output.text_content(), "back", "the call after the timeout met the wedged server");
    assert!(mounts.warnings().join("\n").contains("not even a ping"), "{:?}", mounts.warnings());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_reading_is_restarted() {
    let registry = Arc::new(Registry::builder().build().unwrap());
    let options = MountOptions::default().write_timeout(Duration::from_millis(500));
    let mounts = McpMounts::mount(Arc::clone(&registry), &config(raw_server(json!({}))), options).await;
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    assert_eq!(call(&executor, "mcp__raw__mute", json!({})).await.output.text_content(), "muted");
    // It reads no more: a call larger than the pipe's buffer cannot be written.
    let big = "x".repeat(1 << 20);
    let start = Instant::now();
    let stuck = call(&executor, "mcp__raw__echo", json!({ "text": big })).await;
    assert!(stuck.output.is_error, "{:?}", stuck.output.text_content());
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(stuck.output.text_content().contains("went away"), "{}", stuck.output.text_content());
    // The next call starts it again.
    let again = call(&executor, "mcp__raw__echo", json!({"text": "back"})).await;
    assert_eq!(again.output.text_content(), "back", "{again:?}");
    drop(mounts);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_mounted_with_defer_tools_is_found_through_the_search() {
    use toolwright::deferred::{Budget, Deferral, TOOL_SEARCH, ToolSession};
    let (registry, mounts, executor) = mount(json!({"mcpServers": {
        "everything": {"command": peers::npm_bin("mcp-server-everything"), "args": ["stdio"], "deferTools": "always"}
    }}))
    .await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    session.install(&registry).unwrap();
    let mut extensions = toolwright::Extensions::new();
    extensions.insert(session.clone());
    let turn = TurnContext::new(".").with_extensions(extensions);
    let pool = registry.pool(&turn, &toolwright::Profile::main_agent(), &[]);
    let deferred: Vec<&str> = pool.deferred_names().collect();
    assert!(deferred.contains(&"mcp__everything__get-sum"), "{deferred:?}");
    assert_eq!(pool.names().collect::<Vec<_>>(), [TOOL_SEARCH], "only the search is sent");
    let sum = ToolCall::new("s1", "mcp__everything__get-sum", json!({"a": 2, "b": 3}).to_string());
    let refused = executor.execute_in(&pool, &sum, &turn).await;
    assert!(refused.output.text_content().contains("not loaded yet"), "{}", refused.output.text_content());
    let search = ToolCall::new("q1", TOOL_SEARCH, json!({"query": "add two numbers together", "limit": 2}).to_string());
    let found = executor.execute_in(&pool, &search, &turn).await;
    assert!(session.loaded().iter().any(|n| n == "mcp__everything__get-sum"), "{}", found.output.text_content());
    let result = executor.execute_in(&pool, &sum, &turn).await;
    assert!(result.error.is_none() && result.output.text_content().contains('5'), "{}", result.output.text_content());
    mounts.shutdown().await;
}
