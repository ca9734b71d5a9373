//! MCP `tools/list` entries: `inputSchema`, `outputSchema`, `title` and the
//! annotations from the tool's flags. (Calls and results over MCP are in the `toolwright-mcp` crate.)

use serde_json::{Map, Value, json};
use toolwright_contracts::ToolSpec;

/// One tool as `tools/list` lists it.
pub(crate) fn definition(
    spec: &ToolSpec,
    name: Value,
    description: Value,
    input: &Value,
    output: Option<&Value>,
) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("name".into(), name);
    if let Some(title) = &spec.title {
        tool.insert("title".into(), json!(title));
    }
    tool.insert("description".into(), description);
    tool.insert("inputSchema".into(), input.clone());
    if let Some(output) = output {
        tool.insert("outputSchema".into(), output.clone());
    }
    let f = spec.flags;
    let mut annotations = Map::new();
    if let Some(title) = &spec.title {
        annotations.insert("title".into(), json!(title));
    }
    annotations.insert("readOnlyHint".into(), json!(f.read_only));
    annotations.insert("destructiveHint".into(), json!(f.destructive));
    annotations.insert("idempotentHint".into(), json!(f.idempotent));
    annotations.insert("openWorldHint".into(), json!(f.open_world));
    tool.insert("annotations".into(), Value::Object(annotations));
    tool
}
