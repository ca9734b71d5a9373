//! Claude Code's two resource tools over the mounted servers: `list_mcp_resources`
//! (`ListMcpResourcesTool`: `server` optional) and `read_mcp_resource`
//! (`ReadMcpResourceTool`: `server`, `uri`). Read-only and concurrency-safe; rules
//! name them by Claude Code's names. Registered by [`McpMounts`](crate::McpMounts)
//! and offered while a connected server has resources.

use crate::resources::{McpResources, ResourceEntry};
use rmcp::model::ResourceContents;
use serde::Deserialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::Arc;
use toolwright_core::access::Accesses;
use toolwright_core::{
    Alias, BoxFuture, Content, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec,
    TurnContext,
};

/// The owner the tools are registered under (cleared with the mounts).
pub(crate) const OWNER: &str = "mcp resources";

/// The most text one read returns; the rest is cut with a note.
const MAX_TEXT: usize = 256 * 1024;
/// The largest image returned as an image.
const MAX_IMAGE: usize = 5 * 1024 * 1024;
/// The most resources one listing shows.
const MAX_LISTED: usize = 500;

const FLAGS: Flags = Flags { read_only: true, concurrency_safe: true, idempotent: true, ..Flags::NONE };

/// The two tools over `resources`, deferred as `defer` says.
pub(crate) fn tools(resources: McpResources, defer: toolwright_core::Defer) -> Vec<Arc<dyn DynTool>> {
    [Kind::List, Kind::Read]
        .into_iter()
        .map(|kind| {
            let mut tool = ResourceTool::new(kind, resources.clone());
            tool.spec.defer = defer;
            Arc::new(tool) as Arc<dyn DynTool>
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Read,
}

struct ResourceTool {
    kind: Kind,
    spec: ToolSpec,
    resources: McpResources,
}

impl ResourceTool {
    fn new(kind: Kind, resources: McpResources) -> ResourceTool {
        let (name, claude, description) = match kind {
            Kind::List => (
                "list_mcp_resources",
                "ListMcpResourcesTool",
                "List the resources (files, documents, records) that the connected MCP servers offer, with their \
                 URIs, names and types; give `server` to list one server's. Read one with read_mcp_resource.",
            ),
            Kind::Read => (
                "read_mcp_resource",
                "ReadMcpResourceTool",
                "Read a resource of a connected MCP server by its URI (as list_mcp_resources shows it): its text, \
                 or its image.",
            ),
        };
        let mut spec = ToolSpec::runtime(name, description, "mcp");
        spec.flags = FLAGS;
        spec.rule_name = Some(Cow::Borrowed(claude));
        spec.aliases = Cow::Owned(vec![Alias::hidden(claude)]);
        ResourceTool { kind, spec, resources }
    }
}

impl DynTool for ResourceTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        match self.kind {
            Kind::List => json!({
                "type": "object",
                "properties": {"server": {"type": "string", "description": "Only this MCP server's resources"}},
                "additionalProperties": false
            }),
            Kind::Read => json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "The MCP server's name"},
                    "uri": {"type": "string", "description": "The resource's URI"}
                },
                "required": ["server", "uri"],
                "additionalProperties": false
            }),
        }
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = toolwright_core::parse_input(raw_input)?;
        if self.kind == Kind::Read && (input.server.is_none() || input.uri.is_none()) {
            let missing = if input.server.is_none() { "server" } else { "uri" };
            return Err(InputError::Data { path: missing.to_owned(), message: format!("missing field `{missing}`") });
        }
        Ok(Box::new(Call { kind: self.kind, input, resources: self.resources.clone() }))
    }

    fn is_enabled(&self, _turn: &TurnContext) -> bool {
        self.resources.any()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    #[serde(default)]
    server: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

struct Call {
    kind: Kind,
    input: Input,
    resources: McpResources,
}

impl PreparedCall for Call {
    fn flags(&self) -> Flags {
        FLAGS
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.kind == Kind::Read && self.input.uri.as_deref().is_some_and(|u| u.trim().is_empty()) {
            return Err(ToolError::msg("`uri` is empty: give the resource's URI, as list_mcp_resources shows it"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let server = self.input.server.as_deref().unwrap_or("every server");
        Some(match self.kind {
            Kind::List => format!("list MCP resources of {server}"),
            Kind::Read => format!("read MCP resource {} of {server}", self.input.uri.as_deref().unwrap_or_default()),
        })
    }

    fn access(&self) -> Accesses {
        // It reads what a mounted (so trusted) server offers, nothing local.
        Accesses::none()
    }

    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let server = self.input.server.as_deref().map(str::trim).filter(|s| !s.is_empty());
            match self.kind {
                Kind::List => Ok(list(&self.resources, server).await),
                Kind::Read => {
                    let (server, uri) = (server.unwrap_or_default(), self.input.uri.as_deref().unwrap_or_default());
                    let contents =
                        self.resources.read(server, uri.trim()).await.map_err(|e| ToolError::msg(e.to_string()))?;
                    Ok(read_output(contents))
                }
            }
        })
    }
}

async fn list(resources: &McpResources, server: Option<&str>) -> ToolOutput {
    let (entries, problems) = resources.list(server).await;
    if entries.is_empty() && !problems.is_empty() && server.is_some() {
        let message = problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        return ToolOutput::error(message);
    }
    let mut text = match entries.len() {
        0 => "No resources found.".to_owned(),
        n => format!("{n} resource{}:", if n == 1 { "" } else { "s" }),
    };
    for entry in entries.iter().take(MAX_LISTED) {
        text.push_str(&format!("\n- {}", line(entry)));
    }
    if entries.len() > MAX_LISTED {
        text.push_str(&format!("\n... and {} more (give `server` to list one server's)", entries.len() - MAX_LISTED));
    }
    for problem in &problems {
        text.push_str(&format!("\n(not listed: {problem})"));
    }
    let structured: Vec<Value> = entries
        .iter()
        .take(MAX_LISTED)
        .map(|e| {
            let mut item = json!({"uri": e.uri, "name": e.name, "server": e.server});
            if let Some(mime) = &e.mime_type {
                item["mimeType"] = json!(mime);
            }
            if let Some(description) = &e.description {
                item["description"] = json!(description);
            }
            if e.template {
                item["template"] = json!(true);
            }
            item
        })
        .collect();
    let mut output = ToolOutput::text(text);
    output.structured = Some(json!({"resources": structured}));
    output
}

fn line(entry: &ResourceEntry) -> String {
    let mut line = format!("{} ({}) on {}", entry.uri, entry.name, entry.server);
    if let Some(mime) = &entry.mime_type {
        line.push_str(&format!(", {mime}"));
    }
    if entry.template {
        line.push_str(", a template: fill in its {parameters}");
    }
    if entry.updated {
        line.push_str(", changed since it was read");
    }
    if let Some(description) = entry.description.as_deref().filter(|d| !d.trim().is_empty()) {
        let first: String = description.lines().next().unwrap_or_default().chars().take(200).collect();
        line.push_str(&format!(": {first}"));
    }
    line
}

/// The contents: text (bounded), images as images, other blobs named by type and
/// size (never written to disk: a read-only tool changes nothing).
fn read_output(contents: Vec<ResourceContents>) -> ToolOutput {
    let mut blocks = Vec::new();
    let mut structured = Vec::new();
    let mut text_left = MAX_TEXT;
    for content in contents {
        match content {
            ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
                let mut shown: String = text.chars().take(text_left).collect();
                text_left = text_left.saturating_sub(shown.len());
                if shown.len() < text.len() {
                    shown.push_str(&format!("\n[cut: {} of {} bytes shown]", shown.len(), text.len()));
                }
                structured.push(json!({"uri": uri, "mimeType": mime_type, "text": shown}));
                blocks.push(Content::Text(shown));
            }
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
                let bytes = decoded_len(&blob);
                let mime = mime_type.clone().unwrap_or_else(|| "application/octet-stream".to_owned());
                structured.push(json!({"uri": uri, "mimeType": mime_type, "blobBytes": bytes}));
                if mime.starts_with("image/") && bytes <= MAX_IMAGE {
                    blocks.push(Content::Image { media_type: mime, data: blob });
                } else {
                    blocks.push(Content::Resource { uri, mime_type, text: None, blob: Some(blob) });
                }
            }
            // A kind of contents added to MCP later: named, not shown.
            other => blocks.push(Content::Text(format!("[resource contents of a kind not read here: {other:?}]"))),
        }
    }
    if blocks.is_empty() {
        blocks.push(Content::Text("The resource is empty.".to_owned()));
    }
    ToolOutput { content: blocks, structured: Some(json!({"contents": structured})), ..ToolOutput::default() }
}

/// The bytes a base64 text decodes to (its padding counted off).
fn decoded_len(base64: &str) -> usize {
    let trimmed = base64.trim_end();
    let padding = trimmed.bytes().rev().take_while(|&b| b == b'=').count();
    (trimmed.len() / 4 * 3).saturating_sub(padding)
}
