//! Which model a child talks to.

use crate::AgentScope;
use crate::agent::Model;
use std::sync::Arc;
use toolwright_agents::AgentDefinition;

/// The child a model is asked for.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ChildRequest<'a> {
    /// The child.
    pub agent: &'a AgentScope,
    /// Its definition.
    pub definition: &'a AgentDefinition,
    /// The agent call's `model`, else the definition's (`None` and `inherit`: the
    /// parent's); a resumed child asks for the model it ran on.
    pub requested: Option<&'a str>,
    /// The agent call's `description`.
    pub description: &'a str,
}

/// Gives each child its model. Object-safe; a closure is one.
pub trait ChildModels: Send + Sync {
    /// The model for `child`, or why there is none (the agent call's error).
    fn model(&self, child: &ChildRequest<'_>) -> Result<Arc<dyn Model>, String>;
}

impl<F> ChildModels for F
where
    F: Fn(&ChildRequest<'_>) -> Result<Arc<dyn Model>, String> + Send + Sync,
{
    fn model(&self, child: &ChildRequest<'_>) -> Result<Arc<dyn Model>, String> {
        self(child)
    }
}

/// The parent's model for every child.
pub(crate) struct SameModel(pub(crate) Arc<dyn Model>);

impl ChildModels for SameModel {
    fn model(&self, _: &ChildRequest<'_>) -> Result<Arc<dyn Model>, String> {
        Ok(Arc::clone(&self.0))
    }
}

/// Claude Code's model aliases as Anthropic model ids (`sonnet`, `opus`, `haiku`);
/// `inherit` and an empty name are `None` (the parent's); any other name is itself.
pub fn resolve_model_alias(name: &str) -> Option<&str> {
    match name.trim() {
        "" | "inherit" => None,
        "sonnet" => Some("claude-sonnet-4-5"),
        "opus" => Some("claude-opus-4-1"),
        "haiku" => Some("claude-haiku-4-5"),
        other => Some(other),
    }
}
