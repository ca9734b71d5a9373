//! The way back from an adapted shape. Where a dialect cannot express a Rust shape,
//! `lower` renders one it can (a tuple as an object with `_0`, `_1`,
//! ...; a free-key map as a list of `{key, value}` objects; a free JSON value as JSON
//! text); this module turns the model's arguments in those shapes back into the
//! plain shape before the one parse, so the tool gets the same typed input
//! whichever provider the model spoke.
//!
//! The plan is computed once per tool from its plain schema; a tool with nothing
//! to adapt has an empty plan and its input is passed through untouched. Tuples and
//! maps are recognised by their shape (an object where the plain schema wants an
//! array cannot be meant as one); JSON text is parsed only for a call from a
//! provider whose rendering asked for it (a plain rendering takes any value, and a
//! string there is a string).

use super::dialect::{Dialect, Objects, Rules};
use super::lower;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;
use toolwright_contracts::InputError;

/// The key of a tuple's item `i` in its object form.
pub(crate) fn tuple_key(i: usize) -> String {
    format!("_{i}")
}

/// What kind of value a schema takes, for telling whether two variants give a field
/// the same shape: its type (nulls aside) and, for an object, its field names. A
/// constant (a tag) is one kind whatever its value.
pub(crate) fn shape_key(schema: &Value) -> String {
    if schema.get("enum").is_some() || schema.get("const").is_some() {
        return "constant".into();
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => vec!["any"],
    };
    let mut fields: Vec<&String> =
        schema.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k).collect();
    fields.sort();
    format!("{types:?}{fields:?}")
}

/// The field a flattened map's free keys go under, as a list of entries.
pub(crate) const EXTRA_KEY: &str = "_extra";

/// The keys of a map entry in its list form.
pub(crate) const MAP_KEY: &str = "key";
pub(crate) const MAP_VALUE: &str = "value";

/// One step down the plain shape.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    /// Every item of an array.
    Items,
    /// Every value of an object used as a map.
    Values,
    /// One item of a tuple.
    Index(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// An object `{_0, _1, ...}` back to an array of this many items.
    Tuple(usize),
    /// A list of `{key, value}` back to an object.
    Map,
    /// A flattened map's entries, under [`EXTRA_KEY`], back among the object's
    /// own fields.
    Extra,
    /// JSON text back to the value it encodes.
    Json,
    /// A merged union's variant fields sent as `null` (OpenAI strict requires every
    /// field) dropped: the variant the model chose does not have them.
    DropNulls(Vec<String>),
}

#[derive(Debug, Clone)]
struct Adaptation {
    path: Vec<Step>,
    kind: Kind,
    /// Only for calls from dialects whose rules say it (a union Gemini's subset
    /// cannot say).
    only: Option<fn(&Rules) -> bool>,
}

/// The adaptations a tool's input may need, outermost first.
#[derive(Debug, Clone, Default)]
pub struct Plan(Vec<Adaptation>);

impl Plan {
    /// The plan for a plain (draft 2020-12) input schema.
    pub fn of(schema: &Value) -> Plan {
        let defs = schema.get("$defs").and_then(Value::as_object);
        let mut planner = Planner { defs, expanding: HashSet::new(), out: Vec::new(), depth: 0, nodes: 0 };
        planner.node(schema, &mut Vec::new(), true);
        let mut out = planner.out;
        // Outer shapes first: the steps below them walk the plain shape.
        out.sort_by_key(|a| a.path.len());
        Plan(out)
    }

    /// Whether there is nothing to adapt.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `input` in the plain shape. `dialect`: the rendering the model was shown,
    /// when the turn says (JSON text is parsed back only for a rendering that asked
    /// for it).
    pub fn apply<'a>(&self, input: &'a str, dialect: Option<Dialect>) -> Result<Cow<'a, str>, InputError> {
        if self.0.is_empty() || input.trim().is_empty() {
            return Ok(Cow::Borrowed(input));
        }
        // Not JSON: the parse after this says so, with its position.
        let Ok(mut value) = serde_json::from_str::<Value>(input) else { return Ok(Cow::Borrowed(input)) };
        let mut changed = false;
        let lowered = dialect.map(super::dialect::rules).filter(|rules| !rules.full_json_schema);
        for adaptation in &self.0 {
            let applies = match (&adaptation.kind, adaptation.only) {
                (_, Some(only)) => lowered.is_some_and(only),
                (Kind::Json, None) => lowered.is_some(),
                _ => true,
            };
            if !applies {
                continue;
            }
            let mut at = Vec::new();
            rewrite(&mut value, &adaptation.path, &adaptation.kind, &mut at, &mut changed)?;
        }
        Ok(if changed { Cow::Owned(value.to_string()) } else { Cow::Borrowed(input) })
    }
}

