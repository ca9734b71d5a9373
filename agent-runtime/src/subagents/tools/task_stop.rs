//! `task_stop` (Claude Code's `TaskStop`): stops an agent and everything under it.

use super::{TASK_STOP_TOOL, runtime, spec};
use crate::access::Accesses;
use crate::{Alias, BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};

const FLAGS: Flags = Flags { concurrency_safe: true, ..Flags::NONE };
const ALIASES: &[Alias] = &[Alias::hidden("TaskStop")];

pub(crate) struct TaskStopTool {
    spec: ToolSpec,
}

impl TaskStopTool {
    pub(crate) fn new() -> TaskStopTool {
        TaskStopTool {
            spec: spec(
                TASK_STOP_TOOL,
                "TaskStop",
                ALIASES,
                "Stops a running agent by its id, and every agent it started: their calls are cancelled and \
                 their commands killed. What it wrote so far stays readable with task_output.",
                FLAGS,
            ),
        }
    }
}

impl DynTool for TaskStopTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The agent's id (agentId)"}
            },
            "required": ["task_id"],
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
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    task_id: String,
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("stop agent {}", self.task_id.trim()))
    }

    fn access(&self) -> Accesses {
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let runtime = runtime(cx, TASK_STOP_TOOL)?.clone();
            runtime.stop_by_tool(cx, self.task_id.trim()).await
        })
    }
}
