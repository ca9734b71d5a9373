//! The loop: ask the model, run its calls while it streams, answer with their
//! results, until it stops calling tools.

use super::{Model, ModelError, RetryPolicy};
use crate::provider::server_tools::ServerToolEvent;
use crate::provider::{Api, Conversation, Item, Request, Usage};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use toolwright_core::orchestrate::{CallEvent, Orchestrator};
use toolwright_core::{Provider, SchemaError, ToolResult, TurnContext};
use tracing::Instrument;

/// What the loop reports as it goes. Every method has an empty default; `()`
/// observes nothing.
pub trait AgentObserver: Send {
    /// Response `n` (from 1) begins to stream.
    fn response_started(&mut self, n: usize, api: Api) {
        let _ = (n, api);
    }
    /// The assistant's text, in pieces: what arrived before each call, and the rest.
    fn text(&mut self, text: &str) {
        let _ = text;
    }
    /// The provider's own tool at work (its web search's query, its results).
    fn server_tool(&mut self, event: &crate::provider::server_tools::ServerToolEvent) {
        let _ = event;
    }
    /// A call event from the orchestrator (queued, started, finished, ...).
    fn call(&mut self, event: &CallEvent<'_>) {
        let _ = event;
    }
    /// The tokens response `n` used, as the API reported them.
    fn usage(&mut self, n: usize, usage: &Usage) {
        let _ = (n, usage);
    }
    /// The model's part of response `n` ended: `took` from sending the request to
    /// the stream's end (calls may still be running).
    fn response_streamed(&mut self, n: usize, took: Duration) {
        let _ = (n, took);
    }
    /// Response `n` ended; these are its calls' results, in call order.
    fn response_finished(&mut self, n: usize, results: &[ToolResult]) {
        let _ = (n, results);
    }
    /// Attempt `attempt` failed with `error`; the next one starts after `wait`.
    fn retrying(&mut self, attempt: usize, wait: Duration, error: &ModelError) {
        let _ = (attempt, wait, error);
    }
    /// A response was cut off after its calls began: they were answered (a call
    /// whose input was incomplete never ran), and the model is asked again.
    fn interrupted(&mut self, error: &ModelError) {
        let _ = error;
    }
}

impl AgentObserver for () {}

/// Why the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool; `reason` is its stop reason.
    Finished {
        /// `end_turn`, `stop`, `completed`, `max_tokens`, ...
        reason: Option<String>,
    },
    /// The response limit was reached while the model still called tools.
    MaxResponses,
    /// The turn's cancellation token was cancelled.
    Cancelled,
}

/// A finished run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Outcome {
    /// Everything said, in the API's format: resume it with [`Agent::resume`].
    pub conversation: Conversation,
    /// How many responses the model gave.
    pub responses: usize,
    /// Why it ended.
    pub stop: Stop,
    /// The last response's text.
    pub text: String,
    /// The tokens every response of the run used, as the API reported them.
    pub usage: Usage,
}

/// A run that could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model could not be asked (after the retries the policy allows). The
    /// conversation so far is kept: nothing said or run is lost.
    #[error("{error}{}", if *attempts > 1 { format!(" (gave up after {attempts} attempts)") } else { String::new() })]
    Model {
        /// The last attempt's error.
        error: ModelError,
        /// How many attempts were made.
        attempts: usize,
        /// The conversation up to the failed request.
        conversation: Box<Conversation>,
    },
    /// The tools' definitions could not be rendered for the API.
    #[error("the tool definitions: {0}")]
    Definitions(#[from] SchemaError),
}

