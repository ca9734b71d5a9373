//! Anthropic's strict tool use, the structured-outputs subset: every object closed
//! (optional fields stay optional), no numeric, length or count bounds (they move
//! into the description, and the input is still checked against them), a short
//! `format` list, simple patterns only, no recursion.

use super::{Nullable, Objects, Rules};
use crate::schema::words::{counted, describe_lengths, format_not_kept, simple_pattern};
use serde_json::{Map, Value};

pub(crate) const RULES: Rules = Rules {
    name: "Anthropic's strict tool use",
    full_json_schema: false,
    keywords: Some(KEYWORDS),
    formats: Some(FORMATS),
    describe_drops,
    references: false,
    unions: true,
    additional_properties: true,
    const_keyword: true,
    string_enums_only: false,
    default_keyword: true,
    numeric_bounds: false,
    exclusive_bounds: true,
    min_items_zero_or_one: true,
    simple_patterns_only: true,
    nullable: Nullable::TypeNull,
    type_arrays: true,
    objects: Objects::Closed,
    limits: None,
};

/// Keywords the subset accepts as they are.
const KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "default",
    "pattern",
    "format",
    "minItems",
];

const FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// The constraints the subset cannot carry, in words: `at least 1`, `from 1 to 64
/// characters`, `at most 5 items`.
fn describe_drops(map: &Map<String, Value>) -> Vec<String> {
    let number = |key: &str| map.get(key).filter(|v| v.is_number()).map(Value::to_string);
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let mut out = Vec::new();
    match (number("minimum"), number("maximum")) {
        (Some(min), Some(max)) => out.push(format!("from {min} to {max}")),
        (Some(min), None) => out.push(format!("at least {min}")),
        (None, Some(max)) => out.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(n) = number("exclusiveMinimum") {
        out.push(format!("greater than {n}"));
    }
    if let Some(n) = number("exclusiveMaximum") {
        out.push(format!("less than {n}"));
    }
    if let Some(n) = number("multipleOf") {
        out.push(format!("a multiple of {n}"));
    }
    out.extend(describe_lengths(map));
    // minItems 0 and 1 stay in the schema; a larger one is said.
    out.extend(counted(count("minItems").filter(|&n| n > 1), count("maxItems"), ("item", "items")));
    out.extend(counted(count("minProperties"), count("maxProperties"), ("entry", "entries")));
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str).filter(|p| !simple_pattern(p)) {
        out.push(format!("matching the regular expression `{pattern}`"));
    }
    out.extend(format_not_kept(map, FORMATS));
    out
}
