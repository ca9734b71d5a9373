//! `toolwright replay`: a recorded model session through the streaming executor and
//! the built-in tools, against a scratch copy of the sample workspace.

use super::sample;
use super::trace::{Mode, Trace};
use super::turn::{Traced, block_on, executor, traced_turn};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use toolwright::agent::{Agent, Model as _, RecordedModel, RetryPolicy, Stop};
use toolwright::orchestrate::Orchestrator;
use toolwright::rules::{Source, settings};

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A bundled session (fix-failing-test, explore, trouble) or a file of Anthropic
    /// SSE events, OpenAI chat chunks or OpenAI responses events. Default:
    /// fix-failing-test.
    session: Option<String>,
    /// Run in this directory (new or empty; the sample workspace is written there
    /// and kept) instead of a temporary copy.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[command(flatten)]
    answer: super::trace::Answer,
    /// One JSON object per event instead of the readable trace.
    #[arg(long)]
    json: bool,
    /// Pause between stream events, in milliseconds, to watch calls start while
    /// the model is still "typing".
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pace: u64,
}

pub fn run(args: ReplayArgs) -> Result<(), String> {
    let (name, text) = sample::session(args.session.as_deref().unwrap_or(sample::DEFAULT_SESSION))?;
    let model = RecordedModel::from_session(&text).map_err(|e| format!("{name}: {e}"))?;
    if model.responses() == 0 {
        return Err(format!(
            "{name}: the session holds no model responses (expected Anthropic SSE events or OpenAI chat or responses events)"
        ));
    }
    let model = model.with_pace(Duration::from_millis(args.pace));
    let api = model.api();
    let (scratch, _removed_on_stop);
    let workspace = match &args.workspace {
        Some(dir) => {
            sample::write_workspace(dir)?;
            std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?
        }
        None => {
            scratch = tempfile::Builder::new()
                .prefix("toolwright-replay-")
                .tempdir()
                .map_err(|e| format!("creating a scratch directory: {e}"))?;
            _removed_on_stop = toolwright::leftovers::PendingTemp::new(scratch.path());
            sample::write_workspace(scratch.path())?;
            std::fs::canonicalize(scratch.path()).map_err(|e| e.to_string())?
        }
    };
    // Only the sample's own settings: the demo behaves the same on every machine.
    let files: Vec<_> = settings::locations(&workspace, None)
        .into_iter()
        .filter(|(source, _)| matches!(source, Source::Project | Source::Local))
        .collect();
    // The sample's settings are ours: trusted.
    let trust = toolwright::rules::trust::Trust::Trusted;
    let policy = settings::policy_from_files_with(&workspace, &files, trust).map_err(|e| e.to_string())?;
    let trace = Trace::new(Mode::pick(args.json));
    let answer = args.answer.given();
    let registry = Arc::new(toolwright::registry().map_err(|e| e.to_string())?);
    let orchestrator = Orchestrator::new(Arc::new(executor(registry, policy, answer, &trace)));
    let responses = model.responses();
    trace.header(
        &format!("replaying {name} ({responses} turns, {} wire format) in {}", api.name(), workspace.display()),
        json!({"session": name, "turns": responses, "wire": api.name(), "workspace": workspace}),
    );
    let mut observer = Traced::new(&trace, api).with_calls(model.calls_per_response());
    // The library's loop over the recording: each response streams into the
    // executor, and the results are answered as to a live model.
    let agent = Agent::new(model, orchestrator).max_responses(responses).retry(RetryPolicy::none());
    let outcome = block_on(async {
        let (mut turn, printer) = traced_turn(&workspace, &trace);
        let outcome = agent.run("(a recorded session)", &mut turn, &mut observer).await;
        drop(turn);
        let _ = printer.await;
        outcome
    })?;
    match outcome {
        Ok(outcome) if outcome.stop == Stop::Cancelled => trace.note("stopped by a signal"),
        Ok(_) => {}
        Err(error) => {
            trace.summary();
            return Err(format!("{name}: {error}"));
        }
    }
    trace.summary();
    if args.workspace.is_some() {
        trace.note(&format!("the workspace is kept at {}", workspace.display()));
    }
    Ok(())
}
