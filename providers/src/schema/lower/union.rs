//! Shapes a subset cannot say, said another way: tuples and free-key maps as
//! objects, and a union's variants merged into one object.

use super::shape::*;
use super::{LowerError, Lowerer};
use crate::schema::adapt;
use serde_json::{Map, Value, json};

impl Lowerer<'_> {
    /// A tuple as an object with `_0`, `_1`, ...; a map with free keys as a list of
    /// `{key, value}` objects: shapes every dialect can say, turned back by
    /// [`adapt`](super::adapt) before the parse. `None` when `map` needs neither.
    pub(super) fn adapted_shape(&self, map: &Map<String, Value>) -> Result<Option<Map<String, Value>>, LowerError> {
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
    pub(super) fn merge_union(
        &self,
        out: &mut Map<String, Value>,
        members: Vec<Value>,
    ) -> Result<Option<String>, LowerError> {
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
            let field = if !self.rules.unions {
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
}
