//! `toolwright agent`: a live agent loop against Anthropic's or OpenAI's API, the
//! library's [`toolwright::agent::Agent`] with the terminal trace as its observer.

use super::trace::{Mode, Trace};
use super::turn::{Traced, block_on, traced_turn_with_transcript};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use toolwright::agent::Model as _;
use toolwright::agent::{Agent, HttpModel, Stop};
use toolwright::deferred::{ENABLE_TOOL_SEARCH, ToolSearchSetting, ToolSession};
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
    /// Google Gemini (GEMINI_API_KEY, GEMINI_BASE_URL).
    Gemini,
}

impl ApiArg {
    fn api(self) -> Api {
        match self {
            ApiArg::Anthropic => Api::Anthropic,
            ApiArg::Openai => Api::OpenAiChat,
            ApiArg::OpenaiResponses => Api::OpenAiResponses,
            ApiArg::Gemini => Api::Gemini,
        }
    }
}

#[derive(clap::Args)]
pub struct AgentArgs {
    /// Which API: anthropic, openai (chat completions), openai-responses or gemini.
    #[arg(long, value_enum)]
    provider: ApiArg,
    /// What to do, in words.
    task: String,
    /// The model (default: claude-sonnet-4-5, gpt-4.1 or gemini-2.5-flash).
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
    /// Also write the session as a self-contained HTML timeline to FILE.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Subagent definitions as Claude Code's `--agents` JSON: {"name": {"description":
    /// ..., "prompt": ..., "tools": [...]}}; `@FILE` reads it from a file. They come
    /// after managed definitions and before the workspace's and the user's.
    #[arg(long, value_name = "JSON")]
    agents: Option<String>,
    /// Also offer one tool per definition, Cline's style (`use_subagent_<name>`),
    /// kept in step with the files before each request.
    #[arg(long)]
    cline_tools: bool,
    /// Show the model the built-ins under Claude Code's tool and field names
    /// (`Read` with `file_path`), for a Claude-trained model.
    #[arg(long)]
    claude_code: bool,
    #[command(flatten)]
    trust: super::turn::TrustArgs,
    #[command(flatten)]
    skill_places: super::skills::SkillPlaces,
    #[command(flatten)]
    plugin_args: super::plugins::PluginArgs,
    /// Let the model use the provider's own web search (Anthropic's `web_search`,
    /// OpenAI Responses' `web_search`, Gemini's `google_search`), its results kept in
    /// the conversation.
    #[arg(long)]
    web_search: bool,
    /// With --web-search: at most this many searches per response (Anthropic).
    #[arg(long, value_name = "N", requires = "web_search")]
    web_search_max_uses: Option<u32>,
    /// With --web-search: only results from this domain (repeatable).
    #[arg(long = "web-search-allowed-domain", value_name = "DOMAIN", requires = "web_search")]
    web_search_allowed: Vec<String>,
    /// With --web-search: Anthropic's tool version (web_search_20250305, the default;
    /// web_search_20260209 or web_search_20260318 for dynamic filtering).
    #[arg(long, value_name = "VERSION", requires = "web_search")]
    web_search_version: Option<String>,
    /// With --web-search: no results from this domain (repeatable; Anthropic).
    #[arg(long = "web-search-blocked-domain", value_name = "DOMAIN", requires = "web_search")]
    web_search_blocked: Vec<String>,
    /// Whether MCP and other runtime tools wait behind `tool_search` (its
    /// description a catalogue of them) instead of going with every request:
    /// true, false, auto (when their definitions would take more than 10% of a
    /// 200,000-token context window) or auto:N. Default: Claude Code's
    /// `ENABLE_TOOL_SEARCH` from the environment, else from the settings' `env`,
    /// else auto.
    #[arg(long, value_name = "MODE")]
    tool_search: Option<ToolSearchSetting>,
    /// After the task, keep the session for scheduled prompts (CronCreate) due within
    /// this many seconds, firing each between turns; 0 ends with the task.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    schedule_window: u64,
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
    let mut settings = args.trust.load(&workspace)?;
    let trusted = settings.trust().is_trusted();
    let trace = Trace::new(Mode::pick(args.json));
    if let Some(path) = &args.timeline {
        crate::timeline::can_write(path)?;
        trace.keep_events();
    }
    for warning in settings.warnings() {
        trace.note(&format!("warning: {warning}"));
    }
    // Plugins: their hooks join the settings' before the executor is made.
    let plugins = args.plugin_args.load(&workspace, trusted, |w| trace.note(&format!("warning: {w}")));
    super::plugins::add_hooks(&plugins, &mut settings);
    let denied = super::lsp::denied_env(&settings, &workspace);
    let lsp = super::lsp::load(&workspace, trusted, &plugins, &denied, |w| trace.note(&format!("warning: {w}")));
    let registry = Arc::new(crate::registry()?);
    let tool_search = tool_search(args.tool_search, settings.env_var(ENABLE_TOOL_SEARCH))?;
    if let Some(session) = &tool_search {
        session.install(&registry).map_err(|e| e.to_string())?;
    }
    let approver = super::trace::PromptApprover { answer: args.answer.given(), trace: Arc::clone(&trace) };
    let hooks = settings.hooks().clone();
    let fetch_denied = settings.policy().fetch_denied_domains();
    let orchestrator = Arc::new(Orchestrator::new(Arc::new(settings.executor(Arc::clone(&registry), approver))));
    trace.header(
        &format!("agent ({}, {}) in {}", api.name(), model.name(), workspace.display()),
        json!({"provider": api.name(), "model": model.name(), "url": model.url(), "workspace": workspace}),
    );
    let policy = toolwright::agent::RetryPolicy::default().max_retries(args.retries);
    let runtime = Runtime {
        orchestrator: &orchestrator,
        hooks,
        policy,
        trace: &trace,
        plugins: &plugins,
        tool_search: &tool_search,
    };
    let subagents = subagents(&args, &workspace, &model, runtime)?;
    subagents.install(&registry).map_err(|e| e.to_string())?;
    let skills = skills(&args, &workspace, &orchestrator, &trace, &plugins);
    skills.install(&registry).map_err(|e| e.to_string())?;
    let mut agent =
        Agent::new(model, Arc::clone(&orchestrator)).system(SYSTEM).max_responses(args.max_turns).retry(policy);
    agent = presented(agent, &args, api, &fetch_denied, &trace)?;
    if args.cline_tools {
        let (subagents, registry, trace) = (subagents.clone(), Arc::clone(&registry), Arc::clone(&trace));
        agent = agent.before_each_request(move |turn| {
            if let Err(e) = subagents.sync_definition_tools(&registry, turn.cwd()) {
                trace.note(&format!("warning: the per-definition agent tools: {e}"));
            }
        });
    }
    let outcome = block_on(async {
        // The workspace's MCP servers, mounted before the tools are listed.
        #[cfg(feature = "mcp")]
        let _mounts = args
            .mcp
            .mount(&workspace, trusted, &registry, plugins.plugins(), Some(api.provider()), |w| {
                trace.note(&format!("warning: {w}"))
            })
            .await?;
        let schedules = schedules(&workspace, trusted);
        let (mut turn, printer) =
            traced_turn_with_transcript(&workspace, &trace, &subagents, &skills, &schedules, &lsp, &tool_search);
        if tool_search.is_some() {
            note_deferred(&registry, &turn.clone().with_provider(api.provider()), &trace);
        }
        // A stop signal stops the background agents too (the foreground ones stop
        // with the turn).
        let stopper = tokio::spawn({
            let subagents = subagents.clone();
            async move {
                super::stop::token().cancelled().await;
                subagents.stop_all("stopped by a signal");
            }
        });
        let mut observer = Traced::new(&trace, api);
        let mut outcome = agent.run(&args.task, &mut turn, &mut observer).await;
        let mut usage = outcome.as_ref().map(|o| o.usage).unwrap_or_default();
        let mut responses = outcome.as_ref().map_or(0, |o| o.responses);
        // Between turns: background agents' reports (the model hears of each as it
        // ends, as Claude Code tells it with a task notification) and scheduled
        // prompts as they fall due, within the window.
        let mut background = true;
        while let Ok(done) = &outcome
            && done.stop != Stop::Cancelled
            && responses < args.max_turns
        {
            let next = between_turns(&subagents, &schedules, &mut background, args.schedule_window, &trace).await;
            let Some(message) = next else { break };
            let mut conversation = done.conversation.clone();
            conversation.push_user(&message);
            outcome = agent.resume(conversation, &mut turn, &mut observer).await;
            if let Ok(more) = &outcome {
                usage.add(&more.usage);
                responses += more.responses;
            }
        }
        subagents.stop_all("the session ended");
        // The language servers stop with the session (`shutdown`, then killed).
        lsp.shutdown().await;
        stopper.abort();
        drop(turn);
        let _ = printer.await;
        outcome.map(|o| (o, usage, responses)).map_err(|e| e.to_string())
    })?;
    let (outcome, usage, responses) = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            trace.summary();
            crate::timeline::finish(&trace, args.timeline.as_deref())?;
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
    report_usage(&trace, &subagents, usage, responses);
    trace.summary();
    crate::timeline::finish(&trace, args.timeline.as_deref())?;
    Ok(())
}

