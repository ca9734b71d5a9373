//! The `toolwright` command line: inspect the registry and render provider schemas.

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use toolwright::{Provider, Registry};

#[derive(Parser)]
#[command(name = "toolwright", version, about = "Tools for LLM agents: list them, render their schemas.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the registered tools with their flags.
    Tools,
    /// Print the tool definitions JSON for a provider.
    Schema {
        /// anthropic, openai-chat, openai-responses, gemini or mcp.
        #[arg(long, short, default_value = "anthropic")]
        provider: Provider,
        /// OpenAI structured-outputs strict mode.
        #[arg(long)]
        strict: bool,
        /// Anthropic: mark the last tool with cache_control.
        #[arg(long)]
        cache_control: bool,
        /// Pretty-print (the default output is the exact bytes sent to the provider).
        #[arg(long)]
        pretty: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("toolwright: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let registry = toolwright::registry().map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout().lock();
    let text = match cli.command {
        Command::Tools => tools_table(&registry),
        Command::Schema { provider, strict, cache_control, pretty } => {
            if strict && !matches!(provider, Provider::OpenAiChat { .. } | Provider::OpenAiResponses { .. }) {
                return Err(format!("--strict applies to openai-chat and openai-responses, not {}", provider.id()));
            }
            if cache_control && !matches!(provider, Provider::Anthropic { .. }) {
                return Err(format!("--cache-control applies to anthropic, not {}", provider.id()));
            }
            let provider = match provider {
                Provider::Anthropic { .. } => Provider::Anthropic { cache_control },
                other => other.with_strict(strict),
            };
            let definitions = registry.definitions(provider).map_err(|e| e.to_string())?;
            if pretty {
                serde_json::to_string_pretty(&definitions.to_value()).map_err(|e| e.to_string())? + "\n"
            } else {
                format!("{definitions}\n")
            }
        }
    };
    stdout.write_all(text.as_bytes()).map_err(|e| format!("cannot write output: {e}"))
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
