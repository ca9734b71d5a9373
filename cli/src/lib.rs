//! The `toolwright` command line: replay, agent, call, check, schema, tools, serve,
//! agents. Also a library, so that a binary of yours offers the same commands over
//! its own registry: your `#[tool]`s are linked into it, so
//! [`main`] already sees them; [`main_with`] takes a registry of your making (without
//! the built-ins, or with runtime tools) and the command's name.
//!
//! ```no_run
//! // src/main.rs of a crate that depends on toolwright and toolwright-cli.
//! fn main() -> std::process::ExitCode {
//!     toolwright_cli::main_with("mytools", || toolwright::Registry::from_inventory())
//! }
//! ```

mod agent;
mod agents;
mod call;
mod check;
mod children;
#[cfg(feature = "mcp")]
mod mounts;
mod replay;
mod sample;
mod search;
mod stop;
mod trace;
mod turn;

use clap::{CommandFactory, FromArgMatches, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use std::sync::OnceLock;
use toolwright::{Provider, Registry, RegistryError};

/// Makes the registry the commands work on.
type MakeRegistry = fn() -> Result<Registry, RegistryError>;

/// The registry maker [`main_with`] was given (the built-ins and every linked tool
/// when none was).
static REGISTRY: OnceLock<MakeRegistry> = OnceLock::new();

/// The registry the commands work on.
pub(crate) fn registry() -> Result<Registry, String> {
    let make = REGISTRY.get().copied().unwrap_or(toolwright::registry);
    make().map_err(|e| e.to_string())
}

#[derive(clap::Parser)]
#[command(name = "toolwright", version, about = "Tools for LLM agents: list them, render their schemas.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a recorded model session: its tool calls streamed into the executor,
    /// scheduled, checked and run against a scratch copy of the sample workspace.
    Replay(replay::ReplayArgs),
    /// A live agent loop against Anthropic's or OpenAI's API (needs the key).
    Agent(agent::AgentArgs),
    /// Run one call through the pipeline; the result on stdout, progress on stderr.
    Call(call::CallArgs),
    /// Validate the registry: unique names, every provider's rules, definition sizes.
    Check,
    /// List the subagent definitions for the workspace and every problem with them.
    Agents(agents::AgentsArgs),
    /// List the registered tools with their flags.
    Tools,
    /// Search the tools as a model's `tool_search` does: the registry's, the
    /// workspace's MCP servers' and saved tool lists; `--explain` says why.
    Search(search::SearchArgs),
    /// Print the tool definitions JSON for a provider.
    Schema {
        /// anthropic, openai-chat, openai-responses, gemini, gemini-json-schema or mcp.
        #[arg(long, short, default_value = "anthropic")]
        provider: Provider,
        /// Strict mode: Anthropic's strict tool use, OpenAI's structured outputs.
        #[arg(long)]
        strict: bool,
        /// Anthropic: mark the last tool with cache_control.
        #[arg(long)]
        cache_control: bool,
        /// Pretty-print (the default output is the exact bytes sent to the provider).
        #[arg(long)]
        pretty: bool,
        /// Show the built-ins under Claude Code's tool and field names (`Read`, `file_path`).
        #[arg(long)]
        claude_code: bool,
    },
    /// Serve the registry as an MCP server, over stdio or streamable HTTP.
    ///
    /// Calls run through the pipeline with the permission rules and hooks of the
    /// settings files (Claude Code's and toolwright's) for the working directory.
    #[cfg(feature = "mcp")]
    Serve(serve::ServeArgs),
}

