//! Rules in words, for descriptions: what a dialect drops, and a value's rules when
//! it travels as JSON text with no schema.

use serde_json::{Map, Value};

/// `format`s that schemars emits for Rust numbers; they are not JSON Schema formats
/// and only cost tokens (the range is in `minimum`/`maximum`).
pub(crate) const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128",
    "float", "double",
];
/// Every rule the validator holds a value to, in words, for a value sent as JSON
/// text: no schema travels with it, so nothing can be left to one.
pub(crate) fn describe_every_rule(map: &Map<String, Value>) -> Vec<String> {
    let number = |key: &str| map.get(key).filter(|v| v.is_number()).map(Value::to_string);
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let format = map.get("format").and_then(Value::as_str);
    // An integer type's width, as the bounds it implies.
    let (low, high) = format.and_then(implied_integer_range).map_or((None, None), |(l, h)| (Some(l), Some(h)));
    let mut out = Vec::new();
    match (number("minimum").or(low.map(|n| n.to_string())), number("maximum").or(high.map(|n| n.to_string()))) {
        (Some(min), Some(max)) => out.push(format!("from {min} to {max}")),
        (Some(min), None) => out.push(format!("at least {min}")),
        (None, Some(max)) => out.push(format!("at most {max}")),
        (None, None) => {}
    }
    out.extend(number("exclusiveMinimum").map(|n| format!("greater than {n}")));
    out.extend(number("exclusiveMaximum").map(|n| format!("less than {n}")));
    out.extend(number("multipleOf").map(|n| format!("a multiple of {n}")));
    out.extend(describe_lengths(map));
    out.extend(counted(count("minItems").filter(|&n| n > 0), count("maxItems"), ("item", "items")));
    out.extend(counted(count("minProperties"), count("maxProperties"), ("entry", "entries")));
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("no duplicates".into());
    }
    out.extend(map.get("pattern").and_then(Value::as_str).map(|p| format!("matching the regular expression `{p}`")));
    if let Some(format) = format.filter(|f| !NUMERIC_FORMATS.contains(f)) {
        out.push(format!("in the format {format}"));
    }
    out
}

/// The bounds an integer `format` implies (`uint32` is 0 to 4294967295), exactly: the
/// check holds a value to its type's width, so the schema shown says it too.
pub(crate) fn implied_integer_range(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" | "uint" => (0.into(), u64::MAX.into()),
        _ => return None,
    })
}

/// A string's length bounds in words: `1 to 80 characters`.
pub(crate) fn describe_lengths(map: &Map<String, Value>) -> Option<String> {
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    counted(count("minLength"), count("maxLength"), ("character", "characters"))
}

/// `2 to 5 items`, `exactly 1 character`: `noun` is (singular, plural).
pub(crate) fn counted(min: Option<u64>, max: Option<u64>, noun: (&str, &str)) -> Option<String> {
    let of = |n: u64| if n == 1 { noun.0 } else { noun.1 };
    match (min, max) {
        (Some(a), Some(b)) if a == b => Some(format!("exactly {a} {}", of(a))),
        (Some(a), Some(b)) => Some(format!("{a} to {b} {}", of(b))),
        (Some(a), None) => Some(format!("at least {a} {}", of(a))),
        (None, Some(b)) => Some(format!("at most {b} {}", of(b))),
        (None, None) => None,
    }
}

/// Whether a `pattern` is within what a grammar can compile: no lookaround, no
/// backreferences, no word boundaries.
pub(crate) fn simple_pattern(pattern: &str) -> bool {
    let complex = ["(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B"];
    let backreference = pattern.as_bytes().windows(2).any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0');
    !complex.iter().any(|c| pattern.contains(c)) && !backreference
}

/// A string `format` the dialect does not keep (`kept`), in words: `in the format
/// uri`. A Rust number's format says nothing a model needs.
pub(crate) fn format_not_kept(map: &Map<String, Value>, kept: &[&str]) -> Option<String> {
    let format = map.get("format").and_then(Value::as_str)?;
    (!kept.contains(&format) && !NUMERIC_FORMATS.contains(&format)).then(|| format!("in the format {format}"))
}