/// The subagent runtime of a live run: the workspace's definitions (trusted as its
/// settings are) and `--agents`, read anew at each start; children on the same API,
/// a definition's `model` resolved as Claude Code's aliases; limits from the
/// environment (`CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`, ...).
fn subagents(
    args: &AgentArgs,
    workspace: &std::path::Path,
    model: &HttpModel,
    runtime: Runtime<'_>,
) -> Result<toolwright::subagents::Subagents, String> {
    let Runtime { orchestrator, hooks, policy, trace, plugins, tool_search } = runtime;
    use toolwright::subagents::{Catalog, ChildRequest, Limits, LoadOptions, Subagents, resolve_model_alias};
    let (given, mut problems) = super::agents::given(args.agents.as_deref())?;
    let options = LoadOptions::new().trust(args.trust.trust(workspace)).given(given).plugins(plugins.plugins());
    problems.extend(Catalog::load(workspace, &options).problems().iter().cloned());
    // Each problem carries its own label (`error:` for a file that cannot be used).
    for problem in &problems {
        trace.note(&problem.to_string());
    }
    let limits = Limits::from_env().map_err(|e| e.to_string())?;
    let base = model.clone();
    let anthropic = model.api() == Api::Anthropic;
    let models = move |child: &ChildRequest<'_>| -> Result<Arc<dyn toolwright::agent::Model>, String> {
        let requested = child.requested;
        let name = requested.and_then(resolve_model_alias);
        // Claude Code's aliases name Anthropic models: elsewhere the parent's model.
        let name = name.filter(|n| anthropic || requested.is_some_and(|r| r.trim() == *n));
        Ok(match name {
            Some(name) => Arc::new(base.clone().with_model(name)),
            None => Arc::new(base.clone()),
        })
    };
    let parent: Arc<dyn toolwright::agent::Model> = Arc::new(model.clone());
    Ok(Subagents::builder(Arc::clone(orchestrator), parent)
        .models(models)
        .catalog(move |cwd| Catalog::load(cwd, &options))
        .limits(limits)
        .retry(policy)
        .hooks(hooks)
        .observer(Arc::new(super::children::TracedChildren { trace: Arc::clone(trace) }))
        .session({
            // Each child searches and loads for itself, as the parent's session
            // defers.
            let deferral = tool_search.as_ref().map(ToolSession::deferral);
            move || {
                let mut session = toolwright::builtin::session();
                if let Some(deferral) = &deferral {
                    session.insert(ToolSession::new(deferral.clone()));
                }
                session
            }
        })
        .build())
}

