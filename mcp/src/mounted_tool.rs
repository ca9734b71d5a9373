//! A mounted server's tool as a runtime tool: its input taken as the server's
//! arguments (the server validates them), its calls sent to the server, its
//! structured results held to the server's output schema.

use super::client::Server;
use super::convert::held_to_schema;
use serde_json::{Map, Value};
use std::sync::Arc;
use toolwright_core::{
    BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec,
};

/// A mounted tool: a runtime tool whose calls go to its server.
pub(crate) struct McpTool {
    pub(crate) spec: ToolSpec,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) output_check: Option<Arc<toolwright_core::validate::Validator>>,
    /// The tool's name on its server.
    pub(crate) original: String,
    pub(crate) server: Arc<Server>,
}

impl DynTool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        self.input_schema.clone()
    }

    fn output_schema(&self) -> Option<Value> {
        self.output_schema.clone()
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let arguments = if raw_input.iter().all(u8::is_ascii_whitespace) {
            Map::new()
        } else {
            match serde_json::from_slice::<Value>(raw_input) {
                Ok(Value::Object(map)) => map,
                Ok(Value::Null) => Map::new(),
                Ok(other) => {
                    return Err(InputError::Data {
                        path: String::new(),
                        message: format!("expected an object of arguments, got {}", json_kind(&other)),
                    });
                }
                Err(e) => return Err(toolwright_core::__internal::syntax_error(&e)),
            }
        };
        Ok(Box::new(McpCall {
            server: Arc::clone(&self.server),
            tool: self.original.clone(),
            flags: self.spec.flags,
            arguments,
            output_check: self.output_check.clone(),
        }))
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct McpCall {
    server: Arc<Server>,
    tool: String,
    flags: Flags,
    arguments: Map<String, Value>,
    output_check: Option<Arc<toolwright_core::validate::Validator>>,
}

impl PreparedCall for McpCall {
    fn flags(&self) -> Flags {
        self.flags
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        // The server validates against its own schema; its refusal comes back as an
        // error result.
        Ok(())
    }

    /// A call of this server's tool, by their own names (rules name them so).
    fn access(&self) -> toolwright_core::access::Accesses {
        toolwright_core::access::Accesses::of([toolwright_core::access::Access::Mcp {
            server: self.server.name.clone(),
            tool: self.tool.clone(),
        }])
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let output = self.server.call(&self.tool, self.arguments, cx).await?;
            Ok(match &self.output_check {
                Some(check) if !output.is_error => held_to_schema(output, check, &self.server.name, &self.tool),
                _ => output,
            })
        })
    }
}
