//! Parsing a tool's raw input bytes into its struct, once.

use crate::error::InputError;
use serde::de::DeserializeOwned;

/// Parses `raw` into `T`.
///
/// The success path is a single `serde_json::from_slice`. Only when it fails is the
/// input walked a second time, with path tracking, to name the failing field: errors
/// are rare and the path is worth the cost; successes pay nothing for it.
///
/// Empty or all-whitespace input counts as `{}`: OpenAI models send `""` as the
/// arguments of a tool without parameters.
///
/// ```
/// # use toolwright_core::parse_input;
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { offset: u32 }
/// let err = parse_input::<Args>(br#"{"offset": "ten"}"#).unwrap_err();
/// assert_eq!(err.to_string(), r#"offset: invalid type: string "ten", expected u32"#);
/// ```
#[inline]
pub fn parse_input<T: DeserializeOwned>(raw: &[u8]) -> Result<T, InputError> {
    match serde_json::from_slice(raw) {
        Ok(value) => Ok(value),
        Err(first) => parse_after_error(raw, first),
    }
}

/// The cold path: empty input, or an error to explain.
#[cold]
fn parse_after_error<T: DeserializeOwned>(raw: &[u8], first: serde_json::Error) -> Result<T, InputError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return serde_json::from_slice(b"{}").map_err(|e| explain::<T>(b"{}", e));
    }
    Err(explain::<T>(raw, first))
}

fn explain<T: DeserializeOwned>(raw: &[u8], first: serde_json::Error) -> InputError {
    if first.is_syntax() || first.is_eof() {
        return syntax(first);
    }
    let mut de = serde_json::Deserializer::from_slice(raw);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(_) => data(String::new(), &first),
        Err(err) => {
            let path = err.path().to_string();
            let message = strip_position(err.inner());
            InputError::Data { path: parent_of_unknown_field(path, &message), message }
        }
    }
}

/// Parses `raw` into `T` like [`parse_input`], naming the failing field from the
/// tool's JSON schema instead of a second, path-tracking parse. The result is the
/// same for schemas that describe `T` (as `#[tool]`'s do), and `T`'s `Deserialize`
/// is compiled once, not twice: with a hundred tools that is a second off a build.
pub(crate) fn parse_input_with_schema<T: DeserializeOwned>(
    raw: &[u8],
    schema: impl FnOnce() -> serde_json::Value,
) -> Result<T, InputError> {
    let (raw, first): (&[u8], _) = match serde_json::from_slice(raw) {
        Ok(value) => return Ok(value),
        // Empty input counts as `{}` (only this case is parsed again).
        Err(_) if raw.iter().all(u8::is_ascii_whitespace) => match serde_json::from_slice(b"{}") {
            Ok(value) => return Ok(value),
            Err(e) => (b"{}", e),
        },
        Err(first) => (raw, first),
    };
    if first.is_syntax() || first.is_eof() {
        return Err(syntax(first));
    }
    let message = strip_position(&first);
    let path = serde_json::from_slice::<serde_json::Value>(raw)
        .ok()
        .and_then(|value| {
            let schema = schema();
            let defs = schema.get("$defs").cloned().unwrap_or_default();
            SchemaWalk { defs: &defs }.first_mismatch(&value, &schema, String::new())
        })
        .unwrap_or_default();
    Err(InputError::Data { path, message })
}

/// Finds where a JSON value first fails its schema, visiting fields in the input's
/// order as serde does: the object holding an unknown or missing field, or the
/// value of the wrong type, out of range or not in its enum.
struct SchemaWalk<'a> {
    defs: &'a serde_json::Value,
}

impl SchemaWalk<'_> {
    fn first_mismatch(&self, value: &serde_json::Value, schema: &serde_json::Value, path: String) -> Option<String> {
        use serde_json::Value;
        let schema = self.resolve(schema);
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                let misses: Vec<Option<String>> =
                    branches.iter().map(|b| self.first_mismatch(value, b, path.clone())).collect();
                if misses.iter().any(Option::is_none) {
                    return None;
                }
                // The branch that is not `null` is the one the model meant.
                let meant = branches.iter().position(|b| self.resolve(b).get("type") != Some(&Value::from("null")));
                return misses.into_iter().nth(meant.unwrap_or(0)).flatten();
            }
        }
        if let Some(kinds) = schema.get("type") {
            let fits = |kind: &Value| match kind.as_str() {
                Some("object") => value.is_object(),
                Some("array") => value.is_array(),
                Some("string") => value.is_string(),
                Some("boolean") => value.is_boolean(),
                Some("null") => value.is_null(),
                Some("number") => value.is_number(),
                Some("integer") => value.is_i64() || value.is_u64(),
                _ => true,
            };
            let ok = match kinds {
                Value::Array(kinds) => kinds.iter().any(fits),
                kind => fits(kind),
            };
            if !ok {
                return Some(path);
            }
        }
        if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
            && !allowed.contains(value)
        {
            return Some(path);
        }
        if let Some(constant) = schema.get("const")
            && constant != value
        {
            return Some(path);
        }
        if let Some(n) = value.as_f64() {
            let below = schema.get("minimum").and_then(Value::as_f64).is_some_and(|min| n < min);
            let above = schema.get("maximum").and_then(Value::as_f64).is_some_and(|max| n > max);
            if below || above {
                return Some(path);
            }
        }
        match value {
            Value::Object(map) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
                for (key, field) in map {
                    match properties.and_then(|p| p.get(key)) {
                        Some(field_schema) => {
                            let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                            if let Some(miss) = self.first_mismatch(field, field_schema, at) {
                                return Some(miss);
                            }
                        }
                        None if closed => return Some(path),
                        None => {}
                    }
                }
                let required = schema.get("required").and_then(Value::as_array);
                if required.is_some_and(|r| r.iter().filter_map(Value::as_str).any(|k| !map.contains_key(k))) {
                    return Some(path);
                }
                None
            }
            Value::Array(items) => {
                let item_schema = schema.get("items")?;
                items
                    .iter()
                    .enumerate()
                    .find_map(|(i, item)| self.first_mismatch(item, item_schema, format!("{path}[{i}]")))
            }
            _ => None,
        }
    }

    fn resolve<'s>(&'s self, schema: &'s serde_json::Value) -> &'s serde_json::Value {
        match schema.get("$ref").and_then(serde_json::Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
            Some(name) => self.defs.get(name).unwrap_or(schema),
            None => schema,
        }
    }
}