#[cfg(feature = "mcp")]
mod serve {
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
        /// With --http: accept the bearer token in environment variable VAR as the
        /// caller NAME (`--token-env ci=CI_MCP_TOKEN`); with any token given, every
        /// request needs one. Repeatable.
        #[arg(long, value_name = "NAME=VAR", requires = "http")]
        token_env: Vec<String>,
        /// With --http: accept the bearer token in FILE (its first line) as the caller
        /// NAME (`--token-file alice=/run/secrets/alice`). Repeatable.
        #[arg(long, value_name = "NAME=FILE", requires = "http")]
        token_file: Vec<String>,
        /// With --http: the most sessions open at once; a new one past it gets 503.
        #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
        max_sessions: usize,
        /// With --http: the most requests in flight in all; past it, 429.
        #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
        max_calls: usize,
        /// With --http: the most requests in flight in one session; past it, 429.
        #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
        max_calls_per_session: usize,
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
        let mut tokens = toolwright::mcp::BearerTokens::default();
        for (flag, given) in
            args.token_env.iter().map(|g| ("--token-env", g)).chain(args.token_file.iter().map(|g| ("--token-file", g)))
        {
            let Some((name, source)) = given.split_once('=') else {
                return Err(format!(
                    "{flag} {given}: give NAME={}",
                    if flag == "--token-env" { "VAR" } else { "FILE" }
                ));
            };
            tokens = if flag == "--token-env" {
                tokens.with_env(name, source)
            } else {
                tokens.with_file(name, source.as_ref())
            }
            .map_err(|e| format!("{flag}: {e}"))?;
        }
        for (flag, value) in [
            ("--max-sessions", args.max_sessions as u64),
            ("--max-calls", args.max_calls as u64),
            ("--max-calls-per-session", args.max_calls_per_session as u64),
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
            .idle_timeout(std::time::Duration::from_secs(args.idle_timeout))
            .init_timeout(std::time::Duration::from_secs(args.init_timeout));
        let cwd = crate::turn::workspace_dir(args.cwd.as_deref())?;
        let workspace = args.trust.load(&cwd)?;
        let trusted = workspace.trust().is_trusted();
        for warning in workspace.warnings() {
            eprintln!("toolwright: warning: {warning}");
        }
        let ask = match args.ask {
            Ask::Deny => AskMode::Deny,
            Ask::Elicit => AskMode::Elicit,
        };
        crate::turn::block_on(async move {
            let registry = Arc::new(crate::registry()?);
            // Mounting runs in the background: a slow or silent server never delays
            // serving; its tools appear when ready (clients get list_changed).
            let warn = |w: &str| eprintln!("toolwright: warning: {w}");
            let mounting = match args.mcp.config(&cwd, trusted, warn)? {
                Some(config) => {
                    let registry = Arc::clone(&registry);
                    Some(tokio::spawn(async move {
                        let mounts = McpMounts::mount(registry, &config, MountOptions::default()).await;
                        for warning in mounts.warnings() {
                            eprintln!("toolwright: warning: {warning}");
                        }
                        mounts
                    }))
                }
                None => None,
            };
            let mut server = workspace
                .mcp_server(Arc::clone(&registry), ask)
                .with_limits(limits)
                .with_http_access(access)
                .with_bearer_tokens(tokens)
                .with_http_limits(http_limits);
            if args.http.is_some() {
                // One line per call on stderr: who, which tool, what became of it.
                server = server.with_audit(|record| {
                    let decision =
                        if record.outcome == toolwright::mcp::Outcome::Denied { "denied" } else { "allowed" };
                    let line = serde_json::json!({
                        "caller": record.caller, "tool": record.tool, "decision": decision,
                        "outcome": record.outcome.as_str(), "ms": record.duration.as_millis() as u64,
                    });
                    // Not eprintln: a closed stderr must not stop the serving.
                    let _ = std::io::Write::write_all(
                        &mut std::io::stderr(),
                        format!("toolwright: audit: {line}\n").as_bytes(),
                    );
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
                match args.http {
                    Some(addr) => {
                        let listener =
                            tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("--http {addr}: {e}"))?;
                        let bound = listener.local_addr().map_err(|e| e.to_string())?;
                        eprintln!("toolwright: serving MCP at http://{bound}/mcp");
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
            served
        })?
    }
}

/// The `toolwright` command over every tool linked into the binary (the built-ins
/// and yours).
pub fn main() -> ExitCode {
    main_with("toolwright", toolwright::registry)
}

/// The commands under the name `name`, over the registry `registry` makes.
pub fn main_with(name: &'static str, registry: fn() -> Result<Registry, RegistryError>) -> ExitCode {
    let _ = REGISTRY.set(registry);
    let matches = Cli::command().name(name).bin_name(name).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("toolwright: {message}");
            ExitCode::FAILURE
        }
    };
    // Nothing the tools started outlives us, whatever way the command ended.
    toolwright::leftovers::clean_up();
    stop::exit_status().map_or(code, ExitCode::from)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let text = match cli.command {
        #[cfg(feature = "mcp")]
        Command::Serve(args) => return serve::run(args).map(|()| ExitCode::SUCCESS),
        Command::Replay(args) => return replay::run(args).map(|()| ExitCode::SUCCESS),
        Command::Agent(args) => return agent::run(args).map(|()| ExitCode::SUCCESS),
        Command::Call(args) => {
            // An error result was printed as the result: fail without another line.
            return Ok(if call::run(args)? { ExitCode::SUCCESS } else { ExitCode::FAILURE });
        }
        Command::Check => {
            let (report, ok) = check::report(&crate::registry()?);
            print!("{report}");
            return if ok {
                Ok(ExitCode::SUCCESS)
            } else {
                Err("the registry does not render for every provider".into())
            };
        }
        Command::Agents(args) => {
            let (listing, ok) = agents::run(args)?;
            println!("{listing}");
            return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE });
        }
        Command::Tools => tools_table(&crate::registry()?),
        Command::Search(args) => search::run(args)?,
        Command::Schema { provider, strict, cache_control, pretty, claude_code } => {
            if strict
                && !matches!(
                    provider,
                    Provider::Anthropic { .. } | Provider::OpenAiChat { .. } | Provider::OpenAiResponses { .. }
                )
            {
                return Err(format!(
                    "--strict applies to anthropic, openai-chat and openai-responses, not {}",
                    provider.id()
                ));
            }
            if cache_control && !matches!(provider, Provider::Anthropic { .. }) {
                return Err(format!("--cache-control applies to anthropic, not {}", provider.id()));
            }
            let provider = match provider {
                Provider::Anthropic { .. } => Provider::Anthropic { strict, cache_control },
                other => other.with_strict(strict),
            };
            let registry = crate::registry()?;
            let definitions = if claude_code {
                let turn = toolwright::TurnContext::new(".");
                registry.pool(&turn, &toolwright::Profile::claude_code(), &[]).definitions(provider)
            } else {
                registry.definitions(provider)
            }
            .map_err(|e| e.to_string())?;
            if pretty {
                serde_json::to_string_pretty(&definitions.to_value()).map_err(|e| e.to_string())? + "\n"
            } else {
                format!("{definitions}\n")
            }
        }
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| format!("cannot write output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

fn tools_table(registry: &Registry) -> String {
    let rows: Vec<[String; 5]> = registry
        .tools()
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            let flags = spec.flags.names().join(",");
            let summary = spec.description.lines().next().unwrap_or_default().to_owned();
            let aliases: Vec<&str> = spec.aliases.iter().map(|a| a.name.as_ref()).collect();
            [spec.name.to_string(), flags, aliases.join(","), spec.origin.to_string(), summary]
        })
        .collect();
    let header = ["NAME", "FLAGS", "ALIASES", "DEFINED AT", "DESCRIPTION"].map(String::from);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter().zip(row) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&row[4]);
        out.push('\n');
    }
    out.push_str(&format!("{} tools\n", rows.len()));
    out
}