/// Applies `kind` at every node `path` reaches from `value`.
fn rewrite(
    value: &mut Value,
    path: &[Step],
    kind: &Kind,
    at: &mut Vec<String>,
    changed: &mut bool,
) -> Result<(), InputError> {
    let Some((step, rest)) = path.split_first() else {
        return adapt(value, kind, at, changed);
    };
    match (step, value) {
        (Step::Field(name), Value::Object(map)) => {
            if let Some(next) = map.get_mut(name) {
                at.push(name.clone());
                rewrite(next, rest, kind, at, changed)?;
                at.pop();
            }
        }
        (Step::Items, Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                at.push(format!("[{i}]"));
                rewrite(item, rest, kind, at, changed)?;
                at.pop();
            }
        }
        (Step::Values, Value::Object(map)) => {
            for (key, item) in map.iter_mut() {
                at.push(format!("[{key:?}]"));
                rewrite(item, rest, kind, at, changed)?;
                at.pop();
            }
        }
        (Step::Index(i), Value::Array(items)) => {
            if let Some(item) = items.get_mut(*i) {
                at.push(format!("[{i}]"));
                rewrite(item, rest, kind, at, changed)?;
                at.pop();
            }
        }
        // Not the shape the step expects: the validator will say what is wrong.
        _ => {}
    }
    Ok(())
}

fn adapt(value: &mut Value, kind: &Kind, at: &[String], changed: &mut bool) -> Result<(), InputError> {
    match kind {
        Kind::DropNulls(keys) => {
            if let Value::Object(map) = value {
                let before = map.len();
                map.retain(|key, v| !(v.is_null() && keys.contains(key)));
                *changed |= map.len() != before;
            }
        }
        &Kind::Tuple(n) => {
            if let Value::Object(map) = value
                && map.len() == n
                && (0..n).all(|i| map.contains_key(&tuple_key(i)))
            {
                let items = (0..n).map(|i| map.remove(&tuple_key(i)).unwrap_or(Value::Null)).collect();
                *value = Value::Array(items);
                *changed = true;
            }
        }
        Kind::Extra => {
            if let Value::Object(map) = value
                && let Some(extra) = map.get(EXTRA_KEY)
                && (extra.is_null() || extra.as_array().is_some_and(|e| e.iter().all(is_entry)))
            {
                if let Some(Value::Array(entries)) = map.shift_remove(EXTRA_KEY) {
                    for entry in entries {
                        if let Value::Object(mut entry) = entry
                            && let Some(Value::String(key)) = entry.remove(MAP_KEY)
                        {
                            map.entry(key).or_insert(entry.remove(MAP_VALUE).unwrap_or(Value::Null));
                        }
                    }
                }
                *changed = true;
            }
        }
        Kind::Map => {
            if let Value::Array(entries) = value
                && entries.iter().all(is_entry)
            {
                let mut map = Map::new();
                for entry in std::mem::take(entries) {
                    if let Value::Object(mut entry) = entry
                        && let Some(Value::String(key)) = entry.remove(MAP_KEY)
                    {
                        map.insert(key, entry.remove(MAP_VALUE).unwrap_or(Value::Null));
                    }
                }
                *value = Value::Object(map);
                *changed = true;
            }
        }
        Kind::Json => {
            if let Value::String(text) = value {
                let parsed = serde_json::from_str::<Value>(text).map_err(|e| InputError::Data {
                    path: path_text(at),
                    message: format!(
                        "expected JSON text (the value encoded as a string), got `{}`: {}",
                        clip(text, 60),
                        toolwright_contracts::__internal::strip_position(&e)
                    ),
                })?;
                *value = parsed;
                *changed = true;
            }
        }
    }
    Ok(())
}

/// At most `limit` characters of `text`, with `…` when cut.
fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn is_entry(value: &Value) -> bool {
    value.as_object().is_some_and(|entry| {
        entry.len() == 2 && entry.get(MAP_KEY).is_some_and(Value::is_string) && entry.contains_key(MAP_VALUE)
    })
}

fn path_text(at: &[String]) -> String {
    let mut out = String::new();
    for segment in at {
        if !out.is_empty() && !segment.starts_with('[') {
            out.push('.');
        }
        out.push_str(segment);
    }
    out
}

struct Planner<'s> {
    defs: Option<&'s Map<String, Value>>,
    /// `$defs` being walked: a recursive type is not walked again (the dialects that
    /// adapt refuse recursion, or keep it only where nothing inside needs adapting).
    expanding: HashSet<String>,
    out: Vec<Adaptation>,
    /// Objects' properties the node is below, as `lower` counts for OpenAI strict.
    depth: usize,
    /// Schemas walked: bounded as `lower` bounds them (a schema past that is not
    /// rendered, so its plan is never used).
    nodes: usize,
}

