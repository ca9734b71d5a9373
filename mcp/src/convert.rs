//! Between toolwright's types and MCP's: results, flags, schemas and progress.

use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam, ResourceContents, ToolAnnotations};
use serde_json::{Map, Value};
use toolwright_core::Flags;
use toolwright_core::progress::Progress;
use toolwright_core::{Content, ToolOutput};

/// A toolwright result as an MCP `tools/call` result: every block, the structured
/// content, and the error bit.
pub(crate) fn to_call_tool_result(output: ToolOutput) -> CallToolResult {
    let content: Vec<ContentBlock> = output.content.into_iter().map(to_block).collect();
    let mut result = if output.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    result.structured_content = output.structured;
    result
}

fn to_block(content: Content) -> ContentBlock {
    match content {
        Content::Text(text) => ContentBlock::text(text),
        Content::Image { media_type, data } => ContentBlock::image(data, media_type),
        Content::Audio { media_type, data } => ContentBlock::audio(data, media_type),
        Content::Resource { uri, mime_type, text, blob } => {
            let resource = match (text, blob) {
                (_, Some(blob)) => ResourceContents::BlobResourceContents { uri, mime_type, blob, meta: None },
                (text, None) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.unwrap_or_default(),
                    meta: None,
                },
            };
            ContentBlock::resource(resource)
        }
        // MCP has no document block: its text (an embedded blob would be unread).
        Content::Document { text, .. } => ContentBlock::text(text),
        // A kind of content added to the core later: its debug form, until MCP
        // gets a block for it here.
        other => ContentBlock::text(format!("{other:?}")),
    }
}

/// An MCP server's result as a toolwright output: text, images, audio, embedded
/// resources and resource links, `structuredContent` and `isError`. A result with
/// structured content and no blocks gets the JSON as text, so a model that reads
/// only text still sees it.
pub(crate) fn from_call_tool_result(result: CallToolResult) -> ToolOutput {
    let mut content: Vec<Content> = result.content.into_iter().map(from_block).collect();
    if content.is_empty()
        && let Some(structured) = &result.structured_content
    {
        content.push(Content::Text(structured.to_string()));
    }
    ToolOutput {
        content,
        structured: result.structured_content,
        is_error: result.is_error.unwrap_or(false),
        modifier: None,
    }
}

fn from_block(block: ContentBlock) -> Content {
    match block {
        ContentBlock::Text(t) => Content::Text(t.text),
        ContentBlock::Image(i) => Content::Image { media_type: i.mime_type, data: i.data },
        ContentBlock::Audio(a) => Content::Audio { media_type: a.mime_type, data: a.data },
        ContentBlock::Resource(r) => match r.resource {
            ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
                Content::Resource { uri, mime_type, text: Some(text), blob: None }
            }
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
                Content::Resource { uri, mime_type, text: None, blob: Some(blob) }
            }
            // A kind newer than this code: its JSON, so nothing is lost.
            other => Content::Text(serde_json::to_string(&other).unwrap_or_default()),
        },
        ContentBlock::ResourceLink(link) => {
            Content::Resource { uri: link.uri, mime_type: link.mime_type, text: None, blob: None }
        }
        other => Content::Text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

/// Flags from a mounted tool's annotations. Annotations are hints from a server we
/// may not trust: `readOnlyHint` makes a tool read-only (and so concurrency-safe and
/// free of the edit prompt) only when the configuration trusts the server.
/// `destructiveHint` and `openWorldHint` only ever make a tool more guarded, so they
/// count from any server; MCP's defaults (destructive, open world) apply when absent.
pub(crate) fn flags_from_annotations(annotations: Option<&ToolAnnotations>, trusted: bool) -> Flags {
    let hint = |get: fn(&ToolAnnotations) -> Option<bool>| annotations.and_then(get);
    let read_only = trusted && hint(|a| a.read_only_hint) == Some(true);
    Flags {
        read_only,
        concurrency_safe: read_only,
        destructive: !read_only && hint(|a| a.destructive_hint).unwrap_or(true),
        idempotent: trusted && hint(|a| a.idempotent_hint) == Some(true),
        open_world: hint(|a| a.open_world_hint).unwrap_or(true),
    }
}

