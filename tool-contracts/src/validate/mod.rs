//! A tool's input checked against the tool's own JSON schema: the schema the model is
//! shown is the one the input is held to.
//!
//! serde checks the types of a derived struct, but not what the schema adds: numeric
//! bounds, string lengths, patterns and formats, item counts, enums and consts. Nor does
//! it refuse a JSON array where the schema says object (a derived struct takes its
//! fields by position). A [`Validator`] is compiled once per tool from its schema; a
//! schema with none of those constraints costs one look at the input's first byte, and
//! one with them costs a walk over the input, borrowed, after serde's parse.
//!
//! On any failure, the walk also explains it in JSON terms: the field path (through
//! maps, tuples and enums of every tagging), what was expected ("an integer from 1 to
//! 20", "one of `fast`, `careful`"), what was received (clipped), and a hint where one
//! helps.
//!
//! ```
//! use toolwright_core::validate::Validator;
//! let schema = serde_json::json!({
//!     "type": "object",
//!     "properties": {"depth": {"type": "integer", "minimum": 1, "maximum": 20}},
//!     "additionalProperties": false
//! });
//! let validator = Validator::new(&schema);
//! assert!(validator.check(br#"{"depth": 3}"#).is_ok());
//! let err = validator.check(br#"{"depth": 100}"#).unwrap_err();
//! assert_eq!(err.to_string(), "depth: expected an integer from 1 to 20, got 100");
//! ```
//!
//! Why not the `jsonschema` crate: it validates a `serde_json::Value`, so every call
//! would be parsed twice into owned trees, its error messages are not the ones above,
//! and it brings a dozen crates; the subset here is what `schemars` emits and what the
//! providers accept (types, `properties`/`required`/`additionalProperties`, `items` and
//! `prefixItems`, `$ref` into `$defs`, `anyOf`/`oneOf`/`allOf`, the numeric, length,
//! count, `pattern`, `format`, `enum` and `const` keywords). Anything else in a schema
//! is not checked.

mod compile;
mod describe;
pub(crate) mod format;
pub(crate) mod json;

use crate::error::InputError;
use compile::{Additional, Bound, Compiler, Node, Types};
use json::{Json, Number};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;

/// How much of a received value a message quotes.
const RECEIVED_LIMIT: usize = 200;

/// A tool's input schema, compiled for checking input. See the module docs.
#[derive(Debug)]
pub struct Validator {
    nodes: Vec<Node>,
    root: usize,
    /// Whether the schema has a constraint serde does not check: only then is a parsed
    /// input walked.
    walk: bool,
    /// Whether the root is an object (an array there is refused before parsing).
    root_object: bool,
}

/// Where a value is, built only when a message needs it.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a Seg<'a>, &'a str),
    Index(&'a Seg<'a>, usize),
}

impl Seg<'_> {
    fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Seg::Root => {}
            Seg::Key(parent, key) => {
                parent.render_into(out);
                push_key(out, key);
            }
            Seg::Index(parent, index) => {
                parent.render_into(out);
                out.push_str(&format!("[{index}]"));
            }
        }
    }

    fn depth(&self) -> usize {
        match self {
            Seg::Root => 0,
            Seg::Key(parent, _) | Seg::Index(parent, _) => parent.depth() + 1,
        }
    }
}

/// `key` appended to a dotted path: `a.b`, or `a["odd key"]` for a key that is not a
/// plain name.
pub(crate) fn push_key(out: &mut String, key: &str) {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    } else {
        out.push('[');
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
        out.push(']');
    }
}

/// A failed check: where, what, and whether it is a tag mismatch (in a tagged enum,
/// the sign of a branch the model did not mean).
#[derive(Debug)]
struct Violation {
    path: String,
    depth: usize,
    /// A `const` or `enum` mismatch: in a tagged enum, the sign of the wrong branch.
    tag_mismatch: bool,
    message: String,
}

impl Violation {
    fn into_error(self) -> InputError {
        InputError::Data { path: self.path, message: self.message }
    }
}

