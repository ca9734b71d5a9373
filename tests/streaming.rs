//! Streaming execution: calls start while the model is still streaming.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::streaming::decode;
use toolwright::{
    CallEvent, ContextModifier, ErrorKind, Executor, Extensions, Orchestrator, StreamEvent, ToolCall, ToolResult,
    TurnContext,
};

/// Tell the test it started, then finish.
#[tool(read_only, pure, concurrency_safe)]
pub struct Ping {
    pub n: u32,
}
pub struct Started(Mutex<Option<tokio::sync::oneshot::Sender<u32>>>);
impl Tool for Ping {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        if let Some(tx) = cx.extension::<Started>().and_then(|s| s.0.lock().unwrap().take()) {
            let _ = tx.send(self.n);
        }
        Ok(format!("pong {}", self.n))
    }
}

/// Change directory (not concurrency-safe), after a pause.
#[tool]
pub struct Chdir {
    pub dir: String,
}
impl Tool for Chdir {
    type Output = ToolOutput;
    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(ToolOutput::text("ok").with_modifier(ContextModifier::set_cwd(cx.cwd().join(&self.dir))))
    }
}

/// Print the working directory after a pause.
#[tool(read_only, pure, concurrency_safe)]
pub struct Where {
    pub ms: u64,
}
impl Tool for Where {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        Ok(cx.cwd().display().to_string())
    }
}

fn orchestrator() -> Orchestrator {
    let executor = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    Orchestrator::new(Arc::new(executor))
}

/// An Anthropic stream of tool_use blocks, input split into small fragments.
fn anthropic_events(calls: &[(&str, &str, &str)]) -> Vec<Value> {
    let mut out =
        vec![json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}})];
    out.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
    out.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Working."}}));
    out.push(json!({"type": "content_block_stop", "index": 0}));
    for (i, (id, name, input)) in calls.iter().enumerate() {
        let index = i + 1;
        out.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        let chars: Vec<char> = input.chars().collect();
        for piece in chars.chunks(3) {
            out.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece.iter().collect::<String>()}}));
        }
        out.push(json!({"type": "content_block_stop", "index": index}));
    }
    out.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
    out.push(json!({"type": "message_stop"}));
    out
}

async fn feed(decoder: &mut decode::Anthropic, tx: &mpsc::Sender<StreamEvent>, events: &[Value]) {
    for event in events {
        for e in decoder.push(event) {
            tx.send(e).await.unwrap();
        }
    }
}

