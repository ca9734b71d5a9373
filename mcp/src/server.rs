//! Serving a registry over MCP: `tools/list` from the cached MCP rendering,
//! `tools/call` through the executor's pipeline.

pub use super::approver::{AskMode, McpPeer, approver};
use super::convert::to_call_tool_result;
use super::limits::MessageLimits;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use toolwright_core::Executor;
use toolwright_core::Provider;
use toolwright_core::Registry;
use toolwright_core::ToolCall;
use toolwright_core::progress::ProgressSink;
use toolwright_core::{Extensions, TurnContext};

/// An MCP server for a registry: every tool in `tools/list` (name, title,
/// description, inlined `inputSchema`, `outputSchema`, annotations from the flags,
/// sorted by name, rendered once per registry generation) and `tools/call` through
/// the executor's pipeline (validation, permissions, hooks, timeout, output limit).
///
/// Bad arguments are `isError` results the model can read; an unknown tool is a
/// protocol error (`-32602`). Progress goes out when the client sends a
/// `progressToken`; `notifications/cancelled` cancels the call; runtime tool changes
/// send `notifications/tools/list_changed`.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let registry = std::sync::Arc::new(toolwright_core::Registry::from_inventory()?);
/// toolwright_mcp::McpServer::new(registry).serve_stdio().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpServer {
    executor: Arc<Executor>,
    cwd: Arc<PathBuf>,
    extensions: Arc<dyn Fn() -> Extensions + Send + Sync>,
    info: Implementation,
    tools: Arc<Mutex<Option<ToolList>>>,
    limits: MessageLimits,
    /// The hosts and origins the HTTP endpoint accepts.
    #[cfg(feature = "http")]
    access: super::access::HttpAccess,
    /// The bearer tokens the HTTP endpoint wants (none: no authentication).
    #[cfg(feature = "http")]
    tokens: super::auth::BearerTokens,
    /// OAuth access tokens instead of static ones.
    #[cfg(feature = "http")]
    oauth: Option<super::oauth::OAuthResource>,
    /// TLS for the HTTP endpoint.
    #[cfg(feature = "http")]
    tls: Option<super::tls::TlsConfig>,
    /// Sessions, calls in flight and timeouts over HTTP.
    #[cfg(feature = "http")]
    http_limits: super::http_limits::HttpLimits,
    /// Calls in flight over HTTP, shared by every session's server.
    #[cfg(feature = "http")]
    flight: Option<Arc<super::http_limits::InFlight>>,
    /// Told of every call: who, which tool, what became of it.
    audit: Option<AuditSink>,
    /// Seals the state of input-required rounds (shared by every session).
    rounds: super::input_required::Rounds,
    /// Calls that outgrew their request, as MCP tasks (shared by every session).
    tasks: super::tasks::Tasks,
    /// With deferral: this client's session (each HTTP session gets its own).
    session: Option<toolwright_core::deferred::ToolSession>,
    /// The level this client asked for (`logging/setLevel`).
    log_level: super::logging::ClientLevel,
}

/// The MCP tool list and the registry generation it was made from.
type ToolList = (u64, Arc<[Tool]>);

/// Where audit records go.
type AuditSink = Arc<dyn Fn(&AuditRecord) + Send + Sync>;

/// One call as the audit sees it: who, which tool, what became of it. No input,
/// output or secret.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditRecord {
    /// The authenticated caller's subject, if the server authenticates.
    pub caller: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// What became of the call.
    pub outcome: Outcome,
    /// How long it took.
    pub duration: std::time::Duration,
}

/// What became of a call, for the audit: the permission decision and the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Allowed, and it succeeded.
    Ok,
    /// Allowed, and it failed (an error result, a timeout, a panic, bad input).
    Failed,
    /// The policy, a hook or the user refused it.
    Denied,
    /// Cancelled before it finished.
    Cancelled,
}

