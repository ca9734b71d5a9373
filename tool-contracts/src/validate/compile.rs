//! A schema compiled into nodes: the types, bounds and keywords each checks, and
//! the compiler that builds them, `$ref`s once each.

use super::format;
use super::json::Json;
use serde_json::Value;
use std::collections::HashMap;

/// The JSON types a schema allows, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Types(pub(crate) u8);

impl Types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 2;
    pub(crate) const INTEGER: u8 = 4;
    pub(crate) const NUMBER: u8 = 8;
    pub(crate) const STRING: u8 = 16;
    pub(crate) const ARRAY: u8 = 32;
    pub(crate) const OBJECT: u8 = 64;

    pub(crate) fn of_name(name: &str) -> u8 {
        match name {
            "null" => Self::NULL,
            "boolean" => Self::BOOLEAN,
            "integer" => Self::INTEGER,
            "number" => Self::NUMBER,
            "string" => Self::STRING,
            "array" => Self::ARRAY,
            "object" => Self::OBJECT,
            _ => 0,
        }
    }

    pub(crate) fn any(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    pub(crate) fn allows(self, value: &Json<'_>) -> bool {
        self.any()
            || match value {
                Json::Null => self.has(Self::NULL),
                Json::Bool(_) => self.has(Self::BOOLEAN),
                Json::Number(n) => self.has(Self::NUMBER) || (self.has(Self::INTEGER) && n.is_integer()),
                Json::String(_) => self.has(Self::STRING),
                Json::Array(_) => self.has(Self::ARRAY),
                Json::Object(_) => self.has(Self::OBJECT),
            }
    }
}

/// A numeric bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bound {
    pub(crate) value: f64,
    pub(crate) exclusive: bool,
}

/// What an object allows beyond its named properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Additional {
    #[default]
    Any,
    None,
    Schema(usize),
}

/// One compiled schema.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// `false`: nothing is accepted.
    pub(crate) never: bool,
    pub(crate) types: Types,
    /// An integer `format` (`uint8`): its range, checked as serde would.
    pub(crate) integer_range: Option<(f64, f64)>,
    pub(crate) minimum: Option<Bound>,
    pub(crate) maximum: Option<Bound>,
    pub(crate) multiple_of: Option<f64>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<(String, regex::Regex)>,
    pub(crate) format: Option<format::Format>,
    pub(crate) enumeration: Option<Vec<Value>>,
    pub(crate) constant: Option<Value>,
    pub(crate) items: Option<usize>,
    /// `items: false` after `prefixItems`: nothing past them.
    pub(crate) no_more_items: bool,
    pub(crate) prefix_items: Vec<usize>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) unique_items: bool,
    pub(crate) properties: Vec<(String, usize)>,
    /// Each required name, with its place among `properties` if it is one.
    pub(crate) required: Vec<(String, Option<usize>)>,
    pub(crate) additional: Additional,
    pub(crate) min_properties: Option<u64>,
    pub(crate) max_properties: Option<u64>,
    pub(crate) any_of: Vec<usize>,
    pub(crate) one_of: Vec<usize>,
    pub(crate) all_of: Vec<usize>,
    pub(crate) reference: Option<usize>,
}

impl Node {
    /// Whether this node (not its children) adds a check serde does not make.
    pub(crate) fn constrains(&self, below_root: bool) -> bool {
        self.never
            || self.minimum.is_some()
            || self.maximum.is_some()
            || self.multiple_of.is_some()
            || self.min_length.is_some()
            || self.max_length.is_some()
            || self.pattern.is_some()
            || self.format.is_some()
            || self.enumeration.is_some()
            || self.constant.is_some()
            || self.min_items.is_some()
            || self.max_items.is_some()
            || self.unique_items
            || self.min_properties.is_some()
            || self.max_properties.is_some()
            // A derived struct below the root takes an array by position.
            || (below_root && self.types.has(Types::OBJECT))
    }
}

/// Compiles schemas into nodes, `$ref`s once each (recursion allowed).
pub(crate) struct Compiler<'s> {
    pub(crate) root: &'s Value,
    pub(crate) nodes: Vec<Node>,
    pub(crate) refs: HashMap<String, usize>,
}

