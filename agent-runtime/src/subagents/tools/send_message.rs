//! `send_message` (Claude Code's `SendMessage`): continues an agent, running or
//! finished, with a message.

use super::{SEND_MESSAGE_TOOL, runtime, spec};
use crate::access::Accesses;
use crate::{Alias, BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};

const FLAGS: Flags = Flags { concurrency_safe: true, ..Flags::NONE };
const ALIASES: &[Alias] = &[Alias::hidden("SendMessage")];

pub(crate) struct SendMessageTool {
    spec: ToolSpec,
}

impl SendMessageTool {
    pub(crate) fn new() -> SendMessageTool {
        SendMessageTool {
            spec: spec(
                SEND_MESSAGE_TOOL,
                "SendMessage",
                ALIASES,
                "Sends a message to an agent you started, by its id or name. A running agent reads it when its \
                 current step ends; a finished one resumes with its whole context and runs in the background: \
                 read its new report with task_output.",
                FLAGS,
            ),
        }
    }
}

impl DynTool for SendMessageTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "The agent's id (agentId) or the name it was given"},
                "message": {"type": "string", "description": "What to tell it"}
            },
            "required": ["to", "message"],
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
    to: String,
    message: String,
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.message.trim().is_empty() {
            return Err(ToolError::msg("`message` is empty"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("message agent {}", self.to.trim()))
    }

    fn access(&self) -> Accesses {
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let runtime = runtime(cx, SEND_MESSAGE_TOOL)?.clone();
            runtime.send(cx, self.to.trim(), &self.message).await
        })
    }
}
