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
        return syntax(&first);
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

/// A JSON syntax error as an input error, with its line and column.
pub fn syntax(err: &serde_json::Error) -> InputError {
    InputError::Syntax { path: String::new(), message: strip_position(err), line: err.line(), column: err.column() }
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
pub fn strip_position(err: &serde_json::Error) -> String {
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

/// `raw` with each alias of `aliases` (`(alias, field)`) renamed to its field, where
/// the object gives the alias and not the field; `raw` itself when nothing is renamed
/// (or it is not a JSON object: the parse then says what is wrong).
pub fn with_field_aliases<'r>(raw: &'r [u8], aliases: &[(&str, &str)]) -> std::borrow::Cow<'r, [u8]> {
    use std::borrow::Cow;
    if aliases.is_empty() || !aliases.iter().any(|(alias, _)| memchr::memmem::find(raw, alias.as_bytes()).is_some()) {
        return Cow::Borrowed(raw);
    }
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_slice::<serde_json::Value>(raw) else {
        return Cow::Borrowed(raw);
    };
    let mut renamed = false;
    for (alias, field) in aliases {
        if !map.contains_key(*field)
            && let Some(value) = map.remove(*alias)
        {
            map.insert((*field).to_owned(), value);
            renamed = true;
        }
    }
    match renamed {
        true => Cow::Owned(serde_json::Value::Object(map).to_string().into_bytes()),
        false => Cow::Borrowed(raw),
    }
}

#[cfg(test)]
mod alias_tests {
    use super::with_field_aliases;

    #[test]
    fn an_alias_is_read_as_its_field_unless_the_field_is_given() {
        let aliases = &[("file_path", "path")];
        assert_eq!(&*with_field_aliases(br#"{"file_path":"a"}"#, aliases), br#"{"path":"a"}"#);
        // Both given: the field wins and the alias stays, so the check names it.
        let both = br#"{"file_path":"a","path":"b"}"#;
        assert_eq!(&*with_field_aliases(both, aliases), &both[..]);
        assert_eq!(&*with_field_aliases(br#"{"path":"a"}"#, aliases), br#"{"path":"a"}"#);
        assert_eq!(&*with_field_aliases(b"[1]", aliases), b"[1]");
    }
}
