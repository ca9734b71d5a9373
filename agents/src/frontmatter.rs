//! A definition file's parts: the YAML frontmatter between `---` lines, as JSON, and
//! the body after it.

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// A file split and its frontmatter read.
pub(crate) struct Parsed {
    pub(crate) fields: Map<String, Value>,
    pub(crate) body: String,
}

/// Why a file could not be read, with the line where the parser knows it.
pub(crate) struct Unreadable {
    pub(crate) line: Option<usize>,
    pub(crate) message: String,
}

/// Splits `text` at its frontmatter; `None` when it has none (documentation).
pub(crate) fn split(text: &str) -> Option<(&str, &str, usize)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---")?;
    let rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n'))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Some((front, body, 2));
        }
        offset += line.len();
    }
    None
}

/// Reads a whole YAML document (a Cline file without frontmatter, or a frontmatter)
/// into a JSON object. `first_line` is the file line the YAML starts on.
pub(crate) fn yaml_object(yaml: &str, first_line: usize) -> Result<Map<String, Value>, Unreadable> {
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| Unreadable {
        line: Some(e.marker().line() + first_line - 1),
        message: format!("the YAML does not parse: {}", e.info()),
    })?;
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(Map::new()),
        Some(Yaml::Hash(hash)) => {
            let mut out = Map::new();
            for (key, value) in hash {
                let key = scalar_key(&key)
                    .ok_or_else(|| Unreadable { line: None, message: format!("a key is not text: {key:?}") })?;
                out.insert(key, to_json(value).map_err(|message| Unreadable { line: None, message })?);
            }
            Ok(out)
        }
        Some(other) => Err(Unreadable {
            line: Some(first_line),
            message: format!("the frontmatter is {}, not a mapping of keys to values", kind(&other)),
        }),
    }
}

/// Reads a Markdown (or Cline) definition: its frontmatter as JSON and its body.
/// `Ok(None)`: no frontmatter at all.
pub(crate) fn parse(text: &str) -> Result<Option<Parsed>, Unreadable> {
    let Some((front, body, first_line)) = split(text) else { return Ok(None) };
    let fields = yaml_object(front, first_line)?;
    Ok(Some(Parsed { fields, body: body.trim().to_owned() }))
}

fn scalar_key(key: &Yaml) -> Option<String> {
    match key {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        Yaml::Real(r) => Some(r.clone()),
        _ => None,
    }
}

fn kind(yaml: &Yaml) -> &'static str {
    match yaml {
        Yaml::Array(_) => "a list",
        Yaml::String(_) | Yaml::Integer(_) | Yaml::Real(_) | Yaml::Boolean(_) => "a single value",
        _ => "not a mapping",
    }
}

/// YAML to JSON: mappings with text keys, lists, and scalars.
fn to_json(yaml: Yaml) -> Result<Value, String> {
    Ok(match yaml {
        Yaml::Null | Yaml::BadValue => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Real(text) => {
            text.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map_or(Value::String(text), Value::Number)
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut out = Map::new();
            for (key, value) in hash {
                let key = scalar_key(&key).ok_or_else(|| format!("a key is not text: {key:?}"))?;
                out.insert(key, to_json(value)?);
            }
            Value::Object(out)
        }
        Yaml::Alias(_) => return Err("YAML aliases are not supported in agent definitions".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_and_body_are_split_and_read() {
        let parsed = parse("---\nname: x\ntools: [Read, Grep]\nmaxTurns: 5\n---\n\nThe prompt.\n").ok().flatten();
        let parsed = parsed.unwrap();
        assert_eq!(parsed.fields["name"], "x");
        assert_eq!(parsed.fields["tools"], serde_json::json!(["Read", "Grep"]));
        assert_eq!(parsed.fields["maxTurns"], 5);
        assert_eq!(parsed.body, "The prompt.");
        assert!(parse("No frontmatter here.").ok().unwrap().is_none());
        assert!(parse("---\nname: x\nno end").ok().unwrap().is_none());
    }

    #[test]
    fn a_parse_error_names_its_line() {
        let Err(e) = parse("---\nname: x\ndescription: [unclosed\n---\nbody") else { panic!("parsed") };
        assert!(e.message.contains("does not parse"), "{}", e.message);
        assert!(e.line.is_some_and(|l| (3..=5).contains(&l)), "{:?}", e.line);
        let Err(e) = parse("---\n- a\n- b\n---\n") else { panic!("parsed") };
        assert!(e.message.contains("a list"), "{}", e.message);
    }
}
