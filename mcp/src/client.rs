//! Mounting MCP servers: connect, list tools, register each as
//! `mcp__<server>__<tool>`, forward calls with progress and cancellation, reconnect
//! with backoff, follow `tools/list_changed`.

use super::config::{McpConfig, McpServerConfig, ServerTransport};
use super::convert::{flags_from_annotations, from_call_tool_result, normalize_schema, progress_from};
use super::limits::MessageLimits;
use super::lines::{LineTransport, Warn};
use super::mounted_tool::McpTool;
use toolwright_core::ToolContext;
use toolwright_core::ToolError;
use toolwright_core::leftovers::ProcessGroup;

use futures::StreamExt;
use rmcp::RoleClient;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientCapabilities, ClientRequest, Implementation,
    InitializeRequestParams, ProgressNotificationParam, ProtocolVersion, Request, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, ClientServiceExt as _, Peer};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};
use toolwright_core::DynTool;
use toolwright_core::Registry;
use toolwright_core::ToolOutput;
use toolwright_core::ToolSpec;
use toolwright_core::schema::Provider;

/// How mounting checks and connects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MountOptions {
    /// The providers every mounted tool's schema must lower for; a tool whose schema
    /// does not is skipped with a warning. Defaults to all of them, so the registry
    /// renders for any provider after mounting.
    pub providers: Vec<Provider>,
    /// How long connecting and listing tools may take per server.
    pub connect_timeout: Duration,
    /// How long one message to a stdio server may take to write: past it the
    /// server counts as having stopped reading, and it is killed and restarted.
    pub write_timeout: Duration,
    /// Where `toolwright mcp login` keeps logins: an HTTP server with one there is
    /// mounted with its token. Defaults to [`CredentialFile::default_location`](crate::login::CredentialFile::default_location)
    /// (none without a home folder).
    #[cfg(feature = "http")]
    pub credentials: Option<crate::login::CredentialFile>,
}

impl Default for MountOptions {
    fn default() -> Self {
        MountOptions {
            providers: Provider::ALL.to_vec(),
            connect_timeout: Duration::from_secs(30),
            write_timeout: super::lines::WRITE_TIMEOUT,
            #[cfg(feature = "http")]
            credentials: crate::login::CredentialFile::default_location().ok(),
        }
    }
}

impl MountOptions {
    /// Checks schemas only for these providers.
    pub fn providers(mut self, providers: impl IntoIterator<Item = Provider>) -> Self {
        self.providers = providers.into_iter().collect();
        self
    }

    /// Gives each write to a stdio server this long (see
    /// [`write_timeout`](Self::write_timeout)).
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Gives each server this long to connect and list its tools.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Reads logins from `file` (`None`: mount without any).
    #[cfg(feature = "http")]
    pub fn credentials(mut self, file: Option<crate::login::CredentialFile>) -> Self {
        self.credentials = file;
        self
    }
}

mod answers;
mod failure;
#[cfg(feature = "http")]
mod http_mount;
mod settle;

/// The most `input_required` rounds one call is given.
const INPUT_ROUNDS: usize = 8;

/// First and longest wait before reconnecting to a server that went away.
const BACKOFF_FIRST: Duration = Duration::from_millis(100);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// How long a server may take to end its session when it is stopped.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(3);
/// Lines of a server's stderr kept for error messages.
const STDERR_LINES: usize = 20;

/// The MCP servers of a config, connected, with their tools in the registry.
///
/// Dropping it (or [`shutdown`](Self::shutdown)) disconnects and removes the tools.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use toolwright_mcp::{McpConfig, McpMounts, MountOptions};
/// let registry = Arc::new(toolwright_core::Registry::from_inventory()?);
/// let config = McpConfig::load(".mcp.json".as_ref())?;
/// let mounts = McpMounts::mount(Arc::clone(&registry), &config, MountOptions::default()).await;
/// for warning in mounts.warnings() { eprintln!("warning: {warning}"); }
/// # Ok(()) }
/// ```
pub struct McpMounts {
    registry: Arc<Registry>,
    servers: BTreeMap<String, Arc<Server>>,
    /// What the config itself had to say (unknown keys), once.
    config_warnings: Vec<String>,
}