impl Validator {
    /// Compiles `schema` (draft 2020-12, as `schemars` emits it; `$ref`s into `$defs` or
    /// `definitions`). A `pattern` the regex engine cannot compile is not checked (and
    /// logged).
    pub fn new(schema: &Value) -> Validator {
        let mut compiler = Compiler { root: schema, nodes: Vec::new(), refs: HashMap::new() };
        let root = compiler.compile(schema);
        let nodes = compiler.nodes;
        let walk = needs_walk(&nodes, root);
        let mut validator = Validator { nodes, root, walk, root_object: false };
        validator.root_object = validator.resolved(root).types == Types(Types::OBJECT);
        validator
    }

    /// Whether the schema has constraints beyond the types serde checks: only then is
    /// a successfully parsed input walked.
    pub fn has_constraints(&self) -> bool {
        self.walk
    }

    /// Parses `raw` into `T` and holds it to the schema. Empty input (or `null`) counts
    /// as `{}`.
    ///
    /// Only the last step is generic: every `#[tool]` instantiates it, so it is one
    /// `serde_json::from_slice::<T>` (a constrained input is walked first, as a
    /// borrowed tree, then parsed again into `T`). Building `T` from the tree instead
    /// ([`parse_walked`](Self::parse_walked)) instantiates a second deserializer per
    /// tool: about half of a plain tool crate's generated code.
    pub fn parse<T: DeserializeOwned>(&self, raw: &[u8]) -> Result<T, InputError> {
        let raw = self.admit(raw)?;
        // A `match`, not `map_err`: a closure here is one more function per tool.
        match serde_json::from_slice::<T>(raw) {
            Ok(parsed) => Ok(parsed),
            Err(err) => Err(self.typed_error(raw, &err)),
        }
    }

    /// [`parse`](Self::parse), but a constrained input is built into `T` from the
    /// tree the walk read, without reading the text again (what `#[tool]` uses for a
    /// struct whose fields carry `#[schemars(..)]` constraints: faster per call, at
    /// the price of a second deserializer in the tool's code).
    pub fn parse_walked<T: DeserializeOwned>(&self, raw: &[u8]) -> Result<T, InputError> {
        if !self.walk {
            return self.parse(raw);
        }
        let raw = self.object_if_wanted(raw)?;
        let value = self.walked(raw)?;
        // A type serde_json alone can build (a `RawValue` field) is parsed from the text.
        T::deserialize(&value).or_else(|_| serde_json::from_slice::<T>(raw).map_err(|err| self.typed_error(raw, &err)))
    }

