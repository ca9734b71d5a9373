//! `toolwright::agent` against model servers on 127.0.0.1 that misbehave on
//! purpose: throttling with `retry-after`, overloads, refused connections, streams
//! cut before and inside a call, errors streamed mid-response. Real TCP, the real
//! HTTP client, the real built-in tools in a temp dir.

use serde_json::{Value, json};
mod common;

use common::http::{Seen, read_request};
use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolwright::agent::{Agent, AgentError, AgentObserver, HttpModel, ModelError, RetryPolicy, Stop};
use toolwright::orchestrate::Orchestrator;
use toolwright::permission::AllowAll;
use toolwright::provider::Api;
use toolwright::{Executor, TurnContext};

/// What the server does with one request.
enum Reply {
    /// A status, headers and a whole body.
    Status(u16, Vec<(&'static str, String)>, String),
    /// 200 and an event stream, in chunks.
    Stream(String),
    /// 200 and the start of an event stream, then the connection closes mid-body.
    Cut(String),
}

/// Answers each request with the next reply; records what was asked.
fn server(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (reply, stream) in replies.into_iter().zip(listener.incoming()) {
            let mut stream = stream.unwrap();
            log.lock().unwrap().push(read_request(&stream));
            let _ = match reply {
                Reply::Status(status, extra, body) => {
                    let mut head = format!(
                        "HTTP/1.1 {status} Whatever\r\ncontent-length: {}\r\nconnection: close\r\n",
                        body.len()
                    );
                    for (name, value) in extra {
                        head.push_str(&format!("{name}: {value}\r\n"));
                    }
                    stream.write_all(format!("{head}\r\n{body}").as_bytes())
                }
                Reply::Stream(body) => chunked(&mut stream, &body, true),
                Reply::Cut(body) => chunked(&mut stream, &body, false),
            };
        }
    });
    (url, seen)
}

/// An event stream in chunked encoding; without the last chunk when `complete` is
/// false, so the client sees the connection close mid-body.
fn chunked(stream: &mut std::net::TcpStream, body: &str, complete: bool) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n")?;
    for piece in body.as_bytes().chunks(61) {
        stream.write_all(format!("{:x}\r\n", piece.len()).as_bytes())?;
        stream.write_all(piece)?;
        stream.write_all(b"\r\n")?;
        stream.flush()?;
        std::thread::sleep(Duration::from_millis(1));
    }
    if complete {
        stream.write_all(b"0\r\n\r\n")?;
    }
    stream.flush()
}

fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("message"))).collect()
}