impl McpMounts {
    /// Connects every server of `config` at once and registers their tools. A
    /// server that cannot be reached, or a tool that cannot be mounted, is a warning
    /// (see [`warnings`](Self::warnings)); the rest still mount.
    pub async fn mount(registry: Arc<Registry>, config: &McpConfig, options: MountOptions) -> McpMounts {
        registry.add_search_hints(config.search_hints.clone());
        let options = Arc::new(options);
        let mut servers = BTreeMap::new();
        for (name, server_config) in &config.servers {
            let server = Server::new(name, server_config.clone(), &registry, Arc::clone(&options));
            servers.insert(name.clone(), server);
        }
        let connects = servers.values().map(|server| async move {
            if let Err(e) = server.connect().await {
                server.warn(format!("MCP server `{}`: could not connect: {e}", server.name));
            }
        });
        futures::future::join_all(connects).await;
        let mounts = McpMounts { registry, servers, config_warnings: config.warnings.clone() };
        // The resource tools, offered while a connected server has resources;
        // deferred like the servers' own tools when every server defers them.
        if !mounts.servers.is_empty() {
            let all_deferred = config.servers.values().all(|s| s.defer == toolwright_core::Defer::Always);
            let defer = if all_deferred { toolwright_core::Defer::Always } else { toolwright_core::Defer::Auto };
            for tool in crate::resource_tools::tools(mounts.resources(), defer) {
                if let Err(e) = mounts.registry.register_owned(crate::resource_tools::OWNER, tool) {
                    tracing::warn!("the MCP resource tools: {e}");
                }
            }
        }
        mounts
    }

    /// The mounted servers' resources (what the resource tools read).
    pub fn resources(&self) -> crate::resources::McpResources {
        let servers = self
            .servers
            .iter()
            .map(|(name, server)| (name.clone(), Arc::clone(server) as Arc<dyn crate::resources::ResourceServer>))
            .collect();
        crate::resources::McpResources::new(servers)
    }

    /// Everything that went wrong or was ignored while mounting and since (a server
    /// that could not connect, a tool with a malformed schema, a tool list that
    /// changed), each naming the server and the tool.
    pub fn warnings(&self) -> Vec<String> {
        let servers =
            self.servers.values().flat_map(|s| s.warnings.lock().unwrap_or_else(PoisonError::into_inner).clone());
        self.config_warnings.iter().cloned().chain(servers).collect()
    }

    /// The mounted servers' names.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// The registry names of `server`'s tools, sorted.
    pub fn tools(&self, server: &str) -> Vec<String> {
        let Some(server) = self.servers.get(server) else { return Vec::new() };
        let mut names: Vec<String> =
            server.tools.lock().unwrap_or_else(PoisonError::into_inner).values().map(|t| t.qualified.clone()).collect();
        names.sort();
        names
    }

    /// The protocol revision `server` is spoken to in (`2026-07-28` stateless, or the
    /// session revision it negotiated), while it is connected.
    pub fn protocol_version(&self, server: &str) -> Option<String> {
        let server = self.servers.get(server)?;
        let link = server.link.lock().unwrap_or_else(PoisonError::into_inner);
        Some(link.peer.as_ref()?.peer_info()?.protocol_version.to_string())
    }

    /// Disconnects every server and removes its tools from the registry.
    /// All at once: a stop waits for the slowest server, not for their sum.
    pub async fn shutdown(mut self) {
        let servers = std::mem::take(&mut self.servers);
        futures::future::join_all(servers.values().map(|server| server.close())).await;
        for name in servers.keys() {
            self.registry.clear_owner(name);
        }
        self.registry.clear_owner(crate::resource_tools::OWNER);
    }
}

impl Drop for McpMounts {
    fn drop(&mut self) {
        for server in self.servers.values() {
            server.link.lock().unwrap_or_else(PoisonError::into_inner).take_service();
            self.registry.clear_owner(&server.name);
        }
        self.registry.clear_owner(crate::resource_tools::OWNER);
    }
}

/// What a mounted tool was registered as, and a fingerprint of what the server
/// said about it (to notice changes on `list_changed`).
struct Mounted {
    qualified: String,
    fingerprint: u64,
}