    /// The input as it will be parsed, once it is an object where the schema wants
    /// one and, with constraints, it holds to them.
    fn admit<'r>(&self, raw: &'r [u8]) -> Result<&'r [u8], InputError> {
        let raw = self.object_if_wanted(raw)?;
        if self.walk {
            self.walked(raw)?;
        }
        Ok(raw)
    }

    /// `raw` as a borrowed tree, held to the schema's constraints.
    fn walked<'r>(&self, raw: &'r [u8]) -> Result<Json<'r>, InputError> {
        let value: Json<'_> = serde_json::from_slice(raw).map_err(|err| syntax(raw, &err))?;
        self.visit(self.root, &value, &Seg::Root).map_err(Violation::into_error)?;
        Ok(value)
    }

    /// `raw`, with empty input as `{}`, unless the schema wants an object and it is
    /// something else: a derived struct takes an array by position.
    fn object_if_wanted<'r>(&self, raw: &'r [u8]) -> Result<&'r [u8], InputError> {
        let raw = empty_as_object(raw);
        if self.root_object && raw.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(self.explain(raw, None));
        }
        Ok(raw)
    }

    fn typed_error(&self, raw: &[u8], err: &serde_json::Error) -> InputError {
        if err.is_syntax() || err.is_eof() { syntax(raw, err) } else { self.explain(raw, Some(err)) }
    }

    /// `raw` without the `null`s that mean "absent": the value of a property the
    /// schema does not require and whose own schema refuses null. A strict rendering
    /// (OpenAI's) requires every property and offers null for the optional ones, so a
    /// model that leaves out a defaulted field sends null for it; read as absent, the
    /// field takes its default. Objects inside are treated the same. `raw` itself when
    /// there is nothing to remove.
    pub fn without_absent_nulls<'r>(&self, raw: &'r [u8]) -> std::borrow::Cow<'r, [u8]> {
        use std::borrow::Cow;
        if memchr::memmem::find(raw, b"null").is_none() {
            return Cow::Borrowed(raw);
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(raw) else { return Cow::Borrowed(raw) };
        match self.drop_absent_nulls(self.root, &mut value, 0) {
            true => Cow::Owned(value.to_string().into_bytes()),
            false => Cow::Borrowed(raw),
        }
    }

    /// Whether node `id` accepts null (through a reference or a union too).
    fn accepts_null(&self, id: usize, depth: usize) -> bool {
        let node = &self.nodes[id];
        if depth > 32 {
            return true;
        }
        if let Some(target) = node.reference {
            return self.accepts_null(target, depth + 1);
        }
        if !node.any_of.is_empty() || !node.one_of.is_empty() {
            return node.any_of.iter().chain(&node.one_of).any(|&m| self.accepts_null(m, depth + 1));
        }
        (node.types.any() || node.types.has(Types::NULL))
            && node.enumeration.as_ref().is_none_or(|e| e.iter().any(Value::is_null))
            && node.constant.as_ref().is_none_or(Value::is_null)
    }

    fn drop_absent_nulls(&self, id: usize, value: &mut Value, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        let node = &self.nodes[id];
        if let Some(target) = node.reference {
            return self.drop_absent_nulls(target, value, depth + 1);
        }
        match value {
            Value::Object(map) => {
                // The objects this value may be: the node's own properties, or the
                // members of its union or `allOf` that declare some (an optional
                // nested object, a tagged enum's variants).
                let shapes = self.object_shapes(id, 0);
                if shapes.is_empty() {
                    return false;
                }
                let mut changed = false;
                let mut absent = Vec::new();
                for (key, field) in map.iter_mut() {
                    // A null is "absent" only where no shape requires the key or takes
                    // null for it, and some shape has it as an optional field.
                    let props: Vec<(usize, bool)> = shapes
                        .iter()
                        .filter_map(|&s| {
                            let shape = &self.nodes[s];
                            let prop = shape.properties.iter().find(|(name, _)| name == key)?.1;
                            Some((prop, shape.required.iter().any(|(name, _)| name == key)))
                        })
                        .collect();
                    if field.is_null() {
                        if !props.is_empty()
                            && props.iter().all(|&(prop, required)| !required && !self.accepts_null(prop, 0))
                        {
                            absent.push(key.clone());
                        }
                        continue;
                    }
                    for (prop, _) in props {
                        changed |= self.drop_absent_nulls(prop, field, depth + 1);
                    }
                    // A map's values: each under the schema of the other fields.
                    if !shapes.iter().any(|&s| self.nodes[s].properties.iter().any(|(n, _)| n == key)) {
                        for &s in &shapes {
                            if let Additional::Schema(values) = self.nodes[s].additional {
                                changed |= self.drop_absent_nulls(values, field, depth + 1);
                            }
                        }
                    }
                }
                for key in absent {
                    map.shift_remove(&key);
                    changed = true;
                }
                changed
            }
            Value::Array(items) => {
                let mut changed = false;
                for (i, element) in items.iter_mut().enumerate() {
                    let schema = node.prefix_items.get(i).copied().or(node.items);
                    if let Some(schema) = schema {
                        changed |= self.drop_absent_nulls(schema, element, depth + 1);
                    }
                }
                changed
            }
            _ => false,
        }
    }

    /// The nodes that give an object value its fields: `id` itself when it declares
    /// properties or free keys, and the members of its unions and `allOf`, through
    /// references.
    fn object_shapes(&self, id: usize, depth: usize) -> Vec<usize> {
        if depth > 32 {
            return Vec::new();
        }
        let node = &self.nodes[id];
        if let Some(target) = node.reference {
            return self.object_shapes(target, depth + 1);
        }
        let mut shapes = Vec::new();
        if !node.properties.is_empty() || matches!(node.additional, Additional::Schema(_)) {
            shapes.push(id);
        }
        for &member in node.any_of.iter().chain(&node.one_of).chain(&node.all_of) {
            shapes.extend(self.object_shapes(member, depth + 1));
        }
        shapes
    }

    /// Holds `raw` to the schema, without parsing it into a type (for a tool that
    /// takes its input as JSON). Empty input counts as `{}`.
    pub fn check(&self, raw: &[u8]) -> Result<(), InputError> {
        self.walked(empty_as_object(raw)).map(drop)
    }

    /// Why `raw` does not fit: the walk's first violation, or serde's own message
    /// where the walk finds nothing (a type with its own `Deserialize`).
    #[cold]
    fn explain(&self, raw: &[u8], serde_error: Option<&serde_json::Error>) -> InputError {
        match self.check(raw) {
            Err(err) => err,
            Ok(()) => match serde_error {
                Some(err) => InputError::Data { path: String::new(), message: crate::input::strip_position(err) },
                None => InputError::Data { path: String::new(), message: "the input does not fit the schema".into() },
            },
        }
    }

    fn visit(&self, id: usize, value: &Json<'_>, at: &Seg<'_>) -> Result<(), Violation> {
        let node = &self.nodes[id];
        if let Some(target) = node.reference {
            self.visit(target, value, at)?;
        }
        if node.never {
            return Err(self.violation(at, false, format!("no value is accepted here, got {}", received(value))));
        }
        if !node.types.allows(value) {
            let mut message = format!("expected {}, got {}", self.describe(id), typed(value));
            if let Some(hint) = describe::type_hint(node.types, value) {
                message.push_str(". ");
                message.push_str(&hint);
            }
            return Err(self.violation(at, false, message));
        }
        if let Some(allowed) = &node.enumeration
            && !allowed.iter().any(|a| value.same_as(a))
        {
            let mut message = format!("expected {}, got {}", describe::one_of(allowed), received(value));
            if let Some(hint) = describe::enum_hint(allowed, value) {
                message.push_str(". ");
                message.push_str(&hint);
            }
            return Err(self.violation(at, true, message));
        }
        if let Some(constant) = &node.constant
            && !value.same_as(constant)
        {
            let message = format!("expected exactly {}, got {}", describe::literal(constant), received(value));
            return Err(self.violation(at, true, message));
        }
        match value {
            Json::Number(n) => self.visit_number(id, node, *n, at)?,
            Json::String(s) => self.visit_string(id, node, s, at)?,
            Json::Array(items) => self.visit_array(id, node, items, at)?,
            Json::Object(fields) => self.visit_object(id, node, fields, at)?,
            Json::Null | Json::Bool(_) => {}
        }
        for &branch in &node.all_of {
            self.visit(branch, value, at)?;
        }
        if !node.any_of.is_empty() {
            self.visit_choice(id, &node.any_of, value, at, false)?;
        }
        if !node.one_of.is_empty() {
            self.visit_choice(id, &node.one_of, value, at, true)?;
        }
        Ok(())
    }

    fn visit_number(&self, id: usize, node: &Node, n: Number, at: &Seg<'_>) -> Result<(), Violation> {
        let x = n.as_f64();
        let below = |bound: Option<Bound>| bound.is_some_and(|b| if b.exclusive { x <= b.value } else { x < b.value });
        let above = |bound: Option<Bound>| bound.is_some_and(|b| if b.exclusive { x >= b.value } else { x > b.value });
        let out_of_type = node.integer_range.is_some_and(|(min, max)| x < min || x > max);
        if below(node.minimum) || above(node.maximum) || out_of_type {
            return Err(self.violation(at, false, format!("expected {}, got {n}", self.describe(id))));
        }
        if let Some(step) = node.multiple_of {
            let quotient = x / step;
            if (quotient - quotient.round()).abs() > 1e-9 {
                return Err(self.violation(at, false, format!("expected {}, got {n}", self.describe(id))));
            }
        }
        Ok(())
    }

    fn visit_string(&self, id: usize, node: &Node, s: &str, at: &Seg<'_>) -> Result<(), Violation> {
        if node.min_length.is_some() || node.max_length.is_some() {
            // JSON Schema counts characters (code points), not bytes.
            let length = s.chars().count() as u64;
            if node.min_length.is_some_and(|min| length < min) || node.max_length.is_some_and(|max| length > max) {
                let message = format!(
                    "expected {}, got {} ({length} character{})",
                    self.describe(id),
                    Json::String(s.into()).clipped(RECEIVED_LIMIT),
                    describe::plural(length)
                );
                return Err(self.violation(at, false, message));
            }
        }
        if let Some((_, pattern)) = &node.pattern
            && !pattern.is_match(s)
        {
            let message =
                format!("expected {}, got {}", self.describe(id), Json::String(s.into()).clipped(RECEIVED_LIMIT));
            return Err(self.violation(at, false, message));
        }
        if let Some(format) = node.format
            && !format.accepts(s)
        {
            let message =
                format!("expected {}, got {}", self.describe(id), Json::String(s.into()).clipped(RECEIVED_LIMIT));
            return Err(self.violation(at, false, message));
        }
        Ok(())
    }

    fn visit_array(&self, id: usize, node: &Node, items: &[Json<'_>], at: &Seg<'_>) -> Result<(), Violation> {
        let count = items.len() as u64;
        let too_few = node.min_items.is_some_and(|min| count < min);
        let too_many = node.max_items.is_some_and(|max| count > max)
            || (node.no_more_items && items.len() > node.prefix_items.len());
        if too_few || too_many {
            let message = format!(
                "expected {}, got {count} item{}: {}",
                self.describe(id),
                describe::plural(count),
                Json::clipped_items(items, RECEIVED_LIMIT)
            );
            return Err(self.violation(at, false, message));
        }
        for (i, item) in items.iter().enumerate() {
            let schema = node.prefix_items.get(i).copied().or(node.items);
            if let Some(schema) = schema {
                self.visit(schema, item, &Seg::Index(at, i))?;
            }
        }
        if node.unique_items {
            for (i, item) in items.iter().enumerate() {
                if let Some(j) = items[..i].iter().position(|earlier| earlier.equals(item)) {
                    let message = format!(
                        "expected items that are all different, got {} at [{j}] and again at [{i}]",
                        item.clipped(RECEIVED_LIMIT)
                    );
                    return Err(self.violation(at, false, message));
                }
            }
        }
        Ok(())
    }

    fn visit_object(
        &self,
        id: usize,
        node: &Node,
        fields: &[(std::borrow::Cow<'_, str>, Json<'_>)],
        at: &Seg<'_>,
    ) -> Result<(), Violation> {
        // Which properties were given, by position (for the required ones after).
        let mut given: u64 = 0;
        // Models send fields in the schema's order: the search starts after the last
        // field found, and mostly ends at its first comparison.
        let mut next = 0;
        let find = |key: &str, from: usize| {
            let n = node.properties.len();
            (0..n).map(|k| (from + k) % n).find(|&i| node.properties[i].0 == key)
        };
        for (key, value) in fields {
            let found = find(key, next);
            if let Some(i) = found {
                next = i + 1;
            }
            match found {
                Some(i) => {
                    given |= 1u64.checked_shl(i as u32).unwrap_or(0);
                    self.visit(node.properties[i].1, value, &Seg::Key(at, key))?
                }
                None => match node.additional {
                    Additional::Any => {}
                    Additional::Schema(schema) => self.visit(schema, value, &Seg::Key(at, key))?,
                    Additional::None => {
                        let names: Vec<&str> = node.properties.iter().map(|(name, _)| name.as_str()).collect();
                        let mut message = format!(
                            "unknown field `{key}`: expected {}, got {}",
                            self.describe(id),
                            Json::clipped_fields(fields, RECEIVED_LIMIT)
                        );
                        if let Some(hint) = describe::name_hint(key, &names) {
                            message.push_str(". ");
                            message.push_str(&hint);
                        }
                        return Err(self.violation(at, false, message));
                    }
                },
            }
        }
        let present = |(name, at): &(String, Option<usize>)| match at {
            Some(i) if *i < 64 => given & (1 << i) != 0,
            _ => fields.iter().any(|(key, _)| key == name.as_str()),
        };
        if let Some((missing, _)) = node.required.iter().find(|required| !present(required)) {
            let message = format!(
                "missing field `{missing}`: expected {}, got {}",
                self.describe(id),
                Json::clipped_fields(fields, RECEIVED_LIMIT)
            );
            return Err(self.violation(at, false, message));
        }
        let count = fields.len() as u64;
        if node.min_properties.is_some_and(|min| count < min) || node.max_properties.is_some_and(|max| count > max) {
            let message = format!("expected {}, got {count} field{}", self.describe(id), describe::plural(count));
            return Err(self.violation(at, false, message));
        }
        Ok(())
    }

    /// `anyOf` (at least one branch) or `oneOf` (exactly one). When none fits, the
    /// branch the model most likely meant explains: the one whose failure is deepest
    /// (and not a tag mismatch); a `null` branch never does.
    fn visit_choice(
        &self,
        id: usize,
        branches: &[usize],
        value: &Json<'_>,
        at: &Seg<'_>,
        exactly_one: bool,
    ) -> Result<(), Violation> {
        let mut fits = 0;
        let mut failures: Vec<(usize, Violation)> = Vec::new();
        for &branch in branches {
            match self.visit(branch, value, at) {
                Ok(()) => {
                    fits += 1;
                    if !exactly_one {
                        return Ok(());
                    }
                }
                Err(violation) if !self.is_null_only(branch) => failures.push((branch, violation)),
                Err(_) => {}
            }
        }
        match fits {
            1 => Ok(()),
            0 => {
                let here = at.depth();
                // A branch that took the value and failed deeper in it (not at a tag)...
                let deepest = failures
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, v))| v.depth > here && !v.tag_mismatch)
                    .max_by_key(|(i, (_, v))| (v.depth, std::cmp::Reverse(*i)))
                    .map(|(i, _)| i);
                // ...or the only branch of the value's type, failing on its own terms.
                let typed: Vec<usize> = (0..failures.len())
                    .filter(|&i| {
                        self.resolved(failures[i].0).types.allows(value) || self.resolved(failures[i].0).types.any()
                    })
                    .collect();
                let only_typed = match typed.as_slice() {
                    [i] if !failures[*i].1.tag_mismatch => Some(*i),
                    _ => None,
                };
                match deepest.or(only_typed) {
                    Some(i) => Err(failures.swap_remove(i).1),
                    None => Err(self.choice_violation(id, value, at)),
                }
            }
            _ => Err(self.violation(
                at,
                false,
                format!("expected {}, but {} fits more than one of them", self.describe(id), received(value)),
            )),
        }
    }

    fn choice_violation(&self, id: usize, value: &Json<'_>, at: &Seg<'_>) -> Violation {
        let mut message = format!("expected {}, got {}", self.describe(id), typed(value));
        // The hints of the choices together: the JSON types they take, the names
        // their enums allow.
        let node = &self.nodes[id];
        let branches = node.any_of.iter().chain(&node.one_of).map(|&b| self.resolved(b));
        let types = Types(branches.clone().map(|b| b.types.0).fold(0, |a, b| a | b));
        let names: Vec<Value> = branches.flat_map(|b| b.enumeration.iter().flatten().cloned()).collect();
        let hint = describe::enum_hint(&names, value).or_else(|| describe::type_hint(types, value));
        if let Some(hint) = hint {
            message.push_str(". ");
            message.push_str(&hint);
        }
        self.violation(at, false, message)
    }

    fn resolved(&self, mut id: usize) -> &Node {
        let mut hops = 0;
        while let Some(target) = self.nodes[id].reference {
            id = target;
            hops += 1;
            if hops > 64 {
                break;
            }
        }
        &self.nodes[id]
    }

    fn is_null_only(&self, id: usize) -> bool {
        self.resolved(id).types == Types(Types::NULL)
    }

    fn violation(&self, at: &Seg<'_>, tag_mismatch: bool, message: String) -> Violation {
        Violation { path: at.render(), depth: at.depth(), tag_mismatch, message }
    }

    fn describe(&self, id: usize) -> String {
        describe::node(self, id, 0)
    }
}

