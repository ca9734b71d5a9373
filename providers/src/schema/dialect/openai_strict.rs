//! OpenAI structured outputs (strict function calling): every object closed and
//! fully required, optional fields nullable, only the keywords strict mode supports,
//! and its documented size limits.

use super::{Limits, Nullable, Objects, Rules};
use crate::schema::words::{counted, describe_lengths, format_not_kept};
use serde_json::{Map, Value};

/// Objects nested below the root; OpenAI counts the root object as level 0.
pub(crate) const MAX_DEPTH: usize = 10;

pub(crate) const RULES: Rules = Rules {
    name: "OpenAI strict mode",
    full_json_schema: false,
    keywords: Some(KEYWORDS),
    formats: Some(FORMATS),
    describe_drops,
    references: true,
    unions: true,
    additional_properties: true,
    const_keyword: false,
    string_enums_only: false,
    default_keyword: false,
    numeric_bounds: true,
    exclusive_bounds: true,
    min_items_zero_or_one: false,
    simple_patterns_only: false,
    nullable: Nullable::TypeNull,
    type_arrays: true,
    objects: Objects::ClosedAllRequired,
    limits: Some(Limits {
        depth: MAX_DEPTH,
        properties: 5000,
        enum_values: 1000,
        total_string: 120_000,
        enum_string: 15_000,
        large_enum: 250,
    }),
};

/// Keywords strict mode accepts; anything else is dropped (annotations) or refused
/// (asserting keywords, before this list is consulted).
const KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

const FORMATS: &[&str] = &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// What the strict subset drops that the validator still holds a value to, in
/// words: string lengths, counts of entries, no duplicates, a format it lacks.
fn describe_drops(map: &Map<String, Value>) -> Vec<String> {
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let mut out: Vec<String> = describe_lengths(map).into_iter().collect();
    out.extend(counted(count("minProperties"), count("maxProperties"), ("entry", "entries")));
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    out.extend(format_not_kept(map, FORMATS));
    out
}
