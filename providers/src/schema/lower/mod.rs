//! Lowering a draft 2020-12 schema into what one provider family accepts: one walk
//! over the schema that reads the dialect's [`Rules`](super::dialect::Rules) (see
//! `schema/dialect/` for each family's rules). What a dialect cannot express is an
//! error naming the field, never a silent change of meaning.

mod object;
mod shape;
mod union;

use super::dialect::{Dialect, Rules};
use serde_json::{Map, Value, json};
use shape::*;
pub(crate) use shape::{is_object, takes_any_value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LowerError {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// Lowers `schema` (a root schema with optional `$defs`) into `dialect`.
pub(crate) fn lower(schema: &Value, dialect: Dialect) -> Result<Value, LowerError> {
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut lowerer = Lowerer {
        root: schema,
        defs: &defs,
        rules: super::dialect::rules(dialect),
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
    rules: &'static Rules,
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

    /// Adds to the characters OpenAI strict mode counts, refusing past its limit.
    fn count_string(&mut self, chars: usize) -> Result<(), LowerError> {
        self.string_length += chars;
        if let Some(limits) = &self.rules.limits
            && self.string_length > limits.total_string
        {
            return self.fail(format!(
                "the schema's property names and enum values have more than {} characters in all, the most {} accepts",
                limits.total_string, self.rules.name
            ));
        }
        Ok(())
    }

    fn provider_words(&self) -> &'static str {
        self.rules.name
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
        if self.rules.full_json_schema {
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
            if !self.rules.references {
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
}

#[cfg(test)]
mod tests;
