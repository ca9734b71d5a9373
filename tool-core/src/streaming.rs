//! Streaming execution: calls start while the model is still streaming. A call
//! starts as soon as its input is complete and the batch rules allow: a
//! concurrency-safe call starts while later calls are still streaming; an unsafe call
//! waits for the running calls and holds back everything after it. Calls start in
//! call order.
//!
//! Provider stream events become [`StreamEvent`]s through the decoders in
//! [`decode`]; [`Orchestrator::run_streaming`] consumes them from a channel.

use crate::call::{ErrorKind, ToolCall, ToolResult};
use crate::context::TurnContext;
use crate::orchestrate::{CallEvent, Orchestrator, skip_reason};
use crate::partial::{PartialInputFn, PartialObject};
use crate::pipeline::Executor;
use crate::registry::ToolPool;
use crate::spec::Flags;
use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::Poll;
use tokio::sync::{mpsc, oneshot};

/// A provider-neutral step of a streamed assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// A tool call begins at stream position `slot`.
    Start {
        /// The provider's position for this call (content block index, tool call index).
        slot: usize,
        /// The provider's call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// More of a call's JSON arguments.
    Delta {
        /// The call's position.
        slot: usize,
        /// The next fragment of JSON text.
        json: String,
    },
    /// A call's arguments are complete.
    End {
        /// The call's position.
        slot: usize,
    },
    /// The stream ended before this call's arguments were known to be complete (the
    /// connection closed, the model ran out of tokens): the call is answered with an
    /// error the model can act on, and never run.
    Cut {
        /// The call's position.
        slot: usize,
    },
}

/// What a call that was cut off says.
fn cut_result(id: &str, name: &str, cancelled: bool) -> ToolResult {
    let (kind, why) = if cancelled {
        (ErrorKind::Cancelled, "the turn was cancelled while the model was still writing this call's arguments")
    } else {
        (
            ErrorKind::InvalidInput,
            "the model's response ended before this call's arguments were complete (the stream was cut off), so \
             it was not run; send the call again in full",
        )
    };
    ToolResult {
        call_id: Arc::from(id),
        tool: Arc::from(name),
        output: crate::output::ToolOutput::error(format!("{name}: {why}")),
        error: Some(kind),
        summary: None,
        truncated: false,
        duration: std::time::Duration::ZERO,
    }
}

/// What the scheduler tells a staged call.
enum Go {
    /// Run; with a turn if context changes arrived since the call was staged.
    Run(Option<TurnContext>),
    /// Do not run; answer with this error.
    Skip(ErrorKind, String),
}

/// A streaming call whose tool wants its partial input.
struct Watch {
    hook: PartialInputFn,
    tool: Arc<str>,
    scan: PartialObject,
}

/// Where one call of the stream stands.
enum Slot {
    Streaming {
        id: String,
        name: String,
        input: String,
        watch: Option<Box<Watch>>,
    },
    Staged {
        flags: Arc<OnceLock<Option<Flags>>>,
        go: oneshot::Sender<Go>,
        generation: u64,
    },
    Started,
    /// Cut off before its input was complete: answered, never run.
    Cut,
}

type Task<'e> = (usize, bool, Pin<Box<dyn Future<Output = ToolResult> + Send + 'e>>);

