//! Lowering a draft 2020-12 schema into what one provider family accepts.
//!
//! Four dialects cover the providers (DESIGN.md §3):
//! - [`Dialect::Standard`]: Anthropic, OpenAI non-strict and MCP. JSON Schema with
//!   `$ref` inlined, no `$schema`, optional fields left out of `required`.
//! - [`Dialect::OpenAiStrict`]: every object closed and fully required, optional
//!   fields nullable, only the keywords strict mode supports, and its size limits.
//! - [`Dialect::AnthropicStrict`]: the structured-outputs subset: every object
//!   closed (optional fields stay optional), no numeric, length or count bounds (they
//!   move into the description, and the input is still checked against them), a
//!   short `format` list, simple patterns only, no recursion.
//! - [`Dialect::Gemini`]: the OpenAPI 3.0 subset: no `$ref`, no
//!   `additionalProperties`, no type arrays or `const`, `nullable` for options.
//!
//! What a dialect cannot express is an error naming the field, never a silent change
//! of meaning.

use super::adapt;
use serde_json::{Map, Value, json};

/// A family of providers that accept the same schema language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Dialect {
    Standard,
    OpenAiStrict,
    Gemini,
    AnthropicStrict,
}

impl Dialect {
    /// How many dialects there are (cache slots).
    pub(crate) const COUNT: usize = 4;

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Where lowering failed and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LowerError {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// OpenAI strict mode's documented limits.
pub(crate) const STRICT_MAX_DEPTH: usize = 10;
const STRICT_MAX_PROPERTIES: usize = 5000;
const STRICT_MAX_ENUM_VALUES: usize = 1000;
/// Characters of all property names, definition names, enum and const values.
const STRICT_MAX_TOTAL_STRING: usize = 120_000;
/// Characters of one string enum's values, when it has more than 250 of them.
const STRICT_MAX_ENUM_STRING: usize = 15_000;
const STRICT_LARGE_ENUM: usize = 250;

/// `format`s that schemars emits for Rust numbers; they are not JSON Schema formats
/// and only cost tokens (the range is in `minimum`/`maximum`).
const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128",
    "float", "double",
];
const STRICT_STRING_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
const GEMINI_STRING_FORMATS: &[&str] = &["date-time", "enum"];
const ANTHROPIC_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// Keywords Anthropic's strict tool use accepts as they are.
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
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

/// Keywords OpenAI strict mode accepts; anything else is dropped (annotations) or
/// rejected (handled before this list is consulted).
const STRICT_KEYWORDS: &[&str] = &[
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
/// The OpenAPI 3.0 subset Gemini's `parameters` accepts.
const GEMINI_KEYWORDS: &[&str] = &[
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
/// Keywords that say what kind of value a schema takes; one with none takes any.
const TYPING_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "not",
    "if",
];
/// Keywords that change what validates; a dialect that lacks them must refuse, not drop.
const ASSERTING_KEYWORDS: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
];

/// Lowers `schema` (a root schema with optional `$defs`) into `dialect`.
pub(crate) fn lower(schema: &Value, dialect: Dialect) -> Result<Value, LowerError> {
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut lowerer = Lowerer {
        root: schema,
        defs: &defs,
        dialect,
        path: Vec::new(),
        expanding: Vec::new(),
        kept_defs: Vec::new(),
        depth: 0,
        properties: 0,
        enum_values: 0,
        string_length: 0,
        in_kept_def: None,
        nodes: 0,
    };
    let mut out = lowerer.node(schema, Property::No)?;
    // Recursive types stay as `$defs` + `$ref` (Gemini refused them already).
    let mut lowered_defs = Map::new();
    let mut i = 0;
    while i < lowerer.kept_defs.len() {
        let name = lowerer.kept_defs[i].clone();
        lowerer.count_string(name.chars().count())?;
        let def = &defs[&name];
        lowerer.path = vec![name.clone()];
        lowerer.expanding = vec![name.clone()];
        lowerer.in_kept_def = Some(name.clone());
        let lowered = lowerer.node(def, Property::No)?;
        lowered_defs.insert(name, lowered);
        i += 1;
    }
    if let Value::Object(map) = &mut out {
        map.shift_remove("title");
        // The struct's doc comment is the tool's description already; what lowering
        // added (a merged union's variants) stays.
        let original = schema.get("description");
        if map.get("description") == original {
            map.shift_remove("description");
        } else if let (Some(Value::String(original)), Some(Value::String(now))) = (original, map.get_mut("description"))
            && let Some(rest) = now.strip_prefix(original.as_str())
        {
            *now = rest.trim_start_matches(['.', ' ']).to_owned();
        }
        if !lowered_defs.is_empty() {
            map.insert("$defs".into(), Value::Object(lowered_defs));
        }
    }
    Ok(out)
}

/// Whether the node being lowered is an object property, and if so whether required.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Property {
    No,
    Required,
    Optional,
}

struct Lowerer<'a> {
    root: &'a Value,
    defs: &'a Map<String, Value>,
    dialect: Dialect,
    path: Vec<String>,
    /// `$defs` being inlined right now: meeting one again means recursion.
    expanding: Vec<String>,
    /// Recursive `$defs` that the output keeps, in first-seen order.
    kept_defs: Vec<String>,
    /// How many objects' properties the node is below (the root's are at 1).
    depth: usize,
    properties: usize,
    enum_values: usize,
    /// Characters of names and enum and const values, as OpenAI strict mode counts.
    string_length: usize,
    /// The recursive type whose kept definition is being lowered, if any.
    in_kept_def: Option<String>,
    /// Schemas lowered so far: inlining references can multiply them.
    nodes: usize,
}

/// The most schemas one tool's input may lower to once its references are inlined:
/// far past any real tool, and a bound on a hostile one (a chain of definitions each
/// using the next twice doubles at every step).
pub(crate) const MAX_NODES: usize = 20_000;

