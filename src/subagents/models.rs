//! Which model a child talks to.

use crate::AgentScope;
use crate::agent::Model;
use std::sync::Arc;
use toolwright_agents::AgentDefinition;

/// Gives each child its model: `requested` is the agent call's `model`, else the
/// definition's (`None` and `inherit`: the parent's). Object-safe; a closure is one.
pub trait ChildModels: Send + Sync {
    /// The model for the child `agent` of `definition`, or why there is none.
    fn model(
        &self,
        agent: &AgentScope,
        definition: &AgentDefinition,
        requested: Option<&str>,
    ) -> Result<Arc<dyn Model>, String>;
}

impl<F> ChildModels for F
where
    F: Fn(&AgentScope, &AgentDefinition, Option<&str>) -> Result<Arc<dyn Model>, String> + Send + Sync,
{
    fn model(
        &self,
        agent: &AgentScope,
        definition: &AgentDefinition,
        requested: Option<&str>,
    ) -> Result<Arc<dyn Model>, String> {
        self(agent, definition, requested)
    }
}

/// The parent's model for every child.
pub(crate) struct SameModel(pub(crate) Arc<dyn Model>);

impl ChildModels for SameModel {
    fn model(&self, _: &AgentScope, _: &AgentDefinition, _: Option<&str>) -> Result<Arc<dyn Model>, String> {
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