/// How long a server has to answer a `ping` after a cancelled call: a live server
/// answers in milliseconds, and the next call waits for the verdict.
const PING_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Default)]
struct Link {
    peer: Option<Peer<RoleClient>>,
    service: Option<RunningService<RoleClient, Handler>>,
    /// Failed connects in a row, and when the next may be tried.
    failures: u32,
    retry_at: Option<Instant>,
    last_error: String,
    /// A stdio server's process group: whatever it started goes with it.
    group: Option<ProcessGroup>,
}

/// A connection taken down: the service to cancel, then the group to kill.
type Taken = (Option<RunningService<RoleClient, Handler>>, Option<ProcessGroup>);

impl Link {
    fn take_service(&mut self) -> Taken {
        self.peer = None;
        (self.service.take(), self.group.take())
    }
}

pub(crate) struct Server {
    pub(crate) name: String,
    config: McpServerConfig,
    options: Arc<MountOptions>,
    registry: Weak<Registry>,
    /// Never held across an await: calls clone the peer out and go.
    link: Mutex<Link>,
    /// One connect at a time; calls that find the server down wait for it.
    connecting: tokio::sync::Mutex<()>,
    /// Held while a cancelled call's `ping` decides whether the server still
    /// answers (and, if not, until it is taken down): the next call waits for the
    /// verdict instead of meeting a wedged server or its restart mid-call.
    health: Arc<tokio::sync::Mutex<()>>,
    progress: ProgressDispatcher,
    tools: Mutex<BTreeMap<String, Mounted>>,
    /// Resources the server said changed (`resources/updated`) since last read.
    pub(crate) updated: Mutex<std::collections::BTreeSet<String>>,
    warnings: Mutex<Vec<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    me: Weak<Server>,
}

impl Server {
    fn new(name: &str, config: McpServerConfig, registry: &Arc<Registry>, options: Arc<MountOptions>) -> Arc<Server> {
        Arc::new_cyclic(|me| Server {
            name: name.to_owned(),
            config,
            options,
            registry: Arc::downgrade(registry),
            link: Mutex::default(),
            connecting: tokio::sync::Mutex::new(()),
            health: Arc::new(tokio::sync::Mutex::new(())),
            progress: ProgressDispatcher::new(),
            tools: Mutex::default(),
            updated: Mutex::default(),
            warnings: Mutex::default(),
            stderr: Arc::default(),
            me: me.clone(),
        })
    }

    fn warn(&self, message: String) {
        tracing::warn!("{message}");
        self.warnings.lock().unwrap_or_else(PoisonError::into_inner).push(message);
    }

    pub(crate) fn live_peer(&self) -> Option<Peer<RoleClient>> {
        let link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
        link.peer.clone().filter(|p| !p.is_transport_closed())
    }