/// An agent loop over a [`Model`] and an [`Orchestrator`]: each response streams
/// into the executor, so calls start while the model is still writing; their
/// results go back in the API's format; failures are retried as the
/// [`RetryPolicy`] says.
///
/// ```no_run
/// use std::sync::Arc;
/// use toolwright::agent::{Agent, HttpModel};
/// use toolwright::orchestrate::Orchestrator;
/// use toolwright::provider::Api;
/// use toolwright::{Executor, TurnContext};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let cwd = std::env::current_dir()?;
/// let registry = Arc::new(toolwright::registry()?);
/// let settings = toolwright::WorkspaceSettings::load(&cwd)?;
/// for warning in settings.warnings() { eprintln!("warning: {warning}"); }
/// let executor = settings.executor(registry, toolwright::permission::Unattended);
/// let agent = Agent::new(HttpModel::from_env(Api::Anthropic)?, Orchestrator::new(Arc::new(executor)))
///     .system("You are a careful coding agent.");
/// let mut turn = TurnContext::new(&cwd).with_extensions(toolwright::builtin::session());
/// let outcome = agent.run("Make the failing test pass.", &mut turn, &mut ()).await?;
/// println!("{}", outcome.text);
/// # Ok(()) }
/// ```
pub struct Agent {
    model: Arc<dyn Model>,
    orchestrator: Arc<Orchestrator>,
    system: String,
    max_responses: usize,
    max_tokens: u32,
    retry: RetryPolicy,
    provider: Provider,
    /// The tools this agent is offered and may call; `None`: the registry's.
    profile: Option<toolwright_core::Profile>,
    /// Where the transcript goes instead of the session's (a subagent's own).
    transcript: Option<std::path::PathBuf>,
    /// Runs before each request is rendered.
    before_request: Option<Arc<BeforeRequest>>,
    /// The tool definitions sent instead of the pool's (a fork's: its parent's, byte
    /// for byte); calls are still held to the profile.
    shown_tools: Option<serde_json::Value>,
    /// How many items of the conversation a fork shares with its parent: the end of
    /// that prefix is a cache breakpoint of its own.
    shared_prefix: Option<usize>,
    /// The provider's own tools declared with the function tools (its web search).
    server_tools: Vec<serde_json::Value>,
}

/// What an agent's last request sent: where a fork starts, so that its first request
/// shares the provider's cached prefix (system prompt, tools, history).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ForkPoint {
    /// The system prompt.
    pub system: String,
    /// The tool definitions, as rendered for the request.
    pub tools: serde_json::Value,
    /// The conversation the request carried.
    pub conversation: Conversation,
}

/// A place in a turn's extensions where the loop leaves its [`ForkPoint`] before each
/// request (the subagent runtime puts one in every turn it runs).
#[derive(Debug, Clone, Default)]
pub struct ForkCell(Arc<Mutex<Option<Arc<ForkPoint>>>>);

impl ForkCell {
    /// The last request's fork point, if a request was made.
    pub fn get(&self) -> Option<Arc<ForkPoint>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    fn set(&self, point: ForkPoint) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(point));
    }
}

type BeforeRequest = dyn Fn(&TurnContext) + Send + Sync;

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("api", &self.model.api())
            .field("model", &self.model.name())
            .field("max_responses", &self.max_responses)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// The session's transcript file, if its [`SessionInfo`](toolwright_core::SessionInfo)
/// names one (hooks get its path as `transcript_path`): one JSON line per item of the
/// conversation, `{"type": "user"|"assistant", "message": item}`, appended as the
/// conversation grows. Best effort: a transcript that cannot be written never stops
/// the run.
struct Transcript {
    path: Option<std::path::PathBuf>,
    written: usize,
}

impl Transcript {
    fn of(turn: &TurnContext, own: Option<&std::path::Path>) -> Transcript {
        let path = match own {
            Some(path) => Some(path.to_path_buf()),
            None => turn.extensions().get::<toolwright_core::SessionInfo>().and_then(|s| s.transcript_path.clone()),
        };
        // A resumed conversation's earlier items are in the file already.
        let written = path
            .as_deref()
            .and_then(|p| std::fs::read(p).ok())
            .map_or(0, |bytes| bytes.iter().filter(|&&b| b == b'\n').count());
        Transcript { path, written }
    }

    fn append(&mut self, conversation: &Conversation) {
        use std::io::Write as _;
        let Some(path) = &self.path else { return };
        let items = conversation.items();
        if items.len() <= self.written {
            return;
        }
        let mut lines = String::new();
        for item in &items[self.written..] {
            let role = if item["role"] == "assistant" || item["type"] == "function_call" || item["type"] == "message" {
                "assistant"
            } else {
                "user"
            };
            lines.push_str(&serde_json::json!({"type": role, "message": item}).to_string());
            lines.push('\n');
        }
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| file.write_all(lines.as_bytes()));
        if written.is_ok() {
            self.written = items.len();
        }
    }
}

