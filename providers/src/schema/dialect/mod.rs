//! The schema dialects: what each family of providers accepts, as data. Every
//! dialect's rules are one [`Rules`] value in its own module; the lowering in
//! [`lower`](super::lower) reads them and has no branch per dialect.
//!
//! To add a dialect: a module here with its `RULES`, a variant of [`Dialect`] and
//! its line in [`rules`]; a provider then names it in
//! `toolwright_contracts::Provider::dialect`.

mod anthropic_strict;
mod gemini;
mod openai_strict;
mod standard;

use serde_json::{Map, Value};

pub(crate) use openai_strict::MAX_DEPTH as STRICT_MAX_DEPTH;

pub(crate) use toolwright_contracts::Dialect;

/// A dialect's rules.
pub(crate) fn rules(dialect: Dialect) -> &'static Rules {
    match dialect {
        Dialect::Standard => &standard::RULES,
        Dialect::OpenAiStrict => &openai_strict::RULES,
        Dialect::Gemini => &gemini::RULES,
        Dialect::AnthropicStrict => &anthropic_strict::RULES,
    }
}

/// What one dialect accepts and how it says what it cannot. What a dialect cannot
/// express is an error naming the field, never a silent change of meaning.
pub(crate) struct Rules {
    /// How messages name the dialect ("OpenAI strict mode").
    pub(crate) name: &'static str,
    /// Whole JSON Schema (after `$ref`s are inlined): shapes pass as written. A
    /// subset instead adapts tuples and free-key maps, refuses asserting keywords
    /// (`not`, `if`, ...), and sends a free JSON value as JSON text.
    pub(crate) full_json_schema: bool,
    /// The keywords kept as they are (`None`: all); the rest are dropped.
    pub(crate) keywords: Option<&'static [&'static str]>,
    /// The string `format`s kept (`None`: all).
    pub(crate) formats: Option<&'static [&'static str]>,
    /// What the dialect drops that the validator still holds a value to, in words
    /// for the description.
    pub(crate) describe_drops: fn(&Map<String, Value>) -> Vec<String>,
    /// `$ref` for a recursive type; without it the inner copy is JSON text.
    pub(crate) references: bool,
    /// `anyOf` below the root; without it a union's variants merge into one object.
    pub(crate) unions: bool,
    /// `additionalProperties` at all (closed objects, maps).
    pub(crate) additional_properties: bool,
    /// `const`; without it, a one-value `enum`.
    pub(crate) const_keyword: bool,
    /// Enums of strings only.
    pub(crate) string_enums_only: bool,
    /// `default`; without it the default is said in the description.
    pub(crate) default_keyword: bool,
    /// `minimum`/`maximum`, and the bounds an integer type implies; without them
    /// the bounds are said in words.
    pub(crate) numeric_bounds: bool,
    /// `exclusiveMinimum`/`exclusiveMaximum`; without them an integer's bound is
    /// tightened by one and a number's is said in words.
    pub(crate) exclusive_bounds: bool,
    /// `minItems` only as 0 or 1 (a larger count is said in words).
    pub(crate) min_items_zero_or_one: bool,
    /// `pattern` only when a grammar can compile it (no lookaround, backreferences).
    pub(crate) simple_patterns_only: bool,
    /// How "or null" is said.
    pub(crate) nullable: Nullable,
    /// Several JSON types in one `type` (other than null).
    pub(crate) type_arrays: bool,
    /// What an object must say.
    pub(crate) objects: Objects,
    /// Size limits, where the provider documents them.
    pub(crate) limits: Option<Limits>,
}

/// How a dialect says a value may be null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nullable {
    /// `"type": [.., "null"]` or an `anyOf` member; an optional field is left out
    /// instead, unless every field must be listed.
    TypeNull,
    /// OpenAPI's `nullable: true`.
    Keyword,
}

/// What a dialect asks of objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Objects {
    /// As written.
    AsWritten,
    /// Closed (`additionalProperties: false`), optional fields stay optional.
    Closed,
    /// Closed, every field required, optional ones nullable.
    ClosedAllRequired,
    /// Declared properties below the root.
    Declared,
}

/// A provider's documented size limits for one schema.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Objects nested below the root (the root's properties are at level 1);
    /// deeper ones are sent as JSON text.
    pub(crate) depth: usize,
    pub(crate) properties: usize,
    pub(crate) enum_values: usize,
    /// Characters of all property names, definition names, enum and const values.
    pub(crate) total_string: usize,
    /// Characters of one string enum's values, when it has more than `large_enum`.
    pub(crate) enum_string: usize,
    pub(crate) large_enum: usize,
}