#[tokio::test]
async fn anthropic_stream_runs_and_answers_in_order() {
    let events = anthropic_events(&[
        ("toolu_1", "ping", r#"{"n": 1}"#),
        ("toolu_2", "ping", r#"{"n": 2}"#),
        ("toolu_3", "ping", r#"{"n": "three"}"#),
    ]);
    let (tx, rx) = mpsc::channel(256);
    let mut decoder = decode::Anthropic::default();
    feed(&mut decoder, &tx, &events).await;
    drop(tx);
    let mut turn = TurnContext::new(".");
    let results = orchestrator().run_streaming(rx, &mut turn, None, |_| {}).await;
    let texts: Vec<String> = results.iter().map(|r| r.output.text_content()).collect();
    assert_eq!(texts[..2], ["pong 1", "pong 2"]);
    assert_eq!(results[2].error, Some(ErrorKind::InvalidInput), "a bad input fails its call only");
    assert_eq!(results.iter().map(|r| &*r.call_id).collect::<Vec<_>>(), ["toolu_1", "toolu_2", "toolu_3"]);
}

#[tokio::test]
async fn a_call_starts_before_the_stream_ends() {
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let mut ext = Extensions::new();
    ext.insert(Started(Mutex::new(Some(started_tx))));
    let mut turn = TurnContext::new(".").with_extensions(ext);
    let events = anthropic_events(&[("toolu_1", "ping", r#"{"n": 7}"#), ("toolu_2", "ping", r#"{"n": 8}"#)]);
    // Everything up to the end of the first tool_use block; then the stream stalls.
    let stall_at = events.iter().position(|e| e["type"] == "content_block_stop" && e["index"] == 1).unwrap() + 1;
    let (tx, rx) = mpsc::channel(256);
    let orchestrator = orchestrator();
    let run = orchestrator.run_streaming(rx, &mut turn, None, |_| {});
    let driver = async {
        let mut decoder = decode::Anthropic::default();
        feed(&mut decoder, &tx, &events[..stall_at]).await;
        let first = tokio::time::timeout(Duration::from_secs(5), started_rx)
            .await
            .expect("the first call must start while the stream is stalled")
            .unwrap();
        feed(&mut decoder, &tx, &events[stall_at..]).await;
        drop(tx);
        first
    };
    let (results, first): (Vec<ToolResult>, u32) = tokio::join!(run, driver);
    assert_eq!(first, 7);
    assert_eq!(results.len(), 2);
}

#[tokio::test]
async fn an_unsafe_call_holds_back_the_calls_after_it() {
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir(base.path().join("sub")).unwrap();
    let mut turn = TurnContext::new(base.path());
    let events = anthropic_events(&[
        ("a", "where", r#"{"ms": 40}"#),
        ("b", "chdir", r#"{"dir": "sub"}"#),
        ("c", "where", r#"{"ms": 0}"#),
    ]);
    let (tx, rx) = mpsc::channel(256);
    feed(&mut decode::Anthropic::default(), &tx, &events).await;
    drop(tx);
    let mut order = Vec::new();
    let results = orchestrator()
        .run_streaming(rx, &mut turn, None, |e| match e {
            CallEvent::Started { index, .. } => order.push(format!("start {index}")),
            CallEvent::Finished { index, .. } => order.push(format!("finish {index}")),
            _ => {}
        })
        .await;
    assert_eq!(order, ["start 0", "finish 0", "start 1", "finish 1", "start 2", "finish 2"]);
    assert_eq!(PathBuf::from(results[0].output.text_content()), base.path());
    assert_eq!(PathBuf::from(results[2].output.text_content()), base.path().join("sub"), "re-staged after the change");
    assert_eq!(turn.cwd(), base.path().join("sub"));
}

#[tokio::test]
async fn cancelling_mid_stream_answers_every_call() {
    let mut turn = TurnContext::new(".");
    let token = turn.cancellation().clone();
    let events = anthropic_events(&[("a", "where", r#"{"ms": 60000}"#), ("b", "ping", r#"{"n": 1}"#)]);
    // The second call never finishes streaming.
    let cut = events.iter().position(|e| e["type"] == "content_block_start" && e["index"] == 2).unwrap() + 2;
    let (tx, rx) = mpsc::channel(256);
    feed(&mut decode::Anthropic::default(), &tx, &events[..cut]).await;
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    });
    let results =
        tokio::time::timeout(Duration::from_secs(10), orchestrator().run_streaming(rx, &mut turn, None, |_| {}))
            .await
            .expect("no hang");
    drop(tx);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].output.text_content(), "where: cancelled while running");
    // The second call was still streaming: never run, and says why.
    assert_eq!(results[1].error, Some(ErrorKind::Cancelled));
    assert_eq!(
        results[1].output.text_content(),
        "ping: the turn was cancelled while the model was still writing this call's arguments"
    );
}

#[test]
fn openai_chat_chunks_decode_into_calls() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "ping", "arguments": ""}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"n\""}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "ping", "arguments": "{\"n\": 2}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ];
    let mut d = decode::OpenAiChat::default();
    let mut events: Vec<StreamEvent> = chunks.iter().flat_map(|c| d.push(c)).collect();
    events.extend(d.finish());
    assert_eq!(
        events,
        [
            StreamEvent::Start { slot: 0, id: "call_a".into(), name: "ping".into() },
            StreamEvent::Delta { slot: 0, json: "{\"n\"".into() },
            StreamEvent::Delta { slot: 0, json: ": 1}".into() },
            StreamEvent::End { slot: 0 },
            StreamEvent::Start { slot: 1, id: "call_b".into(), name: "ping".into() },
            StreamEvent::Delta { slot: 1, json: "{\"n\": 2}".into() },
            StreamEvent::End { slot: 1 },
        ]
    );
}

#[test]
fn openai_responses_events_decode_into_calls() {
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1"}}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "ping", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{\"n\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": " 4}"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 1, "arguments": "{\"n\": 4}"}),
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "ping", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.done", "output_index": 2, "arguments": "{\"n\": 5}"}),
    ];
    let mut d = decode::OpenAiResponses::default();
    let mut out: Vec<StreamEvent> = events.iter().flat_map(|e| d.push(e)).collect();
    out.extend(d.finish());
    assert_eq!(
        out,
        [
            StreamEvent::Start { slot: 1, id: "call_1".into(), name: "ping".into() },
            StreamEvent::Delta { slot: 1, json: "{\"n\":".into() },
            StreamEvent::Delta { slot: 1, json: " 4}".into() },
            StreamEvent::End { slot: 1 },
            StreamEvent::Start { slot: 2, id: "call_2".into(), name: "ping".into() },
            StreamEvent::Delta { slot: 2, json: "{\"n\": 5}".into() },
            StreamEvent::End { slot: 2 },
        ]
    );
}

/// Write a note (reports its path while the content still streams).
#[tool(partial_input)]
pub struct WriteNote {
    pub path: String,
    pub content: String,
}
impl Tool for WriteNote {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} bytes to {}", self.content.len(), self.path))
    }
}
#[derive(serde::Deserialize)]
pub struct WriteNotePartial {
    path: Option<String>,
    content: Option<String>,
}
impl PartialInput for WriteNote {
    type Partial = WriteNotePartial;
    fn on_partial_input(partial: WriteNotePartial) -> Option<Progress> {
        let path = partial.path?;
        Some(match partial.content {
            Some(content) => Progress::message(format!("writing {path}: {} bytes so far", content.len())),
            None => Progress::message(format!("writing {path}")),
        })
    }
}