/// Empty input, or `null`, counts as `{}`: models send either for a tool without
/// parameters (OpenAI's `""`, others' `null`).
fn empty_as_object(raw: &[u8]) -> &[u8] {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() || trimmed == b"null" { b"{}" } else { raw }
}

/// What was received, clipped: `100`, `"abc"`.
fn received(value: &Json<'_>) -> String {
    value.clipped(RECEIVED_LIMIT)
}

/// A received value with its JSON type first (`a string "5"`), except null, whose
/// text is its type.
fn typed(value: &Json<'_>) -> String {
    match value {
        Json::Null => "null".into(),
        _ => format!("{} {}", value.kind(), received(value)),
    }
}

/// A syntax error, with the path to where it is (a JSON text nested past the
/// parser's depth limit included).
fn syntax(raw: &[u8], err: &serde_json::Error) -> InputError {
    let mut error = crate::input::syntax(err);
    if let InputError::Syntax { path, message, .. } = &mut error {
        // (At the end of the text serde names the last character, not past it.)
        let offset = if err.is_eof() { raw.len() } else { byte_offset(raw, err.line(), err.column()) };
        *path = json::path_at(raw, offset);
        if message.starts_with("recursion limit exceeded") {
            *message = format!("nested deeper than {DEEPEST} levels, the most a tool's input may nest");
            // The path down is `[0]` over and over: its start says where.
            if let Some((cut, _)) = path.char_indices().nth(PATH_SHOWN) {
                path.truncate(cut);
                path.push('…');
            }
        }
        // What came just before: the model sees where its text went wrong.
        let before = String::from_utf8_lossy(&raw[offset.saturating_sub(SYNTAX_CONTEXT)..offset]);
        let before: String = before.chars().filter(|c| !c.is_control()).collect();
        if !before.trim().is_empty() {
            message.push_str(&format!(", after `{}`", before.trim_start()));
        }
    }
    error
}

