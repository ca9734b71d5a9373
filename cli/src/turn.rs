//! What `replay` (a recorded model) and `agent` (a live one) share: the runtime, the
//! traced turn, and the trace as the agent loop's observer.

use super::trace::Trace;
use std::sync::Arc;
use std::time::Duration;
use toolwright::agent::{AgentObserver, ModelError};
use toolwright::orchestrate::CallEvent;
use toolwright::provider::Api;
use toolwright::{ToolResult, TurnContext};

/// The trace, as the agent loop's observer (for `agent` and `replay`).
pub struct Traced {
    trace: Arc<Trace>,
    api: Api,
    /// For a recording: how many calls each response starts, shown as it begins.
    calls: Vec<usize>,
}

impl Traced {
    pub fn new(trace: &Arc<Trace>, api: Api) -> Traced {
        Traced { trace: Arc::clone(trace), api, calls: Vec::new() }
    }

    pub fn with_calls(mut self, calls: &[usize]) -> Traced {
        self.calls = calls.to_vec();
        self
    }
}

impl AgentObserver for Traced {
    fn response_started(&mut self, n: usize, _api: Api) {
        self.trace.turn(n, self.api.name(), self.calls.get(n - 1).copied());
    }
    fn text(&mut self, text: &str) {
        self.trace.text(text);
    }
    fn server_tool(&mut self, event: &toolwright::provider::server_tools::ServerToolEvent) {
        use toolwright::provider::server_tools::ServerToolEvent;
        match event {
            ServerToolEvent::Used { name, input } => {
                let what = input.get("query").and_then(|q| q.as_str()).map_or_else(|| input.to_string(), str::to_owned);
                self.trace.event(
                    Some(&format!("  ⌕ {name} (the provider's): {what}")),
                    serde_json::json!({"type": "server_tool", "name": name, "input": input}),
                );
            }
            ServerToolEvent::Results { name, pages, error } => {
                let line = match error {
                    Some(code) => format!("    {name} failed: {code}"),
                    None => format!(
                        "    {} results: {}",
                        pages.len(),
                        pages.iter().take(5).map(|(_, url)| url.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                };
                let pages: Vec<_> =
                    pages.iter().map(|(title, url)| serde_json::json!({"title": title, "url": url})).collect();
                self.trace.event(
                    Some(&line),
                    serde_json::json!({"type": "server_tool_result", "name": name, "pages": pages, "error": error}),
                );
            }
            _ => {}
        }
    }
    fn call(&mut self, event: &CallEvent<'_>) {
        match event {
            CallEvent::Started { call, concurrency_safe, .. } => {
                self.trace.started(call, &call.summary_line(), *concurrency_safe)
            }
            CallEvent::Finished { call, result, .. } => self.trace.finished(call, result),
            _ => {}
        }
    }
    fn response_streamed(&mut self, _n: usize, took: Duration) {
        self.trace.model_time(took);
    }
    fn response_finished(&mut self, _n: usize, _results: &[ToolResult]) {
        self.trace.end_batch();
    }
    fn retrying(&mut self, attempt: usize, wait: Duration, error: &ModelError) {
        let text = format!("attempt {attempt} failed: {error}; retrying in {:.1} s", wait.as_secs_f64());
        let event = serde_json::json!({
            "type": "retry", "attempt": attempt, "wait_ms": wait.as_secs_f64() * 1000.0, "error": error.to_string(),
        });
        self.trace.event(Some(&text), event);
    }
    fn interrupted(&mut self, error: &ModelError) {
        self.trace.note(&format!("{error}; its calls are answered and the model asked again"));
    }
}

/// Runs `work` on the multi-threaded runtime the commands share, with the stop
/// signals watched (see [`super::stop`]). The runtime is then shut down without
/// waiting for blocked reads (a terminal's stdin, a pipe an escaped process holds).
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;
    let out = runtime.block_on(async {
        super::stop::watch()?;
        Ok::<_, String>(work.await)
    })?;
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(out)
}

/// A session's turn in `workspace` (the built-ins' session state included) whose
/// progress reports go to `trace`, cancelled by a stop signal. Await the handle after dropping the turn: it
/// ends when the last report is printed. Call inside the runtime.
pub fn traced_turn(workspace: &std::path::Path, trace: &Arc<Trace>) -> (TurnContext, tokio::task::JoinHandle<()>) {
    traced_turn_with(workspace, trace, toolwright::builtin::session())
}

/// A traced turn whose session keeps a transcript under
/// `~/.toolwright/transcripts/<session id>.jsonl` (hooks get its path as
/// `transcript_path`; children keep theirs under `<session id>/subagents/`), with the
/// subagent runtime in it and the deferred tools' session when there is one, for
/// the live agent.
pub fn traced_turn_with_transcript(
    workspace: &std::path::Path,
    trace: &Arc<Trace>,
    subagents: &toolwright::subagents::Subagents,
    skills: &toolwright::skills::Skills,
    schedules: &toolwright::builtin::schedules::Schedules,
    lsp: &toolwright::builtin::lsp::LspServers,
    tool_search: &Option<toolwright::deferred::ToolSession>,
) -> (TurnContext, tokio::task::JoinHandle<()>) {
    let mut session = skills.extensions(subagents.extensions(toolwright::builtin::session()));
    if let Some(tools) = tool_search {
        session.insert(tools.clone());
    }
    session.insert(schedules.clone());
    if !lsp.is_empty() {
        session.insert(lsp.clone());
    }
    // Questions for the person only where there is a terminal to ask on; without
    // one the model is told that nobody is there.
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        session.insert(super::questions::TerminalQuestions::questions(trace));
    }
    let mut info = toolwright::SessionInfo::new();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    info.transcript_path = Some(home.join(".toolwright/transcripts").join(format!("{}.jsonl", info.id)));
    session.insert(info);
    traced_turn_with(workspace, trace, session)
}