    /// The connected peer, reconnecting first if the server went away, unless the
    /// backoff from earlier failures says not yet.
    pub(crate) async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        // A health check in flight first: its verdict may be a restart.
        drop(self.health.lock().await);
        if let Some(peer) = self.live_peer() {
            return Ok(peer);
        }
        let _one = self.connecting.lock().await;
        if let Some(peer) = self.live_peer() {
            return Ok(peer);
        }
        {
            let link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(at) = link.retry_at
                && let Some(wait) = at.checked_duration_since(Instant::now())
            {
                return Err(format!(
                    "MCP server `{}` is down ({}); next reconnect attempt in {} ms",
                    self.name,
                    link.last_error,
                    wait.as_millis()
                ));
            }
        }
        self.connect_locked()
            .await
            .map_err(|e| format!("MCP server `{}` is down and reconnecting failed: {e}", self.name))
    }

    async fn connect(&self) -> Result<Peer<RoleClient>, String> {
        let _one = self.connecting.lock().await;
        self.connect_locked().await
    }

    async fn connect_locked(&self) -> Result<Peer<RoleClient>, String> {
        let attempt = tokio::time::timeout(self.options.connect_timeout, self.start());
        let result = match attempt.await {
            Ok(result) => result,
            Err(_) => Err(format!("no answer within {} s", self.options.connect_timeout.as_secs_f64())),
        };
        match result {
            Ok((service, peer, group)) => {
                let new = Link { peer: Some(peer.clone()), service: Some(service), group, ..Link::default() };
                *self.link.lock().unwrap_or_else(PoisonError::into_inner) = new;
                self.sync_tools(&peer).await.map(|()| peer)
            }
            Err(e) => {
                let e = self.with_stderr(e);
                let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
                link.failures += 1;
                let backoff = BACKOFF_FIRST.saturating_mul(1 << link.failures.min(16)).min(BACKOFF_MAX);
                link.retry_at = Some(Instant::now() + backoff);
                link.last_error = e.clone();
                Err(e)
            }
        }
    }

    /// Spawns or dials the server and runs the MCP handshake: on the 2026-07-28
    /// revision where the server offers it and nothing is lost, else on the session
    /// revision ([`crate::revision`]).
    async fn start(
        &self,
    ) -> Result<(RunningService<RoleClient, Handler>, Peer<RoleClient>, Option<ProcessGroup>), String> {
        // Stdio servers stay on the session revision: a fallback would mean starting
        // the process again, and a stdio server's discover answer can understate what
        // it sends (the Python SDK 2.3 declares no tool list changes there, then sends
        // them in a session).
        let first = match &self.config.transport {
            ServerTransport::Stdio { .. } => crate::revision::session(),
            _ => crate::revision::preferred(),
        };
        let (service, group) = self.start_with(first).await?;
        let (service, group) = match self.settle(&service).await {
            None => (service, group),
            Some(loss) => {
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, service.cancel()).await;
                drop(group);
                tracing::info!(
                    server = %self.name,
                    "its 2026-07-28 revision would lose {loss}; mounted on the session revision instead"
                );
                self.start_with(crate::revision::session()).await?
            }
        };
        let peer = service.peer().clone();
        Ok((service, peer, group))
    }

    /// Spawns or dials the server and runs the handshake of `lifecycle`.
    async fn start_with(
        &self,
        lifecycle: rmcp::service::ClientLifecycleMode,
    ) -> Result<(RunningService<RoleClient, Handler>, Option<ProcessGroup>), String> {
        let handler = Handler { server: self.me.clone() };
        let (service, group) = match &self.config.transport {
            ServerTransport::Stdio { command, args, env, cwd } => {
                let mut cmd = tokio::process::Command::new(command);
                // A group of its own: stopping the server stops what it started
                // (`npx` and its node), and a terminal's ^C reaches us, not it.
                cmd.args(args).envs(env).process_group(0);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
                let mut child = cmd.spawn().map_err(|e| format!("starting `{command}`: {e}"))?;
                // Killed if this start is abandoned (a connect timeout drops it).
                let group = ProcessGroup::adopt(child.id());
                let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(format!("starting `{command}`: its standard streams are not pipes"));
                };
                if let Some(stderr) = child.stderr.take() {
                    self.keep_stderr(stderr);
                }
                // Reaped when it exits; the group above is what stops it.
                tokio::spawn(async move {
                    let _ = child.wait().await;
                });
                let me = self.me.clone();
                let warn: Warn = Arc::new(move |warning| {
                    if let Some(server) = me.upgrade() {
                        server.warn(format!("MCP server `{}`: {warning}", server.name));
                    }
                });
                let transport =
                    LineTransport::<RoleClient, _, _>::new(stdout, stdin, MessageLimits::default().any_depth())
                        .with_warnings(warn)
                        .with_write_timeout(self.options.write_timeout);
                (handler.serve_with_lifecycle(transport, lifecycle).await.map_err(|e| e.to_string())?, Some(group))
            }
            #[cfg(not(feature = "http"))]
            ServerTransport::Http { url, .. } => {
                return Err(format!(
                    "`{url}` is a streamable HTTP server: this build has no HTTP transport (toolwright's `mcp` \
                     feature has it; `mcp-stdio` leaves it out)"
                ));
            }
            #[cfg(feature = "http")]
            ServerTransport::Http { url, headers, headers_helper, oauth } => {
                (self.start_http(url, headers, headers_helper.as_ref(), oauth, lifecycle).await?, None)
            }
        };
        Ok((service, group))
    }

    fn keep_stderr(&self, stderr: tokio::process::ChildStderr) {
        use tokio::io::AsyncBufReadExt;
        let kept = Arc::clone(&self.stderr);
        let name = self.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %name, "{line}");
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
    }

    fn with_stderr(&self, error: String) -> String {
        let kept = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.back() {
            Some(last) => format!("{error} (its stderr ends: {last})"),
            None => error,
        }
    }

    /// Ends the session (rmcp asks a stdio server to exit, then kills it), then
    /// kills whatever is left of its process group.
    async fn close(&self) {
        let (service, group) = self.link.lock().unwrap_or_else(PoisonError::into_inner).take_service();
        if let Some(service) = service {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, service.cancel()).await;
        }
        drop(group);
    }

    /// Marks the server as gone after a call saw its transport close.
    fn went_away(&self, peer: &Peer<RoleClient>, why: &str) {
        let mut link = self.link.lock().unwrap_or_else(PoisonError::into_inner);
        // Only a closed transport: a call racing a reconnect must not drop the new link.
        if link.peer.as_ref().is_some_and(|p| p.is_transport_closed() || peer.is_transport_closed()) {
            drop(link.take_service());
        }
        link.last_error = why.to_owned();
    }

    /// Lists the server's tools and brings the registry in line: new tools are
    /// registered, changed ones replaced, vanished ones removed.
    async fn sync_tools(&self, peer: &Peer<RoleClient>) -> Result<(), String> {
        let listed = tokio::time::timeout(self.options.connect_timeout, peer.list_all_tools())
            .await
            .map_err(|_| "tools/list got no answer".to_owned())?
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let Some(registry) = self.registry.upgrade() else { return Ok(()) };
        let Some(me) = self.me.upgrade() else { return Ok(()) };
        // What the server says of itself, for the search's catalogue: its
        // instructions, else its title or description.
        if let Some(info) = peer.peer_info() {
            let said = info
                .instructions
                .as_deref()
                .or(info.server_info.as_ref().and_then(|i| i.title.as_deref()))
                .or(info.server_info.as_ref().and_then(|i| i.description.as_deref()))
                .filter(|s| !s.trim().is_empty());
            if let Some(said) = said {
                let mut hints = toolwright_core::deferred::SearchHints::default();
                hints.set_server_said(&self.name, said);
                registry.add_search_hints(hints);
            }
        }
        let mut mounted = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        let mut seen = std::collections::HashSet::new();
        for tool in listed {
            let original = tool.name.to_string();
            if !seen.insert(original.clone()) {
                self.warn(format!("MCP server `{}`: tool `{original}` is listed twice; the first is kept", self.name));
                continue;
            }
            let fingerprint = fingerprint(&tool);
            if mounted.get(&original).is_some_and(|m| m.fingerprint == fingerprint) {
                continue;
            }
            if let Some(old) = mounted.remove(&original) {
                registry.unregister(&old.qualified);
            }
            match self.mount_tool(&registry, &me, tool) {
                Ok(qualified) => {
                    mounted.insert(original, Mounted { qualified, fingerprint });
                }
                Err(e) => self.warn(e),
            }
        }
        mounted.retain(|original, m| {
            let keep = seen.contains(original);
            if !keep {
                registry.unregister(&m.qualified);
            }
            keep
        });
        Ok(())
    }

    fn mount_tool(&self, registry: &Registry, me: &Arc<Server>, tool: Tool) -> Result<String, String> {
        let original = tool.name.to_string();
        let skip = |why: String| format!("MCP server `{}`: tool `{original}` skipped: {why}", self.name);
        let input_schema = normalize_schema(&tool.input_schema);
        let output_schema = tool.output_schema.as_ref().map(|s| normalize_schema(s));
        let flags = flags_from_annotations(tool.annotations.as_ref(), self.config.trusted);
        let description = tool
            .description
            .as_deref()
            .filter(|d| !d.trim().is_empty())
            .map_or_else(|| format!("`{original}` from MCP server `{}`.", self.name), str::to_owned);
        let title = tool.title.clone().or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
        let origin = format!("MCP server `{}`, tool `{original}`", self.name);
        let mut spec = ToolSpec::runtime(String::new(), description, origin).with_flags(flags);
        spec.title = title.map(Into::into);
        // Icons pass on in the forms MCP names (https, data:image); no plain http.
        let icons = tool.icons.iter().flatten().map(|i| i.src.as_str());
        let icons = icons.filter(|src| src.starts_with("https://") || src.starts_with("data:image/"));
        spec.icons = icons.map(|src| src.to_owned().into()).collect::<Vec<_>>().into();
        // The server's answer is timed in `call`, from when the request is sent: the
        // wait for a health verdict or a restart does not count. The pipeline's
        // timer only bounds the whole.
        spec.timeout = Some(self.config.timeout + PING_TIMEOUT + CLOSE_TIMEOUT + self.options.connect_timeout);
        spec.defer = self.config.defer;
        // The schema must lower for every provider the agent may render for.
        for &provider in &self.options.providers {
            toolwright_core::__internal::lower_input(&spec, &input_schema, provider).map_err(|e| {
                skip(format!("its input schema cannot be used with {}: {}", e.provider, schema_problem(&e)))
            })?;
        }
        // Results are held to the schema the server declared (its structured
        // content is data from outside: checked, as the MCP spec asks of clients).
        let output_check = output_schema.as_ref().map(|raw| Arc::new(toolwright_core::validate::Validator::new(raw)));
        let output_schema = match output_schema {
            Some(raw) => {
                Some(toolwright_core::__internal::lower_output(&spec, &raw).map_err(|e| skip(schema_problem(&e)))?)
            }
            None => None,
        };
        let make = |name: String| -> Arc<dyn DynTool> {
            let mut spec = spec.clone();
            spec.name = name.into();
            Arc::new(McpTool {
                spec,
                input_schema: input_schema.clone(),
                output_schema: output_schema.clone(),
                output_check: output_check.clone(),
                original: original.clone(),
                server: Arc::clone(me),
            })
        };
        registry.register_mcp(&self.name, &original, make).map_err(|e| skip(e.to_string()))
    }

    /// Forwards one call: progress back to the caller, cancellation to the server.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        cx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let peer = self.peer().await.map_err(ToolError::Failed)?;
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = Some(arguments);
        // A server on the 2026-07-28 revision may answer `input_required`: its
        // questions go to the person, and the call is sent again with the answers.
        for _ in 0..INPUT_ROUNDS {
            match self.round(&peer, params.clone(), cx).await? {
                ServerResult::CallToolResult(result) => return Ok(from_call_tool_result(result)),
                ServerResult::EmptyResult(_) => return Ok(ToolOutput::default()),
                ServerResult::InputRequiredResult(asked) => {
                    params.input_responses = Some(answers::answer(&self.name, &asked, cx).await?);
                    params.request_state = asked.request_state;
                }
                _ => {
                    return Err(ToolError::msg(format!(
                        "MCP server `{}` answered tools/call with something else",
                        self.name
                    )));
                }
            }
        }
        Err(ToolError::msg(format!(
            "MCP server `{}` still wanted more input after {INPUT_ROUNDS} rounds of answers; the call is given up",
            self.name
        )))
    }

    /// One `tools/call` round: progress back to the caller, cancellation to the server.
    async fn round(
        &self,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        cx: &ToolContext,
    ) -> Result<ServerResult, ToolError> {
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let handle = match peer.send_request_with_option(request, PeerRequestOptions::no_options()).await {
            Ok(handle) => handle,
            Err(e) => return Err(self.failure_after_close(peer, e).await),
        };
        let id = handle.id.clone();
        let mut progress = self.progress.subscribe(handle.progress_token.clone()).await;
        let response = handle.await_response();
        tokio::pin!(response);
        let cancelled = cx.cancellation().clone();
        let timeout = self.config.timeout;
        let expired = tokio::time::sleep(timeout);
        tokio::pin!(expired);
        let result = loop {
            let (reason, error) = tokio::select! {
                result = &mut response => break result,
                Some(report) = progress.next() => {
                    cx.progress(progress_from(report));
                    continue;
                }
                () = cancelled.cancelled() => ("cancelled by the caller", ToolError::Cancelled),
                () = &mut expired => ("timed out", ToolError::TimedOut { after: timeout }),
            };
            let note = CancelledNotificationParam::new(Some(id), Some(reason.into()));
            let _ = peer.notify_cancelled(note).await;
            self.check_alive(peer.clone());
            return Err(error);
        };
        // Reports that arrived with the result still count.
        while let Some(Some(report)) = futures::FutureExt::now_or_never(progress.next()) {
            cx.progress(progress_from(report));
        }
        match result {
            Ok(result) => Ok(result),
            Err(e) => Err(self.failure_after_close(peer, e).await),
        }
    }

    /// After a call that had to be cancelled (its time ran out, or the caller gave up),
    /// whether the server still answers at all: a `ping` that gets no answer within
    /// [`PING_TIMEOUT`] means a server that reads nothing, which is taken down so
    /// that the next call starts it again instead of timing out too.
    fn check_alive(&self, peer: Peer<RoleClient>) {
        let Some(me) = self.me.upgrade() else { return };
        // Taken now, before the cancelled call returns, so the next call waits; one
        // check at a time (another in flight decides for this one too).
        let Ok(deciding) = Arc::clone(&self.health).try_lock_owned() else { return };
        tokio::spawn(async move {
            let _deciding = deciding;
            let ping = ClientRequest::PingRequest(rmcp::model::PingRequest {
                method: Default::default(),
                extensions: Default::default(),
            });
            let answered = tokio::time::timeout(PING_TIMEOUT, peer.send_request(ping)).await;
            if matches!(answered, Ok(Ok(_))) || peer.is_transport_closed() {
                return;
            }
            let taken = {
                let mut link = me.link.lock().unwrap_or_else(PoisonError::into_inner);
                link.last_error = format!("it did not answer a ping within {} s", PING_TIMEOUT.as_secs());
                link.take_service()
            };
            me.warn(format!(
                "MCP server `{}` answers nothing (not even a ping) after a cancelled call; it is restarted at the \
                 next call",
                me.name
            ));
            let (service, group) = taken;
            if let Some(service) = service {
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, service.cancel()).await;
            }
            drop(group);
        });
    }
}

