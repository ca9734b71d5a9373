//! Schema shapes: key order, nullability, merging, and a schema summed up in words.

use crate::schema::words::describe_every_rule;
use serde_json::{Map, Value, json};

/// Keywords that say what kind of value a schema takes; one with none takes any.
pub(crate) const TYPING_KEYWORDS: &[&str] = &[
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
pub(crate) const ASSERTING_KEYWORDS: &[&str] = &[
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

/// The order keys are written in, whatever order schemars produced them in, so the
/// rendered bytes stay the same across schemars versions (prompt caches keep hitting).
/// Keys not listed keep their relative order after these.
pub(crate) const KEY_ORDER: &[&str] = &[
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

pub(crate) fn canonical_order(schema: Value) -> Value {
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
pub(crate) fn summary(schema: &Value) -> String {
    summary_at(schema, 0)
}

/// How deep [`summary`] spells out nested objects' fields.
pub(crate) const SUMMARY_DEPTH: usize = 3;

/// A value's shape in words, with the rules on it: JSON text carries no schema,
/// so what the validator will hold the value to is said here
/// (`{name: a string, 1 to 40 characters; count?: an integer, at least 1}`).
pub(crate) fn summary_at(schema: &Value, depth: usize) -> String {
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
        let mut said = format!("{{{}}}", fields.join("; "));
        // A closed object refuses any other field: say so, as the check will.
        match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => said.push_str(", no other fields"),
            Some(values @ Value::Object(_)) => {
                said.push_str(&format!(", other fields each {}", summary_at(values, depth + 1)));
            }
            _ => {}
        }
        return said;
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
            "array" => match (schema.get("prefixItems").and_then(Value::as_array), schema.get("items")) {
                // A tuple: its items in order.
                (Some(prefix), items) => {
                    let each: Vec<String> = prefix.iter().map(|p| summary_at(p, depth)).collect();
                    let rest = match items {
                        Some(Value::Bool(false)) | None => String::new(),
                        Some(more) => format!(", then any number of {}", summary_at(more, depth)),
                    };
                    format!("an array of [{}]{rest}", each.join(", "))
                }
                // Only objects' fields take a level: an array of strings says its items.
                (None, Some(items)) if items.is_object() => format!("an array of {}", summary_at(items, depth)),
                _ => "an array".to_owned(),
            },
            // A map: what each value must be.
            "object" => match schema.get("additionalProperties").filter(|v| v.is_object()) {
                Some(values) if depth < SUMMARY_DEPTH => {
                    format!("an object whose values are each {}", summary_at(values, depth + 1))
                }
                _ => "an object".to_owned(),
            },
            "null" => "null".to_owned(),
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
pub(crate) fn note_default(out: &mut Map<String, Value>, default: &Value) {
    note(out, &format!("Default: {default}"));
}

/// Appends a sentence to the schema's description.
pub(crate) fn note(out: &mut Map<String, Value>, sentence: &str) {
    let sentence = capitalized(&format!("{sentence}."));
    let description = match out.get("description").and_then(Value::as_str) {
        Some(d) if d.ends_with('.') => format!("{d} {sentence}"),
        Some(d) => format!("{d}. {sentence}"),
        None => sentence,
    };
    out.insert("description".into(), Value::String(description));
}

pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether a schema says nothing of what kind of value it takes (`{}`, or only a
/// description): any JSON value.
pub(crate) fn takes_any_value(map: &Map<String, Value>) -> bool {
    !TYPING_KEYWORDS.iter().any(|k| map.contains_key(*k))
}

pub(crate) fn type_names(map: &Map<String, Value>) -> Vec<&str> {
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
pub(crate) fn strip_null(out: &mut Map<String, Value>) -> bool {
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
pub(crate) fn add_null(out: &mut Map<String, Value>) {
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
pub(crate) fn collapse_single_any_of(mut out: Map<String, Value>) -> Value {
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
pub(crate) fn merge_schemas(mut primary: Map<String, Value>, secondary: &Map<String, Value>) -> Map<String, Value> {
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
