//! Claude Code's agent tools, one file each. Each finds the runtime in the turn's
//! extensions ([`super::Subagents::extensions`]) and is offered only where it is.

pub(crate) mod agent;
mod per_definition;
mod send_message;
mod task_output;
mod task_stop;

pub(crate) use agent::AgentTool;
pub(crate) use per_definition::DefinitionTool;
pub(crate) use send_message::SendMessageTool;
pub(crate) use task_output::TaskOutputTool;
pub(crate) use task_stop::TaskStopTool;

/// The agent tool's name (rule name `Agent`; `Agent`, `Task` and `task` route to it).
pub const AGENT_TOOL: &str = "agent";
/// The tool that waits for and reads an agent's report (rule name `TaskOutput`).
pub const TASK_OUTPUT_TOOL: &str = "task_output";
/// The tool that stops an agent and everything under it (rule name `TaskStop`).
pub const TASK_STOP_TOOL: &str = "task_stop";
/// The tool that continues a running or finished agent (rule name `SendMessage`).
pub const SEND_MESSAGE_TOOL: &str = "send_message";

/// The runtime of this turn, or the error a call gets without one.
fn runtime<'a>(cx: &'a crate::ToolContext, tool: &str) -> Result<&'a super::Subagents, crate::ToolError> {
    cx.extension::<super::Subagents>().ok_or_else(|| {
        crate::ToolError::msg(format!("{tool}: no subagent runtime in this turn (see Subagents::extensions)"))
    })
}

/// A runtime tool's spec with Claude Code's rule name and hidden aliases.
fn spec(
    name: &'static str,
    rule_name: &'static str,
    aliases: &'static [crate::Alias],
    description: &'static str,
    flags: crate::Flags,
) -> crate::ToolSpec {
    let mut spec = crate::ToolSpec::runtime(name, description, "toolwright subagents");
    spec.rule_name = Some(rule_name.into());
    spec.aliases = std::borrow::Cow::Borrowed(aliases);
    spec.flags = flags;
    spec.defer = crate::Defer::Never;
    spec
}
