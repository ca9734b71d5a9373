//! `task_output` (Claude Code's `TaskOutput`): waits for an agent and reads its report,
//! a page at a time, without running it again.

use super::{TASK_OUTPUT_TOOL, runtime, spec};
use crate::access::Accesses;
use crate::{Alias, BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};
use std::time::Duration;

const FLAGS: Flags = Flags { read_only: true, concurrency_safe: true, ..Flags::NONE };
const ALIASES: &[Alias] = &[Alias::hidden("TaskOutput")];
/// The longest a call may wait, as Claude Code's tool allows.
const MAX_WAIT_MS: u64 = 600_000;
const DEFAULT_WAIT_MS: u64 = 30_000;

pub(crate) struct TaskOutputTool {
    spec: ToolSpec,
}

impl TaskOutputTool {
    pub(crate) fn new() -> TaskOutputTool {
        let mut spec = spec(
            TASK_OUTPUT_TOOL,
            "TaskOutput",
            ALIASES,
            "Reads an agent's report by its id: with `block` (the default) it waits until the agent finishes or \
             `timeout` milliseconds pass. Long reports come a page at a time: give `offset` (in characters) to read \
             on from where the last page ended.",
            FLAGS,
        );
        spec.timeout = Some(Duration::from_millis(MAX_WAIT_MS + 60_000));
        spec.output_limit = Some(crate::OutputLimit::Bytes(usize::MAX / 2));
        TaskOutputTool { spec }
    }
}

impl DynTool for TaskOutputTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The agent's id (agentId)"},
                "block": {"type": "boolean", "description": "Wait for it to finish (default true)"},
                "timeout": {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_MS, "description": "How long to wait, in milliseconds (default 30000)"},
                "offset": {"type": "integer", "minimum": 0, "description": "Where to start reading the report, in characters (default 0)"}
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
    #[serde(default)]
    block: Option<bool>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    offset: Option<usize>,
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.timeout.is_some_and(|t| t > MAX_WAIT_MS) {
            return Err(ToolError::msg(format!("`timeout` is at most {MAX_WAIT_MS} milliseconds")));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("read agent {}", self.task_id.trim()))
    }

    fn access(&self) -> Accesses {
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let runtime = runtime(cx, TASK_OUTPUT_TOOL)?.clone();
            let wait = match self.block {
                Some(false) => Duration::ZERO,
                _ => Duration::from_millis(self.timeout.unwrap_or(DEFAULT_WAIT_MS)),
            };
            runtime.output(cx, self.task_id.trim(), wait, self.offset.unwrap_or(0)).await
        })
    }
}