#[tokio::test]
async fn a_tool_that_opts_in_sees_its_path_before_the_content_arrives() {
    let (sink, mut progress) = toolwright::ProgressSink::channel(64);
    let mut turn = TurnContext::new(".").with_progress(sink);
    let content = "line of text\\n".repeat(400);
    let input = format!(r#"{{"path": "notes/today.md", "content": "{content}"}}"#);
    let events = anthropic_events(&[("toolu_1", "write_note", &input)]);
    // Up to the fragment that closes the path; then the stream stalls.
    let path_done =
        events.iter().position(|e| e["delta"]["partial_json"].as_str().is_some_and(|j| j.contains(','))).unwrap() + 1;
    let (tx, rx) = mpsc::channel(4096);
    let mut decoder = decode::Anthropic::default();
    feed(&mut decoder, &tx, &events[..path_done]).await;
    let orchestrator = orchestrator();
    let seen: Arc<Mutex<Vec<(usize, String)>>> = Arc::default();
    let log = Arc::clone(&seen);
    let run = orchestrator.run_streaming(rx, &mut turn, None, move |event| {
        if let CallEvent::InputProgress { index, progress } = event {
            log.lock().unwrap().push((index, progress.message.clone()));
        }
    });
    let stream = async {
        // The path is reported while the stream is stalled, before any content.
        let first = progress.recv().await.unwrap();
        assert_eq!((first.call_id.as_str(), first.tool.as_str()), ("toolu_1", "write_note"));
        assert_eq!(first.progress.message, "writing notes/today.md");
        feed(&mut decoder, &tx, &events[path_done..]).await;
        drop(tx);
    };
    let (results, ()) = tokio::join!(run, stream);
    let mut rest = Vec::new();
    while let Ok(event) = progress.try_recv() {
        rest.push(event.progress.message);
    }
    assert_eq!(results[0].output.text_content(), format!("{} bytes to notes/today.md", 400 * 13));
    // The 5,600-byte content is reported as it doubles (1 KiB, 2 KiB, 4 KiB) and
    // when complete: a handful of reports, not one per fragment.
    assert_eq!(rest.len(), 4, "{rest:?}");
    assert_eq!(rest.last().unwrap(), &format!("writing notes/today.md: {} bytes so far", 400 * 13));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 5);
    assert!(seen.iter().all(|(index, _)| *index == 0));
}