pub(crate) fn syntax(err: serde_json::Error) -> InputError {
    InputError::Syntax { message: strip_position(&err), line: err.line(), column: err.column() }
}

/// The root path is `.`; an unknown field's path ends with the field, which the
/// message names already, so the path stops at its parent.
fn parent_of_unknown_field(path: String, message: &str) -> String {
    let path = if path == "." { String::new() } else { path };
    let unknown = message.strip_prefix("unknown field `").and_then(|rest| rest.split('`').next());
    match unknown {
        Some(field) if path == field => String::new(),
        Some(field) => path.strip_suffix(&format!(".{field}")).map(str::to_owned).unwrap_or(path),
        None => path,
    }
}

fn data(path: String, err: &serde_json::Error) -> InputError {
    InputError::Data { path, message: strip_position(err) }
}

/// serde_json appends " at line L column C"; the path already says where.
pub(crate) fn strip_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    match text.strip_suffix(&suffix) {
        Some(stripped) => stripped.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Edit {
        old_string: String,
        count: Option<u8>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Multi {
        path: String,
        edits: Vec<Edit>,
    }

    fn err(raw: &str) -> String {
        parse_input::<Multi>(raw.as_bytes()).unwrap_err().to_string()
    }

    /// The schema route names the same fields as the path-tracking parse.
    #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct SEdit {
        old_string: String,
        count: Option<u8>,
        mode: Option<Mode>,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        Fast,
        Careful,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct SMulti {
        path: String,
        edits: Vec<SEdit>,
        limit: Option<u32>,
    }

    #[test]
    fn the_schema_route_agrees_with_path_tracking() {
        let schema = || serde_json::to_value(schemars::schema_for!(SMulti)).unwrap();
        for raw in [
            r#"{"path":"a","edits":[{"old_string":"x"},{"old_string":"y","count":300}]}"#,
            r#"{"path":"a","edits":[{"old_string":"x","count":-1}]}"#,
            r#"{"edits":[]}"#,
            r#"{"path":"a","edits":[],"mode":1}"#,
            r#"{"path":"a","edits":[{"old_string":"x","new":1}]}"#,
            r#"{"path":5,"edits":[]}"#,
            r#"{"path":"a","edits":{}}"#,
            r#"{"path":"a","edits":[{"old_string":"x","mode":"slow"}]}"#,
            r#"{"path":"a","edits":[{"old_string":"x","mode":"fast"}],"limit":"ten"}"#,
            r#"{"path":"a","edits":[{"old_string":1}],"limit":"ten"}"#,
            "[]",
            r#""""#,
            "",
            r#"{"path": "a",,}"#,
        ] {
            let tracked = parse_input::<SMulti>(raw.as_bytes()).unwrap_err();
            let by_schema = parse_input_with_schema::<SMulti>(raw.as_bytes(), schema).unwrap_err();
            assert_eq!(by_schema, tracked, "{raw}");
        }
    }

    #[test]
    fn nested_paths_name_the_field() {
        assert_eq!(
            err(r#"{"path":"a","edits":[{"old_string":"x"},{"old_string":"y","count":300}]}"#),
            "edits[1].count: invalid value: integer `300`, expected u8"
        );
    }

    #[test]
    fn missing_and_unknown_fields() {
        assert_eq!(err(r#"{"edits":[]}"#), "missing field `path`");
        assert_eq!(err(r#"{"path":"a","edits":[],"mode":1}"#), "unknown field `mode`, expected `path` or `edits`");
        assert_eq!(
            err(r#"{"path":"a","edits":[{"old_string":"x","new":1}]}"#),
            "edits[0]: unknown field `new`, expected `old_string` or `count`"
        );
    }

    #[test]
    fn syntax_errors_keep_their_position() {
        let e = parse_input::<Multi>(b"{\"path\": \"a\",,}").unwrap_err();
        assert!(matches!(e, InputError::Syntax { line: 1, column: 14, .. }), "{e:?}");
        assert_eq!(e.to_string(), "invalid JSON: key must be a string (line 1, column 14)");
    }

    #[test]
    fn empty_input_is_an_empty_object() {
        #[derive(serde::Deserialize)]
        struct NoArgs {}
        assert!(parse_input::<NoArgs>(b"").is_ok());
        assert!(parse_input::<NoArgs>(b"  \n").is_ok());
    }
}
