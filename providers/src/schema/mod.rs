//! Schemas: generation with schemars (draft 2020-12) and rendering per provider.
//!
//! Rendering lowers each input schema into the provider's dialect (see
//! [`lower`](self) for the rules) and wraps it in the provider's tool shape. The
//! The core's `Registry` caches every step, so a rendering is computed once.

#[doc(hidden)]
pub mod adapt;
pub(crate) mod dialect;
mod lower;
mod words;

pub(crate) use dialect::Dialect;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;
use toolwright_contracts::SchemaError;
use toolwright_contracts::ToolSpec;

pub use toolwright_contracts::__internal::empty_object_schema;
#[doc(hidden)]
pub use toolwright_contracts::Provider;
pub use toolwright_contracts::UnknownProvider;

/// A rendered tool list: the JSON array to put at `tools` in the provider's request,
/// kept as bytes so that handing it out again costs a reference count.
#[derive(Debug, Clone)]
pub struct Definitions(Arc<RawValue>);

impl Definitions {
    /// The JSON text, byte-identical for the same tools on every run.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// The JSON as a `serde_json::Value`, for inspection (allocates).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.0.get()).expect("rendered definitions are valid JSON")
    }

    /// Joins rendered tools into one list between `open` and `close` (`[` and `]`,
    /// or a provider's own wrapper).
    #[doc(hidden)]
    pub fn from_parts<'a>(parts: impl IntoIterator<Item = &'a str>, open: &str, close: &str) -> Self {
        let mut text = String::from(open);
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(part);
        }
        text.push_str(close);
        Definitions(Arc::from(RawValue::from_string(text).expect("joined definitions are valid JSON")))
    }
}

impl Serialize for Definitions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl fmt::Display for Definitions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lowers a tool's raw input schema for a dialect and checks the root.
/// The root's `title` and `description` are dropped: the struct's doc comment is
/// already the tool's description.
#[doc(hidden)]
pub fn lower_input(spec: &ToolSpec, raw: &Value, dialect: Dialect, provider: Provider) -> Result<Value, SchemaError> {
    let error =
        |path: String, message: String| SchemaError::new(spec.name.to_string(), provider.to_string(), path, message);
    let lowered = lower::lower(raw, dialect).map_err(|e| error(e.path, e.message))?;
    check_root(&lowered).map_err(|m| error(String::new(), m))?;
    Ok(lowered)
}

fn check_root(schema: &Value) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err("the input schema is not an object schema".into());
    };
    if let Some(kw) = ["anyOf", "oneOf", "allOf", "enum", "not"].iter().find(|k| map.contains_key(**k)) {
        return Err(format!(
            "the input's top level is `{kw}`, but tool parameters must be one object; wrap the enum in a field (a flattened enum produces this)"
        ));
    }
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!(
            "the input's top level must have type \"object\", not {}",
            map.get("type").unwrap_or(&Value::Null)
        ));
    }
    Ok(())
}

/// Lowers an output schema for MCP's `outputSchema`, which must be an object.
pub fn lower_output(spec: &ToolSpec, raw: &Value) -> Result<Value, SchemaError> {
    let lowered = lower_input(spec, raw, Dialect::Standard, Provider::Mcp).map_err(|mut e| {
        e.message = format!("output schema: {}; MCP structuredContent must be a JSON object", e.message);
        e
    })?;
    Ok(lowered)
}

/// Anthropic's limits on strict tools in one request: tools, optional parameters,
/// and parameters that are unions (`anyOf` or a type array), over all strict tools.
const ANTHROPIC_STRICT_TOOLS: usize = 20;
const ANTHROPIC_STRICT_OPTIONAL: usize = 24;
const ANTHROPIC_STRICT_UNIONS: usize = 16;

