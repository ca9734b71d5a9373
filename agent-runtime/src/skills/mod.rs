//! Skills at run time: Claude Code's `Skill` tool over the Agent Skills format.
//!
//! - [`Skill`], [`SkillCatalog`], [`SkillOptions`]: what is found and where (the
//!   `toolwright-agents` crate's [`skills`](toolwright_agents::skills) module,
//!   re-exported here).
//! - [`Skills`]: the runtime. [`Skills::install`] registers the `skill` tool (rule name
//!   `Skill`; a model may call it `Skill`), offered in turns whose extensions hold the
//!   runtime ([`Skills::extensions`]). Its description lists the skills the model may
//!   invoke, within a budget (Claude Code's 8,000 characters, or
//!   `SLASH_COMMAND_TOOL_CHAR_BUDGET`), read anew each turn.
//!
//! A call renders the skill's body (`$ARGUMENTS`, `$N`, `$name`, `${CLAUDE_…}`), runs
//! its `!` commands through the executor like any shell call (rules, hooks, sandbox)
//! but never asks: a command no rule (or the skill's `allowed-tools`) allows aborts
//! the skill. The body comes back once; a repeat gets an "already loaded" note.
//! `allowed-tools` are granted for the rest of the run ([`Grants`](crate::rules::grants::Grants)),
//! within the deny and ask rules. A `context: fork` skill runs as a subagent when the
//! turn has a [`Subagents`](crate::subagents::Subagents) runtime.
//!
//! ```no_run
//! use std::sync::Arc;
//! use toolwright::skills::{SkillOptions, Skills};
//! # fn run(orchestrator: Arc<toolwright::orchestrate::Orchestrator>, registry: &toolwright::Registry) {
//! let options = SkillOptions::new();
//! let skills = Skills::builder(Arc::clone(orchestrator.executor()))
//!     .catalog(move |cwd, touched| toolwright::skills::SkillCatalog::load(cwd, &options.clone().touched(touched)))
//!     .build();
//! skills.install(registry).unwrap();
//! let turn = toolwright::TurnContext::new(".").with_extensions(skills.extensions(toolwright::builtin::session()));
//! # }
//! ```

mod invoke;
mod tool;

pub use toolwright_agents::skills::*;

use crate::Executor;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use toolwright_core::Extensions;

/// The skill tool's name (rule name `Skill`).
pub const SKILL_TOOL: &str = "skill";

const OWNER: &str = "toolwright skills";

type Loader = dyn Fn(&Path, Vec<PathBuf>) -> SkillCatalog + Send + Sync;

/// The skills runtime: where skills are found, the executor their commands run on,
/// and what this session has loaded. Clones share it.
#[derive(Clone)]
pub struct Skills {
    inner: Arc<Inner>,
}

struct Inner {
    executor: Arc<Executor>,
    load: Box<Loader>,
    budget: usize,
    /// Each skill loaded, with a hash of what the model was given.
    loaded: Mutex<HashMap<String, u64>>,
}

/// Builds [`Skills`].
pub struct SkillsBuilder {
    executor: Arc<Executor>,
    load: Box<Loader>,
    budget: usize,
}

impl Skills {
    /// A runtime whose `!` commands run on `executor`; by default it finds the
    /// user's and managed skills and no workspace's ([`SkillOptions::new`], untrusted).
    pub fn builder(executor: Arc<Executor>) -> SkillsBuilder {
        let options = SkillOptions::new();
        SkillsBuilder {
            executor,
            load: Box::new(move |cwd, touched| SkillCatalog::load(cwd, &options.clone().touched(touched))),
            budget: budget_from_env(),
        }
    }

    /// Registers the `skill` tool in `registry` (again, if it was: installing twice
    /// is harmless).
    pub fn install(&self, registry: &crate::Registry) -> Result<(), crate::RegistryError> {
        registry.clear_owner(OWNER);
        registry.register_owned(OWNER, Arc::new(tool::SkillTool::new()))
    }

    /// `extensions` with this runtime in them: the skill tool is offered in turns
    /// built with them.
    pub fn extensions(&self, mut extensions: Extensions) -> Extensions {
        extensions.insert(self.clone());
        extensions
    }

    /// The skills for a turn in `cwd`: nested ones below the files this session
    /// touched (read by the built-ins' [`FileStates`](crate::builtin::FileStates)) too.
    pub fn catalog(&self, cwd: &Path, extensions: &Extensions) -> SkillCatalog {
        let touched = extensions.get::<toolwright_builtin::FileStates>().map(|f| f.paths()).unwrap_or_default();
        (self.inner.load)(cwd, touched)
    }

    /// The listing's budget, in characters.
    pub fn budget(&self) -> usize {
        self.inner.budget
    }

    /// The full content of each skill in `names`, for a subagent's `skills:` (Claude
    /// Code preloads them at its start), and a note for each that cannot be.
    pub fn preload(&self, cwd: &Path, names: &[String]) -> (String, Vec<String>) {
        let catalog = (self.inner.load)(cwd, Vec::new());
        let mut text = String::new();
        let mut notes = Vec::new();
        for name in names {
            match catalog.get(name) {
                Some(skill) if skill.model_invocable() => {
                    text.push_str(&format!("\n\n<skill name=\"{}\">\n{}\n</skill>", skill.name, skill.body.trim()));
                }
                Some(_) => {
                    notes.push(format!("skill `{name}` is user-only (disable-model-invocation) and is not preloaded"))
                }
                None => notes.push(format!("skill `{name}` is not found and is not preloaded")),
            }
        }
        (text, notes)
    }

    fn remember(&self, name: &str, content_hash: u64) -> bool {
        let mut loaded = self.inner.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded.insert(name.to_owned(), content_hash) != Some(content_hash)
    }
}

impl SkillsBuilder {
    /// How skills are found for a working directory and the files touched so far
    /// (called each turn, so edits are seen at the next one).
    pub fn catalog(mut self, load: impl Fn(&Path, Vec<PathBuf>) -> SkillCatalog + Send + Sync + 'static) -> Self {
        self.load = Box::new(load);
        self
    }

    /// The listing's budget in characters (default: `SLASH_COMMAND_TOOL_CHAR_BUDGET`,
    /// else 8,000).
    pub fn budget(mut self, chars: usize) -> Self {
        self.budget = chars.max(1);
        self
    }

    /// The runtime.
    pub fn build(self) -> Skills {
        Skills {
            inner: Arc::new(Inner {
                executor: self.executor,
                load: self.load,
                budget: self.budget,
                loaded: Mutex::new(HashMap::new()),
            }),
        }
    }
}

impl std::fmt::Debug for Skills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skills").field("budget", &self.inner.budget).finish_non_exhaustive()
    }
}
