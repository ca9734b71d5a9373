//! `toolwright replay`: a recorded model session through the streaming executor and
//! the built-in tools, against a scratch copy of the sample workspace.

use super::sample;
use super::trace::{Mode, Trace};
use super::turn::{block_on, executor, run_calls, traced_turn};
use super::wire::{Item, recorded_turns};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use toolwright::orchestrate::Orchestrator;
use toolwright::rules::{Source, settings};
use toolwright::streaming::StreamEvent;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A bundled session (fix-failing-test, explore, trouble) or a file of Anthropic
    /// SSE events or OpenAI chat chunks. Default: fix-failing-test.
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
    let (wire, turns) = recorded_turns(&text).map_err(|e| format!("{name}: {e}"))?;
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
    let policy = settings::policy_from_files(&workspace, &files).map_err(|e| e.to_string())?;
    let trace = Trace::new(Mode::pick(args.json));
    let answer = args.answer.given();
    let registry = Arc::new(toolwright::registry().map_err(|e| e.to_string())?);
    let orchestrator = Orchestrator::new(Arc::new(executor(registry, policy, answer, &trace)));
    trace.header(
        &format!("replaying {name} ({} turns, {} wire format) in {}", turns.len(), wire.name(), workspace.display()),
        json!({"session": name, "turns": turns.len(), "wire": wire.name(), "workspace": workspace}),
    );
    let pace = Duration::from_millis(args.pace);
    block_on(async {
        let (mut turn, printer) = traced_turn(&workspace, &trace);
        for (n, items) in turns.into_iter().enumerate() {
            if super::stop::token().is_cancelled() {
                trace.note("stopped by a signal");
                break;
            }
            let calls = items.iter().filter(|i| matches!(i, Item::Call(StreamEvent::Start { .. }))).count();
            trace.turn(n + 1, wire.name(), Some(calls));
            let text: String =
                items.iter().filter_map(|i| if let Item::Text(t) = i { Some(t.as_str()) } else { None }).collect();
            trace.text(&text);
            if calls == 0 {
                continue;
            }
            let (tx, rx) = tokio::sync::mpsc::channel(1024);
            let events: Vec<StreamEvent> =
                items.into_iter().filter_map(|i| if let Item::Call(e) = i { Some(e) } else { None }).collect();
            let feeder = tokio::spawn(async move {
                for event in events {
                    if !pace.is_zero() {
                        tokio::time::sleep(pace).await;
                    }
                    if tx.send(event).await.is_err() {
                        break;
                    }
                }
            });
            run_calls(&orchestrator, &mut turn, &trace, rx).await;
            let _ = feeder.await;
        }
        drop(turn);
        let _ = printer.await;
    })?;
    trace.summary();
    if args.workspace.is_some() {
        trace.note(&format!("the workspace is kept at {}", workspace.display()));
    }
    Ok(())
}