impl Outcome {
    fn of(error: Option<toolwright_core::ErrorKind>) -> Outcome {
        use toolwright_core::ErrorKind as E;
        match error {
            None => Outcome::Ok,
            Some(E::Denied | E::HookDenied | E::Rejected) => Outcome::Denied,
            Some(E::Cancelled) => Outcome::Cancelled,
            Some(_) => Outcome::Failed,
        }
    }

    /// `ok`, `failed`, `denied` or `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Failed => "failed",
            Outcome::Denied => "denied",
            Outcome::Cancelled => "cancelled",
        }
    }
}

/// Serving failed: the transport could not start or the connection broke.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// An I/O error (binding the port, reading stdin).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The MCP session could not start or ended with an error.
    #[error("MCP session: {0}")]
    Session(String),
    /// The server's settings contradict each other.
    #[error("{0}")]
    Settings(String),
}

impl McpServer {
    /// A server for `registry` with the default executor (read-only tools allowed,
    /// anything else asks, and asks are denied; see [`AskMode`]). The working
    /// directory is the process's.
    pub fn new(registry: Arc<Registry>) -> McpServer {
        let executor = Executor::builder(registry).approver(approver(AskMode::Deny)).build();
        McpServer::with_executor(Arc::new(executor))
    }

    /// A server that runs calls through `executor` (its policy, approver, hooks).
    pub fn with_executor(executor: Arc<Executor>) -> McpServer {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        McpServer {
            executor,
            cwd: Arc::new(cwd),
            extensions: Arc::new(Extensions::new),
            info: Implementation::new("toolwright", env!("CARGO_PKG_VERSION")),
            tools: Arc::default(),
            limits: MessageLimits::default(),
            #[cfg(feature = "http")]
            access: super::access::HttpAccess::default(),
            #[cfg(feature = "http")]
            tokens: super::auth::BearerTokens::default(),
            #[cfg(feature = "http")]
            oauth: None,
            #[cfg(feature = "http")]
            tls: None,
            #[cfg(feature = "http")]
            http_limits: super::http_limits::HttpLimits::default(),
            #[cfg(feature = "http")]
            flight: None,
            audit: None,
            rounds: super::input_required::Rounds::new(),
            tasks: super::tasks::Tasks::new(super::tasks::DEFAULT_AFTER),
            session: None,
            log_level: super::logging::ClientLevel::default(),
        }
    }

    /// Offers deferred tools through `tool_search`, as an agent's pool does: the
    /// client lists the eager tools and the search, a search loads tools into this
    /// client's session, and the client is told the list changed. Registers the
    /// search tool in the registry.
    pub fn with_deferral(mut self, deferral: toolwright_core::deferred::Deferral) -> McpServer {
        let session = toolwright_core::deferred::ToolSession::new(deferral);
        if let Err(e) = session.install(self.registry()) {
            tracing::warn!("tool_search cannot be registered: {e}");
            return self;
        }
        self.session = Some(session);
        self
    }

    /// A copy for one more client: with deferral, its own session, nothing loaded
    /// (HTTP does this for every MCP session; a clone shares the session).
    pub fn for_session(&self) -> McpServer {
        let mut server = self.clone();
        server.session = self.session.as_ref().map(toolwright_core::deferred::ToolSession::fork);
        server.log_level = super::logging::ClientLevel::default();
        server
    }

