//! MCP `tools/list` entries: `inputSchema`, `outputSchema`, `title`, `icons` and the
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
    if !spec.icons.is_empty() {
        let icons: Vec<Value> = spec.icons.iter().map(|src| icon(src)).collect();
        tool.insert("icons".into(), Value::Array(icons));
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

/// An MCP `Icon`: its `src`, and its `mimeType` when the URI says it (a `data:` URI's
/// own type, or a file name's extension).
fn icon(src: &str) -> Value {
    let mime = match src.strip_prefix("data:") {
        Some(rest) => rest.split([';', ',']).next().map(str::to_owned),
        None => {
            let path = src.split(['?', '#']).next().unwrap_or(src).to_ascii_lowercase();
            [
                (".svg", "image/svg+xml"),
                (".png", "image/png"),
                (".jpg", "image/jpeg"),
                (".jpeg", "image/jpeg"),
                (".webp", "image/webp"),
                (".gif", "image/gif"),
            ]
            .iter()
            .find(|(ext, _)| path.ends_with(ext))
            .map(|(_, mime)| (*mime).to_owned())
        }
    };
    let mut out = json!({ "src": src });
    if let Some(mime) = mime {
        out["mimeType"] = json!(mime);
    }
    out
}