/// Keeps `strict: true` on the tools that fit Anthropic's per-request limits, in
/// order, and takes it off the rest (their schemas, lowered for strict use, stay
/// valid). Returns how many stay strict.
#[doc(hidden)]
pub fn anthropic_strict_budget(parts: &mut [std::borrow::Cow<'_, str>]) -> usize {
    let mut budget = StrictBudget::default();
    for part in parts.iter_mut() {
        let Some(body) = part.strip_suffix(STRICT_SUFFIX) else { continue };
        let tool = serde_json::from_str::<Value>(part.as_ref()).unwrap_or(Value::Null);
        if budget.take(&tool["input_schema"]).is_some() {
            *part = std::borrow::Cow::Owned(format!("{body}}}"));
        }
    }
    budget.tools
}

/// What Anthropic's strict limits have taken so far in one request.
#[derive(Default)]
struct StrictBudget {
    tools: usize,
    optional: usize,
    unions: usize,
}

impl StrictBudget {
    /// Takes a tool with `schema` if it fits; else why it does not.
    fn take(&mut self, schema: &Value) -> Option<String> {
        let (o, u) = if schema.is_object() { strict_costs(schema) } else { (usize::MAX, usize::MAX) };
        let why = if self.tools >= ANTHROPIC_STRICT_TOOLS {
            Some(format!("{ANTHROPIC_STRICT_TOOLS} tools before it are strict already (the most per request)"))
        } else if self.optional.saturating_add(o) > ANTHROPIC_STRICT_OPTIONAL {
            Some(format!(
                "its {o} optional parameters would make {} over the strict tools (at most {ANTHROPIC_STRICT_OPTIONAL})",
                self.optional.saturating_add(o)
            ))
        } else if self.unions.saturating_add(u) > ANTHROPIC_STRICT_UNIONS {
            Some(format!(
                "its {u} union parameters would make {} over the strict tools (at most {ANTHROPIC_STRICT_UNIONS})",
                self.unions.saturating_add(u)
            ))
        } else {
            None
        };
        if why.is_none() {
            (self.tools, self.optional, self.unions) = (self.tools + 1, self.optional + o, self.unions + u);
        }
        why
    }
}

/// The tools of an Anthropic strict rendering (`definitions`, in request order) that
/// lose `strict: true` to Anthropic's per-request limits, each with why: what
/// `toolwright check` prints. The others keep it.
pub fn anthropic_strict_losses(definitions: &Value) -> Vec<(String, String)> {
    let mut budget = StrictBudget::default();
    let mut lost = Vec::new();
    for tool in definitions.as_array().into_iter().flatten() {
        if let Some(why) = budget.take(&tool["input_schema"]) {
            lost.push((tool["name"].as_str().unwrap_or_default().to_owned(), why));
        }
    }
    lost
}

/// How a rendered strict tool ends.
const STRICT_SUFFIX: &str = ",\"strict\":true}";

/// The optional parameters and the union parameters of a schema, all levels.
fn strict_costs(schema: &Value) -> (usize, usize) {
    let (mut optional, mut unions) = (0, 0);
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            let required = node.get("required").and_then(Value::as_array);
            for (name, sub) in props {
                if !required.is_some_and(|r| r.iter().any(|n| n == name)) {
                    optional += 1;
                }
                if sub.get("anyOf").is_some() || sub.get("type").is_some_and(Value::is_array) {
                    unions += 1;
                }
                stack.push(sub);
            }
        }
        stack.extend(node.get("items"));
        stack.extend(node.get("anyOf").and_then(Value::as_array).into_iter().flatten());
    }
    (optional, unions)
}

/// Adds Anthropic's `cache_control` marker to one rendered tool.
#[doc(hidden)]
pub fn with_cache_control(rendered: &str) -> String {
    let body = rendered.strip_suffix('}').unwrap_or(rendered);
    format!("{body},\"cache_control\":{{\"type\":\"ephemeral\"}}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};
    use std::borrow::Cow;

    /// A strict Anthropic tool with `optional` optional and `unions` union parameters.
    fn tool(optional: usize, unions: usize) -> String {
        let mut properties = Map::new();
        for i in 0..optional {
            properties.insert(format!("o{i}"), json!({"type": "string"}));
        }
        for i in 0..unions {
            properties.insert(format!("u{i}"), json!({"type": ["string", "null"]}));
        }
        let required: Vec<String> = (0..unions).map(|i| format!("u{i}")).collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        format!(r#"{{"name":"t","description":"d","input_schema":{schema},"strict":true}}"#)
    }

    fn strict_count(parts: Vec<String>) -> usize {
        let mut parts: Vec<Cow<'_, str>> = parts.into_iter().map(Cow::Owned).collect();
        let kept = anthropic_strict_budget(&mut parts);
        assert_eq!(parts.iter().filter(|p| p.ends_with(STRICT_SUFFIX)).count(), kept);
        kept
    }

    #[test]
    fn anthropic_strict_budget_at_and_past_each_limit() {
        assert_eq!(strict_count(vec![tool(0, 0); 20]), 20);
        assert_eq!(strict_count(vec![tool(0, 0); 21]), 20, "21 tools: one too many");
        assert_eq!(strict_count(vec![tool(12, 0), tool(12, 0)]), 2, "24 optional parameters");
        assert_eq!(strict_count(vec![tool(12, 0), tool(13, 0)]), 1, "25 optional parameters");
        assert_eq!(strict_count(vec![tool(0, 8), tool(0, 8)]), 2, "16 unions");
        assert_eq!(strict_count(vec![tool(0, 8), tool(0, 9)]), 1, "17 unions");
        // A tool that does not fit leaves room for a smaller one after it.
        assert_eq!(strict_count(vec![tool(20, 0), tool(10, 0), tool(4, 0)]), 2);
    }
}