    /// Runs calls in `cwd`.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> McpServer {
        self.cwd = Arc::new(cwd.into());
        self
    }

    /// Gives each call the extensions `make` returns (a workspace, a session's
    /// state). The server adds the client's [`McpPeer`].
    pub fn with_extensions(mut self, make: impl Fn() -> Extensions + Send + Sync + 'static) -> McpServer {
        self.extensions = Arc::new(make);
        self
    }

    /// The name and version the server reports in `initialize`.
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> McpServer {
        self.info = Implementation::new(name, version);
        self
    }

    /// Takes messages within `limits` (default [`MessageLimits::default`]) on stdio
    /// and HTTP; one over them is answered with an error naming the limit.
    pub fn with_limits(mut self, limits: MessageLimits) -> McpServer {
        self.limits = limits;
        self
    }

    /// The hosts and origins the HTTP endpoint accepts (default: loopback names,
    /// and browser pages from loopback origins only).
    #[cfg(feature = "http")]
    pub fn with_http_access(mut self, access: super::access::HttpAccess) -> McpServer {
        self.access = access;
        self
    }

    /// Wants one of `tokens` in every HTTP request's `Authorization: Bearer` header;
    /// each call then carries its caller ([`toolwright_core::Caller`]) to the
    /// policy, the hooks and the audit record.
    #[cfg(feature = "http")]
    pub fn with_bearer_tokens(mut self, tokens: super::auth::BearerTokens) -> McpServer {
        self.tokens = tokens;
        self
    }

    /// Serves HTTPS: every connection is TLS with this certificate (the
    /// handshake must finish within the read timeout of [`HttpLimits`](super::HttpLimits)).
    #[cfg(feature = "http")]
    pub fn with_tls(mut self, tls: super::tls::TlsConfig) -> McpServer {
        self.tls = Some(tls);
        self
    }

    /// Acts as an OAuth 2.1 resource server (the MCP authorization spec): serves
    /// the protected resource metadata, and wants an access token from the
    /// resource's issuer in every HTTP request, checked as a JWT or by
    /// introspection, with the required scopes. Not with static tokens: serving
    /// fails if both are given.
    #[cfg(feature = "http")]
    pub fn with_oauth(mut self, resource: super::oauth::OAuthResource) -> McpServer {
        self.oauth = Some(resource);
        self
    }

    /// Sessions, calls in flight and timeouts over HTTP (defaults: 64 sessions, 64
    /// requests in flight in all and 16 per session, 300 s idle, 30 s to initialize).
    #[cfg(feature = "http")]
    pub fn with_http_limits(mut self, limits: super::http_limits::HttpLimits) -> McpServer {
        self.http_limits = limits;
        self
    }

    /// Counts this server's calls in `flight` against `limits` (the HTTP transport).
    #[cfg(feature = "http")]
    pub(crate) fn with_flight(
        mut self,
        flight: Arc<super::http_limits::InFlight>,
        limits: super::http_limits::HttpLimits,
    ) -> McpServer {
        self.flight = Some(flight);
        self.http_limits = limits;
        self
    }

    /// Calls `record` once for every call: the caller (if authenticated), the tool,
    /// and the outcome. No input, output or secret is in it.
    pub fn with_audit(mut self, record: impl Fn(&AuditRecord) + Send + Sync + 'static) -> McpServer {
        self.audit = Some(Arc::new(record));
        self
    }

    /// Serves one client over stdin and stdout until it disconnects.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let (read, write) = rmcp::transport::stdio_pipes();
        let running = self.serve_lines(read, write).await?;
        running.waiting().await.map_err(|e| ServeError::Session(e.to_string()))?;
        Ok(())
    }

    /// Serves one connection of newline-delimited JSON-RPC (MCP's stdio framing)
    /// over any byte streams, within the server's [`MessageLimits`].
    pub async fn serve_lines<R, W>(
        self,
        read: R,
        write: W,
    ) -> Result<rmcp::service::RunningService<RoleServer, McpServer>, ServeError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let transport = super::lines::LineTransport::new(read, write, self.limits);
        ServiceExt::serve(self, transport).await.map_err(|e| ServeError::Session(e.to_string()))
    }

    /// Serves one connection over any rmcp transport; returns the running service.
    /// The transport frames messages, so the [`MessageLimits`] are its to keep
    /// ([`serve_lines`](McpServer::serve_lines) keeps them).
    pub async fn serve<T, E, A>(
        self,
        transport: T,
    ) -> Result<rmcp::service::RunningService<RoleServer, McpServer>, ServeError>
    where
        T: rmcp::transport::IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        ServiceExt::serve(self, transport).await.map_err(|e| ServeError::Session(e.to_string()))
    }

    /// Serves streamable HTTP at `addr` (such as `127.0.0.1:8080`), endpoint `/mcp`,
    /// until the process ends. Only the hosts and origins of
    /// [`with_http_access`](Self::with_http_access) are answered (loopback by
    /// default); others get `403` with a JSON-RPC error.
    /// Needs the `mcp` feature (on by default), not only `mcp-stdio`.
    #[cfg(feature = "http")]
    pub async fn serve_http(self, addr: std::net::SocketAddr) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Io { context: format!("binding {addr}"), source })?;
        self.serve_http_on(listener).await
    }

    /// Serves streamable HTTP on a listener that is already bound (port 0 in tests).
    /// Needs the `mcp` feature (on by default), not only `mcp-stdio`.
    #[cfg(feature = "http")]
    pub async fn serve_http_on(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        let limits = self.limits;
        let access = self.access.clone();
        let gates = self.http_limits;
        let authentication = match (&self.oauth, self.tokens.is_empty()) {
            (None, true) => super::auth::Authentication::Open,
            (None, false) => super::auth::Authentication::Tokens(self.tokens.clone()),
            (Some(resource), true) => {
                super::auth::Authentication::OAuth(Arc::new(super::oauth::Verifier::new(resource.clone())))
            }
            (Some(_), false) => {
                return Err(ServeError::Settings(
                    "static bearer tokens and OAuth are two ways to authenticate, never mixed: give one".into(),
                ));
            }
        };
        let tls = self.tls.clone();
        super::http::serve(self, listener, limits, access, authentication, gates, tls).await
    }

    fn registry(&self) -> &Arc<Registry> {
        self.executor.registry()
    }

    /// The MCP tool list, parsed from the registry's cached MCP rendering once per
    /// generation.
    fn tool_list(&self) -> Result<Arc<[Tool]>, ErrorData> {
        if let Some(session) = &self.session {
            let mut extensions = (self.extensions)();
            extensions.insert(session.clone());
            let turn = TurnContext::new(self.cwd.as_path()).with_extensions(extensions).with_provider(Provider::Mcp);
            let pool = self.registry().pool(&turn, &toolwright_core::Profile::main_agent(), &[]);
            let rendered = pool
                .definitions(Provider::Mcp)
                .map_err(|e| ErrorData::internal_error(format!("rendering the tool list: {e}"), None))?;
            let tools: Vec<Tool> = serde_json::from_str(rendered.as_str())
                .map_err(|e| ErrorData::internal_error(format!("the rendered tool list is not MCP: {e}"), None))?;
            return Ok(tools.into());
        }
        let generation = self.registry().generation();
        let mut cache = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((cached, tools)) = &*cache
            && *cached == generation
        {
            return Ok(Arc::clone(tools));
        }
        let rendered = self
            .registry()
            .definitions(Provider::Mcp)
            .map_err(|e| ErrorData::internal_error(format!("rendering the tool list: {e}"), None))?;
        let tools: Vec<Tool> = serde_json::from_str(rendered.as_str())
            .map_err(|e| ErrorData::internal_error(format!("the rendered tool list is not MCP: {e}"), None))?;
        let tools: Arc<[Tool]> = tools.into();
        *cache = Some((generation, Arc::clone(&tools)));
        Ok(tools)
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Err(unknown) = self.registry().resolve(&request.name) {
            return Err(ErrorData::invalid_params(unknown.to_string(), None));
        }
        let input = match &request.arguments {
            Some(arguments) => serde_json::to_string(arguments)
                .map_err(|e| ErrorData::invalid_params(format!("arguments: {e}"), None))?,
            None => String::new(),
        };
        let call = ToolCall::new(call_id_of(&context.id), request.name.as_ref(), input);
        let mut extensions = (self.extensions)();
        extensions.insert(McpPeer(context.peer.clone()));
        // A tool's questions for the person (`AskUserQuestion`) go to the client's
        // user as an elicitation, when it takes them.
        if let Some(questions) = super::questions::for_peer(&context.peer) {
            extensions.insert(questions);
        }
        // The caller the HTTP layer authenticated, for the policy, the hooks and the
        // audit record.
        #[cfg(feature = "http")]
        if let Some(caller) =
            context.extensions.get::<http::request::Parts>().and_then(|p| p.extensions.get::<toolwright_core::Caller>())
        {
            extensions.insert(caller.clone());
        }
        let caller = extensions.get::<toolwright_core::Caller>().map(|c| c.subject.clone());
        // Its place among the calls in flight, held until the result.
        #[cfg(feature = "http")]
        let _ticket = match &self.flight {
            Some(flight) => {
                let session = context
                    .extensions
                    .get::<http::request::Parts>()
                    .and_then(|p| p.headers.get("mcp-session-id"))
                    .and_then(|v| v.to_str().ok());
                let who = super::http_limits::CountedFor { session, caller: caller.as_deref() };
                Some(
                    flight
                        .enter(who, &self.http_limits)
                        .map_err(|why| ErrorData::new(rmcp::model::ErrorCode(-32000), why, None))?,
                )
            }
            None => None,
        };
        if let Some(session) = &self.session {
            extensions.insert(session.clone());
        }
        let stateless = is_stateless(&context);
        let round = stateless.then(|| {
            let can_elicit = context.meta.client_capabilities().is_some_and(|c| c.elicitation.is_some());
            self.rounds.round_of(&request, can_elicit)
        });
        if let Some(round) = &round {
            self.load_for_this_request(&request.name);
            extensions.insert(round.clone());
        }
        let loaded_before = self.session.as_ref().map(|s| s.loaded().len());
        // A client that takes tasks gets one for a call that outgrows a short wait.
        if takes_tasks(&context, stateless) {
            let ct = tokio_util::sync::CancellationToken::new();
            let turn = TurnContext::from_parts(PathBuf::clone(&self.cwd), ct.clone(), extensions, None, None);
            let executor = Arc::clone(&self.executor);
            let summary = call.name.to_string();
            // In the request's span: a client's log (`logging/setLevel`) follows the call.
            let run =
                tokio::spawn(tracing::Instrument::in_current_span(async move { executor.execute(&call, &turn).await }));
            let (audit, who) = (self.audit.clone(), caller.clone());
            let done = move |result: &toolwright_core::ToolResult| record(audit.as_ref(), who.as_deref(), result);
            return match self.tasks.run(run, ct, &context.ct, caller.clone(), summary, done).await {
                super::tasks::Ran::Early(Ok(result)) => {
                    Ok(self.finish(result, caller.as_deref(), loaded_before, &context, round.as_ref()).await)
                }
                super::tasks::Ran::Early(Err(why)) => Err(ErrorData::internal_error(why, None)),
                super::tasks::Ran::Task(task) => Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(task))),
            };
        }
        let token = context.meta.get_progress_token();
        let (sink, reports) = token.is_some().then(|| ProgressSink::channel(64)).unzip();
        let turn = TurnContext::from_parts(PathBuf::clone(&self.cwd), context.ct.clone(), extensions, sink, None);
        let (Some(token), Some(mut reports)) = (token, reports) else {
            let result = self.executor.execute(&call, &turn).await;
            return Ok(self.finish(result, caller.as_deref(), loaded_before, &context, round.as_ref()).await);
        };
        let peer = &context.peer;
        let forward = async move {
            // MCP wants `progress` to grow; reports without a number count up.
            let mut last = 0.0_f64;
            while let Some(event) = reports.recv().await {
                let p = event.progress;
                let value = p.progress.unwrap_or(last + 1.0).max(last);
                last = value;
                let mut note = ProgressNotificationParam::new(token.clone(), value);
                note.total = p.total;
                if !p.message.is_empty() {
                    note.message = Some(p.message);
                }
                if peer.notify_progress(note).await.is_err() {
                    break;
                }
            }
        };
        let run = async move {
            let result = self.executor.execute(&call, &turn).await;
            // Closes the channel: the forwarder sends what is left, then ends.
            drop(turn);
            result
        };
        // One task, no spawn: every report goes out before the result.
        let (result, ()) = tokio::join!(run, forward);
        Ok(self.finish(result, caller.as_deref(), loaded_before, &context, round.as_ref()).await)
    }

    /// A call's result for the client, audited; after a search that loaded tools,
    /// a session's client is told to list them again, and a stateless client (it
    /// has no session to list them in) gets their definitions in the result's
    /// `structuredContent.tools`. A stateless call whose approver asked gets the
    /// question back (`input_required`) instead.
    async fn finish(
        &self,
        result: toolwright_core::ToolResult,
        caller: Option<&str>,
        loaded_before: Option<usize>,
        context: &RequestContext<RoleServer>,
        round: Option<&super::input_required::InputRound>,
    ) -> CallToolResponse {
        if let Some(round) = round
            && let Some(question) = round.asked()
            && let Some(ask) = self.rounds.ask(round, question)
        {
            return CallToolResponse::InputRequired(ask);
        }
        let stateless = round.is_some();
        self.audit(caller, &result);
        let searched = &*result.tool == toolwright_core::deferred::TOOL_SEARCH;
        let mut out = to_call_tool_result(result.output);
        if stateless {
            if searched && let (Some(session), Ok(tools)) = (&self.session, self.tool_list()) {
                let loaded = session.loaded();
                let definitions: Vec<&Tool> = tools.iter().filter(|t| loaded.iter().any(|l| *l == *t.name)).collect();
                out.structured_content = Some(serde_json::json!({ "tools": definitions }));
            }
        } else {
            self.tell_if_loaded(loaded_before, &context.peer).await;
        }
        out.into()
    }

    /// Loads the deferred tool `name` into this request's session. A stateless
    /// (2026-07-28) request comes with no session a search could have loaded it
    /// in; deferral only keeps definitions out of a model's context, it grants
    /// nothing (the rules decide), so naming the tool is enough.
    fn load_for_this_request(&self, name: &str) {
        if let Some(session) = &self.session {
            // Listing makes the session's split, which loading takes from.
            let _ = self.tool_list();
            session.load([name]);
        }
    }

    fn audit(&self, caller: Option<&str>, result: &toolwright_core::ToolResult) {
        record(self.audit.as_ref(), caller, result);
    }

    /// Runs a call as a task after this long instead of the default second (for
    /// clients that declare the tasks extension).
    pub fn with_tasks_after(mut self, after: std::time::Duration) -> McpServer {
        self.tasks = self.tasks.with_after(after);
        self
    }

    /// After a search that loaded tools, tells the client to list them again.
    async fn tell_if_loaded(&self, before: Option<usize>, peer: &rmcp::Peer<RoleServer>) {
        if let (Some(session), Some(before)) = (&self.session, before)
            && session.loaded().len() > before
        {
            let _ = peer.notify_tool_list_changed().await;
        }
    }
}

