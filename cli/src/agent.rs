//! `toolwright agent`: a live agent loop against Anthropic's or OpenAI's API, the
//! library's [`toolwright::agent::Agent`] with the terminal trace as its observer.

use super::trace::{Mode, Trace};
use super::turn::{Traced, block_on, traced_turn_with_transcript};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use toolwright::agent::Model as _;
use toolwright::agent::{Agent, HttpModel, Stop};
use toolwright::orchestrate::Orchestrator;
use toolwright::provider::Api;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ApiArg {
    /// Anthropic Messages (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
    Anthropic,
    /// OpenAI Chat Completions (OPENAI_API_KEY, OPENAI_BASE_URL).
    Openai,
    /// OpenAI Responses (OPENAI_API_KEY, OPENAI_BASE_URL).
    OpenaiResponses,
}

impl ApiArg {
    fn api(self) -> Api {
        match self {
            ApiArg::Anthropic => Api::Anthropic,
            ApiArg::Openai => Api::OpenAiChat,
            ApiArg::OpenaiResponses => Api::OpenAiResponses,
        }
    }
}

#[derive(clap::Args)]
pub struct AgentArgs {
    /// Which API: anthropic, openai (chat completions) or openai-responses.
    #[arg(long, value_enum)]
    provider: ApiArg,
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
    /// Retries of a failed request (connection, 429, 5xx, overload).
    #[arg(long, default_value_t = 4)]
    retries: usize,
    #[command(flatten)]
    answer: super::trace::Answer,
    /// One JSON object per event instead of the readable trace.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trust: super::turn::TrustArgs,
    #[cfg(feature = "mcp")]
    #[command(flatten)]
    mcp: super::mounts::McpArgs,
}

const SYSTEM: &str = "You are a coding agent working in the user's workspace through the tools you are given. \
Read before you edit, keep changes small, run the tests when there are some, and finish with a short summary.";

pub fn run(args: AgentArgs) -> Result<(), String> {
    let api = args.provider.api();
    let model = HttpModel::from_env(api).map_err(|e| {
        format!(
            "{e}: the live agent needs an API key. To see toolwright work without one, run `toolwright replay` \
             (a recorded session, no key, no network)"
        )
    })?;
    let model = match &args.model {
        Some(name) => model.with_model(name),
        None => model,
    };
    let workspace = match &args.workspace {
        Some(dir) => std::fs::canonicalize(dir).map_err(|e| format!("--workspace {}: {e}", dir.display()))?,
        None => std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?,
    };
    // The workspace's rules and hooks, as for `serve` and `call`.
    let settings = args.trust.load(&workspace)?;
    let trusted = settings.trust().is_trusted();
    let trace = Trace::new(Mode::pick(args.json));
    for warning in settings.warnings() {
        trace.note(&format!("warning: {warning}"));
    }
    let registry = Arc::new(toolwright::registry().map_err(|e| e.to_string())?);
    let approver = super::trace::PromptApprover { answer: args.answer.given(), trace: Arc::clone(&trace) };
    let orchestrator = Orchestrator::new(Arc::new(settings.executor(Arc::clone(&registry), approver)));
    trace.header(
        &format!("agent ({}, {}) in {}", api.name(), model.name(), workspace.display()),
        json!({"provider": api.name(), "model": model.name(), "url": model.url(), "workspace": workspace}),
    );
    let policy = toolwright::agent::RetryPolicy::default().max_retries(args.retries);
    let agent = Agent::new(model, orchestrator).system(SYSTEM).max_responses(args.max_turns).retry(policy);
    let outcome = block_on(async {
        // The workspace's MCP servers, mounted before the tools are listed.
        #[cfg(feature = "mcp")]
        let _mounts = args.mcp.mount(&workspace, trusted, &registry, |w| trace.note(&format!("warning: {w}"))).await?;
        let (mut turn, printer) = traced_turn_with_transcript(&workspace, &trace);
        let mut observer = Traced::new(&trace, api);
        let outcome = agent.run(&args.task, &mut turn, &mut observer).await;
        drop(turn);
        let _ = printer.await;
        outcome.map_err(|e| e.to_string())
    })?;
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            trace.summary();
            return Err(error);
        }
    };
    match &outcome.stop {
        Stop::Finished { reason } => {
            trace.note(&format!("the model stopped ({})", reason.as_deref().unwrap_or("no reason given")))
        }
        Stop::MaxResponses => trace.note(&format!("stopping after --max-turns {}", args.max_turns)),
        Stop::Cancelled => trace.note("stopped by a signal"),
        _ => {}
    }
    let usage = outcome.usage;
    if usage.total_tokens() > 0 {
        trace.note(&format!(
            "tokens: {} in ({} read from the prompt cache, {} written to it), {} out, over {} responses",
            usage.input_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
            usage.output_tokens,
            outcome.responses
        ));
    }
    trace.summary();
    Ok(())
}
