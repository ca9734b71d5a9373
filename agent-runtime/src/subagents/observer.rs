//! What the parent sees of its children while they run.

use crate::AgentScope;
use crate::orchestrate::CallEvent;
use crate::provider::Usage;

/// One thing a child did, tagged by the [`AgentScope`] passed beside it (id, type,
/// parent id, depth).
#[derive(Debug)]
#[non_exhaustive]
pub enum SubagentEvent<'a> {
    /// It started (or resumed, with `resumed` set).
    #[non_exhaustive]
    Started {
        /// The agent call's `description`.
        description: &'a str,
        /// The id of the call that started (or resumed) it, when a call did.
        call_id: Option<&'a str>,
        /// Whether it runs in the background.
        background: bool,
        /// Whether this is a resumed run.
        resumed: bool,
    },
    /// A piece of its text.
    Text(&'a str),
    /// Its `n`th model request is under way (1 for the first).
    Response {
        /// The request's number in this run.
        n: usize,
    },
    /// A call event of its own.
    Call(&'a CallEvent<'a>),
    /// The tokens one of its responses used.
    Usage(&'a Usage),
    /// It ended; the report is what its parent gets.
    Finished(&'a super::AgentReport),
}

/// Sees every descendant's events, from any task (children run concurrently, so
/// `&self`). Every method has an empty default.
pub trait SubagentObserver: Send + Sync {
    /// `agent` did `event`.
    fn event(&self, agent: &AgentScope, event: SubagentEvent<'_>) {
        let _ = (agent, event);
    }
}

impl SubagentObserver for () {}

impl<F: Fn(&AgentScope, SubagentEvent<'_>) + Send + Sync> SubagentObserver for F {
    fn event(&self, agent: &AgentScope, event: SubagentEvent<'_>) {
        self(agent, event);
    }
}