impl Lowerer<'_> {
    fn fail<T>(&self, message: impl Into<String>) -> Result<T, LowerError> {
        let mut path = String::new();
        for seg in &self.path {
            if !(path.is_empty() || seg.starts_with('[') || seg.starts_with(' ')) {
                path.push('.');
            }
            path.push_str(seg);
        }
        Err(LowerError { path, message: message.into() })
    }

    /// A tuple as an object with `_0`, `_1`, ...; a map with free keys as a list of
    /// `{key, value}` objects: shapes every dialect can say, turned back by
    /// [`adapt`](super::adapt) before the parse. `None` when `map` needs neither.
    fn adapted_shape(&self, map: &Map<String, Value>) -> Result<Option<Map<String, Value>>, LowerError> {
        let nullable = type_names(map).contains(&"null");
        let typed = |kind: &str| if nullable { json!([kind, "null"]) } else { json!(kind) };
        let mut out = Map::new();
        if let Some(items) = map.get("prefixItems").and_then(Value::as_array) {
            self.adapting("a tuple")?;
            let keys: Vec<String> = (0..items.len()).map(adapt::tuple_key).collect();
            let properties: Map<String, Value> = keys.iter().cloned().zip(items.iter().cloned()).collect();
            out.insert("type".into(), typed("object"));
            out.extend(map.get("description").map(|d| ("description".to_owned(), d.clone())));
            note(
                &mut out,
                &format!(
                    "The items in order, as {}",
                    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
            );
            out.insert("properties".into(), Value::Object(properties));
            out.insert("required".into(), json!(keys));
            return Ok(Some(out));
        }
        let free_keys = match map.get("additionalProperties") {
            Some(Value::Bool(false)) | None => None,
            Some(values) if !map.contains_key("properties") => Some(values),
            Some(_) => None,
        };
        let Some(values) = free_keys else { return Ok(None) };
        self.adapting("a map with free keys")?;
        let entry = json!({
            "type": "object",
            "properties": {adapt::MAP_KEY: {"type": "string"}, adapt::MAP_VALUE: values},
            "required": [adapt::MAP_KEY, adapt::MAP_VALUE],
        });
        out.insert("type".into(), typed("array"));
        out.extend(map.get("description").map(|d| ("description".to_owned(), d.clone())));
        note(&mut out, "A map, as a list of `key`/`value` entries");
        out.insert("items".into(), entry);
        Ok(Some(out))
    }

    /// Gemini's OpenAPI subset: a union as one schema. String enums join into one
    /// enum; objects (an enum's variants) into one object with every variant's
    /// fields, those all variants require required, and the variants spelled out in
    /// the description (the input is still checked against the real union). A null
    /// member makes it `nullable`. A union of different kinds of value is an error.
    fn merge_union(&self, out: &mut Map<String, Value>, members: Vec<Value>) -> Result<Option<String>, LowerError> {
        let (nulls, members): (Vec<Value>, Vec<Value>) =
            members.into_iter().partition(|m| m.get("type").and_then(Value::as_str) == Some("null"));
        if !nulls.is_empty() {
            out.insert("nullable".into(), Value::Bool(true));
        }
        let kind = |m: &Value| m.get("type").and_then(Value::as_str).map(str::to_owned);
        let kinds: Vec<Option<String>> = members.iter().map(kind).collect();
        match members.len() {
            0 => return Ok(None),
            1 => {
                let member = members.into_iter().next().and_then(|m| m.as_object().cloned()).unwrap_or_default();
                *out = merge_schemas(std::mem::take(out), &member);
                return Ok(None);
            }
            _ => {}
        }
        let all = |k: &str| kinds.iter().all(|t| t.as_deref() == Some(k));
        if all("string") && members.iter().all(|m| m.get("enum").is_some()) {
            let values: Vec<Value> =
                members.iter().flat_map(|m| m["enum"].as_array().cloned().unwrap_or_default()).collect();
            out.insert("type".into(), json!("string"));
            out.insert("enum".into(), Value::Array(values));
            return Ok(None);
        }
        if !all("object") {
            // Different kinds of value (an enum with unit and data variants, an
            // untagged enum): JSON text, turned back by `adapt` for Gemini's calls.
            self.adapting("a union of different kinds of value")?;
            let shapes: Vec<String> = members.iter().map(summary).collect();
            out.retain(|k, _| k == "description" || k == "nullable");
            out.insert("type".into(), json!("string"));
            return Ok(Some(format!("JSON text: the value encoded as a string, one of {}", shapes.join(" or "))));
        }
        // The node's own fields (a flattened enum's struct) stay, and stay required.
        let mut properties = out.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let own_required = out.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut required: Option<Vec<Value>> = None;
        let mut shapes = Vec::new();
        // A field the variants give different shapes (an adjacently tagged enum's
        // content): each shape kept, as the dialect can.
        let mut variants_of: std::collections::BTreeMap<String, Vec<Value>> = std::collections::BTreeMap::new();
        for member in &members {
            let mut props = member.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
            // A tag's `const` is a one-value enum: the variants' values join.
            for schema in props.values_mut() {
                if let Value::Object(fields) = schema
                    && let Some(value) = fields.shift_remove("const")
                {
                    fields.insert("enum".into(), Value::Array(vec![value]));
                }
            }
            let member_required = member.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
            let mut shape = Vec::new();
            for (name, schema) in &props {
                let fixed = schema.get("enum").and_then(Value::as_array).filter(|v| v.len() == 1).map(|v| &v[0]);
                shape.push(match fixed {
                    Some(value) => format!("{name}: {value}"),
                    None if member_required.iter().any(|r| r == name) => name.clone(),
                    None => format!("{name}?"),
                });
                let seen = variants_of.entry(name.clone()).or_default();
                if !seen.iter().any(|s| adapt::shape_key(s) == adapt::shape_key(schema)) {
                    seen.push(schema.clone());
                }
                match properties.get_mut(name) {
                    None => {
                        properties.insert(name.clone(), schema.clone());
                    }
                    // The tag: each variant's value joins the enum.
                    Some(Value::Object(existing)) => {
                        if let (Some(Value::Array(into)), Some(Value::Array(more))) =
                            (existing.get_mut("enum"), schema.get("enum"))
                        {
                            for value in more {
                                if !into.contains(value) {
                                    into.push(value.clone());
                                }
                            }
                        }
                    }
                    Some(_) => {}
                }
            }
            shapes.push(format!("{{{}}}", shape.join(", ")));
            required = Some(match required {
                None => member_required,
                Some(so_far) => so_far.into_iter().filter(|r| member_required.contains(r)).collect(),
            });
        }
        for (name, shapes) in variants_of.into_iter().filter(|(_, s)| s.len() > 1) {
            let field = if self.dialect == Dialect::Gemini {
                // No unions here: JSON text, turned back by `adapt` for Gemini's calls.
                self.adapting("a field whose shape differs between variants")?;
                let said: Vec<String> = shapes.iter().map(summary).collect();
                json!({"type": "string", "description": format!("JSON text: the value encoded as a string, one of {}.", said.join(" or "))})
            } else {
                json!({"anyOf": shapes})
            };
            properties.insert(name, field);
        }
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(properties));
        let mut all_required = own_required;
        for name in required.unwrap_or_default() {
            if !all_required.contains(&name) {
                all_required.push(name);
            }
        }
        if !all_required.is_empty() {
            out.insert("required".into(), Value::Array(all_required));
        }
        Ok(Some(format!("one of {}", shapes.join(" or "))))
    }

    /// Adds to the characters OpenAI strict mode counts, refusing past its limit.
    fn count_string(&mut self, chars: usize) -> Result<(), LowerError> {
        self.string_length += chars;
        if self.dialect == Dialect::OpenAiStrict && self.string_length > STRICT_MAX_TOTAL_STRING {
            return self.fail(format!(
                "the schema's property names and enum values have more than {STRICT_MAX_TOTAL_STRING} characters in all, the most OpenAI strict mode accepts"
            ));
        }
        Ok(())
    }

    fn provider_words(&self) -> &'static str {
        match self.dialect {
            Dialect::Standard => "this provider",
            Dialect::OpenAiStrict => "OpenAI strict mode",
            Dialect::Gemini => "Gemini's OpenAPI schema subset",
            Dialect::AnthropicStrict => "Anthropic's strict tool use",
        }
    }

    fn node(&mut self, schema: &Value, prop: Property) -> Result<Value, LowerError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return self.fail(format!(
                "the schema grows past {MAX_NODES} nodes once its references are inlined; it is too large to offer"
            ));
        }
        let map = match schema {
            Value::Bool(true) => return self.any_value(None),
            Value::Bool(false) => return self.fail("the schema accepts no value at all (`false`)"),
            Value::Object(map) => map,
            _ => return self.fail(format!("not a schema: {schema}")),
        };
        if takes_any_value(map) {
            return self.any_value(map.get("description"));
        }
        if let Some(target) = map.get("$ref") {
            return self.reference(map, target, prop);
        }
        if map.contains_key("allOf") {
            let merged = self.merge_all_of(map)?;
            return self.node(&Value::Object(merged), prop);
        }
        self.object_node(map, prop)
    }

    /// Any JSON value: as it is, or (where the dialect has no way to say "anything")
    /// as JSON text, turned back by [`adapt`](super::adapt) before the parse.
    fn any_value(&self, description: Option<&Value>) -> Result<Value, LowerError> {
        if self.dialect == Dialect::Standard {
            let mut out = Map::new();
            if let Some(d) = description {
                out.insert("description".into(), d.clone());
            }
            return Ok(Value::Object(out));
        }
        self.adapting("a free JSON value")?;
        let mut out = Map::new();
        out.insert("type".into(), json!("string"));
        if let Some(d) = description {
            out.insert("description".into(), d.clone());
        }
        note(&mut out, "JSON text: the value encoded as a string");
        Ok(Value::Object(out))
    }

    /// Refuses an adaptation inside a recursive type's kept definition: its deeper
    /// copies are not on the way back.
    fn adapting(&self, what: &str) -> Result<(), LowerError> {
        match &self.in_kept_def {
            Some(name) => self.fail(format!(
                "{what} inside the recursive type `{name}` cannot be adapted for {}; give it a concrete shape",
                self.provider_words()
            )),
            None => Ok(()),
        }
    }

    /// Inlines a `$ref`, or keeps it when it points into a type being expanded.
    fn reference(&mut self, map: &Map<String, Value>, target: &Value, prop: Property) -> Result<Value, LowerError> {
        let target = target.as_str().unwrap_or_default();
        let (name, def) = if target == "#" {
            ("#".to_owned(), self.root)
        } else if let Some(name) = target.strip_prefix("#/$defs/") {
            match self.defs.get(name) {
                Some(def) => (name.to_owned(), def),
                None => return self.fail(format!("`$ref` to `{target}`, which the schema does not define")),
            }
        } else {
            return self.fail(format!("`$ref` to `{target}`: only local `#/$defs/..` references are supported"));
        };
        let recursive = name == "#" || self.expanding.contains(&name);
        if recursive {
            if matches!(self.dialect, Dialect::Gemini | Dialect::AnthropicStrict) {
                // No references here: the type once, and its copy inside as JSON text
                // (turned back by `adapt`).
                let def = if name == "#" { self.root } else { &self.defs[&name] };
                let mut out = Map::new();
                out.insert("type".into(), json!("string"));
                out.extend(map.get("description").map(|d| ("description".to_owned(), d.clone())));
                note(&mut out, &format!("JSON text: the value encoded as a string, a `{name}` {}", summary(def)));
                return Ok(Value::Object(out));
            }
            if name != "#" && !self.kept_defs.contains(&name) {
                self.kept_defs.push(name.clone());
            }
            let mut out = Map::new();
            out.insert("$ref".into(), Value::String(target.to_owned()));
            if let Some(d) = map.get("description") {
                out.insert("description".into(), d.clone());
            }
            return Ok(Value::Object(out));
        }
        let mut siblings = map.clone();
        siblings.shift_remove("$ref");
        let def_map = match def {
            Value::Object(m) => m.clone(),
            Value::Bool(true) => Map::new(),
            _ => return self.fail(format!("`$ref` to `{target}`, which is not a schema")),
        };
        let merged = merge_schemas(siblings, &def_map);
        self.expanding.push(name);
        let out = self.node(&Value::Object(merged), prop);
        self.expanding.pop();
        out
    }

    /// Folds `allOf` members (after resolving their references) into one object schema.
    fn merge_all_of(&mut self, map: &Map<String, Value>) -> Result<Map<String, Value>, LowerError> {
        let mut merged = map.clone();
        let members = merged.shift_remove("allOf").unwrap_or(Value::Null);
        for member in members.as_array().into_iter().flatten() {
            let mut member = member.clone();
            // Resolve a bare reference so its properties can merge.
            while let Some(target) = member.get("$ref").and_then(Value::as_str) {
                let Some(def) = target.strip_prefix("#/$defs/").and_then(|n| self.defs.get(n)) else {
                    return self.fail(format!("`allOf` member refers to `{target}`, which cannot be resolved"));
                };
                let mut rest = member.as_object().cloned().unwrap_or_default();
                rest.shift_remove("$ref");
                member = Value::Object(merge_schemas(rest, def.as_object().unwrap_or(&Map::new())));
            }
            match member {
                Value::Object(m) => merged = merge_schemas(merged, &m),
                Value::Bool(true) => {}
                _ => return self.fail("an `allOf` member that is not an object schema cannot be merged"),
            }
        }
        Ok(merged)
    }

    fn object_node(&mut self, map: &Map<String, Value>, prop: Property) -> Result<Value, LowerError> {
        let dialect = self.dialect;
        if dialect != Dialect::Standard
            && let Some(adapted) = self.adapted_shape(map)?
        {
            return self.object_node(&adapted, prop);
        }
        // OpenAI counts nesting from the root object at level 0: an object that is a
        // property of the root is at level 1.
        // Deeper than that, the object is sent as JSON text (turned back by `adapt`).
        if dialect == Dialect::OpenAiStrict && self.depth > STRICT_MAX_DEPTH && is_object(map) {
            self.adapting(&format!(
                "an object nested {} levels below the root, more than the {STRICT_MAX_DEPTH} OpenAI strict mode accepts,",
                self.depth
            ))?;
            let mut out = Map::new();
            out.insert(
                "type".into(),
                if type_names(map).contains(&"null") { json!(["string", "null"]) } else { json!("string") },
            );
            out.extend(map.get("description").map(|d| ("description".to_owned(), d.clone())));
            note(
                &mut out,
                &format!(
                    "JSON text: the value encoded as a string, an object {}",
                    summary(&Value::Object(map.clone()))
                ),
            );
            return Ok(Value::Object(out));
        }
        if dialect != Dialect::Standard
            && let Some(kw) = ASSERTING_KEYWORDS.iter().find(|k| map.contains_key(**k))
        {
            let what =
                if *kw == "prefixItems" { "a tuple (`prefixItems`)".to_owned() } else { format!("the `{kw}` keyword") };
            return self.fail(format!("uses {what}, which {} cannot express", self.provider_words()));
        }
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        let mut dropped_default = None;
        // Anthropic strict: constraints it cannot carry, in words for the description.
        // Gemini's older API has no string lengths: said in the description too.
        let mut pending_union: Vec<Value> = Vec::new();
        let mut extra_values: Option<Value> = None;
        let mut described = match dialect {
            Dialect::AnthropicStrict => describe_constraints(map),
            Dialect::OpenAiStrict => describe_openai_strict_drops(map),
            Dialect::Gemini => describe_gemini_drops(map),
            Dialect::Standard => Vec::new(),
        };
        // Optional fields with a serde default: strict mode must require them without
        // null, because null would not parse into the field's type.
        let mut defaulted: Vec<String> = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "$schema" | "$id" | "$comment" | "$defs" | "definitions" | "title" => {}
                "properties" => {
                    self.depth += 1;
                    let mut props = Map::new();
                    for (name, sub) in value.as_object().into_iter().flatten() {
                        self.properties += 1;
                        self.count_string(name.chars().count())?;
                        let kind =
                            if required.contains(&name.as_str()) { Property::Required } else { Property::Optional };
                        if kind == Property::Optional && sub.get("default").is_some() {
                            defaulted.push(name.clone());
                        }
                        self.path.push(name.clone());
                        let lowered = self.node(sub, kind)?;
                        self.path.pop();
                        props.insert(name.clone(), lowered);
                    }
                    self.depth -= 1;
                    out.insert(key.clone(), Value::Object(props));
                }
                "items" => {
                    self.path.push("[]".into());
                    let lowered = self.node(value, Property::No)?;
                    self.path.pop();
                    out.insert(key.clone(), lowered);
                }
                "prefixItems" => {
                    let mut items = Vec::new();
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        self.path.push(format!("[{i}]"));
                        items.push(self.node(sub, Property::No)?);
                        self.path.pop();
                    }
                    out.insert(key.clone(), Value::Array(items));
                }
                "additionalProperties" => match (dialect, value) {
                    (_, Value::Bool(false)) if dialect != Dialect::Gemini => {
                        out.insert(key.clone(), Value::Bool(false));
                    }
                    (Dialect::Standard, Value::Bool(true)) => {
                        out.insert(key.clone(), Value::Bool(true));
                    }
                    (Dialect::Standard, sub) => {
                        self.path.push("[key]".into());
                        let lowered = self.node(sub, Property::No)?;
                        self.path.pop();
                        out.insert(key.clone(), lowered);
                    }
                    (Dialect::Gemini, Value::Bool(false)) => {}
                    // Declared fields and free keys as well (a flattened map): the
                    // free keys go in one more field, a list of entries.
                    (_, values) => {
                        self.adapting("an object with declared fields and free keys as well")?;
                        extra_values = Some(values.clone());
                    }
                },
                "anyOf" | "oneOf" => {
                    let mut members = Vec::new();
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        self.path.push(format!(" (variant {})", i + 1));
                        members.push(self.node(sub, Property::No)?);
                        self.path.pop();
                    }
                    // Gemini's older API has no unions, and no provider takes one at
                    // the root (a flattened enum): the variants become one schema,
                    // once the node's own keys are in.
                    if dialect == Dialect::Gemini || self.path.is_empty() {
                        pending_union.extend(members);
                        continue;
                    }
                    // Strict mode knows only anyOf; serde's variants are disjoint, so
                    // anyOf means the same.
                    let key = if dialect == Dialect::Standard { key.clone() } else { "anyOf".to_owned() };
                    out.insert(key, Value::Array(members));
                }
                "const" if !matches!(dialect, Dialect::Standard | Dialect::AnthropicStrict) => {
                    self.count_string(value.as_str().map_or(0, |v| v.chars().count()))?;
                    if dialect == Dialect::Gemini && !value.is_string() {
                        return self.fail(format!("the constant {value} cannot be expressed in Gemini's schema subset, whose enums hold strings only"));
                    }
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                }
                "format" => {
                    let format = value.as_str().unwrap_or_default();
                    let keep = !NUMERIC_FORMATS.contains(&format)
                        && match dialect {
                            Dialect::Standard => true,
                            Dialect::OpenAiStrict => STRICT_STRING_FORMATS.contains(&format),
                            Dialect::Gemini => GEMINI_STRING_FORMATS.contains(&format),
                            Dialect::AnthropicStrict => ANTHROPIC_STRICT_FORMATS.contains(&format),
                        };
                    if keep {
                        out.insert(key.clone(), value.clone());
                    } else if let Some((low, high)) = implied_integer_range(format) {
                        // The width the check holds a value to, where a model could
                        // miss it: an unsigned type's 0, a small type's whole range.
                        for (bound, name) in [(low, "minimum"), (high, "maximum")] {
                            let Some(bound) = bound else { continue };
                            if map.contains_key(name) {
                                continue;
                            }
                            if dialect == Dialect::AnthropicStrict {
                                let word = if name == "minimum" { "at least" } else { "at most" };
                                described.push(format!("{word} {bound}"));
                            } else {
                                out.insert(name.into(), json!(bound));
                            }
                        }
                    }
                }
                "default" if !matches!(dialect, Dialect::Standard | Dialect::AnthropicStrict) => {
                    dropped_default = Some(value.clone())
                }
                "minItems" if dialect == Dialect::AnthropicStrict => {
                    // Only 0 and 1 are accepted; a larger count is described.
                    if value.as_u64().is_some_and(|n| n <= 1) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "pattern" if dialect == Dialect::AnthropicStrict => {
                    if value.as_str().is_some_and(simple_pattern) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "exclusiveMinimum" | "exclusiveMaximum" if dialect == Dialect::Gemini => {
                    // Gemini has only inclusive bounds: tighten integers by one, keep the
                    // (slightly looser) bound for numbers.
                    let is_integer = type_names(map).contains(&"integer");
                    let bound = match (value.as_i64(), is_integer) {
                        (Some(n), true) if key == "exclusiveMinimum" => json!(n + 1),
                        (Some(n), true) => json!(n - 1),
                        _ => value.clone(),
                    };
                    // A number's bound is shown inclusive: the description says it is not.
                    if !is_integer {
                        let word = if key == "exclusiveMinimum" { "greater than" } else { "less than" };
                        described.push(format!("{word} {value}"));
                    }
                    let key = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                    out.insert(key.into(), bound);
                }
                "enum" => {
                    let values = value.as_array().map_or(&[][..], Vec::as_slice);
                    self.enum_values += values.len();
                    if dialect == Dialect::OpenAiStrict && self.enum_values > STRICT_MAX_ENUM_VALUES {
                        return self.fail(format!("the schema has more than {STRICT_MAX_ENUM_VALUES} enum values in all, the most OpenAI strict mode accepts"));
                    }
                    let chars: usize = values.iter().filter_map(Value::as_str).map(|v| v.chars().count()).sum();
                    if dialect == Dialect::OpenAiStrict
                        && values.len() > STRICT_LARGE_ENUM
                        && values.iter().all(Value::is_string)
                        && chars > STRICT_MAX_ENUM_STRING
                    {
                        return self.fail(format!("an enum of {} strings has {chars} characters in all; OpenAI strict mode accepts at most {STRICT_MAX_ENUM_STRING} in an enum of more than {STRICT_LARGE_ENUM} values", values.len()));
                    }
                    self.count_string(chars)?;
                    out.insert(key.clone(), value.clone());
                }
                _ => {
                    let allowed = match dialect {
                        Dialect::Standard => true,
                        Dialect::OpenAiStrict => STRICT_KEYWORDS.contains(&key.as_str()),
                        Dialect::Gemini => GEMINI_KEYWORDS.contains(&key.as_str()),
                        Dialect::AnthropicStrict => ANTHROPIC_STRICT_KEYWORDS.contains(&key.as_str()),
                    };
                    if allowed {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        if dialect == Dialect::OpenAiStrict && self.properties > STRICT_MAX_PROPERTIES {
            return self.fail(format!("the schema has more than {STRICT_MAX_PROPERTIES} properties in all, the most OpenAI strict mode accepts"));
        }
        if let Some(default) = dropped_default {
            note_default(&mut out, &default);
        }
        if !pending_union.is_empty() {
            described.extend(self.merge_union(&mut out, pending_union)?);
        }
        if let Some(values) = extra_values {
            let key = adapt::EXTRA_KEY;
            if map.get("properties").and_then(|p| p.get(key)).is_some() {
                return self.fail(format!(
                    "an object with free keys and a declared field named `{key}`, the name its free keys would go under in {}",
                    self.provider_words()
                ));
            }
            let entries = json!({
                "type": "array",
                "description": "More fields, as a list of `key`/`value` entries.",
                "items": {
                    "type": "object",
                    "properties": {adapt::MAP_KEY: {"type": "string"}, adapt::MAP_VALUE: values},
                    "required": [adapt::MAP_KEY, adapt::MAP_VALUE],
                },
            });
            self.path.push(key.to_owned());
            let lowered = self.node(&entries, Property::Optional)?;
            self.path.pop();
            if let Some(Value::Object(props)) = out.get_mut("properties") {
                props.insert(key.to_owned(), lowered);
            } else {
                out.insert("properties".into(), json!({ key: lowered }));
            }
        }
        if !described.is_empty() {
            note(&mut out, &described.join(", "));
        }
        self.nullability(&mut out, prop)?;
        if is_object(&out) {
            self.close_object(&mut out, &defaulted)?;
        }
        Ok(canonical_order(collapse_single_any_of(out)))
    }

    /// Expresses "may be null" the dialect's way.
    fn nullability(&self, out: &mut Map<String, Value>, prop: Property) -> Result<(), LowerError> {
        let nullable = strip_null(out);
        if !nullable {
            return Ok(());
        }
        // `anyOf [string-enum, null]` reads better as one schema with "null" in its
        // type; objects keep the `anyOf` form every provider documents.
        let single_scalar = matches!(out.get("anyOf"), Some(Value::Array(m))
            if m.len() == 1 && m[0].get("type").is_some_and(|t| t != "object"));
        if single_scalar {
            *out = match collapse_single_any_of(std::mem::take(out)) {
                Value::Object(map) => map,
                _ => unreachable!("a typed member is an object schema"),
            };
        }
        match self.dialect {
            // An optional field is simply left out; saying "or null" only costs tokens
            // (and, for Anthropic strict, one of its few unions).
            Dialect::Standard | Dialect::AnthropicStrict if prop == Property::Optional => {}
            Dialect::Standard | Dialect::OpenAiStrict | Dialect::AnthropicStrict => add_null(out),
            Dialect::Gemini => {
                out.insert("nullable".into(), Value::Bool(true));
            }
        }
        if self.dialect == Dialect::Gemini
            && let Some(Value::Array(types)) = out.get("type")
            && types.len() > 1
        {
            return self.fail("a value of several JSON types cannot be expressed in Gemini's schema subset");
        }
        Ok(())
    }

    /// Strict mode: closed objects with every property required, optional ones nullable.
    /// Gemini: objects need declared properties.
    fn close_object(&self, out: &mut Map<String, Value>, defaulted: &[String]) -> Result<(), LowerError> {
        match self.dialect {
            Dialect::Standard => {}
            Dialect::OpenAiStrict => {
                let required: Vec<String> = out
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default();
                let mut all = Vec::new();
                if let Some(Value::Object(props)) = out.get_mut("properties") {
                    for (name, schema) in props.iter_mut() {
                        all.push(Value::String(name.clone()));
                        if !required.contains(name)
                            && !defaulted.contains(name)
                            && let Value::Object(m) = schema
                        {
                            add_null(m);
                        }
                    }
                }
                out.insert("required".into(), Value::Array(all));
                out.insert("additionalProperties".into(), Value::Bool(false));
                if !out.contains_key("properties") {
                    out.insert("properties".into(), Value::Object(Map::new()));
                }
            }
            Dialect::AnthropicStrict => {
                // Closed, as the subset requires; optional fields stay optional.
                out.insert("additionalProperties".into(), Value::Bool(false));
                if !out.contains_key("properties") {
                    out.insert("properties".into(), Value::Object(Map::new()));
                }
            }
            Dialect::Gemini => {
                let empty = out.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
                if empty && !self.path.is_empty() {
                    return self
                        .fail("an object without declared properties cannot be expressed in Gemini's schema subset");
                }
            }
        }
        Ok(())
    }
}

/// The order keys are written in, whatever order schemars produced them in, so the
/// rendered bytes stay the same across schemars versions (prompt caches keep hitting).
/// Keys not listed keep their relative order after these.
const KEY_ORDER: &[&str] = &[
    "type",
    "description",
    "nullable",
    "enum",
    "const",
    "format",
    "pattern",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "default",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "$ref",
];

fn canonical_order(schema: Value) -> Value {
    let Value::Object(mut map) = schema else { return schema };
    let mut ordered = Map::with_capacity(map.len());
    for key in KEY_ORDER {
        if let Some(v) = map.shift_remove(*key) {
            ordered.insert((*key).to_owned(), v);
        }
    }
    ordered.extend(map);
    Value::Object(ordered)
}

/// A schema in a few words, for a union said in a description: `"fast"`,
/// `{level, name?}`, `an integer`.
fn summary(schema: &Value) -> String {
    summary_at(schema, 0)
}

/// How deep [`summary`] spells out nested objects' fields.
const SUMMARY_DEPTH: usize = 3;

/// A value's shape in words, with the rules on it: JSON text carries no schema,
/// so what the validator will hold the value to is said here
/// (`{name: a string, 1 to 40 characters; count?: an integer, at least 1}`).
fn summary_at(schema: &Value, depth: usize) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(Value::to_string).collect::<Vec<_>>().join(" or ");
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.strip_prefix("#/$defs/").unwrap_or("the whole value");
        return format!("a `{name}`");
    }
    if let Some(variants) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
        let said: Vec<String> = variants.iter().map(|v| summary_at(v, depth)).collect();
        return said.join(" or ");
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        if depth >= SUMMARY_DEPTH {
            return "an object".into();
        }
        let required = schema.get("required").and_then(Value::as_array);
        let fields: Vec<String> = props
            .iter()
            .map(|(k, v)| {
                let optional = if required.is_some_and(|r| r.iter().any(|n| n == k)) { "" } else { "?" };
                format!("{k}{optional}: {}", summary_at(v, depth + 1))
            })
            .collect();
        return format!("{{{}}}", fields.join("; "));
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut said: Vec<String> = types
        .iter()
        .map(|t| match *t {
            "integer" => "an integer".to_owned(),
            "array" => match schema.get("items").filter(|i| i.is_object()) {
                // Only objects' fields take a level: an array of strings says its items.
                Some(items) => format!("an array of {}", summary_at(items, depth)),
                _ => "an array".to_owned(),
            },
            "null" => "null".to_owned(),
            "object" => "an object".to_owned(),
            other => format!("a {other}"),
        })
        .collect();
    if said.is_empty() {
        said.push("a value".into());
    }
    let mut out = said.join(" or ");
    if let Some(map) = schema.as_object() {
        for rule in describe_every_rule(map) {
            out.push_str(", ");
            out.push_str(&rule);
        }
    }
    out
}