#[tokio::test]
async fn tools_that_do_not_opt_in_report_nothing_while_streaming() {
    let (sink, mut progress) = toolwright::ProgressSink::channel(64);
    let mut turn = TurnContext::new(".").with_progress(sink);
    let events = anthropic_events(&[("toolu_1", "ping", r#"{"n": 1}"#)]);
    let (tx, rx) = mpsc::channel(256);
    feed(&mut decode::Anthropic::default(), &tx, &events).await;
    drop(tx);
    let mut partial_reports = 0;
    let results = orchestrator()
        .run_streaming(rx, &mut turn, None, |event| {
            partial_reports += matches!(event, CallEvent::InputProgress { .. }) as usize
        })
        .await;
    assert_eq!(results[0].output.text_content(), "pong 1");
    assert_eq!(partial_reports, 0);
    drop(turn);
    assert!(progress.try_recv().is_err());
}

/// Create a file (so a test can see whether the call ran).
#[tool]
pub struct Touch {
    pub path: String,
}
impl Tool for Touch {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        std::fs::write(cx.cwd().join(&self.path), "ran").map_err(|e| ToolError::io(&self.path, e))?;
        Ok("touched".into())
    }
}

/// Runs `events` through the streaming executor in `dir`, then closes the stream.
async fn run_events(dir: &std::path::Path, events: Vec<StreamEvent>) -> Vec<ToolResult> {
    let (tx, rx) = mpsc::channel(64);
    for event in events {
        tx.send(event).await.unwrap();
    }
    drop(tx);
    let mut turn = TurnContext::new(dir);
    orchestrator().run_streaming(rx, &mut turn, None, |_| {}).await
}

#[tokio::test]
async fn a_call_the_stream_cut_off_is_answered_and_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let start = |slot, id: &str| StreamEvent::Start { slot, id: id.into(), name: "touch".into() };
    let delta = |slot, json: &str| StreamEvent::Delta { slot, json: json.into() };
    // The connection closed after a complete-looking input, but before the block closed.
    let results = run_events(dir.path(), vec![start(0, "c0"), delta(0, r#"{"path": "cut.txt"}"#)]).await;
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].error, Some(ErrorKind::InvalidInput));
    assert!(results[0].output.text_content().contains("ended before this call's arguments were complete"));
    assert!(!dir.path().join("cut.txt").exists(), "the cut call did not run");
    // A decoder's cut, then a complete call after it: the complete one runs, in order.
    let events = vec![
        start(0, "c0"),
        delta(0, r#"{"path": "a.txt"}"#),
        StreamEvent::Cut { slot: 0 },
        start(1, "c1"),
        delta(1, r#"{"path": "b.txt"}"#),
        StreamEvent::End { slot: 1 },
    ];
    let results = run_events(dir.path(), events).await;
    assert_eq!(results.iter().map(|r| r.error).collect::<Vec<_>>(), [Some(ErrorKind::InvalidInput), None]);
    assert!(!dir.path().join("a.txt").exists() && dir.path().join("b.txt").exists());
}

#[test]
fn decoders_cut_what_the_stream_left_open() {
    // Anthropic: a tool_use block with no content_block_stop.
    let mut d = decode::Anthropic::default();
    let mut events: Vec<StreamEvent> = [
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "touch", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"x\"}"}}),
    ]
    .iter()
    .flat_map(|e| d.push(e))
    .collect();
    events.extend(d.finish());
    assert_eq!(events.last(), Some(&StreamEvent::Cut { slot: 1 }));
    // OpenAI chat: out of tokens, or no finish at all.
    let call = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "touch", "arguments": "{\"path\": \"x\"}"}}]}}]});
    for last in [Some(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})), None] {
        let mut d = decode::OpenAiChat::default();
        let mut events = d.push(&call);
        events.extend(last.iter().flat_map(|chunk| d.push(chunk)));
        events.extend(d.finish());
        assert_eq!(events.last(), Some(&StreamEvent::Cut { slot: 0 }), "{last:?}");
        assert!(!events.contains(&StreamEvent::End { slot: 0 }));
    }
    // OpenAI responses: no `.done`.
    let mut d = decode::OpenAiResponses::default();
    let mut events = d.push(&json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "c", "name": "touch"}}));
    events.extend(d.push(&json!({"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"})));
    events.extend(d.finish());
    assert_eq!(events.last(), Some(&StreamEvent::Cut { slot: 0 }));
}

mod any_event_sequence {
    use super::*;
    use proptest::prelude::*;