impl<'s> Compiler<'s> {
    pub(crate) fn compile(&mut self, schema: &'s Value) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        let map = match schema {
            Value::Bool(accepts) => {
                self.nodes[id].never = !accepts;
                return id;
            }
            Value::Object(map) => map,
            // Not a schema: accept anything rather than refuse every call.
            _ => return id,
        };
        let mut node = Node::default();
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            node.reference = self.reference(reference);
        }
        match map.get("type") {
            Some(Value::String(name)) => node.types = Types(Types::of_name(name)),
            Some(Value::Array(names)) => {
                node.types = Types(names.iter().filter_map(Value::as_str).map(Types::of_name).fold(0, |a, b| a | b));
            }
            _ => {}
        }
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        let count = |key: &str| map.get(key).and_then(Value::as_u64);
        let format = map.get("format").and_then(Value::as_str);
        node.integer_range = format.and_then(format::integer_range);
        node.format = format.and_then(format::Format::of_name);
        // The bounds a Rust integer type implies are serde's to check already.
        let implied = |bound: f64, at: usize| node.integer_range.is_some_and(|range| [range.0, range.1][at] == bound);
        node.minimum = match (number("minimum"), number("exclusiveMinimum")) {
            (_, Some(value)) => Some(Bound { value, exclusive: true }),
            (Some(value), None) if !implied(value, 0) => Some(Bound { value, exclusive: false }),
            _ => None,
        };
        node.maximum = match (number("maximum"), number("exclusiveMaximum")) {
            (_, Some(value)) => Some(Bound { value, exclusive: true }),
            (Some(value), None) if !implied(value, 1) => Some(Bound { value, exclusive: false }),
            _ => None,
        };
        node.multiple_of = number("multipleOf").filter(|m| *m > 0.0);
        node.min_length = count("minLength").filter(|n| *n > 0);
        node.max_length = count("maxLength");
        if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
            match regex::Regex::new(pattern) {
                Ok(compiled) => node.pattern = Some((pattern.to_owned(), compiled)),
                Err(e) => tracing::warn!("the schema's pattern `{pattern}` is not checked: {e}"),
            }
        }
        node.enumeration = map.get("enum").and_then(Value::as_array).cloned();
        node.constant = map.get("const").cloned();
        match map.get("items") {
            Some(Value::Bool(false)) => node.no_more_items = true,
            Some(items @ (Value::Object(_) | Value::Bool(true))) => node.items = Some(self.compile(items)),
            // Draft 7 tuples: `items` as an array.
            Some(Value::Array(tuple)) => {
                node.prefix_items = tuple.iter().map(|item| self.compile(item)).collect();
                node.no_more_items = map.get("additionalItems") == Some(&Value::Bool(false));
            }
            _ => {}
        }
        if let Some(tuple) = map.get("prefixItems").and_then(Value::as_array) {
            node.prefix_items = tuple.iter().map(|item| self.compile(item)).collect();
        }
        node.min_items = count("minItems").filter(|n| *n > 0);
        node.max_items = count("maxItems");
        node.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            node.properties = properties.iter().map(|(name, schema)| (name.clone(), self.compile(schema))).collect();
        }
        node.required = map
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|name| (name.to_owned(), node.properties.iter().position(|(p, _)| p == name)))
            .collect();
        node.additional = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::None,
            Some(schema @ Value::Object(_)) => Additional::Schema(self.compile(schema)),
            _ => Additional::Any,
        };
        node.min_properties = count("minProperties").filter(|n| *n > 0);
        node.max_properties = count("maxProperties");
        let branches = |compiler: &mut Self, key: &str| -> Vec<usize> {
            map.get(key).and_then(Value::as_array).into_iter().flatten().map(|b| compiler.compile(b)).collect()
        };
        node.any_of = branches(self, "anyOf");
        node.one_of = branches(self, "oneOf");
        node.all_of = branches(self, "allOf");
        self.nodes[id] = node;
        id
    }

    /// The node of a local `$ref` (`#`, `#/$defs/Name`, `#/definitions/Name`, or any
    /// JSON pointer into the root), compiled once.
    pub(crate) fn reference(&mut self, reference: &str) -> Option<usize> {
        if let Some(&id) = self.refs.get(reference) {
            return Some(id);
        }
        let pointer = reference.strip_prefix('#')?;
        let target = if pointer.is_empty() { self.root } else { self.root.pointer(pointer)? };
        // Reserve the place first: a recursive type refers to itself.
        let placeholder = self.nodes.len();
        self.nodes.push(Node::default());
        self.refs.insert(reference.to_owned(), placeholder);
        let compiled = self.compile(target);
        self.nodes[placeholder].reference = Some(compiled);
        Some(placeholder)
    }
}
