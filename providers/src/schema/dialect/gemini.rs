//! Gemini's OpenAPI 3.0 subset: no `$ref`, no `additionalProperties`, no type
//! arrays or `const`, no unions below the root, `nullable` for options, inclusive
//! bounds only.

use super::{Nullable, Objects, Rules};
use crate::schema::words::{describe_lengths, format_not_kept};
use serde_json::{Map, Value};

pub(crate) const RULES: Rules = Rules {
    name: "Gemini's OpenAPI schema subset",
    full_json_schema: false,
    keywords: Some(KEYWORDS),
    formats: Some(FORMATS),
    describe_drops,
    references: false,
    unions: false,
    additional_properties: false,
    const_keyword: false,
    string_enums_only: true,
    default_keyword: false,
    numeric_bounds: true,
    exclusive_bounds: false,
    min_items_zero_or_one: false,
    simple_patterns_only: false,
    nullable: Nullable::Keyword,
    type_arrays: false,
    objects: Objects::Declared,
    limits: None,
};

/// The OpenAPI 3.0 subset Gemini's `parameters` accepts.
const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "items",
    "minimum",
    "maximum",
];

const FORMATS: &[&str] = &["date-time", "enum"];

/// What the subset drops, in words: string lengths and `pattern` (older API
/// versions refuse them), `multipleOf`, a format it lacks, no duplicates.
fn describe_drops(map: &Map<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = describe_lengths(map).into_iter().collect();
    if let Some(step) = map.get("multipleOf").filter(|v| v.is_number()) {
        out.push(format!("a multiple of {step}"));
    }
    // Older API versions refuse `pattern`: the rendering for every version says it.
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        out.push(format!("matching the regular expression `{pattern}`"));
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    out.extend(format_not_kept(map, FORMATS));
    out
}