/// Whether the client declared the tasks extension: in a stateless request's
/// `_meta`, else in what it said at `initialize` (read in place: no copy of its
/// capabilities per call).
fn takes_tasks(context: &RequestContext<RoleServer>, stateless: bool) -> bool {
    if stateless {
        return context.meta.client_capabilities().is_some_and(|c| c.supports_tasks());
    }
    context.peer.peer_info().is_some_and(|info| info.capabilities.supports_tasks())
}

/// Tells `audit` of a finished call.
fn record(audit: Option<&AuditSink>, caller: Option<&str>, result: &toolwright_core::ToolResult) {
    if let Some(record) = audit {
        record(&AuditRecord {
            caller: caller.map(str::to_owned),
            tool: result.tool.to_string(),
            outcome: Outcome::of(result.error),
            duration: result.duration,
        });
    }
}

/// The caller the HTTP layer authenticated for a request, if any.
fn caller_of(context: &RequestContext<RoleServer>) -> Option<String> {
    #[cfg(feature = "http")]
    if let Some(caller) =
        context.extensions.get::<http::request::Parts>().and_then(|p| p.extensions.get::<toolwright_core::Caller>())
    {
        return Some(caller.subject.clone());
    }
    let _ = context;
    None
}

/// Whether a request stands alone (the 2026-07-28 revision over HTTP): it came
/// without a session id. Over stdio the connection is the session.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        return !parts.headers.contains_key("mcp-session-id");
    }
    let _ = context;
    false
}