/// How deep serde_json parses (its recursion limit is 128).
const DEEPEST: usize = 127;

/// How much of a path into a too-deep input its message shows (characters).
const PATH_SHOWN: usize = 40;

/// How much of the text before a syntax error its message quotes (bytes).
const SYNTAX_CONTEXT: usize = 40;

/// The byte offset of a 1-based line and column.
fn byte_offset(raw: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match memchr::memchr(b'\n', &raw[start..]) {
            Some(newline) => start += newline + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(raw.len())
}

/// Whether any node reachable from `root` constrains more than serde checks.
fn needs_walk(nodes: &[Node], root: usize) -> bool {
    let mut seen = vec![false; nodes.len()];
    let mut stack = vec![(root, false)];
    while let Some((id, below_root)) = stack.pop() {
        if std::mem::replace(&mut seen[id], true) {
            continue;
        }
        let node = &nodes[id];
        if node.constrains(below_root) {
            return true;
        }
        // A reference is the same place; everything else is below.
        stack.extend(node.reference.map(|r| (r, below_root)));
        let children =
            node.items.iter().chain(&node.prefix_items).chain(node.properties.iter().map(|(_, id)| id)).chain(
                match &node.additional {
                    Additional::Schema(id) => std::slice::from_ref(id),
                    _ => &[],
                },
            );
        stack.extend(children.map(|&c| (c, true)));
        stack.extend(node.any_of.iter().chain(&node.one_of).chain(&node.all_of).map(|&c| (c, below_root)));
    }
    false
}

#[cfg(test)]
mod tests;