/// A server's input schema in the form toolwright's lowering reads: draft-07
/// `definitions` and `#/definitions/..` references become `$defs` and `#/$defs/..`.
pub(crate) fn normalize_schema(schema: &Map<String, Value>) -> Value {
    let mut value = Value::Object(schema.clone());
    if let Value::Object(map) = &mut value
        && !map.contains_key("$defs")
        && let Some(defs) = map.remove("definitions")
    {
        map.insert("$defs".into(), defs);
    }
    // The schema is copied to read the targets from only when it points into itself.
    if rewrite_refs(&mut value) {
        let root = value.clone();
        inline_pointer_refs(&mut value, &root, 0);
    }
    value
}

/// How deep references are followed into references when inlined.
const INLINE_DEPTH: usize = 8;

/// A `$ref` to a place in the schema other than `$defs` (`#/properties/a`).
fn points_within(target: &str) -> bool {
    target.starts_with("#/") && !target.starts_with("#/$defs/")
}

/// Inlines a `$ref` to any other place in the schema (`#/properties/a`, as
/// zod-to-json-schema writes for a repeated field): the providers' dialects take
/// references into `$defs` only. Sibling keywords stay over the target's. A
/// reference that is not found, or leads on past [`INLINE_DEPTH`] (a cycle), is
/// left for the schema check to name.
fn inline_pointer_refs(value: &mut Value, root: &Value, depth: usize) {
    let target = value
        .get("$ref")
        .and_then(Value::as_str)
        .filter(|t| points_within(t))
        .and_then(|t| root.pointer(&t[1..]))
        .and_then(Value::as_object)
        .filter(|_| depth < INLINE_DEPTH);
    if let Some(target) = target {
        let mut inlined = target.clone();
        if let Value::Object(map) = value {
            map.remove("$ref");
            inlined.extend(std::mem::take(map));
        }
        *value = Value::Object(inlined);
        return inline_pointer_refs(value, root, depth + 1);
    }
    match value {
        Value::Object(map) => map.values_mut().for_each(|v| inline_pointer_refs(v, root, depth)),
        Value::Array(items) => items.iter_mut().for_each(|v| inline_pointer_refs(v, root, depth)),
        _ => {}
    }
}

/// Rewrites `#/definitions/..` references to `#/$defs/..`; whether any reference
/// points elsewhere in the schema (for [`inline_pointer_refs`]).
fn rewrite_refs(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut within = false;
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                if let Some(rest) = target.strip_prefix("#/definitions/") {
                    *target = format!("#/$defs/{rest}");
                }
                within = points_within(target);
            }
            // Every child is rewritten: no short cut once one points within.
            for child in map.values_mut() {
                within |= rewrite_refs(child);
            }
            within
        }
        Value::Array(items) => {
            let mut within = false;
            for item in items {
                within |= rewrite_refs(item);
            }
            within
        }
        _ => false,
    }
}

/// An MCP progress notification as a toolwright progress report.
pub(crate) fn progress_from(p: ProgressNotificationParam) -> Progress {
    Progress { message: p.message.unwrap_or_default(), progress: Some(p.progress), total: p.total, data: None }
}