/// What the subagent runtime is built from.
struct Runtime<'a> {
    orchestrator: &'a Arc<Orchestrator>,
    hooks: toolwright::rules::hooks::CommandHooks,
    policy: toolwright::agent::RetryPolicy,
    trace: &'a Arc<Trace>,
    plugins: &'a toolwright::subagents::plugins::Plugins,
    tool_search: &'a Option<ToolSession>,
}

/// Says how many tools wait behind the search in the first turn: the model sees only
/// their catalogue, and a user wondering why a server's tools go uncalled is told.
fn note_deferred(registry: &toolwright::Registry, turn: &toolwright::TurnContext, trace: &Trace) {
    let held = registry.pool(turn, &toolwright::Profile::main_agent(), &[]).deferred_len();
    if held > 0 {
        trace.note(&format!(
            "{held} tools wait behind tool_search until a search loads them (--tool-search, ENABLE_TOOL_SEARCH)"
        ));
    }
}

/// The context window `--tool-search auto` measures against: Claude's.
const CONTEXT_WINDOW: usize = 200_000;

/// The session's deferred tools, as `--tool-search` says, else `ENABLE_TOOL_SEARCH`
/// in the environment, else in the settings' `env` (`in_settings`), else auto;
/// `None` when everything is sent.
fn tool_search(flag: Option<ToolSearchSetting>, in_settings: Option<String>) -> Result<Option<ToolSession>, String> {
    let from_settings = || match in_settings.filter(|v| !v.trim().is_empty()) {
        Some(value) => value.parse().map(Some).map_err(|e| format!("{ENABLE_TOOL_SEARCH} in the settings' env: {e}")),
        None => Ok(None),
    };
    let setting = match flag {
        Some(setting) => setting,
        None => match ToolSearchSetting::from_env().map_err(|e| format!("{ENABLE_TOOL_SEARCH}: {e}"))? {
            Some(setting) => setting,
            None => from_settings()?.unwrap_or(ToolSearchSetting::Auto { percent: 10 }),
        },
    };
    Ok(setting.deferral(CONTEXT_WINDOW).map(ToolSession::new))
}