    /// An event of a small alphabet: starts (repeated, reused slots), deltas that are
    /// and are not JSON, ends and cuts, for slots that may never have started.
    fn event() -> impl Strategy<Value = StreamEvent> {
        let slot = 0..4usize;
        prop_oneof![
            (slot.clone(), 0..3u8).prop_map(|(slot, tool)| StreamEvent::Start {
                slot,
                id: format!("c{slot}"),
                name: ["ping", "where", "no_such_tool"][tool as usize].into(),
            }),
            (slot.clone(), 0..4u8).prop_map(|(slot, piece)| StreamEvent::Delta {
                slot,
                json: ["{\"n\": 1", "}", "{\"ms\": 1}", "garbage"][piece as usize].into(),
            }),
            slot.clone().prop_map(|slot| StreamEvent::End { slot }),
            slot.prop_map(|slot| StreamEvent::Cut { slot }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn every_start_is_answered_once_and_nothing_hangs(events in prop::collection::vec(event(), 0..30), cancel in any::<bool>()) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let starts = events.iter().filter(|e| matches!(e, StreamEvent::Start { .. })).count();
            let results = rt.block_on(async {
                let (tx, rx) = mpsc::channel(64);
                let mut turn = TurnContext::new(".");
                if cancel {
                    turn.cancellation().cancel();
                }
                for event in events {
                    tx.send(event).await.unwrap();
                }
                drop(tx);
                tokio::time::timeout(Duration::from_secs(10), orchestrator().run_streaming(rx, &mut turn, None, |_| {})).await
            });
            let results = results.expect("the run ended");
            prop_assert_eq!(results.len(), starts);
            let ids: Vec<&str> = results.iter().map(|r| &*r.call_id).collect();
            prop_assert!(ids.iter().all(|id| id.starts_with('c')), "{:?}", ids);
        }

        /// Cancelled at any point (while events still arrive, while calls run, or
        /// never), the run ends within the grace period, every call is reported
        /// finished exactly once with its own id, and each start has its finish.
        #[test]
        fn cancelling_in_any_state_answers_every_call_once(
            events in prop::collection::vec(event(), 0..24),
            cancel_after in prop::option::of(0..24usize),
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let starts = events.iter().filter(|e| matches!(e, StreamEvent::Start { .. })).count();
            let outcome = rt.block_on(async {
                let (tx, rx) = mpsc::channel(4);
                let mut turn = TurnContext::new(".");
                let token = turn.cancellation().clone();
                let feeder = async move {
                    for (i, event) in events.into_iter().enumerate() {
                        if cancel_after == Some(i) {
                            token.cancel();
                        }
                        if tx.send(event).await.is_err() {
                            break;
                        }
                        tokio::task::yield_now().await;
                    }
                    if cancel_after.is_some() {
                        token.cancel();
                    }
                };
                let mut finished: Vec<(usize, String)> = Vec::new();
                let mut started: Vec<usize> = Vec::new();
                let orchestrator = orchestrator();
                let run = orchestrator.run_streaming(rx, &mut turn, None, |event| match event {
                    CallEvent::Started { index, .. } => started.push(index),
                    CallEvent::Finished { index, call, result } => {
                        assert_eq!(call.id, result.call_id, "a finish carries its own call");
                        finished.push((index, call.id.to_string()));
                    }
                    _ => {}
                });
                let (results, ()) = tokio::time::timeout(Duration::from_secs(10), async { tokio::join!(run, feeder) })
                    .await
                    .expect("the run ended within the grace period");
                (results, finished, started)
            });
            let (results, mut finished, started) = outcome;
            // Cancelling stops reading the stream: the calls read by then are answered.
            if cancel_after.is_none() {
                prop_assert_eq!(results.len(), starts);
            }
            prop_assert!(results.len() <= starts);
            finished.sort();
            let indexes: Vec<usize> = finished.iter().map(|(i, _)| *i).collect();
            prop_assert_eq!(indexes, (0..results.len()).collect::<Vec<_>>(), "each call finished exactly once");
            prop_assert!(started.iter().all(|i| finished.iter().any(|(f, _)| f == i)));
            for (i, id) in &finished {
                prop_assert_eq!(&*results[*i].call_id, id.as_str());
            }
        }
    }
}

/// The batch API is the same scheduler fed whole calls: cancelled before or during the
/// run, every call is answered in order.
#[tokio::test]
async fn whole_calls_are_answered_when_cancelled_mid_run() {
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| match i % 2 {
            0 => ToolCall::new(format!("c{i}"), "where", json!({"ms": 200}).to_string()),
            _ => ToolCall::new(format!("c{i}"), "chdir", json!({"dir": "."}).to_string()),
        })
        .collect();
    let mut turn = TurnContext::new(".");
    let token = turn.cancellation().clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    });
    let mut finished = Vec::new();
    let results = tokio::time::timeout(
        Duration::from_secs(10),
        orchestrator().run_observed(&calls, &mut turn, None, |event| {
            if let CallEvent::Finished { index, .. } = event {
                finished.push(index)
            }
        }),
    )
    .await
    .expect("the run ended");
    assert_eq!(results.iter().map(|r| r.call_id.to_string()).collect::<Vec<_>>(), ["c0", "c1", "c2", "c3", "c4", "c5"]);
    finished.sort();
    assert_eq!(finished, [0, 1, 2, 3, 4, 5]);
    assert!(
        results[1..].iter().all(|r| r.error.is_some()),
        "{:?}",
        results.iter().map(|r| r.output.text_content()).collect::<Vec<_>>()
    );
}