pub fn traced_turn_with(
    workspace: &std::path::Path,
    trace: &Arc<Trace>,
    session: toolwright::Extensions,
) -> (TurnContext, tokio::task::JoinHandle<()>) {
    let (sink, mut reports) = toolwright::ProgressSink::channel(256);
    let trace = Arc::clone(trace);
    let printer = tokio::spawn(async move {
        while let Some(event) = reports.recv().await {
            trace.progress(&event);
        }
    });
    let turn = TurnContext::new(workspace)
        .with_extensions(session)
        .with_progress(sink)
        .with_cancellation(super::stop::token());
    (turn, printer)
}

/// The workspace a command runs in: `--cwd`, canonical and a directory, or the
/// current directory.
pub fn workspace_dir(cwd: Option<&std::path::Path>) -> Result<std::path::PathBuf, String> {
    let dir = match cwd {
        None => std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?,
        Some(dir) => {
            let canonical = std::fs::canonicalize(dir).map_err(|e| format!("--cwd {}: {e}", dir.display()))?;
            if !canonical.is_dir() {
                return Err(format!("--cwd {}: not a directory (give the workspace's directory)", dir.display()));
            }
            canonical
        }
    };
    // What a killed run's writes left behind goes before this one starts.
    toolwright::builtin::confined::sweep_leftovers(&dir);
    Ok(dir)
}

/// Whether the workspace's own settings files may grant, for the commands that load
/// them (`serve`, `call`, `agent`).
#[derive(clap::Args)]
pub struct TrustArgs {
    /// Trust the workspace: its settings files' allow rules, additional directories
    /// and starting mode apply. Without it they apply only where Claude Code has
    /// recorded the workspace as trusted (`hasTrustDialogAccepted` in
    /// ~/.claude.json); its deny and ask rules always apply.
    #[arg(long)]
    trust_workspace: bool,
}

impl TrustArgs {
    /// Whether the workspace in `cwd` is trusted: by the flag, or by Claude Code's record.
    pub fn trust(&self, cwd: &std::path::Path) -> toolwright::rules::trust::Trust {
        if self.trust_workspace {
            return toolwright::rules::trust::Trust::Trusted;
        }
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        toolwright::rules::trust::Trust::recorded(cwd, home.as_deref())
    }

    /// The workspace's rules and hooks, trusted as asked (its warnings name each file
    /// whose grants wait for trust).
    pub fn load(&self, cwd: &std::path::Path) -> Result<toolwright::WorkspaceSettings, String> {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        toolwright::WorkspaceSettings::load_with_trust(cwd, home.as_deref(), self.trust(cwd)).map_err(|e| e.to_string())
    }
}
