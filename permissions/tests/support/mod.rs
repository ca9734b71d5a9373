//! Decisions through the public path: the real tool parses the input and states what
//! the call touches; the policy decides on that.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use toolwright_core::access::{Access, Accesses};
use toolwright_core::permission::PermissionDecision;
use toolwright_core::{
    BoxFuture, DynTool, InputError, PreparedCall, Registry, ToolContext, ToolError, ToolOutput, ToolSpec,
};
use toolwright_permissions::RulePolicy;

fn builtins() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| toolwright_builtin::registry().expect("the built-in tools register"))
}

/// A tool of an MCP server, as the client mounts one: it states the server and tool.
struct McpTool {
    spec: ToolSpec,
    server: String,
    tool: String,
}

struct McpCall(Accesses);

impl PreparedCall for McpCall {
    fn flags(&self) -> toolwright_core::Flags {
        toolwright_core::Flags::NONE
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn access(&self) -> Accesses {
        self.0.clone()
    }
    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("ok")) })
    }
}

impl DynTool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let fact = Access::Mcp { server: self.server.clone(), tool: self.tool.clone() };
        Ok(Box::new(McpCall(Accesses::of([fact]))))
    }
}

/// The tool named `name`: a built-in, or `mcp__<server>__<tool>` as a mounted MCP tool.
pub fn tool(name: &str) -> Arc<dyn DynTool> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = rest.split_once("__").unwrap_or((rest, "tool"));
        let spec = ToolSpec::runtime(name.to_owned(), "an MCP tool", format!("mcp server {server}"));
        return Arc::new(McpTool { spec, server: server.to_owned(), tool: tool.to_owned() });
    }
    Arc::clone(builtins().resolve(name).unwrap_or_else(|e| panic!("{name}: {e}")).tool())
}

/// `input` with the fields a file tool needs besides its path.
fn complete(tool: &str, input: &Value) -> Value {
    let mut input = input.clone();
    let defaults = match tool {
        "write_file" => json!({"content": ""}),
        "edit_file" => json!({"old_string": "a", "new_string": "b"}),
        "multi_edit" => json!({"edits": [{"old_string": "a", "new_string": "b"}]}),
        "replace_in_file" => json!({"diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE"}),
        "grep" => json!({"pattern": "x"}),
        "glob" => json!({"pattern": "*"}),
        _ => json!({}),
    };
    if let (Some(input), Value::Object(defaults)) = (input.as_object_mut(), defaults) {
        for (key, value) in defaults {
            input.entry(key).or_insert(value);
        }
    }
    input
}

/// The policy's decision on a call of `tool` with `input` in `cwd`.
pub fn decide(policy: &RulePolicy, tool_name: &str, input: &Value, cwd: &Path) -> PermissionDecision {
    let input = complete(tool_name, input).to_string();
    policy.decide_for(tool(tool_name).as_ref(), &input, cwd).unwrap_or_else(|e| panic!("{tool_name} {input}: {e}"))
}
