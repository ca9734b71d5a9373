//! `toolwright replay`: a recorded model session through the streaming executor and
//! the built-in tools, against a scratch copy of the sample workspace.

use super::sample;
use super::trace::{Mode, Trace};
use super::turn::{Traced, block_on, traced_turn_with};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use toolwright::agent::{Agent, Model as _, RecordedModel, RetryPolicy, Stop};
use toolwright::orchestrate::Orchestrator;
use toolwright::rules::{Source, settings};
use toolwright::subagents::{Catalog, LoadOptions, RecordedTree, Subagents};

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A bundled session (fix-failing-test, explore, trouble, delegate, plan) or a file of
    /// Anthropic SSE events, OpenAI chat chunks or OpenAI responses events; with
    /// `--- agent: NAME` section lines, the main agent's (`main`) and each child's
    /// (by the agent call's description). Default: fix-failing-test.
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
    /// Also write the session as a self-contained HTML timeline to FILE.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Pause between stream events, in milliseconds, to watch calls start while
    /// the model is still "typing".
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pace: u64,
}

pub fn run(args: ReplayArgs) -> Result<(), String> {
    let (name, text) = sample::session(args.session.as_deref().unwrap_or(sample::DEFAULT_SESSION))?;
    let pace = Duration::from_millis(args.pace);
    // A recording with children: the main agent's responses and each child's.
    let (model, tree): (Arc<RecordedModel>, Option<RecordedTree>) = if RecordedTree::has_sections(&text) {
        let tree = RecordedTree::parse(&text).map_err(|e| format!("{name}: {e}"))?.with_pace(pace);
        (tree.main(), Some(tree))
    } else {
        let model = RecordedModel::from_session(&text).map_err(|e| format!("{name}: {e}"))?;
        (Arc::new(model.with_pace(pace)), None)
    };
    if model.responses() == 0 {
        return Err(format!(
            "{name}: the session holds no model responses (expected Anthropic SSE events or OpenAI chat or responses events)"
        ));
    }
    let api = model.api();
    // Every output is checked before the first side effect (the workspace).
    if let Some(path) = &args.timeline {
        crate::timeline::can_write(path)?;
    }
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
    if args.timeline.is_some() {
        trace.keep_events();
    }
    let answer = args.answer.given();
    let registry = Arc::new(crate::registry()?);
    // The recording approves its own plan (accepting edits), unless --deny.
    let approver = super::recorded::RecordedPlanApproval {
        inner: super::trace::PromptApprover { answer, trace: Arc::clone(&trace) },
        deny: answer == Some(false),
        trace: Arc::clone(&trace),
    };
    let executor = toolwright::Executor::builder(Arc::clone(&registry)).policy(policy).approver(approver).build();
    let orchestrator = Arc::new(Orchestrator::new(Arc::new(executor)));
    // The sample's skills; for the workflow session, a git repository to make a
    // worktree in.
    let skills = toolwright::skills::Skills::builder(Arc::clone(orchestrator.executor()))
        .catalog(|cwd, touched| {
            let options = toolwright::skills::SkillOptions::new().trust(toolwright::rules::trust::Trust::Trusted);
            toolwright::skills::SkillCatalog::load(cwd, &options.no_user_or_managed().touched(touched))
        })
        .build();
    skills.install(&registry).map_err(|e| e.to_string())?;
    if name == "plan" {
        super::recorded::commit_workspace(&workspace, &trace);
    }
    let responses = model.responses();
    // Children get the built-in agent types and the sample's own definitions, and
    // their sections of the recording.
    let subagents = tree.map(|tree| {
        let options = LoadOptions::new().trust(toolwright::rules::trust::Trust::Trusted).no_user_or_managed();
        let parent: Arc<dyn toolwright::agent::Model> = model.clone();
        Subagents::builder(Arc::clone(&orchestrator), parent)
            .models(tree)
            .catalog(move |cwd| Catalog::load(cwd, &options))
            .retry(RetryPolicy::none())
            .observer(Arc::new(super::children::TracedChildren { trace: Arc::clone(&trace) }))
            .build()
    });
    if let Some(subagents) = &subagents {
        subagents.install(&registry).map_err(|e| e.to_string())?;
    }
    // A scratch workspace's temporary path is not a title for the timeline's page.
    let place = match &args.workspace {
        Some(_) => workspace.display().to_string(),
        None => "a scratch copy of the sample workspace".to_owned(),
    };
    trace.header(
        &format!("replaying {name} ({responses} turns, {} wire format) in {place}", api.name()),
        json!({"session": name, "turns": responses, "wire": api.name(), "workspace": workspace}),
    );
    let mut observer = Traced::new(&trace, api).with_calls(model.calls_per_response());
    // The library's loop over the recording: each response streams into the
    // executor, and the results are answered as to a live model.
    let agent = Agent::new_shared(model, orchestrator).max_responses(responses).retry(RetryPolicy::none());
    let outcome = block_on(async {
        let mut session = toolwright::builtin::session();
        if let Some(subagents) = &subagents {
            session = subagents.extensions(session);
        }
        session = skills.extensions(session);
        // The recording answers its questions; its task list stays in the workspace.
        session.insert(super::recorded::questions(&trace));
        session.insert(toolwright::builtin::tasks::TaskStore::at(workspace.join(".toolwright/tasks.json")));
        let (mut turn, printer) = traced_turn_with(&workspace, &trace, session);
        let outcome = agent.run("(a recorded session)", &mut turn, &mut observer).await;
        if let Some(subagents) = &subagents {
            subagents.stop_all("the replay ended");
        }
        drop(turn);
        let _ = printer.await;
        outcome
    })?;
    match outcome {
        Ok(outcome) if outcome.stop == Stop::Cancelled => trace.note("stopped by a signal"),
        Ok(_) => {}
        Err(error) => {
            trace.summary();
            crate::timeline::finish(&trace, args.timeline.as_deref())?;
            return Err(format!("{name}: {error}"));
        }
    }
    if let Some(subagents) = &subagents {
        let reports = subagents.reports();
        let refused: usize = reports.iter().map(|r| r.denied.len()).sum();
        trace.note(&format!(
            "subagents: {} ran ({}), {} tokens, {} of their calls refused",
            reports.len(),
            reports.iter().map(|r| format!("{} {}", r.agent_type, r.status.name())).collect::<Vec<_>>().join(", "),
            subagents.usage().total_tokens(),
            refused
        ));
    }
    trace.summary();
    crate::timeline::finish(&trace, args.timeline.as_deref())?;
    if args.workspace.is_some() {
        trace.note(&format!("the workspace is kept at {}", workspace.display()));
    }
    Ok(())
}
