//! `agent` (Claude Code's `Agent`, formerly `Task`): starts a subagent.

use super::{AGENT_TOOL, runtime, spec};
use crate::access::Accesses;
use crate::{Alias, BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};
use std::borrow::Cow;

/// Several may run at once; what a child does is checked call by call.
const FLAGS: Flags = Flags { concurrency_safe: true, ..Flags::NONE };

const ALIASES: &[Alias] = &[Alias::hidden("Agent"), Alias::hidden("Task"), Alias::hidden("task")];

const DESCRIPTION: &str = "Starts an agent to do a task on its own: it works with its own tools and context and \
returns one report. Use it for searches and multi-step tasks whose details you do not need to see; start several \
in one response to run them at the same time. Give a complete, self-contained `prompt` (the agent sees nothing \
else of this conversation) and say what the report must contain. With `run_in_background` the call returns at \
once with the agent's id: read the report with task_output, stop it with task_stop.";

/// The tool; its description lists the agent types of the turn's working directory.
pub(crate) struct AgentTool {
    spec: ToolSpec,
}

impl AgentTool {
    pub(crate) fn new() -> AgentTool {
        let mut spec = spec(AGENT_TOOL, "Agent", ALIASES, DESCRIPTION, FLAGS);
        // The run has limits of its own (wall clock, stall, turns); the executor's
        // per-call timeout would cut a long child short without its report.
        spec.timeout = Some(std::time::Duration::from_secs(24 * 3600));
        // The report is cut by the runtime, with a marker saying how to read the rest.
        spec.output_limit = Some(crate::OutputLimit::Bytes(usize::MAX / 2));
        AgentTool { spec }
    }
}

impl DynTool for AgentTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
                "prompt": {"type": "string", "description": "The task for the agent, complete and self-contained"},
                "subagent_type": {"type": "string", "description": "Which kind of agent (default: general-purpose); the tool's description lists them"},
                "model": {"type": "string", "description": "A model for this agent (sonnet, opus, haiku or a model id); default: its definition's, else yours"},
                "run_in_background": {"type": "boolean", "description": "Return at once and let the agent run; read its report with task_output"},
                "name": {"type": "string", "description": "A name to address it by with send_message"},
                "isolation": {"type": "string", "enum": ["worktree"], "description": "`worktree`: work in a git worktree of its own, removed if nothing changed"}
            },
            "required": ["description", "prompt"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = crate::parse_input(raw_input)?;
        Ok(Box::new(input))
    }

    fn is_enabled(&self, turn: &crate::TurnContext) -> bool {
        turn.extensions().get::<crate::subagents::Subagents>().is_some()
    }

    fn description(&self, turn: &crate::TurnContext) -> Cow<'_, str> {
        match turn.extensions().get::<crate::subagents::Subagents>() {
            Some(runtime) => Cow::Owned(format!("{DESCRIPTION}\n\n{}", runtime.types_listing(turn.cwd()))),
            None => Cow::Borrowed(&self.spec.description),
        }
    }
}

/// The call's input: Claude Code's fields.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Input {
    pub(crate) description: String,
    pub(crate) prompt: String,
    #[serde(default)]
    pub(crate) subagent_type: Option<String>,
    #[serde(default)]
    pub(crate) model: Option<String>,
    #[serde(default)]
    pub(crate) run_in_background: bool,
    #[serde(default)]
    pub(crate) name: Option<String>,
    #[serde(default)]
    pub(crate) isolation: Option<String>,
}

impl Input {
    /// A `context: fork` skill's start: its body as the prompt, in the foreground.
    pub(crate) fn for_skill(skill: &str, prompt: String, agent: Option<String>, model: Option<String>) -> Input {
        Input {
            description: format!("skill {skill}"),
            prompt,
            subagent_type: agent,
            model,
            run_in_background: false,
            name: None,
            isolation: None,
        }
    }
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.prompt.trim().is_empty() {
            return Err(ToolError::msg("`prompt` is empty: say what the agent is to do"));
        }
        if let Some(isolation) = &self.isolation
            && isolation != "worktree"
        {
            return Err(ToolError::msg(format!("`isolation` is `worktree` or absent, not `{isolation}`")));
        }
        if let Some(name) = &self.name
            && (name.is_empty() || name.len() > 64 || name.chars().any(char::is_whitespace))
        {
            return Err(ToolError::msg("`name` must be 1 to 64 characters without spaces"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let kind = self.subagent_type.as_deref().unwrap_or(toolwright_permissions::DEFAULT_AGENT_TYPE);
        let background = if self.run_in_background { ", in the background" } else { "" };
        Some(format!("agent {kind}: {}{background}", self.description.trim()))
    }

    fn access(&self) -> Accesses {
        // Starting an agent touches nothing itself; each of its calls is checked.
        // Rules match the agent type (`Agent(Explore)`).
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let runtime = runtime(cx, AGENT_TOOL)?.clone();
            runtime.start(cx, *self).await
        })
    }
}