/// An Anthropic response that only says `text`.
fn anthropic_text(text: &str) -> String {
    sse(&[
        json!({"type": "message_start", "message": {"id": "msg", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        json!({"type": "message_stop"}),
    ])
}

fn tool_use_start(index: usize, id: &str, name: &str) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
}

fn input_delta(index: usize, json: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": json}})
}

#[derive(Default)]
struct Log {
    retries: Vec<(usize, Duration, String)>,
    interrupted: Vec<String>,
    text: String,
}

impl AgentObserver for Log {
    fn text(&mut self, text: &str) {
        self.text.push_str(text);
    }
    fn retrying(&mut self, attempt: usize, wait: Duration, error: &ModelError) {
        self.retries.push((attempt, wait, error.to_string()));
    }
    fn interrupted(&mut self, error: &ModelError) {
        self.interrupted.push(error.to_string());
    }
}

fn agent(api: Api, url: &str, retry: RetryPolicy) -> Agent {
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor = Executor::builder(registry).policy(AllowAll).build();
    let model = HttpModel::new(api, "test-key", "test-model").with_base_url(url);
    Agent::new(model, Orchestrator::new(Arc::new(executor))).system("Be brief.").retry(retry)
}

fn quick() -> RetryPolicy {
    RetryPolicy::default().delays(Duration::from_millis(5), Duration::from_millis(20)).without_jitter()
}

async fn run(agent: &Agent, dir: &std::path::Path, log: &mut Log) -> Result<toolwright::agent::Outcome, AgentError> {
    let mut turn = TurnContext::new(dir).with_extensions(toolwright::builtin::session());
    agent.run("Do the task.", &mut turn, log).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_waits_that_long_and_asks_again() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = server(vec![
        Reply::Status(
            429,
            vec![("retry-after", "1".into()), ("content-type", "application/json".into())],
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"}}).to_string(),
        ),
        Reply::Stream(anthropic_text("Done.")),
    ]);
    let mut log = Log::default();
    let started = Instant::now();
    let outcome = run(&agent(Api::Anthropic, &url, RetryPolicy::default()), dir.path(), &mut log).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1), "waited only {:?}", started.elapsed());
    assert_eq!(outcome.stop, Stop::Finished { reason: Some("end_turn".into()) });
    assert_eq!(outcome.text, "Done.");
    assert_eq!(log.retries.len(), 1, "{:?}", log.retries);
    let (attempt, wait, error) = &log.retries[0];
    assert_eq!((*attempt, *wait), (1, Duration::from_secs(1)), "the API's wait, not the policy's");
    assert!(error.contains("429") && error.contains("exceeded your rate limit"), "{error}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    // The same request both times, with Anthropic's headers.
    assert_eq!(seen[0].body, seen[1].body);
    assert_eq!(seen[0].path, "/v1/messages");
    assert!(seen[0].headers.contains(&"x-api-key: test-key".to_owned()), "{:?}", seen[0].headers);
    assert!(seen[0].headers.contains(&"anthropic-version: 2023-06-01".to_owned()), "{:?}", seen[0].headers);
    assert_eq!(seen[0].body["stream"], true);
    assert_eq!(seen[0].body["system"], "Be brief.");
    // The conversation's end is a prompt-cache breakpoint, as the tools' last is.
    let task = json!({"type": "text", "text": "Do the task.", "cache_control": {"type": "ephemeral"}});
    assert_eq!(seen[0].body["messages"], json!([{"role": "user", "content": [task]}]));
    assert!(seen[0].body["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == "read_file")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overloads_and_server_errors_back_off_then_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let (url, seen) = server(vec![
        Reply::Status(529, vec![], overloaded.to_string()),
        Reply::Status(500, vec![], "upstream broke".into()),
        // An overload streamed after a 200, before anything else.
        Reply::Stream(sse(&[json!({"type": "message_start", "message": {}}), overloaded.clone()])),
        Reply::Stream(anthropic_text("Fine now.")),
    ]);
    let mut log = Log::default();
    let outcome = run(&agent(Api::Anthropic, &url, quick()), dir.path(), &mut log).await.unwrap();
    assert_eq!(outcome.text, "Fine now.");
    let waits: Vec<Duration> = log.retries.iter().map(|r| r.1).collect();
    assert_eq!(waits, [Duration::from_millis(5), Duration::from_millis(10), Duration::from_millis(20)]);
    assert!(log.retries[0].2.contains("529: Overloaded"), "{:?}", log.retries);
    assert!(log.retries[1].2.contains("500: upstream broke"), "{:?}", log.retries);
    assert!(log.retries[2].2.contains("streamed an error: Overloaded"), "{:?}", log.retries);
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_says_why_down_to_the_os() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let mut log = Log::default();
    let error = run(&agent(Api::OpenAiChat, &url, RetryPolicy::none()), dir.path(), &mut log).await.unwrap_err();
    let text = error.to_string();
    assert!(text.contains(&format!("{url}/chat/completions")), "{text}");
    assert!(text.contains("Connection refused"), "the cause is named: {text}");
    assert!(matches!(error, AgentError::Model { attempts: 1, .. }), "{error:?}");
    // With retries, each attempt is reported and the error says how many there were.
    let error = run(&agent(Api::OpenAiChat, &url, quick().max_retries(2)), dir.path(), &mut log).await.unwrap_err();
    assert!(error.to_string().ends_with("(gave up after 3 attempts)"), "{error}");
    assert_eq!(log.retries.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_request_is_not_retried_and_the_conversation_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = server(vec![Reply::Status(
        400,
        vec![],
        json!({"error": {"message": "tools.0.name: bad", "type": "invalid_request_error"}}).to_string(),
    )]);
    let mut log = Log::default();
    let error = run(&agent(Api::Anthropic, &url, quick()), dir.path(), &mut log).await.unwrap_err();
    assert!(error.to_string().contains("answered 400: tools.0.name: bad"), "{error}");
    let AgentError::Model { attempts, conversation, .. } = error else { panic!("{error:?}") };
    assert_eq!(attempts, 1);
    assert_eq!(conversation.items(), [json!({"role": "user", "content": "Do the task."})]);
    assert!(log.retries.is_empty());
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_before_any_call_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let start = sse(&[
        json!({"type": "message_start", "message": {}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me"}}),
    ]);
    let (url, seen) = server(vec![Reply::Cut(start), Reply::Stream(anthropic_text("All done."))]);
    let mut log = Log::default();
    let outcome = run(&agent(Api::Anthropic, &url, quick()), dir.path(), &mut log).await.unwrap();
    assert_eq!(outcome.text, "All done.");
    assert_eq!(log.retries.len(), 1);
    assert!(log.retries[0].2.contains("cut off"), "{:?}", log.retries);
    // Nothing of the cut response went into the conversation.
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].body, seen[1].body);
    assert_eq!(outcome.conversation.items().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_inside_a_call_never_runs_it_and_the_model_hears_of_both_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    let cut = sse(&[
        json!({"type": "message_start", "message": {}}),
        tool_use_start(0, "toolu_read", "read_file"),
        input_delta(0, r#"{"path": "notes.txt"}"#),
        json!({"type": "content_block_stop", "index": 0}),
        tool_use_start(1, "toolu_write", "write_file"),
        input_delta(1, r#"{"path": "out.txt", "content": "half of wh"#),
    ]);
    let (url, seen) = server(vec![Reply::Cut(cut), Reply::Stream(anthropic_text("I will try again later."))]);
    let mut log = Log::default();
    let outcome = run(&agent(Api::Anthropic, &url, quick()), dir.path(), &mut log).await.unwrap();
    assert!(!dir.path().join("out.txt").exists(), "a call whose input was cut must not run");
    assert_eq!(log.interrupted.len(), 1, "{:?}", log.interrupted);
    assert!(log.retries.is_empty(), "a read ran: the response is kept, not repeated");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let messages = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    let assistant = &messages[1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"][0]["input"], json!({"path": "notes.txt"}));
    assert_eq!(assistant["content"][1]["id"], "toolu_write");
    assert_eq!(assistant["content"][1]["input"], json!({}), "a cut input is sent back as an object");
    let results = messages[2]["content"].as_array().unwrap();
    assert_eq!(results[0]["tool_use_id"], "toolu_read");
    assert!(results[0]["content"].to_string().contains("remember the milk"), "{results:?}");
    assert!(results[0].get("is_error").is_none());
    assert_eq!(results[1]["tool_use_id"], "toolu_write");
    assert_eq!(results[1]["is_error"], true);
    assert_eq!(outcome.stop, Stop::Finished { reason: Some("end_turn".into()) });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_run_out_with_the_last_answer_named() {
    let dir = tempfile::tempdir().unwrap();
    let busy = || Reply::Status(503, vec![], json!({"error": {"message": "Service Unavailable"}}).to_string());
    let (url, seen) = server(vec![busy(), busy(), busy(), busy()]);
    let mut log = Log::default();
    let error =
        run(&agent(Api::OpenAiResponses, &url, quick().max_retries(2)), dir.path(), &mut log).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{url}/responses answered 503: Service Unavailable (gave up after 3 attempts)")
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_longer_than_the_policy_allows_is_not_waited() {
    let dir = tempfile::tempdir().unwrap();
    let (url, seen) = server(vec![Reply::Status(429, vec![("retry-after", "3600".into())], "{}".into())]);
    let mut log = Log::default();
    let started = Instant::now();
    let error = run(&agent(Api::Anthropic, &url, RetryPolicy::default()), dir.path(), &mut log).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(error.to_string().contains("answered 429"), "{error}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses_calls_run_and_their_outputs_go_back_with_the_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    let call =
        json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_file", "arguments": ""});
    let done = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}", "status": "completed"});
    let first = sse(&[
        json!({"type": "response.created", "response": {"status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": call}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{\"path\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "\"a.txt\"}"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "arguments": "{\"path\":\"a.txt\"}"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]);
    let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "It says alpha."}]});
    let second = sse(&[
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "It says alpha."}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": message}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]);
    let (url, seen) = server(vec![Reply::Stream(first), Reply::Stream(second)]);
    let mut log = Log::default();
    let outcome = run(&agent(Api::OpenAiResponses, &url, quick()), dir.path(), &mut log).await.unwrap();
    assert_eq!(outcome.text, "It says alpha.");
    assert_eq!(outcome.responses, 2);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].path, "/responses");
    assert!(seen[0].headers.contains(&"authorization: bearer test-key".to_owned()), "{:?}", seen[0].headers);
    assert_eq!(seen[0].body["instructions"], "Be brief.");
    assert_eq!(seen[0].body["tools"][0]["type"], "function");
    let input = seen[1].body["input"].as_array().unwrap();
    assert_eq!(input[1], done, "the call as the API sent it");
    assert_eq!(input[2]["type"], "function_call_output");
    assert_eq!(input[2]["call_id"], "call_1");
    assert!(input[2]["output"].as_str().unwrap().contains("alpha"), "{input:?}");
    // The conversation ends with the final message.
    assert_eq!(outcome.conversation.items().last(), Some(&message));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chat_calls_stream_and_tool_messages_follow_the_assistant() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    let chunk = |delta: Value, finish: Value| {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let first = [
        chunk(json!({"role": "assistant", "content": "Reading."}), Value::Null),
        chunk(json!({"tool_calls": [{"index": 0, "id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": ""}}]}), Value::Null),
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"path\": \"b.txt\"}"}}]}), Value::Null),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let second = [
        chunk(json!({"content": "Beta."}), Value::Null),
        chunk(json!({}), json!("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let (url, seen) = server(vec![Reply::Stream(first), Reply::Stream(second)]);
    let mut log = Log::default();
    let outcome = run(&agent(Api::OpenAiChat, &url, quick()), dir.path(), &mut log).await.unwrap();
    assert_eq!(outcome.stop, Stop::Finished { reason: Some("stop".into()) });
    assert_eq!(log.text, "Reading.Beta.");
    let seen = seen.lock().unwrap();
    let messages = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(messages[0], json!({"role": "system", "content": "Be brief."}));
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], "{\"path\": \"b.txt\"}");
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_b");
    assert!(messages[3]["content"].as_str().unwrap().contains("beta"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_future_can_be_spawned_and_a_missing_key_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (url, _seen) = server(vec![Reply::Stream(anthropic_text("Spawned."))]);
    let agent = agent(Api::Anthropic, &url, quick());
    let path = dir.path().to_owned();
    let outcome = tokio::spawn(async move {
        let mut turn = TurnContext::new(&path);
        agent.run("Go.", &mut turn, &mut ()).await
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(outcome.text, "Spawned.");
    // Only checked where the machine has no key of its own.
    let missing = HttpModel::from_env(Api::OpenAiResponses);
    if std::env::var_os("OPENAI_API_KEY").is_none() {
        assert_eq!(missing.unwrap_err().to_string(), "OPENAI_API_KEY is not set: the openai-responses API needs a key");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_transcript_is_written_where_hooks_are_told_it_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.txt"), "gamma\n").unwrap();
    let first = sse(&[
        json!({"type": "message_start", "message": {}}),
        tool_use_start(0, "toolu_c", "read_file"),
        input_delta(0, r#"{"path": "c.txt"}"#),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json!({"type": "message_stop"}),
    ]);
    let (url, _seen) = server(vec![Reply::Stream(first), Reply::Stream(anthropic_text("Gamma."))]);
    let transcript = dir.path().join("t/session.jsonl");
    let mut extensions = toolwright::builtin::session();
    let mut info = toolwright::SessionInfo::new();
    info.transcript_path = Some(transcript.clone());
    extensions.insert(info);
    let mut turn = TurnContext::new(dir.path()).with_extensions(extensions);
    let outcome = agent(Api::Anthropic, &url, quick()).run("Read c.", &mut turn, &mut ()).await.unwrap();
    let lines: Vec<Value> =
        std::fs::read_to_string(&transcript).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines.len(), outcome.conversation.items().len(), "{lines:#?}");
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
    assert_eq!(lines[0]["message"]["content"], "Read c.");
    assert!(lines[2]["message"].to_string().contains("gamma"), "{:?}", lines[2]);
}

/// An Anthropic response that calls `name` with `input`.
fn anthropic_call(id: &str, name: &str, input: &str) -> String {
    sse(&[
        json!({"type": "message_start", "message": {"id": "msg", "role": "assistant", "content": []}}),
        tool_use_start(0, id, name),
        input_delta(0, input),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json!({"type": "message_stop"}),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_sends_the_search_then_the_tools_it_loaded_after_the_others() {
    use toolwright::deferred::{Budget, Deferral, TOOL_SEARCH, ToolSession};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "deferred works\n").unwrap();
    let (url, seen) = server(vec![
        Reply::Stream(anthropic_call("t1", TOOL_SEARCH, r#"{"query":"select:mcp__notes__read_note"}"#)),
        Reply::Stream(anthropic_call("t2", "mcp__notes__read_note", r#"{"q":"notes"}"#)),
        Reply::Stream(anthropic_text("Done.")),
    ]);
    let registry = Arc::new(toolwright::registry().unwrap());
    let mut spec = toolwright::ToolSpec::runtime("mcp__notes__read_note", "Read a note.", "test");
    spec.defer = toolwright::Defer::Always;
    registry.register(Arc::new(common::runtime_tool::Runtime { spec })).unwrap();
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    session.install(&registry).unwrap();
    let executor = Executor::builder(registry).policy(AllowAll).build();
    let model = HttpModel::new(Api::Anthropic, "test-key", "test-model").with_base_url(&url);
    let agent = Agent::new(model, Orchestrator::new(Arc::new(executor))).retry(quick());
    let mut extensions = toolwright::builtin::session();
    extensions.insert(session.clone());
    let mut turn = TurnContext::new(dir.path()).with_extensions(extensions);
    let outcome = agent.run("Read the note.", &mut turn, &mut Log::default()).await.unwrap();
    assert_eq!(outcome.text, "Done.");
    let seen = seen.lock().unwrap();
    let names = |i: usize| -> Vec<String> {
        seen[i].body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    assert!(names(0).contains(&TOOL_SEARCH.to_owned()) && !names(0).contains(&"mcp__notes__read_note".to_owned()));
    assert_eq!(names(1).last().unwrap(), "mcp__notes__read_note", "loaded, appended last");
    let before = serde_json::to_string(&seen[0].body["tools"]).unwrap();
    let after = serde_json::to_string(&seen[1].body["tools"]).unwrap();
    assert!(after.starts_with(before.strip_suffix(']').unwrap()), "the first request's tools are a prefix");
    // The loaded tool ran: its result went back in the third request.
    let third = seen[2].body.to_string();
    assert!(third.contains("mcp__notes__read_note got"), "{third}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_native_search_blocks_and_thinking_go_back_as_they_came() {
    use toolwright::deferred::{Budget, Deferral, NativeSearch, ToolSession};
    let dir = tempfile::tempdir().unwrap();
    let search_result = json!({
        "type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
        "content": {"type": "tool_search_tool_search_result",
                    "tool_references": [{"type": "tool_reference", "tool_name": "mcp__notes__read_note"}]}
    });
    let first = sse(&[
        json!({"type": "message_start", "message": {"id": "msg", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "A note tool "}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "may exist."}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2lnbmVk"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {}}}),
        input_delta(1, r#"{"query": "note"}"#),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": search_result}),
        json!({"type": "content_block_stop", "index": 2}),
        tool_use_start(3, "t1", "mcp__notes__read_note"),
        input_delta(3, r#"{"q":"notes"}"#),
        json!({"type": "content_block_stop", "index": 3}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json!({"type": "message_stop"}),
    ]);
    let (url, seen) = server(vec![Reply::Stream(first), Reply::Stream(anthropic_text("Done."))]);
    let registry = Arc::new(toolwright::registry().unwrap());
    let mut spec = toolwright::ToolSpec::runtime("mcp__notes__read_note", "Read a note.", "test");
    spec.defer = toolwright::Defer::Always;
    registry.register(Arc::new(common::runtime_tool::Runtime { spec })).unwrap();
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited).native_anthropic(NativeSearch::Regex));
    session.install(&registry).unwrap();
    let executor = Executor::builder(registry).policy(AllowAll).build();
    let model = HttpModel::new(Api::Anthropic, "test-key", "test-model").with_base_url(&url);
    let agent = Agent::new(model, Orchestrator::new(Arc::new(executor))).retry(quick());
    let mut extensions = toolwright::builtin::session();
    extensions.insert(session);
    let mut turn = TurnContext::new(dir.path()).with_extensions(extensions);
    let outcome = agent.run("Read the note.", &mut turn, &mut Log::default()).await.unwrap();
    assert_eq!(outcome.text, "Done.");
    let seen = seen.lock().unwrap();
    // The first request: the deferred tool marked, Anthropic's search tool last.
    let tools = seen[0].body["tools"].as_array().unwrap();
    let note = tools.iter().find(|t| t["name"] == "mcp__notes__read_note").unwrap();
    assert_eq!(note["defer_loading"], json!(true), "{note}");
    assert_eq!(tools.last().unwrap()["type"], "tool_search_tool_regex_20251119");
    // The second: the assistant's blocks as they came, the call's result after.
    let messages = seen[1].body["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(assistant["role"], "assistant");
    let blocks = assistant["content"].as_array().unwrap();
    assert_eq!(
        blocks[0],
        json!({"type": "thinking", "thinking": "A note tool may exist.", "signature": "c2lnbmVk"}),
        "{assistant}"
    );
    assert_eq!(
        blocks[1],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {"query": "note"}})
    );
    assert_eq!(blocks[2], search_result);
    assert_eq!(blocks[3]["type"], "tool_use");
    assert_eq!(blocks.len(), 4);
    let results = messages.last().unwrap()["content"].as_array().unwrap();
    assert_eq!(results.len(), 1, "only the client's call gets a result: {results:?}");
    assert_eq!(results[0]["tool_use_id"], "t1");
    assert!(results[0].to_string().contains("mcp__notes__read_note got"), "{}", results[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_with_a_profile_is_shown_and_may_call_only_its_tools() {
    use toolwright::Profile;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "read me\n").unwrap();
    let (url, seen) = server(vec![
        // A call to a tool the profile leaves out, then one it admits.
        Reply::Stream(anthropic_call("t1", "shell", r#"{"command":"touch ran.txt"}"#)),
        Reply::Stream(anthropic_call("t2", "read_file", r#"{"path":"notes.txt"}"#)),
        Reply::Stream(anthropic_text("Done.")),
    ]);
    let registry = Arc::new(toolwright::registry().unwrap());
    let executor = Executor::builder(registry).policy(AllowAll).build();
    let model = HttpModel::new(Api::Anthropic, "test-key", "test-model").with_base_url(&url);
    let agent = Agent::new(model, Orchestrator::new(Arc::new(executor)))
        .retry(quick())
        .profile(Profile::new("reader").allow(["read_file", "grep", "glob"]));
    let outcome = run(&agent, dir.path(), &mut Log::default()).await.unwrap();
    assert_eq!(outcome.text, "Done.");
    let seen = seen.lock().unwrap();
    let mut names: Vec<&str> =
        seen[0].body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["glob", "grep", "read_file"]);
    // Refused at dispatch, with a reason the model can act on; nothing ran.
    assert!(!dir.path().join("ran.txt").exists(), "the refused call ran");
    let second = seen[1].body.to_string();
    assert!(
        second.contains("is_error") && second.contains("not available to this agent (profile `reader`)"),
        "{second}"
    );
    assert!(seen[2].body.to_string().contains("read me"), "the admitted call ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_is_read_from_each_apis_stream_and_added_up_over_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    // Anthropic: input at message_start, cumulative output at message_delta.
    let usage_of = |input: u64, output: u64, created: u64, read: u64| {
        let mut events = vec![
            json!({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": [],
                "usage": {"input_tokens": input, "output_tokens": 1, "cache_creation_input_tokens": created,
                          "cache_read_input_tokens": read}}}),
            tool_use_start(0, "t1", "read_file"),
            input_delta(0, r#"{"path":"a.txt"}"#),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": output}}),
            json!({"type": "message_stop"}),
        ];
        if output == 0 {
            events.truncate(1);
        }
        sse(&events)
    };
    let mut last = anthropic_text("Done.");
    last = last.replacen(
        r#""content":[]}"#,
        r#""content":[],"usage":{"input_tokens":7,"output_tokens":1,"cache_read_input_tokens":100}}"#,
        1,
    );
    last = last.replacen(
        r#""delta":{"stop_reason":"end_turn"}"#,
        r#""delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}"#,
        1,
    );
    let (url, _) = server(vec![Reply::Stream(usage_of(20, 12, 50, 0)), Reply::Stream(last)]);
    let outcome = run(&agent(Api::Anthropic, &url, quick()), dir.path(), &mut Log::default()).await.unwrap();
    let u = outcome.usage;
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens),
        (27, 15, 50, 100)
    );
    assert_eq!(u.total_tokens(), 192);

    // OpenAI Responses: response.completed's usage, cached tokens inside the input's.
    let completed = |input: u64, cached: u64, output: u64| {
        sse(&[
            json!({"type": "response.output_text.delta", "delta": "Hi."}),
            json!({"type": "response.completed", "response": {"status": "completed", "usage": {
                "input_tokens": input, "input_tokens_details": {"cached_tokens": cached}, "output_tokens": output}}}),
        ])
    };
    let (url, _) = server(vec![Reply::Stream(completed(40, 30, 5))]);
    let outcome = run(&agent(Api::OpenAiResponses, &url, quick()), dir.path(), &mut Log::default()).await.unwrap();
    let u = outcome.usage;
    assert_eq!((u.input_tokens, u.cache_read_input_tokens, u.output_tokens), (10, 30, 5));

    // OpenAI Chat: asked for with stream_options, reported on the last chunk.
    let body = [
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}]})
        ),
        format!(
            "data: {}\n\n",
            json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 4}}})
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let (url, seen) = server(vec![Reply::Stream(body)]);
    let outcome = run(&agent(Api::OpenAiChat, &url, quick()), dir.path(), &mut Log::default()).await.unwrap();
    let u = outcome.usage;
    assert_eq!((u.input_tokens, u.cache_read_input_tokens, u.output_tokens), (5, 4, 2));
    assert_eq!(seen.lock().unwrap()[0].body["stream_options"], json!({"include_usage": true}));
}
