//! The agent types every agent has without a file, as Claude Code has them:
//! `general-purpose` (every tool its parent may give), `Explore` (reads and searches,
//! changes nothing) and `Plan` (the same, in plan mode). A definition of the same name
//! in any file or in code takes their place.

use crate::definition::{AgentDefinition, Format, Source};
use toolwright_permissions::Mode;

/// What the read-only agents may never use.
const WRITING_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The built-in definitions.
pub fn builtin() -> Vec<AgentDefinition> {
    let general = AgentDefinition::blank(
        "general-purpose".into(),
        "A general-purpose agent for research and multi-step tasks: searching code, reading files, running \
         commands and making changes. Use it when a task needs several steps you would rather not do yourself."
            .into(),
        "You are an agent started by another agent to do one task. Do it completely with the tools you have, \
         then end with a report: what you found or changed, with file paths, and anything left undone."
            .into(),
        Source::BuiltIn,
        Format::Code,
        None,
    );
    let mut explore = AgentDefinition::blank(
        "Explore".into(),
        "A fast read-only agent for exploring a codebase: finds files, searches code, reads and answers \
         questions about it. It changes nothing."
            .into(),
        "You are a read-only exploration agent. Search and read to answer the question you were given; never \
         change a file. End with a concise report naming the files and lines that matter."
            .into(),
        Source::BuiltIn,
        Format::Code,
        None,
    );
    explore.disallowed_tools = WRITING_TOOLS.iter().map(|s| (*s).to_owned()).collect();
    let mut plan = AgentDefinition::blank(
        "Plan".into(),
        "A read-only planning agent: studies the code and returns a step-by-step plan for a change. It \
         changes nothing."
            .into(),
        "You are a planning agent. Read what you need, change nothing, and end with a numbered plan: the \
         files to change, what to change in each, and how to check the result."
            .into(),
        Source::BuiltIn,
        Format::Code,
        None,
    );
    plan.disallowed_tools = explore.disallowed_tools.clone();
    plan.permission_mode = Some(Mode::Plan);
    vec![general, explore, plan]
}

/// The `fork` agent type: a copy of the calling agent that goes on from its
/// conversation so far with a new task (every tool its parent may give, narrowed as
/// any child's). The runtime gives it its parent's system prompt, tool definitions
/// and history, so the provider's prompt cache is reused.
pub fn fork() -> AgentDefinition {
    AgentDefinition::blank(
        "fork".into(),
        "A copy of you that continues from this conversation with a new task, on the same model, system prompt \
         and tools (the provider's prompt cache is reused). Use it for a side task that needs what you know."
            .into(),
        String::new(),
        Source::BuiltIn,
        Format::Code,
        None,
    )
}