/// The call id of a request: `mcp-` and its JSON-RPC id (a number through itoa,
/// not the formatting machinery).
fn call_id_of(id: &rmcp::model::RequestId) -> Arc<str> {
    let id = match id {
        rmcp::model::NumberOrString::Number(n) => ["mcp-", itoa::Buffer::new().format(*n)].concat(),
        rmcp::model::NumberOrString::String(s) => ["mcp-", s.as_ref()].concat(),
    };
    Arc::from(id)
}

impl ServerHandler for McpServer {
    /// Every revision rmcp knows: the session lifecycle (`initialize`, up to
    /// 2025-11-25) and the stateless one of 2026-07-28 (`server/discover`, each
    /// request standing alone).
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        std::borrow::Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }

    // `logging` is dropped by the 2026-07-28 revision (rmcp marks it deprecated);
    // clients of the session revisions still set a level and read the messages.
    #[allow(deprecated)]
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_tasks()
            .enable_logging()
            // No prompts or resource templates to complete: `completion/complete`
            // answers with no suggestions (rmcp's default) rather than "unknown method".
            .enable_completions()
            .build();
        InitializeResult::new(capabilities).with_server_info(self.info.clone())
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let task = self.tasks.get(&request.task_id, caller_of(&context).as_deref())?;
        Ok(rmcp::model::GetTaskResult::new(task))
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.update(&request.task_id, caller_of(&context).as_deref(), request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id, caller_of(&context).as_deref())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tool_list()?;
        // An authenticated caller sees the tools its profile offers.
        #[cfg(feature = "http")]
        if let Some(caller) =
            context.extensions.get::<http::request::Parts>().and_then(|p| p.extensions.get::<toolwright_core::Caller>())
        {
            let mut extensions = Extensions::new();
            extensions.insert(caller.clone());
            let policy = self.executor.permission_policy();
            let offered = tools.iter().filter(|t| policy.offers(&t.name, &extensions)).cloned().collect();
            return Ok(ListToolsResult::with_all_items(offered));
        }
        let _ = context;
        Ok(ListToolsResult::with_all_items(tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The tool's `tracing` events go to this client, once it has set a level
        // (through `McpLogLayer`, which finds the call by its span).
        let logging = self.log_level.get().map(|level| super::logging::begin(&context.peer, level, &request.name));
        // Boxed: rmcp spawns a task per request holding this future, and moves it
        // (into the task, into its stage) by value; unboxed, the whole pipeline's
        // state went with it, copied several times per call.
        let call = Box::pin(self.call(request, context));
        match logging {
            Some((registration, span)) => {
                let result = tracing::Instrument::instrument(call, span).await;
                registration.finish().await;
                result
            }
            None => call.await,
        }
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(super::listen::tool_list_changes())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        super::listen::run(self.registry(), context).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Tell this client when runtime tools change, until it goes away.
        let mut changes = self.registry().changes();
        let peer = context.peer;
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::call_id_of;
    use rmcp::model::NumberOrString;

    #[test]
    fn a_call_id_is_mcp_and_the_request_id() {
        assert_eq!(&*call_id_of(&NumberOrString::Number(7)), "mcp-7");
        assert_eq!(&*call_id_of(&NumberOrString::Number(i64::MIN)), "mcp--9223372036854775808");
        assert_eq!(&*call_id_of(&NumberOrString::String("req-1".into())), "mcp-req-1");
    }
}
