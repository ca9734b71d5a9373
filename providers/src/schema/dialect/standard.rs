//! Anthropic (not strict), OpenAI (not strict) and MCP: JSON Schema with `$ref`
//! inlined, no `$schema`, optional fields left out of `required`.

use super::{Nullable, Objects, Rules};

pub(crate) const RULES: Rules = Rules {
    name: "this provider",
    full_json_schema: true,
    keywords: None,
    formats: None,
    describe_drops: |_| Vec::new(),
    references: true,
    unions: true,
    additional_properties: true,
    const_keyword: true,
    string_enums_only: false,
    default_keyword: true,
    numeric_bounds: true,
    exclusive_bounds: true,
    min_items_zero_or_one: false,
    simple_patterns_only: false,
    nullable: Nullable::TypeNull,
    type_arrays: true,
    objects: Objects::AsWritten,
    limits: None,
};
