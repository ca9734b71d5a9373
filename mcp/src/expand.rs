//! `${VAR}` and `${VAR:-default}` in a server entry's `command`, `args`, `env`,
//! `url` and `headers`, read from the environment when the config is read, as
//! Claude Code expands `.mcp.json`. A variable that is not set and has no default is
//! an error naming it: a header like `Bearer ${TOKEN}` must not go out empty.

/// `text` with its variables replaced from `lookup`.
pub(crate) fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{` without a closing `}}` in `{text}`"));
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`${{{inner}}}` is not a variable name"));
        }
        match (lookup(name).filter(|v| !v.is_empty() || default.is_none()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(format!("the environment variable `{name}` is not set (used as `${{{name}}}`)"));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// [`expand`] from the process environment.
pub(crate) fn from_env(text: &str) -> Result<String, String> {
    expand(text, &|name| std::env::var(name).ok())
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn variables_defaults_and_missing_ones() {
        let env = |name: &str| match name {
            "TOKEN" => Some("abc".to_owned()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        assert_eq!(expand("Bearer ${TOKEN}", &env).unwrap(), "Bearer abc");
        assert_eq!(expand("${HOST:-localhost}:${PORT:-80}/x", &env).unwrap(), "localhost:80/x");
        assert_eq!(expand("${EMPTY:-fallback}", &env).unwrap(), "fallback", "an empty value takes the default");
        assert_eq!(expand("${EMPTY}", &env).unwrap(), "", "set but empty, no default: empty");
        assert_eq!(expand("no vars, $HOME stays", &env).unwrap(), "no vars, $HOME stays");
        assert!(expand("Bearer ${MISSING}", &env).unwrap_err().contains("`MISSING` is not set"));
        assert!(expand("${TOKEN", &env).unwrap_err().contains("closing"));
        assert!(expand("${A B}", &env).unwrap_err().contains("not a variable name"));
    }
}