impl Orchestrator {
    /// Runs the calls of a streamed message as their inputs complete; returns the
    /// results in call order once the stream has ended and every call has its result.
    /// Context modifiers apply to `turn` in call order. Cancelling the turn stops
    /// reading the stream; every call still gets a result.
    pub async fn run_streaming(
        &self,
        mut events: mpsc::Receiver<StreamEvent>,
        turn: &mut TurnContext,
        pool: Option<&ToolPool>,
        mut observe: impl FnMut(CallEvent<'_>),
    ) -> Vec<ToolResult> {
        let executor: &Executor = &self.executor;
        let token = turn.cancellation().clone();
        let mut cancelled = Box::pin(token.cancelled_owned());
        let mut slots: Vec<Slot> = Vec::new();
        let mut by_stream_slot: HashMap<usize, usize> = HashMap::new();
        let mut results: Vec<Option<ToolResult>> = Vec::new();
        let mut tasks: Vec<Task<'_>> = Vec::new();
        let (mut next_to_start, mut applied, mut generation) = (0usize, 0usize, 0u64);
        let (mut running, mut exclusive) = (0usize, false);
        let mut aborted_by: Option<String> = None;
        let mut stream_open = true;
        // An event taken while draining fragments, handled on the next round.
        let mut held: Option<StreamEvent> = None;

        loop {
            // Context changes of finished calls, in call order.
            while applied < results.len() && results[applied].is_some() {
                if let Some(modifier) = results[applied].as_mut().and_then(|r| r.output.modifier.take()) {
                    turn.apply(&modifier);
                    generation += 1;
                }
                observe(CallEvent::Yielded { index: applied });
                applied += 1;
            }
            // Start calls in call order while the rules allow.
            while next_to_start < slots.len() {
                // A call cut off is answered already; those after it go on.
                if matches!(slots[next_to_start], Slot::Cut) {
                    next_to_start += 1;
                    continue;
                }
                let Slot::Staged { flags, .. } = &slots[next_to_start] else { break };
                let Some(flags) = flags.get().copied() else { break };
                let safe = flags.is_some_and(|f| f.concurrency_safe);
                if !safe {
                    aborted_by = None; // a new batch
                }
                let skip = skip_reason(turn, aborted_by.as_deref());
                let may_start =
                    skip.is_some() || (safe && !exclusive && running < self.max_concurrency) || (!safe && running == 0);
                if !may_start {
                    break;
                }
                let Slot::Staged { go, generation: staged_at, .. } =
                    std::mem::replace(&mut slots[next_to_start], Slot::Started)
                else {
                    unreachable!()
                };
                match skip {
                    Some(why) => drop(go.send(Go::Skip(ErrorKind::Cancelled, why))),
                    None => {
                        let fresh = (staged_at != generation).then(|| turn.clone());
                        let _ = go.send(Go::Run(fresh));
                        running += 1;
                        exclusive = !safe;
                        mark_running(&mut tasks, next_to_start);
                        observe(CallEvent::Started { index: next_to_start, concurrency_safe: safe });
                    }
                }
                next_to_start += 1;
            }
            if !stream_open && tasks.is_empty() && slots.iter().all(|s| matches!(s, Slot::Started | Slot::Cut)) {
                break;
            }

            let head_staged = |slots: &[Slot]| matches!(slots.get(next_to_start), Some(Slot::Staged { flags, .. }) if flags.get().is_some());
            let was_staged = head_staged(&slots);
            let wake = if let Some(event) = held.take() {
                Wake::Event(Some(event))
            } else {
                poll_fn(|cx| {
                    for (i, (_, _, task)) in tasks.iter_mut().enumerate() {
                        if let Poll::Ready(result) = task.as_mut().poll(cx) {
                            return Poll::Ready(Wake::Done(i, Box::new(result)));
                        }
                    }
                    if !was_staged && head_staged(&slots) {
                        return Poll::Ready(Wake::Staged);
                    }
                    if stream_open {
                        if let Poll::Ready(event) = events.poll_recv(cx) {
                            return Poll::Ready(Wake::Event(event));
                        }
                        if cancelled.as_mut().poll(cx).is_ready() {
                            return Poll::Ready(Wake::Event(None));
                        }
                    }
                    Poll::Pending
                })
                .await
            };

            match wake {
                Wake::Staged => {}
                Wake::Done(i, result) => {
                    let (index, started, _) = tasks.swap_remove(i);
                    if started {
                        running -= 1;
                        if running == 0 {
                            exclusive = false;
                        }
                    }
                    if result.error.is_some() && self.abort_on_failure_of.iter().any(|t| **t == *result.tool) {
                        aborted_by.get_or_insert_with(|| result.tool.to_string());
                    }
                    observe(CallEvent::Finished { index, result: &result });
                    results[index] = Some(*result);
                }
                Wake::Event(Some(StreamEvent::Start { slot, id, name })) => {
                    // A second start in a slot still streaming (a replayed event): the
                    // first call never closed, so it is cut off, not lost.
                    if let Some(earlier) = by_stream_slot.insert(slot, slots.len()) {
                        cut_slot(&mut slots, &mut tasks, earlier, false);
                        observe(CallEvent::Queued { index: earlier });
                    }
                    let watch = watch_partial_input(executor, &name, pool);
                    slots.push(Slot::Streaming { id, name, input: String::new(), watch });
                    results.push(None);
                }
                Wake::Event(Some(StreamEvent::Delta { slot, json })) => {
                    // Fragments need no scheduling: take every one already queued in a
                    // tight loop, so a long input costs an append per fragment.
                    let mut next = Some((slot, json));
                    while let Some((slot, json)) = next.take() {
                        if let Some(&index) = by_stream_slot.get(&slot)
                            && let Slot::Streaming { id, input, watch, .. } = &mut slots[index]
                        {
                            input.push_str(&json);
                            if let Some(watch) = watch
                                && let Some(snapshot) = watch.scan.advance(input)
                                && let Some(progress) = (watch.hook)(&snapshot)
                            {
                                observe(CallEvent::InputProgress { index, progress: &progress });
                                turn.call(id, &watch.tool, &watch.tool).progress(progress);
                            }
                        }
                        match events.try_recv() {
                            Ok(StreamEvent::Delta { slot, json }) => next = Some((slot, json)),
                            Ok(other) => held = Some(other),
                            Err(_) => {}
                        }
                    }
                }
                Wake::Event(Some(StreamEvent::End { slot })) => {
                    if let Some(index) = by_stream_slot.remove(&slot) {
                        stage_slot(executor, &mut slots, &mut tasks, index, turn, pool, generation);
                        observe(CallEvent::Queued { index });
                    }
                }
                Wake::Event(Some(StreamEvent::Cut { slot })) => {
                    if let Some(index) = by_stream_slot.remove(&slot) {
                        cut_slot(&mut slots, &mut tasks, index, false);
                        observe(CallEvent::Queued { index });
                    }
                }
                Wake::Event(None) => {
                    // The stream ended (or the turn was cancelled): a call still
                    // streaming was never closed, so its input is not known to be
                    // complete. It is answered, never run.
                    stream_open = false;
                    let mut open: Vec<usize> = by_stream_slot.drain().map(|(_, i)| i).collect();
                    open.sort_unstable();
                    for index in open {
                        cut_slot(&mut slots, &mut tasks, index, turn.cancellation().is_cancelled());
                        observe(CallEvent::Queued { index });
                    }
                }
            }
        }
        results.into_iter().map(|r| r.expect("every call gets a result")).collect()
    }
}

/// Answers a call the stream cut off: its result is ready at once, and it never runs.
fn cut_slot(slots: &mut [Slot], tasks: &mut Vec<Task<'_>>, index: usize, cancelled: bool) {
    let Slot::Streaming { id, name, .. } = std::mem::replace(&mut slots[index], Slot::Cut) else {
        return;
    };
    let result = cut_result(&id, &name, cancelled);
    tasks.push((index, false, Box::pin(async move { result })));
}

/// Turns a completely streamed call into a task that stages itself on its first
/// poll and then waits for the scheduler.
fn stage_slot<'e>(
    executor: &'e Executor,
    slots: &mut [Slot],
    tasks: &mut Vec<Task<'e>>,
    index: usize,
    turn: &TurnContext,
    pool: Option<&'e ToolPool>,
    generation: u64,
) {
    let Slot::Streaming { id, name, input, .. } = std::mem::replace(&mut slots[index], Slot::Started) else {
        return;
    };
    let call = ToolCall::new(id, name, input);
    let flags = Arc::new(OnceLock::new());
    let (go, wait) = oneshot::channel();
    let reported = Arc::clone(&flags);
    let snapshot = turn.clone();
    let task = async move {
        let staged = executor.stage(&call, &snapshot, pool);
        let _ = reported.set(staged.flags());
        match wait.await {
            Ok(Go::Run(None)) => executor.finish(staged).await,
            Ok(Go::Run(Some(newer))) => {
                // Context changed since staging: parse again against the new turn.
                drop(staged);
                executor.finish(executor.stage(&call, &newer, pool)).await
            }
            Ok(Go::Skip(kind, why)) => executor.finish_unstarted(staged, kind, &why).await,
            Err(_) => executor.finish_unstarted(staged, ErrorKind::Cancelled, "cancelled before it started").await,
        }
    };
    tasks.push((index, false, Box::pin(task)));
    slots[index] = Slot::Staged { flags, go, generation };
}

