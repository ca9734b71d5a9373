//! The limits every subagent runs under, checked on spawn, resume and fork alike.

use std::time::Duration;

/// How far a tree of agents may go.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The deepest a child may be: 1 is a child of the main agent (Claude Code's
    /// default: 3; `CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH`).
    pub max_depth: usize,
    /// Agents running at once, in the whole tree (default 20;
    /// `CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS`). A start beyond it is refused with an
    /// error result, never queued: a queue could wait on its own parents.
    pub max_running: usize,
    /// Model responses per run when the definition gives no `maxTurns` (default 30).
    pub max_turns: usize,
    /// How long one run may take (default 30 minutes).
    pub wall_clock: Option<Duration>,
    /// How long a run may go without a model event while no call of its runs
    /// (default 10 minutes, Claude Code's background stall timeout).
    pub stall: Option<Duration>,
    /// Tokens one agent may use over all its responses (default: no limit).
    pub agent_tokens: Option<u64>,
    /// Tokens a tree may use: a child of the main agent and everything under it
    /// (default: no limit).
    pub tree_tokens: Option<u64>,
    /// The longest report the parent's model is shown, in characters (default
    /// 20,000); the rest is read with `task_output`.
    pub report_chars: usize,
    /// How many times `SubagentStop` hooks may keep one run going (default 3).
    pub stop_hook_blocks: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 3,
            max_running: 20,
            max_turns: 30,
            wall_clock: Some(Duration::from_secs(30 * 60)),
            stall: Some(Duration::from_secs(10 * 60)),
            agent_tokens: None,
            tree_tokens: None,
            report_chars: 20_000,
            stop_hook_blocks: 3,
        }
    }
}

/// An environment variable that does not hold a limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}={value:?}: {why}")]
#[non_exhaustive]
pub struct LimitsError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// What was wrong.
    pub why: &'static str,
}

/// The variables [`Limits::from_env`] reads, each with the field it sets.
pub const LIMIT_VARS: &[&str] = &[
    "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH",
    "CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS",
    "TOOLWRIGHT_SUBAGENT_MAX_TURNS",
    "TOOLWRIGHT_SUBAGENT_WALL_SECS",
    "TOOLWRIGHT_SUBAGENT_STALL_SECS",
    "TOOLWRIGHT_SUBAGENT_TOKENS",
    "TOOLWRIGHT_SUBAGENT_TREE_TOKENS",
    "TOOLWRIGHT_SUBAGENT_REPORT_CHARS",
];

impl Limits {
    /// The defaults, with what the environment sets: Claude Code's
    /// `CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH` and `CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS`,
    /// and toolwright's `TOOLWRIGHT_SUBAGENT_MAX_TURNS`, `_WALL_SECS`, `_STALL_SECS`
    /// (0: none), `_TOKENS` (per agent), `_TREE_TOKENS` and `_REPORT_CHARS`.
    pub fn from_env() -> Result<Limits, LimitsError> {
        Limits::from_vars(|var| std::env::var(var).ok())
    }

    /// As [`from_env`](Self::from_env), reading variables through `get`.
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Limits, LimitsError> {
        let mut limits = Limits::default();
        let number = |var: &'static str| -> Result<Option<u64>, LimitsError> {
            let Some(value) = get(var) else { return Ok(None) };
            value.trim().parse::<u64>().map(Some).map_err(|_| LimitsError {
                var,
                value,
                why: "expected a whole number",
            })
        };
        let positive = |var: &'static str| -> Result<Option<usize>, LimitsError> {
            match number(var)? {
                Some(0) => Err(LimitsError { var, value: "0".into(), why: "must be at least 1" }),
                other => Ok(other.map(|n| usize::try_from(n).unwrap_or(usize::MAX))),
            }
        };
        let seconds = |n: u64| (n > 0).then(|| Duration::from_secs(n));
        if let Some(n) = positive("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH")? {
            limits.max_depth = n;
        }
        if let Some(n) = positive("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS")? {
            limits.max_running = n;
        }
        if let Some(n) = positive("TOOLWRIGHT_SUBAGENT_MAX_TURNS")? {
            limits.max_turns = n;
        }
        if let Some(n) = number("TOOLWRIGHT_SUBAGENT_WALL_SECS")? {
            limits.wall_clock = seconds(n);
        }
        if let Some(n) = number("TOOLWRIGHT_SUBAGENT_STALL_SECS")? {
            limits.stall = seconds(n);
        }
        if let Some(n) = number("TOOLWRIGHT_SUBAGENT_TOKENS")? {
            limits.agent_tokens = Some(n);
        }
        if let Some(n) = number("TOOLWRIGHT_SUBAGENT_TREE_TOKENS")? {
            limits.tree_tokens = Some(n);
        }
        if let Some(n) = positive("TOOLWRIGHT_SUBAGENT_REPORT_CHARS")? {
            limits.report_chars = n;
        }
        Ok(limits)
    }

    /// Another depth limit.
    pub fn max_depth(mut self, n: usize) -> Limits {
        self.max_depth = n;
        self
    }

    /// Another limit on agents running at once.
    pub fn max_running(mut self, n: usize) -> Limits {
        self.max_running = n;
        self
    }

    /// Another default number of responses per run.
    pub fn max_turns(mut self, n: usize) -> Limits {
        self.max_turns = n.max(1);
        self
    }

    /// Another wall-clock limit per run (`None`: none).
    pub fn wall_clock(mut self, limit: Option<Duration>) -> Limits {
        self.wall_clock = limit;
        self
    }

    /// Another stall limit (`None`: none).
    pub fn stall(mut self, limit: Option<Duration>) -> Limits {
        self.stall = limit;
        self
    }

    /// A token budget per agent.
    pub fn agent_tokens(mut self, budget: Option<u64>) -> Limits {
        self.agent_tokens = budget;
        self
    }

    /// A token budget per tree.
    pub fn tree_tokens(mut self, budget: Option<u64>) -> Limits {
        self.tree_tokens = budget;
        self
    }

    /// Another report length, in characters.
    pub fn report_chars(mut self, n: usize) -> Limits {
        self.report_chars = n.max(1);
        self
    }
}