/// The skills runtime of a live run: the workspace's skills trusted as its settings
/// are, read anew each turn; their problems noted once at the start.
fn skills(
    args: &AgentArgs,
    workspace: &std::path::Path,
    orchestrator: &Arc<Orchestrator>,
    trace: &Arc<Trace>,
    plugins: &toolwright::subagents::plugins::Plugins,
) -> toolwright::skills::Skills {
    use toolwright::skills::{SkillCatalog, Skills};
    let options = args.skill_places.options(args.trust.trust(workspace)).plugins(plugins.plugins());
    for problem in SkillCatalog::load(workspace, &options).problems() {
        trace.note(&problem.to_string());
    }
    Skills::builder(Arc::clone(orchestrator.executor()))
        .catalog(move |cwd, touched| SkillCatalog::load(cwd, &options.clone().touched(touched)))
        .build()
}

/// What the model is shown besides the tools: Claude Code's names (`--claude-code`)
/// and the provider's own web search (`--web-search`). The domains the `WebFetch`
/// deny rules name are its blocked list when none is given (Anthropic's: the others
/// take none, and the trace says so).
fn presented(
    mut agent: Agent,
    args: &AgentArgs,
    api: Api,
    fetch_denied: &[String],
    trace: &Trace,
) -> Result<Agent, String> {
    if args.claude_code {
        agent = agent.profile(toolwright::Profile::claude_code());
    }
    if args.web_search {
        let mut blocked = args.web_search_blocked.clone();
        if args.web_search_allowed.is_empty() && blocked.is_empty() && !fetch_denied.is_empty() {
            if api == Api::Anthropic {
                blocked = fetch_denied.to_vec();
            } else {
                trace.note(&format!(
                    "warning: {api}'s web search takes no blocked domains: the WebFetch deny rules ({}) do not narrow it",
                    fetch_denied.join(", ")
                ));
            }
        }
        let mut search = toolwright::provider::server_tools::WebSearchServerTool::new()
            .allowed_domains(args.web_search_allowed.iter().cloned())
            .blocked_domains(blocked);
        if let Some(n) = args.web_search_max_uses {
            search = search.max_uses(n);
        }
        if let Some(version) = &args.web_search_version {
            search = search.version(version.trim());
        }
        agent = agent.server_tool(search.definition(api).map_err(|e| format!("--web-search: {e}"))?);
    }
    Ok(agent)
}

