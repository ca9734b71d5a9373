//! Subagents: definitions (Claude Code's agent files, Cline's, code) and the runtime
//! that starts them as tools of the agent loop.
//!
//! - [`Catalog`], [`AgentDefinition`]: what an agent may delegate to (the
//!   `toolwright-agents` crate, re-exported here).
//! - [`Subagents`]: the runtime. [`Subagents::install`] registers Claude Code's tools:
//!   `agent` (rule name `Agent`; the model may call it `Agent` or `Task`),
//!   `task_output` (`TaskOutput`), `task_stop` (`TaskStop`) and `send_message`
//!   (`SendMessage`). They are offered in turns whose extensions hold the runtime
//!   ([`Subagents::extensions`] puts it there).
//!
//! A child runs the library's [`Agent`](crate::agent::Agent) loop on the parent's
//! executor, so the parent's deny rules, ask rules, hooks and approver hold in every
//! descendant; its tools are the parent's narrowed by the definition
//! ([`AgentDefinition::profile`]), and a call outside them is refused at dispatch. Its
//! questions reach the parent's approver with an [`AgentScope`](crate::AgentScope) in
//! the request's extensions (its id, type and depth). Limits ([`Limits`]) are checked
//! on every start and resume: depth, agents running, turns, wall clock, stall, and
//! token budgets per agent and per tree. Stopping an agent stops everything under it.
//! A report longer than [`Limits::report_chars`] is cut with a marker and read whole
//! with `task_output`; every child keeps its own transcript beside the parent's.
//!
//! ```no_run
//! use std::sync::Arc;
//! use toolwright::agent::{Agent, HttpModel, Model};
//! use toolwright::orchestrate::Orchestrator;
//! use toolwright::provider::Api;
//! use toolwright::subagents::{Catalog, LoadOptions, Subagents};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let cwd = std::env::current_dir()?;
//! let registry = Arc::new(toolwright::registry()?);
//! let settings = toolwright::WorkspaceSettings::load(&cwd)?;
//! for warning in settings.warnings() { eprintln!("warning: {warning}"); }
//! let executor = settings.executor(Arc::clone(&registry), toolwright::permission::Unattended);
//! let orchestrator = Arc::new(Orchestrator::new(Arc::new(executor)));
//! let model: Arc<dyn Model> = Arc::new(HttpModel::from_env(Api::Anthropic)?);
//! let subagents = Subagents::builder(Arc::clone(&orchestrator), Arc::clone(&model))
//!     .catalog(|cwd| Catalog::load(cwd, &LoadOptions::new()))
//!     .build();
//! subagents.install(&registry)?;
//! let agent = Agent::new_shared(model, orchestrator);
//! let mut turn = toolwright::TurnContext::new(&cwd).with_extensions(subagents.extensions(toolwright::builtin::session()));
//! let outcome = agent.run("Review the change in src/ with two explorers.", &mut turn, &mut ()).await?;
//! println!("{}", outcome.text);
//! # Ok(()) }
//! ```

pub use toolwright_agents::*;

mod handle;
mod limits;
mod models;
mod observer;
mod recorded;
mod report;
mod run;
mod runtime;
mod spawn;
mod tools;
mod worktree;

pub use handle::{AgentReport, AgentStatus};
pub use limits::{LIMIT_VARS, Limits, LimitsError};
pub use models::{ChildModels, ChildRequest, resolve_model_alias};
pub use observer::{SubagentEvent, SubagentObserver};
pub use recorded::{RecordedTree, RecordedTreeError, SECTION};
pub use runtime::{Subagents, SubagentsBuilder};
pub(crate) use tools::agent::Input as AgentInput;
pub use tools::{AGENT_TOOL, SEND_MESSAGE_TOOL, TASK_OUTPUT_TOOL, TASK_STOP_TOOL};
