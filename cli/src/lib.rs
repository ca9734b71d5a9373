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

/// A line on stderr, as `eprintln!` writes it but never a panic: with stderr closed
/// (its reader gone), a message nobody can read must not stop a stop or a serve.
macro_rules! say {
    ($($arg:tt)*) => {{
        $crate::say_line(&format!($($arg)*));
    }};
}

/// The program's name: `toolwright`, or what `main_with` was given.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The name messages and `serve`'s `serverInfo` use.
pub(crate) fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("toolwright")
}

/// One line on stderr; a leading `toolwright: ` names the program as it was built
/// (`main_with("chess", ..)` says `chess: `).
#[doc(hidden)]
pub fn say_line(text: &str) {
    use std::io::Write as _;
    let text = match text.strip_prefix("toolwright: ") {
        Some(rest) if program() != "toolwright" => format!("{}: {rest}", program()),
        _ => text.to_owned(),
    };
    let _ = writeln!(std::io::stderr(), "{text}");
}

mod agent;
mod agents;
mod call;
mod check;
mod children;
#[cfg(feature = "mcp")]
mod lsp;
#[cfg(feature = "mcp")]
mod mcp_logins;
mod mounts;
mod otel;
mod output;
mod plugins;
mod questions;
mod recorded;
mod replay;
mod sample;
mod search;
mod skills;
mod stop;
mod timeline;
mod timing;
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
    /// List the skills for the workspace and every problem with them.
    Skills(skills::SkillsArgs),
    /// List the language servers for the workspace and every problem with them.
    Lsp(lsp::LspArgs),
    /// List the registered tools with their flags.
    Tools,
    /// Draw a saved trace (`replay --json` / `agent --json` lines, or an OTLP JSON
    /// export) as a self-contained HTML timeline.
    Timeline(timeline::TimelineArgs),
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
    Serve(Box<serve::ServeArgs>),
    /// OAuth logins to the mounted HTTP servers: `mcp login <server>`, `mcp logout
    /// <server>`, `mcp list` (each server's transport and login state).
    #[cfg(feature = "mcp")]
    Mcp(mcp_logins::McpCommandArgs),
}

#[cfg(feature = "mcp")]
mod serve;

/// The `toolwright` command over every tool linked into the binary (the built-ins
/// and yours).
pub fn main() -> ExitCode {
    main_with("toolwright", toolwright::registry)
}

/// The commands under the name `name`, over the registry `registry` makes.
pub fn main_with(name: &'static str, registry: fn() -> Result<Registry, RegistryError>) -> ExitCode {
    let _ = REGISTRY.set(registry);
    let _ = PROGRAM.set(name);
    let matches = Cli::command().name(name).bin_name(name).get_matches();
    let export = crate::timing::install();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(message) => {
            say!("toolwright: {message}");
            ExitCode::FAILURE
        }
    };
    // Nothing the tools started outlives us, whatever way the command ended.
    toolwright::leftovers::clean_up();
    if let Some(export) = export {
        export.shutdown();
    }
    stop::exit_status().map_or(code, ExitCode::from)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let text = match cli.command {
        #[cfg(feature = "mcp")]
        Command::Serve(args) => return serve::run(*args).map(|()| ExitCode::SUCCESS),
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
        Command::Skills(args) => {
            let (listing, ok) = skills::run(args)?;
            println!("{listing}");
            return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE });
        }
        Command::Lsp(args) => {
            let (listing, ok) = lsp::run(args)?;
            println!("{listing}");
            return Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE });
        }
        Command::Tools => tools_table(&crate::registry()?),
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => mcp_logins::run(args)?,
        Command::Timeline(args) => return timeline::run(args).map(|()| ExitCode::SUCCESS),
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