/// Keeps a dropped `default` visible to the model in the description.
fn note_default(out: &mut Map<String, Value>, default: &Value) {
    note(out, &format!("Default: {default}"));
}

/// Appends a sentence to the schema's description.
fn note(out: &mut Map<String, Value>, sentence: &str) {
    let sentence = capitalized(&format!("{sentence}."));
    let description = match out.get("description").and_then(Value::as_str) {
        Some(d) if d.ends_with('.') => format!("{d} {sentence}"),
        Some(d) => format!("{d}. {sentence}"),
        None => sentence,
    };
    out.insert("description".into(), Value::String(description));
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The constraints of `map` that Anthropic's strict subset cannot carry, in words:
/// `at least 1`, `from 1 to 64 characters`, `at most 5 items`.
fn describe_constraints(map: &Map<String, Value>) -> Vec<String> {
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
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !ANTHROPIC_STRICT_FORMATS.contains(&format)
        && !NUMERIC_FORMATS.contains(&format)
    {
        out.push(format!("in the format {format}"));
    }
    out
}

/// Every rule the validator holds a value to, in words, for a value sent as JSON
/// text: no schema travels with it, so nothing can be left to one.
fn describe_every_rule(map: &Map<String, Value>) -> Vec<String> {
    let number = |key: &str| map.get(key).filter(|v| v.is_number()).map(Value::to_string);
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let format = map.get("format").and_then(Value::as_str);
    // An integer type's width, where a model could miss it, as the bounds it implies.
    let (low, high) = format.and_then(implied_integer_range).unwrap_or_default();
    let mut out = Vec::new();
    match (number("minimum").or(low.map(|n| n.to_string())), number("maximum").or(high.map(|n| n.to_string()))) {
        (Some(min), Some(max)) => out.push(format!("from {min} to {max}")),
        (Some(min), None) => out.push(format!("at least {min}")),
        (None, Some(max)) => out.push(format!("at most {max}")),
        (None, None) => {}
    }
    out.extend(number("exclusiveMinimum").map(|n| format!("greater than {n}")));
    out.extend(number("exclusiveMaximum").map(|n| format!("less than {n}")));
    out.extend(number("multipleOf").map(|n| format!("a multiple of {n}")));
    out.extend(describe_lengths(map));
    out.extend(counted(count("minItems").filter(|&n| n > 0), count("maxItems"), ("item", "items")));
    out.extend(counted(count("minProperties"), count("maxProperties"), ("entry", "entries")));
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    out.extend(map.get("pattern").and_then(Value::as_str).map(|p| format!("matching the regular expression `{p}`")));
    if let Some(format) = format.filter(|f| !NUMERIC_FORMATS.contains(f)) {
        out.push(format!("in the format {format}"));
    }
    out
}

/// What OpenAI's strict subset drops that the validator still holds a value to, in
/// words: string lengths, counts of entries, no duplicates, a format it lacks.
fn describe_openai_strict_drops(map: &Map<String, Value>) -> Vec<String> {
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let mut out: Vec<String> = describe_lengths(map).into_iter().collect();
    out.extend(counted(count("minProperties"), count("maxProperties"), ("entry", "entries")));
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !STRICT_STRING_FORMATS.contains(&format)
        && !NUMERIC_FORMATS.contains(&format)
    {
        out.push(format!("in the format {format}"));
    }
    out
}

/// What Gemini's subset drops, in words: string lengths and `pattern` (older API
/// versions refuse them), a format it lacks, no duplicates.
fn describe_gemini_drops(map: &Map<String, Value>) -> Vec<String> {
    let mut out: Vec<String> = describe_lengths(map).into_iter().collect();
    // Older API versions refuse `pattern`: the rendering for every version says it.
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        out.push(format!("matching the regular expression `{pattern}`"));
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !GEMINI_STRING_FORMATS.contains(&format)
        && !NUMERIC_FORMATS.contains(&format)
    {
        out.push(format!("in the format {format}"));
    }
    out
}

/// The bounds an integer `format` implies that a model should be shown: 0 for an
/// unsigned type, and the whole range of an 8- or 16-bit one (a 32- or 64-bit type's
/// limits say nothing a model needs).
fn implied_integer_range(format: &str) -> Option<(Option<i64>, Option<i64>)> {
    let (low, high) = crate::validate::format::integer_range(format)?;
    let small = high <= 65_535.0;
    let low = (low == 0.0 || small).then_some(low as i64);
    let high = small.then_some(high as i64);
    Some((low, high))
}

/// A string's length bounds in words: `1 to 80 characters`.
fn describe_lengths(map: &Map<String, Value>) -> Option<String> {
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    counted(count("minLength"), count("maxLength"), ("character", "characters"))
}

/// `2 to 5 items`, `exactly 1 character`: `noun` is (singular, plural).
fn counted(min: Option<u64>, max: Option<u64>, noun: (&str, &str)) -> Option<String> {
    let of = |n: u64| if n == 1 { noun.0 } else { noun.1 };
    match (min, max) {
        (Some(a), Some(b)) if a == b => Some(format!("exactly {a} {}", of(a))),
        (Some(a), Some(b)) => Some(format!("{a} to {b} {}", of(b))),
        (Some(a), None) => Some(format!("at least {a} {}", of(a))),
        (None, Some(b)) => Some(format!("at most {b} {}", of(b))),
        (None, None) => None,
    }
}

/// Whether a `pattern` is within what a grammar can compile: no lookaround, no
/// backreferences, no word boundaries.
fn simple_pattern(pattern: &str) -> bool {
    let complex = ["(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B"];
    let backreference = pattern.as_bytes().windows(2).any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0');
    !complex.iter().any(|c| pattern.contains(c)) && !backreference
}

/// Whether a schema says nothing of what kind of value it takes (`{}`, or only a
/// description): any JSON value.
pub(crate) fn takes_any_value(map: &Map<String, Value>) -> bool {
    !TYPING_KEYWORDS.iter().any(|k| map.contains_key(*k))
}

fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn is_object(map: &Map<String, Value>) -> bool {
    type_names(map).contains(&"object") || map.contains_key("properties")
}

/// Removes every way `out` says "or null"; returns whether it said so.
fn strip_null(out: &mut Map<String, Value>) -> bool {
    let mut nullable = false;
    if let Some(t) = out.get_mut("type")
        && let Value::Array(types) = t
    {
        let before = types.len();
        types.retain(|t| t != "null");
        nullable |= types.len() != before;
        if types.len() == 1 {
            *t = types[0].clone();
        }
    }
    if let Some(Value::Array(values)) = out.get_mut("enum") {
        let before = values.len();
        values.retain(|v| !v.is_null());
        nullable |= values.len() != before;
    }
    if let Some(Value::Array(members)) = out.get_mut("anyOf") {
        let before = members.len();
        members.retain(|m| m.get("type").and_then(Value::as_str) != Some("null"));
        nullable |= members.len() != before;
    }
    nullable
}

/// Puts "or null" back in the form JSON Schema and OpenAI strict mode accept.
fn add_null(out: &mut Map<String, Value>) {
    if let Some(Value::Array(members)) = out.get_mut("anyOf") {
        if !members.iter().any(|m| m.get("type").and_then(Value::as_str) == Some("null")) {
            members.push(json!({"type": "null"}));
        }
        return;
    }
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            out.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(values)) = out.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            let inner = std::mem::take(out);
            let mut wrapped = Map::new();
            if let Some(d) = inner.get("description") {
                wrapped.insert("description".into(), d.clone());
            }
            let mut inner = inner;
            inner.shift_remove("description");
            wrapped.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            *out = wrapped;
        }
    }
}