/// The partial-input hook of the tool a streaming call names, if it has one and
/// may be called here.
fn watch_partial_input(executor: &Executor, name: &str, pool: Option<&ToolPool>) -> Option<Box<Watch>> {
    let resolved = executor.registry().resolve(name).ok()?;
    let hook = resolved.tool().partial_input()?;
    if pool.is_some_and(|pool| !pool.contains(resolved.name())) {
        return None;
    }
    Some(Box::new(Watch { hook, tool: resolved.shared_name(), scan: PartialObject::new() }))
}

fn mark_running(tasks: &mut [Task<'_>], index: usize) {
    if let Some(task) = tasks.iter_mut().find(|(i, _, _)| *i == index) {
        task.1 = true;
    }
}

enum Wake {
    Done(usize, Box<ToolResult>),
    Staged,
    Event(Option<StreamEvent>),
}

/// Decoders from provider stream payloads to [`StreamEvent`]s. Feed each event's JSON
/// (an SSE `data:` payload, a chat completion chunk) to `push`, and call `finish` when
/// the stream ends.
pub mod decode {
    use super::StreamEvent;
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// Anthropic Messages SSE: `content_block_start` (tool_use),
    /// `content_block_delta` (`input_json_delta`), `content_block_stop`.
    #[derive(Debug, Default)]
    pub struct Anthropic {
        tool_blocks: BTreeSet<usize>,
    }

    impl Anthropic {
        /// The events in one SSE payload.
        pub fn push(&mut self, event: &Value) -> Vec<StreamEvent> {
            let index = event.get("index").and_then(Value::as_u64).map(|i| i as usize);
            match (event.get("type").and_then(Value::as_str), index) {
                (Some("content_block_start"), Some(slot)) => {
                    let block = &event["content_block"];
                    if block["type"] != "tool_use" {
                        return Vec::new();
                    }
                    self.tool_blocks.insert(slot);
                    let id = block["id"].as_str().unwrap_or_default().to_owned();
                    let name = block["name"].as_str().unwrap_or_default().to_owned();
                    vec![StreamEvent::Start { slot, id, name }]
                }
                (Some("content_block_delta"), Some(slot)) if self.tool_blocks.contains(&slot) => {
                    match event["delta"]["partial_json"].as_str() {
                        Some(json) if !json.is_empty() => vec![StreamEvent::Delta { slot, json: json.to_owned() }],
                        _ => Vec::new(),
                    }
                }
                (Some("content_block_stop"), Some(slot)) if self.tool_blocks.remove(&slot) => {
                    vec![StreamEvent::End { slot }]
                }
                _ => Vec::new(),
            }
        }

        /// The stream ended: a block it left open (no `content_block_stop`) was cut
        /// off, and is never run.
        pub fn finish(&mut self) -> Vec<StreamEvent> {
            std::mem::take(&mut self.tool_blocks).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
        }
    }

    /// OpenAI Chat Completions chunks: `choices[0].delta.tool_calls[i]` fragments. A
    /// call is complete when a later one starts, or the choice finishes.
    #[derive(Debug, Default)]
    pub struct OpenAiChat {
        open: BTreeSet<usize>,
    }

    impl OpenAiChat {
        /// The events in one chunk.
        pub fn push(&mut self, chunk: &Value) -> Vec<StreamEvent> {
            let mut out = Vec::new();
            let choice = &chunk["choices"][0];
            for call in choice["delta"]["tool_calls"].as_array().into_iter().flatten() {
                let Some(slot) = call["index"].as_u64().map(|i| i as usize) else { continue };
                if !self.open.contains(&slot) && call.get("id").is_some() {
                    // Calls stream one after another: a new one completes the earlier.
                    out.extend(std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::End { slot }));
                    self.open.insert(slot);
                    let id = call["id"].as_str().unwrap_or_default().to_owned();
                    let name = call["function"]["name"].as_str().unwrap_or_default().to_owned();
                    out.push(StreamEvent::Start { slot, id, name });
                }
                if let Some(json) = call["function"]["arguments"].as_str().filter(|s| !s.is_empty()) {
                    out.push(StreamEvent::Delta { slot, json: json.to_owned() });
                }
            }
            // A normal finish completes the last call; running out of tokens or a
            // filter cuts it off.
            match choice["finish_reason"].as_str() {
                Some("length" | "content_filter") => out.extend(self.finish()),
                Some(_) => out.extend(std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::End { slot })),
                None => {}
            }
            out
        }

        /// The stream ended without a finish: the call it left open was cut off, and
        /// is never run.
        pub fn finish(&mut self) -> Vec<StreamEvent> {
            std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
        }
    }

    /// OpenAI Responses events: `response.output_item.added` (function_call),
    /// `response.function_call_arguments.delta` and `.done`.
    #[derive(Debug, Default)]
    pub struct OpenAiResponses {
        open: BTreeSet<usize>,
        streamed: BTreeSet<usize>,
    }

    impl OpenAiResponses {
        /// The events in one server-sent event.
        pub fn push(&mut self, event: &Value) -> Vec<StreamEvent> {
            let slot = event["output_index"].as_u64().map(|i| i as usize);
            match (event["type"].as_str(), slot) {
                (Some("response.output_item.added"), Some(slot)) if event["item"]["type"] == "function_call" => {
                    self.open.insert(slot);
                    let id = event["item"]["call_id"].as_str().unwrap_or_default().to_owned();
                    let name = event["item"]["name"].as_str().unwrap_or_default().to_owned();
                    vec![StreamEvent::Start { slot, id, name }]
                }
                (Some("response.function_call_arguments.delta"), Some(slot)) if self.open.contains(&slot) => {
                    self.streamed.insert(slot);
                    let json = event["delta"].as_str().unwrap_or_default().to_owned();
                    vec![StreamEvent::Delta { slot, json }]
                }
                (Some("response.function_call_arguments.done"), Some(slot)) if self.open.remove(&slot) => {
                    let mut out = Vec::new();
                    // Arguments that arrived only whole, in `done`.
                    if !self.streamed.remove(&slot)
                        && let Some(json) = event["arguments"].as_str()
                    {
                        out.push(StreamEvent::Delta { slot, json: json.to_owned() });
                    }
                    out.push(StreamEvent::End { slot });
                    out
                }
                _ => Vec::new(),
            }
        }

        /// The stream ended: a call it left open (no `.done`) was cut off, and is
        /// never run.
        pub fn finish(&mut self) -> Vec<StreamEvent> {
            self.streamed.clear();
            std::mem::take(&mut self.open).into_iter().map(|slot| StreamEvent::Cut { slot }).collect()
        }
    }
}

