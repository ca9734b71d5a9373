//! A runtime tool (implements `DynTool` directly, as MCP and config tools do).

use std::sync::Arc;
use toolwright::{BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};

/// Answers with its own name and the raw input.
pub struct Runtime {
    pub spec: ToolSpec,
}

impl Runtime {
    pub fn shared(name: impl Into<String>) -> Arc<dyn DynTool> {
        Arc::new(Runtime { spec: ToolSpec::runtime(name.into(), "A runtime tool.", "test") })
    }
}

impl DynTool for Runtime {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}})
    }
    fn prepare(&self, raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: serde_json::Value = toolwright::parse_input(raw)?;
        Ok(Box::new(Call(format!("{} got {input}", self.spec.name))))
    }
}

struct Call(String);

impl PreparedCall for Call {
    fn flags(&self) -> Flags {
        Flags { read_only: true, ..Flags::NONE }
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::text(self.0)) })
    }
}