/// `anyOf` of one member is that member (annotations of the outer node win).
fn collapse_single_any_of(mut out: Map<String, Value>) -> Value {
    let single = matches!(out.get("anyOf"), Some(Value::Array(m)) if m.len() == 1);
    if !single {
        return Value::Object(out);
    }
    let Some(Value::Array(mut members)) = out.shift_remove("anyOf") else { unreachable!() };
    match members.pop() {
        Some(Value::Object(member)) => Value::Object(merge_schemas(out, &member)),
        Some(other) => other,
        None => Value::Object(out),
    }
}

/// Merges `secondary` into `primary`: properties and `required` are unions (primary's
/// first), `additionalProperties: false` wins, and other keys keep primary's value.
fn merge_schemas(mut primary: Map<String, Value>, secondary: &Map<String, Value>) -> Map<String, Value> {
    for (key, value) in secondary {
        match (key.as_str(), primary.get_mut(key)) {
            ("properties", Some(Value::Object(props))) => {
                for (name, schema) in value.as_object().into_iter().flatten() {
                    props.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
            ("required", Some(Value::Array(req))) => {
                for name in value.as_array().into_iter().flatten() {
                    if !req.contains(name) {
                        req.push(name.clone());
                    }
                }
            }
            ("additionalProperties", Some(existing)) => {
                if value == &Value::Bool(false) {
                    *existing = Value::Bool(false);
                }
            }
            (_, Some(_)) => {}
            (_, None) => {
                primary.insert(key.clone(), value.clone());
            }
        }
    }
    primary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(schema: &Value) -> Result<Value, LowerError> {
        lower(schema, Dialect::OpenAiStrict)
    }

    /// An object whose `next` property nests `levels` objects below the root.
    fn nested(levels: usize) -> Value {
        let mut schema = json!({"type": "string"});
        for _ in 0..levels {
            schema = json!({"type": "object", "properties": {"next": schema}, "required": ["next"]});
        }
        json!({"type": "object", "properties": {"next": schema}, "required": ["next"]})
    }

    fn with_properties(names: impl Iterator<Item = String>) -> Value {
        let props: Map<String, Value> = names.map(|n| (n, json!({"type": "boolean"}))).collect();
        json!({"type": "object", "properties": props})
    }

    fn with_enum(values: Vec<String>) -> Value {
        json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}})
    }

    /// The text a field sent as JSON text carries to the model.
    fn said_of(value: &Value) -> String {
        value["description"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn a_field_sent_as_json_text_states_the_rules_inside_it() {
        let leaf = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 40},
            "level": {"type": "integer", "format": "uint8"},
            "tags": {"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1, "uniqueItems": true},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        }, "required": ["name", "code"]});
        let mut schema = leaf.clone();
        for _ in 0..12 {
            schema = json!({"type": "object", "properties": {"next": schema}, "required": ["next"]});
        }
        let deep = strict(&schema).unwrap();
        let mut node = &deep;
        while node.get("properties").is_some() {
            node = &node["properties"]["next"];
        }
        let said = said_of(node);
        for rule in [
            "name: a string, 1 to 40 characters",
            "level?: an integer, from 0 to 255",
            "tags?: an array of a string, in the format uri, at least 1 item, no duplicates",
            "code: a string, matching the regular expression `^[A-Z]{3}$`",
        ] {
            assert!(said.contains(rule), "{rule:?} missing from {said:?}");
        }

        let recursive = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}}, "required": ["node"],
            "$defs": {"Node": {"type": "object", "properties": {
                "weight": {"type": "number", "exclusiveMinimum": 0},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "maxItems": 8},
            }, "required": ["weight", "children"]}}});
        for dialect in [Dialect::Gemini, Dialect::AnthropicStrict] {
            let lowered = lower(&recursive, dialect).unwrap();
            let items = &lowered["properties"]["node"]["properties"]["children"]["items"];
            let said = said_of(items);
            assert!(said.contains("weight: a number, greater than 0"), "{dialect:?}: {said:?}");
            assert!(said.contains("children: an array of a `Node`, at most 8 items"), "{dialect:?}: {said:?}");
        }
    }

    #[test]
    fn openai_strict_depth_counts_the_root_as_level_zero() {
        let at_limit = strict(&nested(10)).unwrap();
        assert!(at_limit.to_string().matches("\"object\"").count() == 11, "an object 10 levels below the root");
        // One deeper: that object is sent as JSON text.
        let past = strict(&nested(11)).unwrap();
        let mut node = &past;
        for _ in 0..11 {
            node = &node["properties"]["next"];
        }
        assert_eq!(node["type"], json!("string"), "{past}");
        assert!(node["description"].as_str().unwrap().starts_with("JSON text"), "{node}");
        // Arrays do not add a level; objects inside them do.
        let in_array = json!({"type": "object", "properties": {"list": {"type": "array", "items": nested(9)}}});
        assert!(strict(&in_array).is_ok());
    }

    #[test]
    fn a_schema_that_doubles_with_every_reference_is_refused_not_walked() {
        // d0 uses d1 twice, d1 uses d2 twice, ...: 2^40 nodes inlined.
        let mut defs = Map::new();
        for i in 0..40 {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"type": "object", "properties": {"a": next, "b": next}}));
        }
        defs.insert("d40".into(), json!({"type": "string"}));
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
        for dialect in [Dialect::Standard, Dialect::Gemini, Dialect::AnthropicStrict] {
            let e = lower(&schema, dialect).err().map(|e| e.message);
            assert!(e.as_deref().is_some_and(|m| m.contains("too large")), "{dialect:?}: {e:?}");
        }
        // OpenAI strict sends what is past its depth as JSON text: bounded by that.
        assert!(lower(&schema, Dialect::OpenAiStrict).is_ok());
        let started = std::time::Instant::now();
        let _ = super::super::adapt::Plan::of(&schema);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "planning is bounded too");
    }

    #[test]
    fn what_a_subset_drops_and_the_validator_holds_is_said_in_the_description() {
        let schema = json!({"type": "object", "properties": {
            "title": {"type": "string", "description": "A title", "minLength": 5, "maxLength": 120},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "home": {"type": "string", "format": "uri"},
        }, "required": ["title", "tags", "home"]});
        for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
            let lowered = lower(&schema, dialect).unwrap();
            let said = |field: &str| lowered["properties"][field]["description"].as_str().unwrap_or("").to_owned();
            assert!(said("title").contains("5 to 120 characters"), "{dialect:?}: {lowered}");
            assert!(lowered["properties"]["title"].get("minLength").is_none());
            assert!(said("tags").contains("No duplicates"), "{dialect:?}: {lowered}");
            assert!(said("home").contains("In the format uri"), "{dialect:?}: {lowered}");
        }
        // Older Gemini API versions refuse `pattern`: the rendering for every version says it.
        let with_pattern = json!({"type": "object", "properties": {"slug": {"type": "string", "pattern": "^[a-z]+$"}}});
        let gemini = lower(&with_pattern, Dialect::Gemini).unwrap();
        let slug = &gemini["properties"]["slug"];
        assert!(slug.get("pattern").is_none(), "{gemini}");
        assert!(slug["description"].as_str().unwrap().contains("`^[a-z]+$`"), "{gemini}");
    }

    #[test]
    fn gemini_says_a_numbers_exclusive_bound_it_shows_inclusive() {
        let schema = json!({"type": "object", "properties": {
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "count": {"type": "integer", "exclusiveMinimum": 0},
        }, "required": ["ratio", "count"]});
        let lowered = lower(&schema, Dialect::Gemini).unwrap();
        let ratio = &lowered["properties"]["ratio"];
        assert_eq!((&ratio["minimum"], &ratio["maximum"]), (&json!(0), &json!(1)));
        let said = ratio["description"].as_str().unwrap_or_default();
        assert!(said.contains("Greater than 0") && said.contains("less than 1"), "{lowered}");
        // An integer's bound is tightened by one, exactly: nothing to say.
        assert_eq!(lowered["properties"]["count"]["minimum"], json!(1));
        assert!(lowered["properties"]["count"].get("description").is_none());
    }

    #[test]
    fn an_integer_width_the_check_holds_is_shown() {
        let schema = json!({"type": "object", "properties": {
            "small": {"type": "integer", "format": "uint8"},
            "count": {"type": "integer", "format": "uint32"},
            "delta": {"type": "integer", "format": "int16"},
            "big": {"type": "integer", "format": "int64"},
            "floor": {"type": "integer", "format": "uint8", "minimum": 3},
        }, "required": ["small", "count", "delta", "big", "floor"]});
        for dialect in [Dialect::Standard, Dialect::OpenAiStrict, Dialect::Gemini] {
            let lowered = lower(&schema, dialect).unwrap();
            let p = &lowered["properties"];
            assert_eq!((&p["small"]["minimum"], &p["small"]["maximum"]), (&json!(0), &json!(255)), "{dialect:?}");
            assert_eq!((&p["count"]["minimum"], p["count"].get("maximum")), (&json!(0), None), "{dialect:?}");
            assert_eq!((&p["delta"]["minimum"], &p["delta"]["maximum"]), (&json!(-32768), &json!(32767)));
            assert!(p["big"].get("minimum").is_none() && p["big"].get("maximum").is_none());
            assert_eq!(&p["floor"]["minimum"], &json!(3), "the schema's own bound stays");
        }
        let anthropic = lower(&schema, Dialect::AnthropicStrict).unwrap();
        let said = anthropic["properties"]["small"]["description"].as_str().unwrap_or_default().to_owned();
        assert!(said.contains("At least 0") && said.contains("at most 255"), "{anthropic}");
    }

    #[test]
    fn openai_strict_property_count_at_and_past_the_limit() {
        assert!(strict(&with_properties((0..5000).map(|i| format!("p{i}")))).is_ok());
        let e = strict(&with_properties((0..5001).map(|i| format!("p{i}")))).unwrap_err();
        assert!(e.message.contains("more than 5000 properties"), "{e:?}");
    }

    #[test]
    fn openai_strict_enum_values_at_and_past_the_limit() {
        assert!(strict(&with_enum((0..1000).map(|i| i.to_string()).collect())).is_ok());
        let e = strict(&with_enum((0..1001).map(|i| i.to_string()).collect())).unwrap_err();
        assert!(e.message.contains("more than 1000 enum values"), "{e:?}");
    }

    #[test]
    fn openai_strict_large_enum_string_length_at_and_past_the_limit() {
        // 300 values of 50 characters: 15,000 in all.
        let values = |last: usize| -> Vec<String> {
            (0..300).map(|i| format!("{i:0>width$}", width = if i == 299 { last } else { 50 })).collect()
        };
        assert!(strict(&with_enum(values(50))).is_ok());
        let e = strict(&with_enum(values(51))).unwrap_err();
        assert!(e.message.contains("15000"), "{e:?}");
        // A small enum has no such limit.
        let long: Vec<String> = (0..10).map(|i| format!("{i:0>2000}")).collect();
        assert!(strict(&with_enum(long)).is_ok());
    }

    #[test]
    fn openai_strict_total_string_length_at_and_past_the_limit() {
        // 5,000 names of 24 characters: 120,000.
        let names =
            |extra: usize| (0..5000).map(move |i| format!("{i:0>width$}", width = 24 + usize::from(i == 0) * extra));
        assert!(strict(&with_properties(names(0))).is_ok());
        let e = strict(&with_properties(names(1))).unwrap_err();
        assert!(e.message.contains("120000 characters"), "{e:?}");
    }
}