fn schema_problem(e: &toolwright_core::SchemaError) -> String {
    if e.path.is_empty() { e.message.clone() } else { format!("field `{}`: {}", e.path, e.message) }
}

fn fingerprint(tool: &Tool) -> u64 {
    let text = serde_json::to_string(tool).unwrap_or_default();
    toolwright_core::__internal::fnv1a_bytes(0xcbf2_9ce4_8422_2325, text.as_bytes())
}

/// The client side of one connection: progress to the dispatcher, tool list
/// changes to a re-sync.
struct Handler {
    server: Weak<Server>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> InitializeRequestParams {
        // Form elicitation: on the 2026-07-28 revision a call's `input_required`
        // questions go to the person (`answers.rs`); on the session revision a
        // server's `elicitation/create` has no call to ask for and is declined.
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(rmcp::model::ElicitationCapability::default().with_form(Default::default()));
        InitializeRequestParams::new(capabilities, Implementation::new("toolwright", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            server.progress.handle_notification(params).await;
        }
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(server) = self.server.upgrade() {
            server.updated.lock().unwrap_or_else(PoisonError::into_inner).insert(params.uri);
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(server) = self.server.upgrade() else { return };
        let peer = context.peer;
        // Not inline: listing waits for a response this handler's loop delivers.
        tokio::spawn(async move {
            match server.sync_tools(&peer).await {
                Ok(()) => tracing::debug!(server = %server.name, "tool list re-synced"),
                Err(e) => {
                    server.warn(format!("MCP server `{}`: re-listing tools after list_changed: {e}", server.name))
                }
            }
        });
    }
}

/// Loads `path` and mounts its servers (see [`McpMounts::mount`]).
pub async fn mount_file(
    registry: Arc<Registry>,
    path: &std::path::Path,
    options: MountOptions,
) -> Result<McpMounts, super::ConfigError> {
    let config = McpConfig::load(path)?;
    Ok(McpMounts::mount(registry, &config, options).await)
}
