//! Cline's style: one tool per definition, `use_subagent_<name>` (names made safe for
//! every provider by `toolwright_agents::cline_tool_names`), all served by the same
//! start as the `agent` tool. [`crate::subagents::Subagents::sync_definition_tools`]
//! keeps them in step with the files.

use super::spec;
use crate::access::Accesses;
use crate::{BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};

const FLAGS: Flags = Flags { concurrency_safe: true, ..Flags::NONE };

/// The tool that starts agents of one type.
pub(crate) struct DefinitionTool {
    spec: ToolSpec,
    agent_type: String,
}

impl DefinitionTool {
    pub(crate) fn new(name: String, agent_type: &str, description: &str) -> DefinitionTool {
        let mut spec = spec("use_subagent", "use_subagent", &[], "", FLAGS);
        spec.name = name.into();
        spec.rule_name = None;
        spec.description = format!(
            "Starts the `{agent_type}` agent on a task and returns its report: {}. Give a complete, self-contained \
             `prompt`; the agent sees nothing else of this conversation.",
            description.trim().trim_end_matches('.')
        )
        .into();
        spec.timeout = Some(std::time::Duration::from_secs(24 * 3600));
        spec.output_limit = Some(crate::OutputLimit::Bytes(usize::MAX / 2));
        DefinitionTool { spec, agent_type: agent_type.to_owned() }
    }
}

impl DynTool for DefinitionTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "The task, complete and self-contained"},
                "run_in_background": {"type": "boolean", "description": "Return at once; read the report with task_output"}
            },
            "required": ["prompt"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = crate::parse_input(raw_input)?;
        Ok(Box::new(Prepared { input, agent_type: self.agent_type.clone() }))
    }

    fn is_enabled(&self, turn: &crate::TurnContext) -> bool {
        turn.extensions().get::<crate::subagents::Subagents>().is_some()
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    prompt: String,
    #[serde(default)]
    run_in_background: bool,
}

struct Prepared {
    input: Input,
    agent_type: String,
}

impl PreparedCall for Prepared {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.input.prompt.trim().is_empty() {
            return Err(ToolError::msg("`prompt` is empty: say what the agent is to do"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("agent {}", self.agent_type))
    }

    fn access(&self) -> Accesses {
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let runtime = super::runtime(cx, &self.agent_type)?.clone();
            let input = super::agent::Input {
                description: self.agent_type.clone(),
                prompt: self.input.prompt,
                subagent_type: Some(self.agent_type),
                model: None,
                run_in_background: self.input.run_in_background,
                name: None,
                isolation: None,
            };
            runtime.start(cx, input).await
        })
    }
}