/// A successful result of a tool that declares an `outputSchema`: it must carry
/// `structuredContent` that fits (MCP: "servers MUST provide structured results
/// that conform"). One that does not becomes an error result saying so, with the
/// server's blocks kept after the note (nothing it sent is lost).
pub(crate) fn held_to_schema(
    mut output: ToolOutput,
    check: &toolwright_core::validate::Validator,
    server: &str,
    tool: &str,
) -> ToolOutput {
    let problem = match &output.structured {
        None => "returned no structuredContent".to_owned(),
        Some(structured) => match check.check(structured.to_string().as_bytes()) {
            Ok(()) => return output,
            Err(e) => format!("returned structuredContent that does not fit it: {e}"),
        },
    };
    let note = format!("MCP server `{server}`'s tool `{tool}` declares an outputSchema but {problem}");
    tracing::warn!("{note}");
    output.content.insert(0, toolwright_core::Content::Text(note));
    output.is_error = true;
    output
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_round_trip_every_block_kind() {
        let output = ToolOutput {
            content: vec![
                Content::Text("hi".into()),
                Content::Image { media_type: "image/png".into(), data: "iVBO".into() },
                Content::Audio { media_type: "audio/wav".into(), data: "UklG".into() },
                Content::Resource { uri: "file:///a".into(), mime_type: None, text: Some("a".into()), blob: None },
                Content::Resource {
                    uri: "file:///b".into(),
                    mime_type: Some("application/octet-stream".into()),
                    text: None,
                    blob: Some("AAE=".into()),
                },
            ],
            structured: Some(json!({"n": 1})),
            is_error: true,
            modifier: None,
        };
        let back = from_call_tool_result(to_call_tool_result(output.clone()));
        assert_eq!(back, output);
    }

    #[test]
    fn structured_only_results_keep_a_text_copy() {
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(json!({"sum": 3}));
        let output = from_call_tool_result(result);
        assert_eq!(output.text_content(), r#"{"sum":3}"#);
        assert!(!output.is_error);
    }

    #[test]
    fn read_only_hints_count_only_from_trusted_servers() {
        let mut hints = ToolAnnotations::default();
        hints.read_only_hint = Some(true);
        let trusted = flags_from_annotations(Some(&hints), true);
        assert!(trusted.read_only && trusted.concurrency_safe && !trusted.destructive);
        let untrusted = flags_from_annotations(Some(&hints), false);
        assert!(!untrusted.read_only && !untrusted.concurrency_safe && untrusted.destructive);
        let none = flags_from_annotations(None, true);
        assert!(!none.read_only && none.destructive && none.open_world);
    }

    #[test]
    fn draft_07_definitions_become_defs() {
        let schema = json!({
            "type": "object",
            "properties": {"p": {"$ref": "#/definitions/Point"}},
            "definitions": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}}
        });
        let normalized = normalize_schema(schema.as_object().unwrap());
        assert_eq!(normalized["properties"]["p"]["$ref"], "#/$defs/Point");
        assert!(normalized["$defs"]["Point"].is_object());
        assert!(normalized.get("definitions").is_none());
    }

    #[test]
    fn a_reference_to_another_property_is_inlined() {
        // As zod-to-json-schema writes a field repeated from another.
        let schema = json!({
            "type": "object",
            "properties": {
                "next": {"type": "boolean", "description": "Whether another step is needed"},
                "revision": {"$ref": "#/properties/next", "description": "Whether this revises"},
                "loop": {"$ref": "#/properties/loop"},
                "lost": {"$ref": "#/properties/nowhere"}
            }
        });
        let normalized = normalize_schema(schema.as_object().unwrap());
        let revision = &normalized["properties"]["revision"];
        assert_eq!(revision["type"], "boolean");
        assert_eq!(revision["description"], "Whether this revises", "the sibling keyword stays");
        assert!(revision.get("$ref").is_none());
        // A cycle and a reference to nothing are left for the schema check to name.
        assert!(normalized["properties"]["loop"]["$ref"].is_string(), "{normalized}");
        assert_eq!(normalized["properties"]["lost"]["$ref"], "#/properties/nowhere");
        let lowered = toolwright_core::__internal::lower_input(
            &toolwright_core::ToolSpec::runtime("t", "d", "test"),
            &json!({"type": "object", "properties": {"r": revision.clone()}}),
            toolwright_core::Provider::ANTHROPIC,
        );
        assert!(lowered.is_ok(), "{lowered:?}");
    }
}