/// Server-sent events, as the providers stream them: an incremental parser that
/// takes bytes as they arrive (split anywhere, even inside a UTF-8 character or a
/// `\r\n`) and yields whole events.
///
/// ```
/// use toolwright_core::streaming::sse::SseParser;
/// let mut parser = SseParser::default();
/// assert!(parser.push(b"event: ping\nda").is_empty());
/// let events = parser.push(b"ta: {\"a\":1}\n\n: a comment\ndata: [DONE]\n\n");
/// assert_eq!(events[0].event.as_deref(), Some("ping"));
/// assert_eq!(events[0].data, "{\"a\":1}");
/// assert_eq!(events[1].data, "[DONE]");
/// ```
pub mod sse {
    /// One event: its `event:` name, if any, and its `data:` lines joined by `\n`.
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    pub struct SseEvent {
        /// The `event:` field.
        pub event: Option<String>,
        /// The `data:` fields, joined with newlines.
        pub data: String,
    }

    /// The incremental parser (see the module docs).
    #[derive(Debug, Default)]
    pub struct SseParser {
        /// Bytes of an unfinished line.
        line: Vec<u8>,
        /// The last byte was `\r`: a following `\n` belongs to the same line end.
        after_cr: bool,
        current: SseEvent,
        has_data: bool,
    }

