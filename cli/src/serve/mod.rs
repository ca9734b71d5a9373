//! `toolwright serve`: the registry as an MCP server over stdio or streamable HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use toolwright::mcp::{AskMode, McpMounts, MessageLimits, MountOptions};

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at this address (endpoint /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR:PORT")]
    http: Option<SocketAddr>,
    /// The workspace the tools work in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// What a call the permission rules would ask about gets: deny, or an MCP
    /// elicitation to the client's user (denied if the client cannot elicit).
    #[arg(long, value_enum, default_value = "deny")]
    ask: Ask,
    #[command(flatten)]
    mcp: crate::mounts::McpArgs,
    #[command(flatten)]
    trust: crate::turn::TrustArgs,
    #[command(flatten)]
    plugin_args: crate::plugins::PluginArgs,
    /// The largest message taken, in bytes (one stdio line or HTTP body); a
    /// request over it gets a JSON-RPC error naming the limit.
    #[arg(long, value_name = "BYTES", default_value_t = MessageLimits::DEFAULT_MAX_BYTES)]
    max_message_bytes: usize,
    /// The deepest nesting a message may have (the root object is level 1).
    #[arg(long, value_name = "LEVELS", default_value_t = MessageLimits::DEFAULT_MAX_DEPTH)]
    max_depth: usize,
    /// Offer deferred tools (`#[tool(defer)]`, servers mounted with
    /// `deferTools`, and any runtime tool once the list is over the budget)
    /// through a `tool_search` tool; each client's searches load into its own
    /// session.
    #[arg(long)]
    tool_search: bool,
    /// With --tool-search: defer runtime and MCP tools once the list would
    /// take more than this many tokens (default 10% of a 200,000-token window).
    #[arg(long, value_name = "TOKENS", requires = "tool_search")]
    defer_budget: Option<usize>,
    /// With --http: also answer to this `Host` (a name or address, `host:port`
    /// for one port); by default only loopback names are answered. Repeatable.
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// With --http: also accept calls from browser pages of this origin
    /// (`https://app.example.com`, `http://intranet:*` for any port); by default
    /// only loopback origins. A request with another `Origin` gets 403. Repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    #[command(flatten)]
    auth: auth::AuthArgs,
    #[command(flatten)]
    network: network::NetworkArgs,
    /// With --http: the most sessions open at once; a new one past it gets 503.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
    max_sessions: usize,
    /// With --http: the most requests in flight in all; past it, 429.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
    max_calls: usize,
    /// With --http: the most requests in flight in one session; past it, 429.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
    max_calls_per_session: usize,
    /// With --http and a token or OAuth: the most sessions one caller (a token's
    /// subject, a static token's name) may have open; past it, 429.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "http")]
    max_sessions_per_caller: usize,
    /// With --http and a token or OAuth: the most requests one caller may have in
    /// flight over all its sessions; past it, 429.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
    max_calls_per_caller: usize,
    /// With --http: close a session idle this many seconds (its id then gets 404).
    #[arg(long, value_name = "SECS", default_value_t = 300, requires = "http")]
    idle_timeout: u64,
    /// With --http: a session must initialize within this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "http")]
    init_timeout: u64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Ask {
    Deny,
    Elicit,
}

mod auth;
mod network;

pub fn run(args: ServeArgs) -> Result<(), String> {
    let limits = MessageLimits::default()
        .with_max_bytes(args.max_message_bytes)
        .map_err(|e| format!("--max-message-bytes: {e}"))?
        .with_max_depth(args.max_depth)
        .map_err(|e| format!("--max-depth: {e}"))?;
    let mut access = toolwright::mcp::HttpAccess::default();
    for host in &args.allow_host {
        access = access.allow_host(host).map_err(|e| format!("--allow-host: {e}"))?;
    }
    for origin in &args.allow_origin {
        access = access.allow_origin(origin).map_err(|e| format!("--allow-origin: {e}"))?;
    }
    for (flag, value) in [
        ("--max-sessions", args.max_sessions as u64),
        ("--max-calls", args.max_calls as u64),
        ("--max-calls-per-session", args.max_calls_per_session as u64),
        ("--max-sessions-per-caller", args.max_sessions_per_caller as u64),
        ("--max-calls-per-caller", args.max_calls_per_caller as u64),
        ("--idle-timeout", args.idle_timeout),
        ("--init-timeout", args.init_timeout),
    ] {
        if value == 0 {
            return Err(format!("{flag}: must be at least 1"));
        }
    }
    let http_limits = toolwright::mcp::HttpLimits::default()
        .max_sessions(args.max_sessions)
        .max_calls(args.max_calls)
        .max_calls_per_session(args.max_calls_per_session)
        .max_sessions_per_caller(args.max_sessions_per_caller)
        .max_calls_per_caller(args.max_calls_per_caller)
        .idle_timeout(std::time::Duration::from_secs(args.idle_timeout))
        .init_timeout(std::time::Duration::from_secs(args.init_timeout));
    let http_limits = args.network.limits(http_limits)?;
    let cwd = crate::turn::workspace_dir(args.cwd.as_deref())?;
    let mut workspace = args.trust.load(&cwd)?;
    let trusted = workspace.trust().is_trusted();
    for warning in workspace.warnings() {
        say!("toolwright: warning: {warning}");
    }
    // The plugins' hooks join the settings'; their language servers are below.
    let plugins = args.plugin_args.load(&cwd, trusted, |w| say!("toolwright: warning: {w}"));
    crate::plugins::add_hooks(&plugins, &mut workspace);
    let ask = match args.ask {
        Ask::Deny => AskMode::Deny,
        Ask::Elicit => AskMode::Elicit,
    };
    crate::turn::block_on(async move {
        // Bound first: the canonical URL (OAuth's audience) names the port.
        let listener = match args.http {
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("--http {addr}: {e}"))?;
                let bound = listener.local_addr().map_err(|e| e.to_string())?;
                Some((listener, bound))
            }
            None => None,
        };
        let (authentication, tls) = match &listener {
            Some((_, bound)) => {
                (Some(args.auth.authentication(*bound, args.network.scheme())?), args.network.tls(*bound)?)
            }
            None => (None, None),
        };
        // The name clients use (given with --resource-url) is a name this server answers to.
        if let Some((_, bound)) = &listener
            && let Some(host) = args.auth.resource_host(*bound, args.network.scheme())
        {
            access = access.allow_host(&host).map_err(|e| format!("--resource-url: {e}"))?;
        }
        let scheme = if tls.is_some() { "https" } else { "http" };
        let registry = Arc::new(crate::registry()?);
        let mounting = mount_in_background(&args.mcp, &cwd, trusted, &registry)?;
        // The language servers behind the `lsp` tool and the edits' diagnostics,
        // started on first use and stopped when serving ends.
        let denied = crate::lsp::denied_env(&workspace, &cwd);
        let lsp = crate::lsp::load(&cwd, trusted, &plugins, &denied, |w| say!("toolwright: warning: {w}"));
        let session = crate::lsp::session(&lsp);
        let mut server = workspace
            .mcp_server(Arc::clone(&registry), ask)
            // A binary built on the commands (`main_with("chess", ..)`) is itself.
            .with_server_info(crate::program(), env!("CARGO_PKG_VERSION"))
            .with_extensions(move || session.clone())
            .with_limits(limits)
            .with_http_access(access)
            .with_http_limits(http_limits);
        server = match authentication {
            Some(auth::Authentication::Tokens(tokens)) => server.with_bearer_tokens(tokens),
            Some(auth::Authentication::OAuth(resource)) => server.with_oauth(*resource),
            None => server,
        };
        if let Some(tls) = tls {
            server = server.with_tls(tls);
        }
        if args.http.is_some() {
            // One line per call on stderr: who, which tool, what became of it.
            server = server.with_audit(|record| {
                let decision = if record.outcome == toolwright::mcp::Outcome::Denied { "denied" } else { "allowed" };
                let line = serde_json::json!({
                    "caller": record.caller, "tool": record.tool, "decision": decision,
                    "outcome": record.outcome.as_str(), "ms": record.duration.as_millis() as u64,
                });
                say!("toolwright: audit: {line}");
            });
        }
        if args.tool_search {
            let mut deferral = toolwright::deferred::Deferral::default();
            if let Some(tokens) = args.defer_budget {
                deferral = deferral.budget(toolwright::deferred::Budget::Tokens(tokens));
            }
            server = server.with_deferral(deferral);
        }
        let serving = async {
            match listener {
                Some((listener, bound)) => {
                    say!("toolwright: serving MCP at {scheme}://{bound}/mcp");
                    server.serve_http_on(listener).await.map_err(|e| e.to_string())
                }
                None => server.serve_stdio().await.map_err(|e| e.to_string()),
            }
        };
        // A stop signal ends the serving: the calls in flight are dropped, which
        // kills their commands, and the mounted servers are stopped.
        let served = tokio::select! {
            served = serving => served,
            () = crate::stop::token().cancelled_owned() => Ok(()),
        };
        if let Some(mounting) = mounting {
            // A mount still connecting is dropped, which kills its servers.
            mounting.abort();
            if let Ok(mounts) = mounting.await {
                mounts.shutdown().await;
            }
        }
        lsp.shutdown().await;
        served
    })?
}

/// The workspace's MCP servers, mounted in the background: a slow or silent server
/// never delays serving; its tools appear when ready (clients get list_changed).
fn mount_in_background(
    mcp: &crate::mounts::McpArgs,
    cwd: &std::path::Path,
    trusted: bool,
    registry: &Arc<toolwright::Registry>,
) -> Result<Option<tokio::task::JoinHandle<McpMounts>>, String> {
    let warn = |w: &str| say!("toolwright: warning: {w}");
    let Some(config) = mcp.config(cwd, trusted, warn)? else { return Ok(None) };
    let registry = Arc::clone(registry);
    Ok(Some(tokio::spawn(async move {
        // Served over MCP: a tool is left out only when MCP's dialect cannot take its
        // schema, not when some model provider's cannot.
        let options = MountOptions::default().providers([toolwright::Provider::Mcp]);
        let mounts = McpMounts::mount(registry, &config, options).await;
        for warning in mounts.warnings() {
            say!("toolwright: warning: {warning}");
        }
        mounts
    })))
}
