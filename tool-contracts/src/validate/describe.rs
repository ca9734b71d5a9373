//! What a schema expects, in JSON terms: "an integer from 1 to 20", "one of `fast`,
//! `careful`", "an object with fields `text`, `times`"; and hints for common slips.

use super::json::Json;
use super::{Additional, Bound, Types, Validator};
use serde_json::Value;

/// How deep a description nests before it says less.
const MAX_DEPTH: usize = 2;
/// How many fields or choices a description lists.
const MAX_LISTED: usize = 8;

/// The description of node `id`.
pub(super) fn node(validator: &Validator, id: usize, depth: usize) -> String {
    let node = &validator.nodes[id];
    if let Some(target) = node.reference {
        // (A `$ref` with keywords of its own: the target says what it is.)
        return self::node(validator, target, depth);
    }
    if node.never {
        return "nothing (no value is accepted here)".into();
    }
    if let Some(allowed) = &node.enumeration {
        return one_of(allowed);
    }
    if let Some(constant) = &node.constant {
        return format!("exactly {}", literal(constant));
    }
    let branches = if node.one_of.is_empty() { &node.any_of } else { &node.one_of };
    if !branches.is_empty() && node.types.any() {
        return choices(validator, branches, depth);
    }
    let mut nouns: Vec<String> = Vec::new();
    let types = node.types;
    let wants = |bit: u8| types.any() || types.has(bit);
    if types.any() && node.properties.is_empty() && node.items.is_none() && node.prefix_items.is_empty() {
        return "any JSON value".into();
    }
    if wants(Types::OBJECT) && (types.has(Types::OBJECT) || !node.properties.is_empty()) {
        nouns.push(object(validator, id, depth));
    }
    if types.has(Types::ARRAY) || (types.any() && (node.items.is_some() || !node.prefix_items.is_empty())) {
        nouns.push(array(validator, id, depth));
    }
    if types.has(Types::STRING) {
        nouns.push(string(node));
    }
    if types.has(Types::INTEGER) && !types.has(Types::NUMBER) {
        nouns.push(number("an integer", node));
    }
    if types.has(Types::NUMBER) {
        nouns.push(number("a number", node));
    }
    if types.has(Types::BOOLEAN) {
        nouns.push("true or false".into());
    }
    if types.has(Types::NULL) {
        nouns.push("null".into());
    }
    join_or(&nouns)
}

fn choices(validator: &Validator, branches: &[usize], depth: usize) -> String {
    // `Option<T>`: "T, or null".
    let (nulls, others): (Vec<usize>, Vec<usize>) = branches.iter().partition(|&&b| validator.is_null_only(b));
    let mut listed: Vec<String> = others.iter().take(MAX_LISTED).map(|&b| node(validator, b, depth + 1)).collect();
    if others.len() > MAX_LISTED {
        listed.push(format!("{} more", others.len() - MAX_LISTED));
    }
    let text = match listed.len() {
        0 => String::new(),
        1 => listed.remove(0),
        _ => format!("one of: {}", listed.join("; ")),
    };
    match (text.is_empty(), nulls.is_empty()) {
        (true, _) => "null".into(),
        (false, true) => text,
        (false, false) => format!("{text}, or null"),
    }
}

fn object(validator: &Validator, id: usize, depth: usize) -> String {
    let node = &validator.nodes[id];
    if node.properties.is_empty() {
        return match node.additional {
            Additional::Schema(values) if depth < MAX_DEPTH => {
                format!("an object whose values are {}", self::node(validator, values, depth + 1))
            }
            Additional::None => "an empty object (the tool takes no parameters)".into(),
            _ => "an object".into(),
        };
    }
    let mut fields: Vec<String> = node
        .properties
        .iter()
        .take(MAX_LISTED)
        .map(|(name, field)| {
            // A tag names its value: "`type`: `circle`".
            let resolved = validator.resolved(*field);
            match &resolved.constant {
                Some(constant) => format!("`{name}` = {}", literal(constant)),
                None => format!("`{name}`"),
            }
        })
        .collect();
    if node.properties.len() > MAX_LISTED {
        fields.push(format!("{} more", node.properties.len() - MAX_LISTED));
    }
    let mut text =
        format!("an object with field{} {}", if node.properties.len() == 1 { "" } else { "s" }, fields.join(", "));
    let required: Vec<String> = node.required.iter().map(|(name, _)| format!("`{name}`")).collect();
    if !required.is_empty() && required.len() < node.properties.len() {
        text.push_str(&format!(" ({} required)", required.join(", ")));
    } else if !required.is_empty() && node.properties.len() > 1 {
        text.push_str(" (all required)");
    }
    text
}

fn array(validator: &Validator, id: usize, depth: usize) -> String {
    let node = &validator.nodes[id];
    if !node.prefix_items.is_empty() {
        let items: Vec<String> = if depth < MAX_DEPTH {
            node.prefix_items.iter().map(|&item| self::node(validator, item, depth + 1)).collect()
        } else {
            Vec::new()
        };
        let n = node.prefix_items.len() as u64;
        return if items.is_empty() {
            format!("an array of {n} item{}", plural(n))
        } else {
            format!("an array of {n} item{} ({})", plural(n), items.join(", "))
        };
    }
    let mut text = String::from("an array");
    text.push_str(&counted(node.min_items, node.max_items, "item"));
    if let Some(items) = node.items
        && depth < MAX_DEPTH
    {
        let item = self::node(validator, items, depth + 1);
        if item != "any JSON value" {
            text.push_str(&format!(", each {item}"));
        }
    }
    if node.unique_items {
        text.push_str(", all different");
    }
    text
}

