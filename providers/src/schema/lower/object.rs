//! One object schema, keyword by keyword, then its nullability and closing.

use super::shape::*;
use super::{LowerError, Lowerer, Property};
use crate::schema::adapt;
use crate::schema::dialect::{Nullable, Objects};
use crate::schema::words::{NUMERIC_FORMATS, implied_integer_range, simple_pattern};
use serde_json::{Map, Value, json};

impl Lowerer<'_> {
    pub(super) fn object_node(&mut self, map: &Map<String, Value>, prop: Property) -> Result<Value, LowerError> {
        let rules = self.rules;
        if !rules.full_json_schema
            && let Some(adapted) = self.adapted_shape(map)?
        {
            return self.object_node(&adapted, prop);
        }
        // OpenAI counts nesting from the root object at level 0: an object that is a
        // property of the root is at level 1. Deeper than the limit, the object is
        // sent as JSON text (turned back by `adapt`).
        if let Some(limits) = &rules.limits
            && self.depth > limits.depth
            && is_object(map)
        {
            return self.too_deep(map, limits.depth);
        }
        if !rules.full_json_schema
            && let Some(kw) = ASSERTING_KEYWORDS.iter().find(|k| map.contains_key(**k))
        {
            let what =
                if *kw == "prefixItems" { "a tuple (`prefixItems`)".to_owned() } else { format!("the `{kw}` keyword") };
            return self.fail(format!("uses {what}, which {} cannot express", self.provider_words()));
        }
        let mut node = Node {
            out: Map::new(),
            required: map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            dropped_default: None,
            pending_union: Vec::new(),
            extra_values: None,
            // What the dialect cannot carry, in words for the description.
            described: (rules.describe_drops)(map),
            defaulted: Vec::new(),
        };
        for (key, value) in map {
            self.keyword(map, key, value, &mut node)?;
        }
        if let Some(limits) = &rules.limits
            && self.properties > limits.properties
        {
            return self.fail(format!(
                "the schema has more than {} properties in all, the most {} accepts",
                limits.properties, rules.name
            ));
        }
        self.finish_node(map, node, prop)
    }

    /// An object nested past the dialect's depth limit, as JSON text.
    fn too_deep(&self, map: &Map<String, Value>, limit: usize) -> Result<Value, LowerError> {
        self.adapting(&format!(
            "an object nested {} levels below the root, more than the {limit} {} accepts,",
            self.depth, self.rules.name
        ))?;
        let mut out = Map::new();
        out.insert(
            "type".into(),
            if type_names(map).contains(&"null") { json!(["string", "null"]) } else { json!("string") },
        );
        out.extend(map.get("description").map(|d| ("description".to_owned(), d.clone())));
        note(
            &mut out,
            &format!("JSON text: the value encoded as a string, an object {}", summary(&Value::Object(map.clone()))),
        );
        Ok(Value::Object(out))
    }

    /// One keyword of an object schema, the dialect's way.
    fn keyword(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        value: &Value,
        node: &mut Node,
    ) -> Result<(), LowerError> {
        let rules = self.rules;
        match key {
            "$schema" | "$id" | "$comment" | "$defs" | "definitions" | "title" => {}
            "properties" => {
                let props = self.properties(value, node)?;
                node.out.insert(key.to_owned(), Value::Object(props));
            }
            "items" => {
                self.path.push("[]".into());
                let lowered = self.node(value, Property::No)?;
                self.path.pop();
                node.out.insert(key.to_owned(), lowered);
            }
            "prefixItems" => {
                let mut items = Vec::new();
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    self.path.push(format!("[{i}]"));
                    items.push(self.node(sub, Property::No)?);
                    self.path.pop();
                }
                node.out.insert(key.to_owned(), Value::Array(items));
            }
            "additionalProperties" => self.additional_properties(value, node)?,
            "anyOf" | "oneOf" => {
                let mut members = Vec::new();
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    self.path.push(format!(" (variant {})", i + 1));
                    members.push(self.node(sub, Property::No)?);
                    self.path.pop();
                }
                // A dialect without unions, and no provider at the root (a flattened
                // enum): the variants become one schema, once the node's own keys are in.
                if !rules.unions || self.path.is_empty() {
                    node.pending_union.extend(members);
                    return Ok(());
                }
                // A subset knows only anyOf; serde's variants are disjoint, so anyOf
                // means the same.
                let key = if rules.full_json_schema { key } else { "anyOf" };
                node.out.insert(key.to_owned(), Value::Array(members));
            }
            "const" if !rules.const_keyword => {
                self.count_string(value.as_str().map_or(0, |v| v.chars().count()))?;
                if rules.string_enums_only && !value.is_string() {
                    return self.fail(format!(
                        "the constant {value} cannot be expressed in {}, whose enums hold strings only",
                        rules.name
                    ));
                }
                node.out.insert("enum".into(), Value::Array(vec![value.clone()]));
            }
            "format" => self.format(map, value, node),
            "default" if !rules.default_keyword => node.dropped_default = Some(value.clone()),
            // Only 0 and 1 are accepted; a larger count is described.
            "minItems" if rules.min_items_zero_or_one => {
                if value.as_u64().is_some_and(|n| n <= 1) {
                    node.out.insert(key.to_owned(), value.clone());
                }
            }
            "pattern" if rules.simple_patterns_only => {
                if value.as_str().is_some_and(simple_pattern) {
                    node.out.insert(key.to_owned(), value.clone());
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" if !rules.exclusive_bounds => {
                // Inclusive bounds only: tighten integers by one, keep the (slightly
                // looser) bound for numbers, and say it is not inclusive.
                let is_integer = type_names(map).contains(&"integer");
                let bound = match (value.as_i64(), is_integer) {
                    (Some(n), true) if key == "exclusiveMinimum" => json!(n + 1),
                    (Some(n), true) => json!(n - 1),
                    _ => value.clone(),
                };
                if !is_integer {
                    let word = if key == "exclusiveMinimum" { "greater than" } else { "less than" };
                    node.described.push(format!("{word} {value}"));
                }
                let key = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                node.out.insert(key.into(), bound);
            }
            "enum" => self.enumeration(value, node)?,
            _ => {
                if rules.keywords.is_none_or(|kept| kept.contains(&key)) {
                    node.out.insert(key.to_owned(), value.clone());
                }
            }
        }
        Ok(())
    }

    /// An object's `properties`, each lowered as required or optional.
    fn properties(&mut self, value: &Value, node: &mut Node) -> Result<Map<String, Value>, LowerError> {
        self.depth += 1;
        let mut props = Map::new();
        for (name, sub) in value.as_object().into_iter().flatten() {
            self.properties += 1;
            self.count_string(name.chars().count())?;
            let kind = if node.required.contains(name) { Property::Required } else { Property::Optional };
            // Optional fields with a serde default: a dialect that requires every
            // field must require them without null, which would not parse.
            if kind == Property::Optional && sub.get("default").is_some() {
                node.defaulted.push(name.clone());
            }
            self.path.push(name.clone());
            let lowered = self.node(sub, kind)?;
            self.path.pop();
            props.insert(name.clone(), lowered);
        }
        self.depth -= 1;
        Ok(props)
    }

    /// `additionalProperties`: closed, free keys of a schema, or (with declared
    /// fields too, in a subset) one more field holding the free keys as entries.
    fn additional_properties(&mut self, value: &Value, node: &mut Node) -> Result<(), LowerError> {
        let rules = self.rules;
        match value {
            Value::Bool(false) if rules.additional_properties => {
                node.out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Value::Bool(false) => {}
            Value::Bool(true) if rules.full_json_schema => {
                node.out.insert("additionalProperties".into(), Value::Bool(true));
            }
            sub if rules.full_json_schema => {
                self.path.push("[key]".into());
                let lowered = self.node(sub, Property::No)?;
                self.path.pop();
                node.out.insert("additionalProperties".into(), lowered);
            }
            // Declared fields and free keys as well (a flattened map): the free keys
            // go in one more field, a list of entries.
            values => {
                self.adapting("an object with declared fields and free keys as well")?;
                node.extra_values = Some(values.clone());
            }
        }
        Ok(())
    }

    /// A `format`: kept where the dialect knows it; an integer width the check holds
    /// a value to, where a model could miss it, as bounds.
    fn format(&self, map: &Map<String, Value>, value: &Value, node: &mut Node) {
        let rules = self.rules;
        let format = value.as_str().unwrap_or_default();
        let keep = !NUMERIC_FORMATS.contains(&format) && rules.formats.is_none_or(|kept| kept.contains(&format));
        if keep {
            node.out.insert("format".into(), value.clone());
            return;
        }
        let Some((low, high)) = implied_integer_range(format) else { return };
        // The type's whole range, where the schema gives no tighter bound (an
        // exclusive bound counts as one).
        for (bound, name, exclusive) in [(low, "minimum", "exclusiveMinimum"), (high, "maximum", "exclusiveMaximum")] {
            if map.contains_key(name) || map.contains_key(exclusive) {
                continue;
            }
            if rules.numeric_bounds {
                node.out.insert(name.into(), bound);
            } else {
                let word = if name == "minimum" { "at least" } else { "at most" };
                node.described.push(format!("{word} {bound}"));
            }
        }
    }

    /// An `enum`, within the dialect's limits.
    fn enumeration(&mut self, value: &Value, node: &mut Node) -> Result<(), LowerError> {
        let values = value.as_array().map_or(&[][..], Vec::as_slice);
        self.enum_values += values.len();
        let chars: usize = values.iter().filter_map(Value::as_str).map(|v| v.chars().count()).sum();
        if let Some(limits) = &self.rules.limits {
            let name = self.rules.name;
            if self.enum_values > limits.enum_values {
                return self.fail(format!(
                    "the schema has more than {} enum values in all, the most {name} accepts",
                    limits.enum_values
                ));
            }
            if values.len() > limits.large_enum && values.iter().all(Value::is_string) && chars > limits.enum_string {
                return self.fail(format!(
                    "an enum of {} strings has {chars} characters in all; {name} accepts at most {} in an enum of more than {} values",
                    values.len(),
                    limits.enum_string,
                    limits.large_enum
                ));
            }
        }
        self.count_string(chars)?;
        node.out.insert("enum".into(), value.clone());
        Ok(())
    }

    /// What comes after the keywords: the dropped default, a merged union, the free
    /// keys' field, the description, nullability and closing.
    fn finish_node(&mut self, map: &Map<String, Value>, mut node: Node, prop: Property) -> Result<Value, LowerError> {
        if let Some(default) = &node.dropped_default {
            note_default(&mut node.out, default);
        }
        if !node.pending_union.is_empty() {
            let union = std::mem::take(&mut node.pending_union);
            node.described.extend(self.merge_union(&mut node.out, union)?);
        }
        if let Some(values) = node.extra_values.take() {
            self.free_keys_field(map, values, &mut node.out)?;
        }
        let Node { mut out, mut described, defaulted, .. } = node;
        // A rule the description already says in the same words is not said twice
        // ("at most 40 characters" written in the doc comment).
        let said = out.get("description").and_then(Value::as_str).unwrap_or_default().to_lowercase();
        described.retain(|rule| !said.contains(&rule.to_lowercase()));
        if !described.is_empty() {
            note(&mut out, &described.join(", "));
        }
        self.nullability(&mut out, prop)?;
        if is_object(&out) {
            self.close_object(&mut out, &defaulted)?;
        }
        Ok(canonical_order(collapse_single_any_of(out)))
    }

    /// The free keys of an object that declares fields too, as one more field: a
    /// list of `key`/`value` entries (turned back by `adapt`).
    fn free_keys_field(
        &mut self,
        map: &Map<String, Value>,
        values: Value,
        out: &mut Map<String, Value>,
    ) -> Result<(), LowerError> {
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
        Ok(())
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
        match self.rules.nullable {
            // An optional field is simply left out; saying "or null" only costs tokens
            // (and, for Anthropic strict, one of its few unions).
            Nullable::TypeNull if prop == Property::Optional && self.rules.objects != Objects::ClosedAllRequired => {}
            Nullable::TypeNull => add_null(out),
            Nullable::Keyword => {
                out.insert("nullable".into(), Value::Bool(true));
            }
        }
        if !self.rules.type_arrays
            && let Some(Value::Array(types)) = out.get("type")
            && types.len() > 1
        {
            return self.fail(format!("a value of several JSON types cannot be expressed in {}", self.rules.name));
        }
        Ok(())
    }

    /// Closes an object as the dialect asks: every property required (optional ones
    /// nullable), closed, or with declared properties.
    fn close_object(&self, out: &mut Map<String, Value>, defaulted: &[String]) -> Result<(), LowerError> {
        match self.rules.objects {
            Objects::AsWritten => {}
            Objects::ClosedAllRequired => {
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
                out.entry("properties").or_insert_with(|| Value::Object(Map::new()));
            }
            // Optional fields stay optional.
            Objects::Closed => {
                out.insert("additionalProperties".into(), Value::Bool(false));
                out.entry("properties").or_insert_with(|| Value::Object(Map::new()));
            }
            Objects::Declared => {
                let empty = out.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty);
                if empty && !self.path.is_empty() {
                    return self.fail(format!(
                        "an object without declared properties cannot be expressed in {}",
                        self.rules.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// An object schema being lowered: what its keywords produced and what they left
/// for after the walk.
struct Node {
    out: Map<String, Value>,
    required: Vec<String>,
    dropped_default: Option<Value>,
    pending_union: Vec<Value>,
    extra_values: Option<Value>,
    described: Vec<String>,
    defaulted: Vec<String>,
}