    impl SseParser {
        /// The events completed by `bytes`.
        pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
            let mut out = Vec::new();
            for &b in bytes {
                if self.after_cr {
                    self.after_cr = false;
                    if b == b'\n' {
                        continue;
                    }
                }
                match b {
                    b'\n' | b'\r' => {
                        self.after_cr = b == b'\r';
                        let line = std::mem::take(&mut self.line);
                        self.line_done(&line, &mut out);
                    }
                    _ => self.line.push(b),
                }
            }
            out
        }

        /// The event left at the end of the stream, if it has data.
        pub fn finish(&mut self) -> Option<SseEvent> {
            let line = std::mem::take(&mut self.line);
            let mut out = Vec::new();
            if !line.is_empty() {
                self.line_done(&line, &mut out);
            }
            self.line_done(b"", &mut out);
            out.pop()
        }

        fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
            if line.is_empty() {
                if self.has_data {
                    out.push(std::mem::take(&mut self.current));
                }
                self.current = SseEvent::default();
                self.has_data = false;
                return;
            }
            if line[0] == b':' {
                return;
            }
            let line = String::from_utf8_lossy(line);
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line.as_ref(), ""),
            };
            match field {
                "event" => self.current.event = Some(value.to_owned()),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(value);
                    self.has_data = true;
                }
                _ => {}
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn any_split_gives_the_same_events() {
            let stream = "event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: c\n\ndata: ünï\n\nevent: b\ndata: x";
            let mut whole = SseParser::default();
            let mut expected = whole.push(stream.as_bytes());
            expected.extend(whole.finish());
            assert_eq!(expected.len(), 3);
            assert_eq!(expected[0], SseEvent { event: Some("a".into()), data: "1\n2".into() });
            assert_eq!(expected[1].data, "ünï");
            assert_eq!(expected[2], SseEvent { event: Some("b".into()), data: "x".into() });
            for size in 1..stream.len() {
                let mut parser = SseParser::default();
                let mut got = Vec::new();
                for chunk in stream.as_bytes().chunks(size) {
                    got.extend(parser.push(chunk));
                }
                got.extend(parser.finish());
                assert_eq!(got, expected, "chunks of {size}");
            }
        }
    }
}