/// One response and what came of it.
struct Response {
    assistant: Vec<serde_json::Value>,
    results: Vec<ToolResult>,
    stop: Option<String>,
    text: String,
    /// Cut off after calls began.
    interrupted: Option<ModelError>,
    cancelled: bool,
    usage: Usage,
}

type Shared<'o> = Mutex<&'o mut dyn AgentObserver>;

fn observe<'a, 'o>(observer: &'a Shared<'o>) -> std::sync::MutexGuard<'a, &'o mut dyn AgentObserver> {
    observer.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Agent {
    /// A loop over `model` whose calls `orchestrator` runs; the definitions sent are
    /// its registry's, for the model's API (plain). At most 30 responses of at most
    /// 8192 tokens; [`RetryPolicy::default`].
    pub fn new(model: impl Model + 'static, orchestrator: impl Into<Arc<Orchestrator>>) -> Agent {
        Agent::new_shared(Arc::new(model), orchestrator)
    }

    /// A loop over a shared model (what the subagent runtime gives each child).
    pub fn new_shared(model: Arc<dyn Model>, orchestrator: impl Into<Arc<Orchestrator>>) -> Agent {
        let provider = model.api().provider();
        Agent {
            model,
            orchestrator: orchestrator.into(),
            system: String::new(),
            max_responses: 30,
            max_tokens: 8192,
            retry: RetryPolicy::default(),
            provider,
            profile: None,
            transcript: None,
            before_request: None,
            shown_tools: None,
            shared_prefix: None,
            server_tools: Vec::new(),
        }
    }

    /// Keeps the transcript at `path` (JSON lines, as the session's would be) instead
    /// of the session's `transcript_path`: a subagent's own, beside its parent's.
    pub fn transcript(mut self, path: impl Into<std::path::PathBuf>) -> Agent {
        self.transcript = Some(path.into());
        self
    }

    /// Runs `f` before each request's tools are rendered: what keeps tools that follow
    /// files in step (`Subagents::sync_definition_tools`), so a changed file takes
    /// effect at the next request.
    pub fn before_each_request(mut self, f: impl Fn(&TurnContext) + Send + Sync + 'static) -> Agent {
        self.before_request = Some(Arc::new(f));
        self
    }

    /// Declares a provider's own tool in every request, after the function tools
    /// (a [`WebSearchServerTool`](crate::provider::server_tools::WebSearchServerTool)'s
    /// definition for this API). Its uses and results stay in the conversation as the
    /// API sent them, and reach the observer's [`AgentObserver::server_tool`].
    pub fn server_tool(mut self, definition: serde_json::Value) -> Agent {
        self.server_tools.push(definition);
        self
    }

    /// Sends these tool definitions instead of the pool's (a fork sends its parent's,
    /// byte for byte, so the provider's prompt cache is reused); calls are still held
    /// to the profile, a call outside it refused at dispatch.
    pub fn show_tools(mut self, tools: serde_json::Value) -> Agent {
        self.shown_tools = Some(tools);
        self
    }

    /// Marks the first `items` of the conversation as shared with another agent's
    /// request (a fork's parent's history): the provider caches that prefix as its
    /// own breakpoint, besides the tools and the conversation's end.
    pub fn shared_prefix(mut self, items: usize) -> Agent {
        self.shared_prefix = Some(items);
        self
    }

    /// The model's name, as sent in each request.
    pub fn model_name(&self) -> &str {
        self.model.name()
    }

    /// The system prompt.
    pub fn system(mut self, system: impl Into<String>) -> Agent {
        self.system = system.into();
        self
    }

    /// At most `n` responses (at least 1).
    pub fn max_responses(mut self, n: usize) -> Agent {
        self.max_responses = n.max(1);
        self
    }

    /// At most `n` tokens per response.
    pub fn max_tokens(mut self, n: u32) -> Agent {
        self.max_tokens = n;
        self
    }

    /// Another retry policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Agent {
        self.retry = policy;
        self
    }

    /// Only the tools `profile` admits: the model is shown only those, and a call to
    /// any other is refused at dispatch with an error result that says why. A
    /// restricted agent (a reviewer without `shell`) needs no registry of its own.
    ///
    /// ```
    /// # fn make(model: toolwright::agent::RecordedModel, orchestrator: toolwright::orchestrate::Orchestrator) {
    /// use toolwright::Profile;
    /// let reader = toolwright::agent::Agent::new(model, orchestrator)
    ///     .profile(Profile::new("reader").allow(["read_file", "grep", "glob"]));
    /// # }
    /// ```
    pub fn profile(mut self, profile: toolwright_core::Profile) -> Agent {
        self.profile = Some(profile);
        self
    }

    /// Definitions for another provider shape of the same API (strict, or Anthropic
    /// without `cache_control`).
    pub fn definitions(mut self, provider: Provider) -> Agent {
        self.provider = provider;
        self
    }

    /// Runs `task` until the model stops calling tools.
    pub async fn run(
        &self,
        task: &str,
        turn: &mut TurnContext,
        observer: &mut dyn AgentObserver,
    ) -> Result<Outcome, AgentError> {
        self.resume(Conversation::new(self.model.api(), task), turn, observer).await
    }

    /// Goes on with a conversation (a finished [`Outcome`]'s with a new user message
    /// appended, or a failed run's).
    pub async fn resume(
        &self,
        conversation: Conversation,
        turn: &mut TurnContext,
        observer: &mut dyn AgentObserver,
    ) -> Result<Outcome, AgentError> {
        let span = super::telemetry::agent_span(turn, self.model.api(), self.model.name());
        let run = self.resume_in_span(conversation, turn, observer);
        let outcome = if span.is_disabled() { run.await } else { run.instrument(span.clone()).await };
        match &outcome {
            Ok(outcome) => {
                super::telemetry::usage(&span, &outcome.usage);
                // A run stopped from outside (a signal, a cancelled turn) did not
                // finish: its span says so.
                if outcome.stop == Stop::Cancelled {
                    super::telemetry::failed(&span, "cancelled");
                }
            }
            Err(AgentError::Model { error, .. }) => {
                super::telemetry::failed(&span, &super::telemetry::error_type(error))
            }
            Err(_) => super::telemetry::failed(&span, "agent_error"),
        }
        outcome
    }

    async fn resume_in_span(
        &self,
        mut conversation: Conversation,
        turn: &mut TurnContext,
        observer: &mut dyn AgentObserver,
    ) -> Result<Outcome, AgentError> {
        let observer: Shared<'_> = Mutex::new(observer);
        let api = self.model.api();
        let registry = Arc::clone(self.orchestrator.executor().registry());
        let mut text = String::new();
        let mut usage = Usage::default();
        let mut transcript = Transcript::of(turn, self.transcript.as_deref());
        transcript.append(&conversation);
        for n in 1..=self.max_responses {
            if turn.cancellation().is_cancelled() {
                return Ok(Outcome { conversation, responses: n - 1, stop: Stop::Cancelled, text, usage });
            }
            if let Some(before) = &self.before_request {
                before(turn);
            }
            // Rendered for each request: mounted servers may have changed the tools,
            // and a session's searches may have loaded some.
            // With a profile, the pool is also what the calls are held to.
            let pool = self.profile.as_ref().map(|profile| registry.pool(turn, profile, &[]));
            // Without one, the main agent's pool: each tool as enabled and described
            // for this turn (the skill and agent tools list what the turn has).
            let tools = match &pool {
                Some(pool) => pool.definitions(self.provider)?.to_value(),
                None => {
                    let pool = registry.pool(turn, &toolwright_core::Profile::main_agent(), &[]);
                    pool.definitions(self.provider)?.to_value()
                }
            };
            let mut tools = match &self.shown_tools {
                Some(shown) => shown.clone(),
                None => tools,
            };
            if let Some(list) = tools.as_array_mut() {
                list.extend(self.server_tools.iter().cloned());
            }
            if let Some(cell) = turn.extensions().get::<ForkCell>() {
                cell.set(ForkPoint {
                    system: self.system.clone(),
                    tools: tools.clone(),
                    conversation: conversation.clone(),
                });
            }
            let breakpoints = self.cache_breakpoints(&conversation);
            let request = Request::new(self.model.name(), &self.system, &tools, &conversation)
                .max_tokens(self.max_tokens)
                .cache_breakpoints(&breakpoints);
            let body = api.request(&request);
            let response = match self.respond(n, &body, turn, pool.as_ref(), &observer).await {
                Ok(response) => response,
                Err((error, attempts)) => {
                    return Err(AgentError::Model { error, attempts, conversation: Box::new(conversation) });
                }
            };
            conversation.push_response(response.assistant, &response.results);
            transcript.append(&conversation);
            usage.add(&response.usage);
            observe(&observer).usage(n, &response.usage);
            observe(&observer).response_finished(n, &response.results);
            text = response.text;
            if response.cancelled {
                return Ok(Outcome { conversation, responses: n, stop: Stop::Cancelled, text, usage });
            }
            if let Some(error) = response.interrupted {
                if !error.is_retryable() {
                    return Err(AgentError::Model { error, attempts: 1, conversation: Box::new(conversation) });
                }
                observe(&observer).interrupted(&error);
                continue;
            }
            if response.results.is_empty() {
                return Ok(Outcome {
                    conversation,
                    responses: n,
                    stop: Stop::Finished { reason: response.stop },
                    text,
                    usage,
                });
            }
        }
        Ok(Outcome { conversation, responses: self.max_responses, stop: Stop::MaxResponses, text, usage })
    }

    /// Where the prompt cache's breakpoints go in the conversation, for a provider
    /// that takes them: the end of a shared prefix and the end of the conversation
    /// (with the tools' own, three of the four Anthropic allows), so each request
    /// reads what the one before it wrote.
    fn cache_breakpoints(&self, conversation: &Conversation) -> Vec<usize> {
        if !matches!(self.provider, Provider::Anthropic { cache_control: true, .. }) {
            return Vec::new();
        }
        let len = conversation.items().len();
        let mut at: Vec<usize> = self.shared_prefix.filter(|&n| n > 0 && n <= len).map(|n| n - 1).into_iter().collect();
        if len > 0 && !at.contains(&(len - 1)) {
            at.push(len - 1);
        }
        at
    }

    /// One response, with retries: an attempt that failed before any call started
    /// is repeated as the policy allows; one cut off after calls began is kept.
    async fn respond(
        &self,
        n: usize,
        body: &serde_json::Value,
        turn: &mut TurnContext,
        pool: Option<&toolwright_core::ToolPool>,
        observer: &Shared<'_>,
    ) -> Result<Response, (ModelError, usize)> {
        use backon::BackoffBuilder;
        let mut backoff = self.retry.backoff().build();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let error = match self.attempt(n, body, turn, pool, observer).await {
                Ok(response) => return Ok(response),
                Err(error) => error,
            };
            let wait = if error.is_retryable() { self.retry.wait(&error, backoff.next()) } else { None };
            let Some(wait) = wait else { return Err((error, attempts)) };
            observe(observer).retrying(attempts, wait, &error);
            super::telemetry::retrying(attempts, wait, &super::telemetry::error_type(&error));
            let token = turn.cancellation().clone();
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = token.cancelled() => {
                    let cancelled = Response {
                        assistant: Vec::new(), results: Vec::new(), stop: None, text: String::new(),
                        interrupted: None, cancelled: true, usage: Usage::default(),
                    };
                    return Ok(cancelled);
                }
            }
        }
    }

    /// One attempt: the request, its stream decoded into the executor as it
    /// arrives. `Err` only when no call started, so the attempt can be repeated.
    async fn attempt(
        &self,
        n: usize,
        body: &serde_json::Value,
        turn: &mut TurnContext,
        pool: Option<&toolwright_core::ToolPool>,
        observer: &Shared<'_>,
    ) -> Result<Response, ModelError> {
        let api = self.model.api();
        let chat = super::telemetry::chat_span(api, self.model.name(), self.max_tokens, self.model.endpoint());
        let sent = std::time::Instant::now();
        let mut stream = match self.model.send(body).instrument(chat.clone()).await {
            Ok(stream) => stream,
            Err(error) => {
                super::telemetry::failed(&chat, &super::telemetry::error_type(&error));
                return Err(error);
            }
        };
        observe(observer).response_started(n, api);
        let token = turn.cancellation().clone();
        let (events, calls) = mpsc::channel(1024);
        let (server_uses, server_results) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let (uses, found) = (&server_uses, &server_results);
        let reader = async move {
            let mut decoder = api.decoder();
            let mut pending = String::new();
            let mut text = String::new();
            let forward = async |items: Vec<Item>, pending: &mut String, text: &mut String| {
                for item in items {
                    match item {
                        Item::Text(piece) => {
                            pending.push_str(&piece);
                            text.push_str(&piece);
                        }
                        Item::Server(event) => {
                            if !pending.is_empty() {
                                observe(observer).text(pending);
                                pending.clear();
                            }
                            match &event {
                                ServerToolEvent::Used { .. } => uses.fetch_add(1, Ordering::Relaxed),
                                ServerToolEvent::Results { pages, .. } => {
                                    found.fetch_add(pages.len(), Ordering::Relaxed)
                                }
                                _ => 0,
                            };
                            observe(observer).server_tool(&event);
                        }
                        Item::Call(event) => {
                            if !pending.is_empty() {
                                observe(observer).text(pending);
                                pending.clear();
                            }
                            // The executor stops reading only when the turn is
                            // cancelled; then the calls are answered anyway.
                            let _ = events.send(event).await;
                        }
                    }
                }
            };
            let outcome: Result<(), ModelError> = loop {
                let chunk = tokio::select! {
                    biased;
                    () = token.cancelled() => break Ok(()),
                    chunk = stream.chunk() => chunk,
                };
                let ended = matches!(chunk, Ok(None));
                let items = match chunk {
                    Ok(Some(bytes)) => decoder.push(&bytes),
                    Ok(None) => decoder.finish(),
                    Err(error) => break Err(error),
                };
                match items {
                    Ok(items) => forward(items, &mut pending, &mut text).await,
                    Err(error) => break Err(error.into()),
                }
                if decoder.is_done() {
                    break Ok(());
                }
                if ended {
                    break Err(ModelError::Interrupted {
                        url: format!("the {api} API"),
                        cause: "the stream ended before the response did".into(),
                    });
                }
            };
            // Whatever the stream left open never runs.
            let cut = decoder.cut();
            forward(cut, &mut pending, &mut text).await;
            if !pending.is_empty() {
                observe(observer).text(&pending);
            }
            let streamed = sent.elapsed();
            observe(observer).response_streamed(n, streamed);
            drop(events);
            (decoder, outcome, text, streamed)
        };
        // The response's stream is the chat span; the calls it starts are the
        // agent's (siblings of the request, as the conventions draw them).
        let reader = reader.instrument(chat.clone());
        let executing = self.orchestrator.run_streaming(calls, turn, pool, |event| observe(observer).call(&event));
        let ((decoder, outcome, text, streamed), results) = tokio::join!(reader, executing);
        super::telemetry::usage(&chat, &decoder.usage());
        super::telemetry::server_tools(&chat, server_uses.into_inner(), server_results.into_inner());
        super::telemetry::finish_reason(&chat, decoder.stop_reason());
        let error = outcome.as_ref().err().map(super::telemetry::error_type);
        if let Some(kind) = &error {
            super::telemetry::failed(&chat, kind);
        }
        super::telemetry::chat_duration(&chat, api, self.model.name(), streamed, error.as_deref());
        let cancelled = turn.cancellation().is_cancelled();
        let interrupted = match outcome {
            Err(error) if results.is_empty() && !cancelled => return Err(error),
            Err(error) => Some(error),
            Ok(()) => None,
        };
        Ok(Response {
            assistant: decoder.assistant_items(),
            results,
            stop: decoder.stop_reason().map(str::to_owned),
            text,
            interrupted: if cancelled { None } else { interrupted },
            cancelled,
            usage: decoder.usage(),
        })
    }
}