/// Scheduled prompts: this session's, and the workspace's durable ones once it is
/// trusted (a cloned repository's would otherwise prompt the model).
fn schedules(workspace: &std::path::Path, trusted: bool) -> toolwright::builtin::schedules::Schedules {
    use toolwright::builtin::schedules::{Schedules, unix_now};
    match trusted {
        true => Schedules::with_durable(workspace, unix_now()),
        false => Schedules::new(),
    }
}

/// What comes next between turns: a background agent's report or the prompts of
/// scheduled jobs now due; `None` when neither is pending (jobs due after the
/// window do not hold the session).
async fn between_turns(
    subagents: &toolwright::subagents::Subagents,
    schedules: &toolwright::builtin::schedules::Schedules,
    background: &mut bool,
    window: u64,
    trace: &Trace,
) -> Option<String> {
    use toolwright::builtin::schedules::unix_now;
    loop {
        let now = unix_now();
        let fires = schedules.take_due(now);
        if !fires.is_empty() {
            for fire in &fires {
                trace.note(&format!(
                    "scheduled prompt {} fires{}",
                    fire.id,
                    if fire.last { " (its last)" } else { "" }
                ));
            }
            return Some(fires.into_iter().map(|f| f.prompt).collect::<Vec<_>>().join("\n\n"));
        }
        let due = schedules.next_due().filter(|at| (*at - now) as u64 <= window);
        if due.is_none() && !*background {
            return None;
        }
        let wait = due.map(|at| std::time::Duration::from_secs((at - now).max(0) as u64 + 1));
        let stop = super::stop::token();
        tokio::select! {
            report = subagents.next_background_report(), if *background => match report {
                Some(report) => return Some(notification(&report, subagents.limits().report_chars)),
                None => *background = false,
            },
            () = async { tokio::time::sleep(wait.unwrap_or_default()).await }, if wait.is_some() => {}
            () = stop.cancelled() => return None,
        }
    }
}

/// What the model is told when a background agent ends (Claude Code's task
/// notification).
fn notification(report: &toolwright::subagents::AgentReport, max_chars: usize) -> String {
    format!(
        "<task-notification>\nBackground agent {} ({}) {}.\n\n{}\n</task-notification>",
        report.agent_id,
        report.agent_type,
        report.status.name(),
        report.for_model(max_chars)
    )
}

/// The tokens the run used: the main agent's, and its subagents' with the total.
fn report_usage(
    trace: &Trace,
    subagents: &toolwright::subagents::Subagents,
    usage: toolwright::usage::Usage,
    responses: usize,
) {
    let children = subagents.usage();
    if usage.total_tokens() > 0 || children.total_tokens() > 0 {
        trace.note(&format!(
            "tokens: {} in ({} read from the prompt cache, {} written to it), {} out, over {} responses",
            usage.input_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
            usage.output_tokens,
            responses
        ));
    }
    let reports = subagents.reports();
    if !reports.is_empty() {
        let mut all = usage;
        all.add(&children);
        trace.event(
            Some(&format!(
                "subagents: {} started, {} tokens ({} in, {} out); with the main agent {} tokens",
                reports.len(),
                children.total_tokens(),
                children.input_tokens + children.cache_read_input_tokens + children.cache_creation_input_tokens,
                children.output_tokens,
                all.total_tokens()
            )),
            json!({"type": "usage", "main": usage, "subagents": children, "total": all, "agents": reports.len()}),
        );
    }
}
