//! `toolwright agent`: a live agent loop against Anthropic's or OpenAI's API,
//! streaming each response into the executor as it arrives.

use super::trace::{Mode, Trace};
use super::turn::{block_on, run_calls, traced_turn};
use super::wire::{Item, TurnDecoder, Wire};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use toolwright::adapters::{anthropic, openai_chat};
use toolwright::orchestrate::Orchestrator;
use toolwright::{Provider, TurnContext};

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Api {
    Anthropic,
    Openai,
}

#[derive(clap::Args)]
pub struct AgentArgs {
    /// Which API: anthropic (ANTHROPIC_API_KEY) or openai (OPENAI_API_KEY).
    #[arg(long, value_enum)]
    provider: Api,
    /// What to do, in words.
    task: String,
    /// The model (default: claude-sonnet-4-5 or gpt-4.1).
    #[arg(long)]
    model: Option<String>,
    /// The workspace the tools work in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Stop after this many model responses.
    #[arg(long, default_value_t = 30)]
    max_turns: usize,
    #[command(flatten)]
    answer: super::trace::Answer,
    /// One JSON object per event instead of the readable trace.
    #[arg(long)]
    json: bool,
    #[cfg(feature = "mcp")]
    #[command(flatten)]
    mcp: super::mounts::McpArgs,
}

const SYSTEM: &str = "You are a coding agent working in the user's workspace through the tools you are given. \
Read before you edit, keep changes small, run the tests when there are some, and finish with a short summary.";

struct Endpoint {
    url: String,
    key: String,
    wire: Wire,
    model: String,
}

fn endpoint(args: &AgentArgs) -> Result<Endpoint, String> {
    let (key_var, base_var, default_base, wire, default_model) = match args.provider {
        Api::Anthropic => (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "https://api.anthropic.com",
            Wire::Anthropic,
            "claude-sonnet-4-5",
        ),
        Api::Openai => ("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1", Wire::OpenAiChat, "gpt-4.1"),
    };
    let key = std::env::var(key_var).ok().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
        format!(
            "{key_var} is not set: the live agent needs an API key. To see toolwright work without one, run \
             `toolwright replay` (a recorded session, no key, no network)"
        )
    })?;
    let base = std::env::var(base_var).ok().filter(|b| !b.is_empty()).unwrap_or_else(|| default_base.to_owned());
    let base = base.trim_end_matches('/');
    let url = match wire {
        Wire::Anthropic => format!("{base}/v1/messages"),
        Wire::OpenAiChat => format!("{base}/chat/completions"),
    };
    Ok(Endpoint { url, key, wire, model: args.model.clone().unwrap_or_else(|| default_model.to_owned()) })
}