impl<'s> Planner<'s> {
    fn node(&mut self, schema: &'s Value, path: &mut Vec<Step>, root: bool) {
        self.nodes += 1;
        if self.nodes > lower::MAX_NODES {
            return;
        }
        let map = match schema {
            Value::Bool(true) => return self.push(path, Kind::Json),
            // What `lower` takes for any value: no typing keyword (a description alone).
            Value::Object(map) if !root && lower::takes_any_value(map) => return self.push(path, Kind::Json),
            Value::Object(map) => map,
            _ => return,
        };
        // Past OpenAI strict's nesting limit `lower` sends objects as JSON text.
        if lower::is_object(map) && self.depth > super::dialect::STRICT_MAX_DEPTH {
            // Below this, OpenAI strict's model wrote plain JSON inside the text.
            self.out.push(Adaptation {
                path: path.clone(),
                kind: Kind::Json,
                only: Some(|rules| rules.limits.is_some()),
            });
            return;
        }
        if let Some(target) = map.get("$ref").and_then(Value::as_str) {
            let name = target.strip_prefix("#/$defs/").unwrap_or(target);
            if target != "#"
                && let Some(def) = self.defs.and_then(|d| d.get(name))
                && self.expanding.insert(name.to_owned())
            {
                self.node(def, path, false);
                self.expanding.remove(name);
            } else {
                // A recursive type: where the dialect has no `$ref`, the inner copy
                // is JSON text (see `lower`).
                self.out.push(Adaptation {
                    path: path.clone(),
                    kind: Kind::Json,
                    only: Some(|rules| !rules.references),
                });
            }
        }
        for key in ["anyOf", "oneOf"] {
            // At the root every dialect merges a union's object variants into one
            // object (see `lower`); OpenAI strict then sends `null` for the fields
            // of the variants not chosen.
            if root && let Some(members) = map.get(key).and_then(Value::as_array) {
                let own: Vec<&String> =
                    map.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k).collect();
                let mut keys: Vec<String> = Vec::new();
                for member in members {
                    for name in self
                        .resolved(member)
                        .get("properties")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .map(|(k, _)| k)
                    {
                        if !own.contains(&name) && !keys.contains(name) {
                            keys.push(name.clone());
                        }
                    }
                }
                if !keys.is_empty() {
                    self.out.push(Adaptation {
                        path: path.clone(),
                        kind: Kind::DropNulls(keys),
                        only: Some(|rules| rules.objects == Objects::ClosedAllRequired),
                    });
                }
            }
            if let Some(members) = map.get(key).and_then(Value::as_array) {
                if self.mixed(members) {
                    // Gemini's subset says such a union as JSON text (see `lower`).
                    self.out.push(Adaptation {
                        path: path.clone(),
                        kind: Kind::Json,
                        only: Some(|rules| !rules.unions),
                    });
                } else {
                    // Merged for Gemini: a field the variants shape differently is JSON text.
                    for name in self.conflicting_fields(members) {
                        let mut at = path.clone();
                        at.push(Step::Field(name));
                        self.out.push(Adaptation { path: at, kind: Kind::Json, only: Some(|rules| !rules.unions) });
                    }
                }
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for member in map.get(key).and_then(Value::as_array).into_iter().flatten() {
                self.node(member, path, false);
            }
        }
        self.depth += 1;
        for (name, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
            path.push(Step::Field(name.clone()));
            self.node(sub, path, false);
            path.pop();
        }
        self.depth -= 1;
        if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
            self.push(path, Kind::Tuple(prefix.len()));
            for (i, sub) in prefix.iter().enumerate() {
                path.push(Step::Index(i));
                self.node(sub, path, false);
                path.pop();
            }
        }
        if let Some(items) = map.get("items") {
            path.push(Step::Items);
            self.node(items, path, false);
            path.pop();
        }
        // A map with free keys (and no declared ones: those stay an object).
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) | None => {}
            Some(values) if !map.contains_key("properties") => {
                self.push(path, Kind::Map);
                path.push(Step::Values);
                self.node(values, path, false);
                path.pop();
            }
            // Declared fields as well: the free ones came under EXTRA_KEY (their
            // values, if they need adapting themselves, are taken as they come).
            Some(_) => self.push(path, Kind::Extra),
        }
    }

    fn push(&mut self, path: &[Step], kind: Kind) {
        self.out.push(Adaptation { path: path.to_vec(), kind, only: None });
    }

    /// Whether a union's members (nulls aside) are of different kinds: neither all
    /// string constants nor all objects.
    fn mixed(&self, members: &[Value]) -> bool {
        let kinds: Vec<&str> = members
            .iter()
            .map(|m| self.resolved(m))
            .map(|m| {
                let ty = m.get("type").and_then(Value::as_str);
                if ty == Some("null") {
                    "null"
                } else if ty == Some("string") && (m.get("enum").is_some() || m.get("const").is_some()) {
                    "constant"
                } else if ty == Some("object") || m.get("properties").is_some() {
                    "object"
                } else {
                    "other"
                }
            })
            .filter(|k| *k != "null")
            .collect();
        kinds.len() > 1 && !(kinds.iter().all(|k| *k == "constant") || kinds.iter().all(|k| *k == "object"))
    }

    /// The fields that object variants give different shapes.
    fn conflicting_fields(&self, members: &[Value]) -> Vec<String> {
        let mut shapes: std::collections::BTreeMap<&String, Vec<String>> = std::collections::BTreeMap::new();
        for member in members {
            for (name, schema) in
                self.resolved(member).get("properties").and_then(Value::as_object).into_iter().flatten()
            {
                let key = shape_key(self.resolved(schema));
                let seen = shapes.entry(name).or_default();
                if !seen.contains(&key) {
                    seen.push(key);
                }
            }
        }
        shapes.into_iter().filter(|(_, s)| s.len() > 1).map(|(name, _)| name.clone()).collect()
    }

    /// `schema`, or the definition its `$ref` points to.
    fn resolved<'v>(&self, schema: &'v Value) -> &'v Value
    where
        's: 'v,
    {
        schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|t| t.strip_prefix("#/$defs/"))
            .and_then(|name| self.defs.and_then(|d| d.get(name)))
            .unwrap_or(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(schema: Value) -> Plan {
        Plan::of(&schema)
    }

    #[test]
    fn a_plain_schema_has_nothing_to_adapt_and_input_is_untouched() {
        let p = plan(json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}));
        assert!(p.is_empty());
        assert!(matches!(p.apply(r#"{"a":["x"]}"#, Some(Dialect::OpenAiStrict)).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn a_documented_free_value_is_read_back_like_a_bare_one() {
        // `/// Anything.` on a serde_json::Value field: only a description.
        let p = plan(json!({"type": "object", "properties": {"payload": {"description": "Anything."}}}));
        let back = p.apply(r#"{"payload":"[1,2]"}"#, Some(Dialect::OpenAiStrict)).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&back).unwrap(), json!({"payload": [1, 2]}));
    }

    #[test]
    fn a_root_union_drops_the_nulls_openai_strict_sends_for_other_variants() {
        let p = plan(json!({
            "type": "object",
            "properties": {"name": {"type": ["string", "null"]}},
            "oneOf": [
                {"type": "object", "properties": {"mode": {"const": "a"}, "x": {"type": "integer"}}},
                {"type": "object", "properties": {"mode": {"const": "b"}, "y": {"type": "string"}}}
            ]
        }));
        let sent = r#"{"name":null,"mode":"a","x":1,"y":null}"#;
        let back = p.apply(sent, Some(Dialect::OpenAiStrict)).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&back).unwrap(), json!({"name": null, "mode": "a", "x": 1}));
        assert_eq!(p.apply(sent, Some(Dialect::AnthropicStrict)).unwrap(), sent, "only OpenAI strict sends them");
    }

    #[test]
    fn tuples_maps_and_json_text_come_back_to_the_plain_shape() {
        let p = plan(json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "payload": true,
                "points": {"type": "object", "additionalProperties": {"type": "array", "prefixItems": [{}, {}]}}
            }
        }));
        let lowered = json!({
            "pair": {"_0": 1, "_1": "a"},
            "env": [{"key": "A", "value": "1"}, {"key": "B", "value": "2"}],
            "payload": "{\"x\":[1,2]}",
            "points": [{"key": "p", "value": {"_0": "[1]", "_1": "null"}}]
        });
        let strict = Some(Dialect::OpenAiStrict);
        let plain: Value = serde_json::from_str(&p.apply(&lowered.to_string(), strict).unwrap()).unwrap();
        assert_eq!(
            plain,
            json!({"pair": [1, "a"], "env": {"A": "1", "B": "2"}, "payload": {"x": [1, 2]}, "points": {"p": [[1], null]}})
        );
        // The plain shape passes through unchanged; JSON text only when asked for.
        let already = json!({"pair": [1, "a"], "env": {"A": "1"}, "payload": "text"}).to_string();
        assert_eq!(p.apply(&already, None).unwrap(), already);
        let e = p.apply(r#"{"payload": "not json"}"#, strict).unwrap_err();
        assert!(e.to_string().starts_with("payload: expected JSON text"), "{e}");
    }
}