fn string(node: &super::Node) -> String {
    let mut text = match node.format {
        Some(format) => format.noun().to_owned(),
        None => "a string".to_owned(),
    };
    text.push_str(&counted(node.min_length, node.max_length, "character"));
    if let Some((pattern, _)) = &node.pattern {
        text.push_str(&format!(" matching the pattern `{pattern}`"));
    }
    text
}

fn number(noun: &str, node: &super::Node) -> String {
    let mut text = noun.to_owned();
    // The range an integer type implies (`u8`, `u32`, `i64`), where the schema states
    // no bound of its own: the check holds a value to it.
    let implied = |value: f64| Some(Bound { value, exclusive: false });
    let min = node.minimum.or_else(|| node.integer_range.and_then(|(min, _)| implied(min)));
    let max = node.maximum.or_else(|| node.integer_range.and_then(|(_, max)| implied(max)));
    let n = |b: Bound| {
        let v = b.value;
        if v.fract() != 0.0 || v.abs() >= 2e19 {
            return format!("{v}");
        }
        // i64::MAX rounds up as f64: an int64's own limit is said exactly.
        if v == i64::MAX as f64 && node.integer_range.is_some_and(|(_, hi)| hi == v) {
            return i64::MAX.to_string();
        }
        // Casts saturate: u64::MAX as f64 says u64::MAX.
        if v >= 0.0 { format!("{}", v as u64) } else { format!("{}", v as i64) }
    };
    match (min, max) {
        (Some(lo), Some(hi)) if !lo.exclusive && !hi.exclusive => {
            text.push_str(&format!(" from {} to {}", n(lo), n(hi)))
        }
        (lo, hi) => {
            let mut parts = Vec::new();
            if let Some(lo) = lo {
                parts.push(if lo.exclusive {
                    format!("greater than {}", n(lo))
                } else {
                    format!("of at least {}", n(lo))
                });
            }
            if let Some(hi) = hi {
                parts.push(if hi.exclusive { format!("less than {}", n(hi)) } else { format!("of at most {}", n(hi)) });
            }
            if !parts.is_empty() {
                text.push(' ');
                text.push_str(&parts.join(" and "));
            }
        }
    }
    if let Some(step) = node.multiple_of {
        text.push_str(&format!(" that is a multiple of {step}"));
    }
    text
}

/// "one of `red`, `green`".
pub(super) fn one_of(allowed: &[Value]) -> String {
    let mut listed: Vec<String> = allowed.iter().take(MAX_LISTED * 2).map(literal).collect();
    if allowed.len() > MAX_LISTED * 2 {
        listed.push(format!("and {} more", allowed.len() - MAX_LISTED * 2));
    }
    match listed.len() {
        1 => format!("exactly {}", listed[0]),
        _ => format!("one of {}", listed.join(", ")),
    }
}

/// A schema's literal value: a string as `red`, anything else as JSON.
pub(super) fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

/// A hint for a value of the wrong JSON type.
pub(super) fn type_hint(types: Types, value: &Json<'_>) -> Option<String> {
    match value {
        Json::String(s)
            if (types.has(Types::INTEGER) || types.has(Types::NUMBER)) && s.trim().parse::<f64>().is_ok() =>
        {
            Some("Send the number itself, without quotes".into())
        }
        Json::String(s) if types.has(Types::BOOLEAN) && matches!(s.trim(), "true" | "false") => {
            Some("Send `true` or `false` without quotes".into())
        }
        Json::String(s)
            if (types.has(Types::OBJECT) && s.trim_start().starts_with('{'))
                || (types.has(Types::ARRAY) && s.trim_start().starts_with('[')) =>
        {
            Some("Send the JSON value itself, not a string holding it".into())
        }
        Json::Array(_) if types.has(Types::OBJECT) => Some("Send the fields by name, as a JSON object".into()),
        Json::Number(n) if types.has(Types::INTEGER) && !n.is_integer() => {
            Some("Write a whole number, without a fraction or exponent".into())
        }
        Json::Number(_) if types.has(Types::STRING) => Some("Send it as a string, in quotes".into()),
        _ => None,
    }
}

/// "Did you mean `fast`?" for a string close to one of the allowed ones.
pub(super) fn enum_hint(allowed: &[Value], value: &Json<'_>) -> Option<String> {
    let Json::String(wanted) = value else { return None };
    let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
    let best = crate::suggest::closest(wanted, names.iter().copied(), 1);
    best.first().map(|name| format!("Did you mean `{name}`?"))
}

/// "Did you mean `path`?" for an unknown field close to a known one.
pub(super) fn name_hint(wanted: &str, names: &[&str]) -> Option<String> {
    let best = crate::suggest::closest(wanted, names.iter().copied(), 1);
    best.first().map(|name| format!("Did you mean `{name}`?"))
}

/// " of 1 to 5 items", " of at least 1 character", ...; empty without bounds.
fn counted(min: Option<u64>, max: Option<u64>, unit: &str) -> String {
    match (min, max) {
        (Some(min), Some(max)) if min == max => format!(" of exactly {min} {unit}{}", plural(min)),
        (Some(min), Some(max)) => format!(" of {min} to {max} {unit}s"),
        (Some(min), None) => format!(" of at least {min} {unit}{}", plural(min)),
        (None, Some(max)) => format!(" of at most {max} {unit}{}", plural(max)),
        (None, None) => String::new(),
    }
}

pub(super) fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn join_or(nouns: &[String]) -> String {
    match nouns {
        [] => "any JSON value".into(),
        [one] => one.clone(),
        [rest @ .., last] if last == "null" => format!("{}, or null", join_or(rest)),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