pub fn run(args: AgentArgs) -> Result<(), String> {
    let endpoint = endpoint(&args)?;
    let workspace = match &args.workspace {
        Some(dir) => std::fs::canonicalize(dir).map_err(|e| format!("--workspace {}: {e}", dir.display()))?,
        None => std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?,
    };
    // The workspace's rules and hooks, as for `serve` and `call`.
    let settings = toolwright::WorkspaceSettings::load(&workspace).map_err(|e| e.to_string())?;
    let trace = Trace::new(Mode::pick(args.json));
    for warning in settings.warnings() {
        trace.note(&format!("warning: {warning}"));
    }
    let answer = args.answer.given();
    let registry = Arc::new(toolwright::registry().map_err(|e| e.to_string())?);
    let provider = match endpoint.wire {
        Wire::Anthropic => Provider::Anthropic { strict: false, cache_control: true },
        Wire::OpenAiChat => Provider::OpenAiChat { strict: false },
    };
    let approver = super::trace::PromptApprover { answer, trace: Arc::clone(&trace) };
    let orchestrator = Orchestrator::new(Arc::new(settings.executor(Arc::clone(&registry), approver)));
    trace.header(
        &format!("agent ({}, {}) in {}", endpoint.wire.name(), endpoint.model, workspace.display()),
        json!({"provider": endpoint.wire.name(), "model": endpoint.model, "workspace": workspace}),
    );
    let outcome = block_on(async {
        // The workspace's MCP servers, mounted before the tools are listed.
        #[cfg(feature = "mcp")]
        let _mounts = args.mcp.mount(&workspace, &registry, |w| trace.note(&format!("warning: {w}"))).await?;
        let tools: Value = registry.definitions(provider).map_err(|e| e.to_string())?.to_value();
        let client = reqwest::Client::builder().build().map_err(|e| format!("HTTP client: {e}"))?;
        let (mut turn, printer) = traced_turn(&workspace, &trace);
        let mut messages = match endpoint.wire {
            Wire::Anthropic => vec![json!({"role": "user", "content": args.task})],
            Wire::OpenAiChat => {
                vec![json!({"role": "system", "content": SYSTEM}), json!({"role": "user", "content": args.task})]
            }
        };
        let mut outcome = Ok(());
        for n in 1..=args.max_turns {
            if super::stop::token().is_cancelled() {
                trace.note("stopped by a signal");
                break;
            }
            let body = match endpoint.wire {
                Wire::Anthropic => json!({
                    "model": endpoint.model, "max_tokens": 8192, "stream": true, "system": SYSTEM,
                    "tools": tools, "messages": messages,
                }),
                Wire::OpenAiChat => json!({
                    "model": endpoint.model, "stream": true, "tools": tools, "messages": messages,
                }),
            };
            let (assistant, results, stop) =
                match one_turn(&client, &endpoint, &body, n, &orchestrator, &mut turn, &trace).await {
                    Ok(done) => done,
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                };
            messages.push(assistant);
            if results.is_empty() {
                trace.note(&format!("the model stopped ({})", stop.as_deref().unwrap_or("no reason given")));
                break;
            }
            match endpoint.wire {
                Wire::Anthropic => messages.push(anthropic::results_message(&results, [])),
                Wire::OpenAiChat => messages.extend(openai_chat::tool_messages(&results)),
            }
            if n == args.max_turns {
                trace.note(&format!("stopping after --max-turns {n}"));
            }
        }
        drop(turn);
        let _ = printer.await;
        outcome
    })?;
    trace.summary();
    outcome
}

/// One request: the response streamed into the decoder, its calls into the
/// executor as they complete. Returns the assistant message, the results and the
/// stop reason.
async fn one_turn(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    body: &Value,
    n: usize,
    orchestrator: &Orchestrator,
    turn: &mut TurnContext,
    trace: &Arc<Trace>,
) -> Result<(Value, Vec<toolwright::ToolResult>, Option<String>), String> {
    let request = client.post(&endpoint.url).json(body);
    let request = match endpoint.wire {
        Wire::Anthropic => request.header("x-api-key", &endpoint.key).header("anthropic-version", "2023-06-01"),
        Wire::OpenAiChat => request.bearer_auth(&endpoint.key),
    };
    let mut response = request.send().await.map_err(|e| format!("{}: {e}", endpoint.url))?;
    let status = response.status();
    if !status.is_success() {
        let text = response.text().await.unwrap_or_default();
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or(text);
        return Err(format!("{} answered {status}: {message}", endpoint.url));
    }
    trace.turn(n, endpoint.wire.name(), None);
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    let mut decoder = TurnDecoder::new(endpoint.wire);
    let reader_trace = Arc::clone(trace);
    let reader = async move {
        let mut text = String::new();
        let flush = |text: &mut String| {
            reader_trace.text(text);
            text.clear();
        };
        loop {
            let chunk = response.chunk().await.map_err(|e| format!("reading the stream: {e}"))?;
            let ended = chunk.is_none();
            let items = match chunk {
                Some(bytes) => decoder.push(&bytes)?,
                None => decoder.finish()?,
            };
            for item in items {
                match item {
                    Item::Text(t) => text.push_str(&t),
                    Item::Call(event) => {
                        flush(&mut text);
                        let _ = tx.send(event).await;
                    }
                }
            }
            if ended || decoder.done {
                break;
            }
        }
        flush(&mut text);
        drop(tx);
        Ok::<_, String>((decoder.assistant_message(), decoder.stop.clone()))
    };
    // A stop signal ends the stream; the calls it started get cancelled results.
    let reader = async move {
        tokio::select! {
            read = reader => read,
            () = super::stop::token().cancelled_owned() => Err("stopped by a signal".to_owned()),
        }
    };
    let (read, results) = tokio::join!(reader, run_calls(orchestrator, turn, trace, rx));
    let (assistant, stop) = read?;
    Ok((assistant, results, stop))
}
