//! An independent checker of what each provider accepts, written from the providers'
//! documented schema subsets and sharing no code with the renderer it checks (whose
//! rules are in `providers/src/schema/dialect/`).

use serde_json::{Map, Value};
use toolwright::Provider;

const PORTABLE_NAME_MAX: usize = 64;

fn portable_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= PORTABLE_NAME_MAX
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
}

/// Checks one rendered tool definition for `provider`; returns every violation.
pub fn check_tool(provider: Provider, tool: &Value) -> Vec<String> {
    let mut v = Violations::default();
    let obj = match tool.as_object() {
        Some(o) => o,
        None => return vec!["definition is not an object".into()],
    };
    let (name, description, schema, keys): (_, _, Option<&Value>, &[&str]) = match provider {
        Provider::Anthropic { strict, .. } => {
            if let Some(flag) = obj.get("strict") {
                v.expect(strict && flag == &Value::Bool(true), "`strict` on an Anthropic tool that is not strict mode");
            }
            (
                obj.get("name"),
                obj.get("description"),
                obj.get("input_schema"),
                &["name", "description", "input_schema", "cache_control", "strict"],
            )
        }
        Provider::OpenAiChat { strict } => {
            v.expect(obj.get("type") == Some(&Value::from("function")), "chat tool type is not \"function\"");
            v.only_keys(obj, &["type", "function"], "chat tool");
            let f = obj.get("function").and_then(Value::as_object);
            v.expect(f.is_some(), "chat tool has no function object");
            let f = match f {
                Some(f) => f,
                None => return v.0,
            };
            v.expect(f.get("strict") == Some(&Value::Bool(strict)), "function.strict does not match the mode");
            (f.get("name"), f.get("description"), f.get("parameters"), &["name", "description", "parameters", "strict"])
        }
        Provider::OpenAiResponses { strict } => {
            v.expect(obj.get("type") == Some(&Value::from("function")), "responses tool type is not \"function\"");
            v.expect(
                obj.get("strict") == Some(&Value::Bool(strict)),
                "strict must be explicit (the Responses API defaults to true)",
            );
            (
                obj.get("name"),
                obj.get("description"),
                obj.get("parameters"),
                &["type", "name", "description", "parameters", "strict"],
            )
        }
        Provider::Gemini => {
            (obj.get("name"), obj.get("description"), obj.get("parameters"), &["name", "description", "parameters"])
        }
        Provider::GeminiJsonSchema => (
            obj.get("name"),
            obj.get("description"),
            obj.get("parametersJsonSchema"),
            &["name", "description", "parametersJsonSchema"],
        ),
        Provider::Mcp => {
            let ann = obj.get("annotations").and_then(Value::as_object);
            v.expect(ann.is_some(), "MCP tool has no annotations");
            for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
                v.expect(
                    ann.and_then(|a| a.get(hint)).is_some_and(Value::is_boolean),
                    &format!("annotation {hint} missing or not a boolean"),
                );
            }
            if let Some(out) = obj.get("outputSchema") {
                v.expect(out.get("type") == Some(&Value::from("object")), "MCP outputSchema root is not an object");
            }
            (
                obj.get("name"),
                obj.get("description"),
                obj.get("inputSchema"),
                &["name", "title", "description", "inputSchema", "outputSchema", "annotations"],
            )
        }
    };
    if !matches!(provider, Provider::OpenAiChat { .. }) {
        v.only_keys(obj, keys, "tool definition");
    }
    let name = name.and_then(Value::as_str).unwrap_or_default();
    v.expect(portable_name(name), &format!("name `{name}` is not provider-portable"));
    // Gemini's older API: `^[A-Za-z_][A-Za-z0-9_-]{0,62}$`, 63 characters at most.
    if matches!(provider, Provider::Gemini | Provider::GeminiJsonSchema) {
        v.expect(name.len() <= 63, &format!("name `{name}` is over Gemini's 63 characters"));
    }
    v.expect(description.and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty()), "description missing or empty");
    match (provider, schema) {
        (Provider::Gemini, None) => {} // a tool without parameters leaves them out
        (_, None) => v.fail("no schema"),
        (_, Some(schema)) => check_schema(provider, schema, &mut v),
    }
    v.0
}

#[derive(Default)]
struct Violations(Vec<String>);

impl Violations {
    fn fail(&mut self, msg: &str) {
        self.0.push(msg.to_owned());
    }
    fn expect(&mut self, ok: bool, msg: &str) {
        if !ok {
            self.fail(msg);
        }
    }
    fn only_keys(&mut self, obj: &Map<String, Value>, allowed: &[&str], what: &str) {
        for k in obj.keys() {
            if !allowed.contains(&k.as_str()) {
                self.fail(&format!("{what} has unexpected key `{k}`"));
            }
        }
    }
}

const NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128", "float",
    "double",
];
const STRICT_ALLOWED: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
/// Gemini's `parameters` (OpenAPI 3.0 subset) as every API version takes it: the
/// older API has no `anyOf` and no string lengths.
const GEMINI_ALLOWED: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "pattern",
    "items",
    "minimum",
    "maximum",
];

/// Anthropic strict tool use (the structured-outputs subset, as published).
const ANTHROPIC_STRICT_ALLOWED: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "default",
    "pattern",
    "format",
    "minItems",
    "$ref",
    "$defs",
];
const ANTHROPIC_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// Anthropic's per-request limits over all strict tools of one list: at most 20
/// strict tools, 24 optional parameters and 16 union parameters (`anyOf` or a type
/// array) in all.
pub fn check_anthropic_strict_list(list: &Value) -> Vec<String> {
    let mut v = Violations::default();
    let (mut tools, mut optional, mut unions) = (0, 0, 0);
    for tool in list.as_array().into_iter().flatten() {
        if tool.get("strict") != Some(&Value::Bool(true)) {
            continue;
        }
        tools += 1;
        let mut stack = vec![&tool["input_schema"]];
        while let Some(node) = stack.pop() {
            let required: Vec<&Value> = node["required"].as_array().map(|r| r.iter().collect()).unwrap_or_default();
            for (name, sub) in node["properties"].as_object().into_iter().flatten() {
                optional += usize::from(!required.contains(&&Value::from(name.as_str())));
                unions += usize::from(sub.get("anyOf").is_some() || sub["type"].is_array());
                stack.push(sub);
            }
            if let Some(items) = node.get("items") {
                stack.push(items);
            }
            for member in node["anyOf"].as_array().into_iter().flatten() {
                stack.push(member);
            }
        }
    }
    v.expect(tools <= 20, &format!("{tools} strict tools, over 20"));
    v.expect(optional <= 24, &format!("{optional} optional parameters over the strict tools, over 24"));
    v.expect(unions <= 16, &format!("{unions} union parameters over the strict tools, over 16"));
    v.0
}

fn check_schema(provider: Provider, root: &Value, v: &mut Violations) {
    let Some(map) = root.as_object() else {
        return v.fail("schema root is not an object");
    };
    v.expect(map.get("type") == Some(&Value::from("object")), "schema root type is not \"object\"");
    for kw in ["$schema", "title", "anyOf", "oneOf", "allOf", "not", "enum"] {
        v.expect(!map.contains_key(kw), &format!("schema root has `{kw}`"));
    }
    let defs = map.get("$defs").and_then(Value::as_object);
    if provider == Provider::Gemini {
        v.expect(defs.is_none(), "Gemini schema has $defs");
    }
    // OpenAI counts nesting from the root object at level 0.
    walk(provider, root, defs, 0, "", v);
    if let Some(defs) = defs {
        for (name, def) in defs {
            walk(provider, def, Some(defs), 1, name, v);
        }
    }
}

fn walk(
    provider: Provider,
    schema: &Value,
    defs: Option<&Map<String, Value>>,
    depth: usize,
    at: &str,
    v: &mut Violations,
) {
    let strict = matches!(provider, Provider::OpenAiChat { strict: true } | Provider::OpenAiResponses { strict: true });
    let gemini = provider == Provider::Gemini;
    let anthropic_strict = matches!(provider, Provider::Anthropic { strict: true, .. });
    if anthropic_strict {
        return walk_anthropic_strict(schema, at, v);
    }
    let map = match schema {
        Value::Object(m) => m,
        Value::Bool(true) if !strict && !gemini => return,
        _ => return v.fail(&format!("{at}: schema is {schema}")),
    };
    if let Some(r) = map.get("$ref") {
        let target = r.as_str().unwrap_or_default();
        v.expect(!gemini, &format!("{at}: Gemini schema has $ref"));
        let ok =
            target == "#" || target.strip_prefix("#/$defs/").is_some_and(|n| defs.is_some_and(|d| d.contains_key(n)));
        v.expect(ok, &format!("{at}: $ref `{target}` does not resolve"));
    }
    if let Some(f) = map.get("format").and_then(Value::as_str) {
        v.expect(!NUMERIC_FORMATS.contains(&f), &format!("{at}: non-standard format `{f}`"));
        if gemini {
            v.expect(["date-time", "enum"].contains(&f), &format!("{at}: Gemini does not accept format `{f}`"));
        }
    }
    for k in map.keys() {
        if strict {
            v.expect(STRICT_ALLOWED.contains(&k.as_str()), &format!("{at}: strict mode does not accept `{k}`"));
        }
        if gemini {
            v.expect(GEMINI_ALLOWED.contains(&k.as_str()), &format!("{at}: Gemini does not accept `{k}`"));
        }
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t],
        Some(Value::Array(ts)) => {
            v.expect(!gemini, &format!("{at}: Gemini does not accept type arrays"));
            ts.iter().filter_map(Value::as_str).collect()
        }
        _ => vec![],
    };
    if let Some(Value::Array(values)) = map.get("enum") {
        if gemini {
            v.expect(values.iter().all(Value::is_string), &format!("{at}: Gemini enums hold strings only"));
        }
        if values.iter().any(Value::is_null) {
            v.expect(types.contains(&"null"), &format!("{at}: enum allows null but type does not"));
        }
    }
    let is_object = types.contains(&"object") || map.contains_key("properties");
    if is_object {
        if strict {
            v.expect(depth <= 10, &format!("{at}: nested deeper than 10"));
            v.expect(
                map.get("additionalProperties") == Some(&Value::Bool(false)),
                &format!("{at}: strict object without additionalProperties: false"),
            );
            let props: Vec<&String> =
                map.get("properties").and_then(Value::as_object).map(|p| p.keys().collect()).unwrap_or_default();
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            v.expect(
                props.len() == required.len() && props.iter().all(|p| required.contains(&p.as_str())),
                &format!("{at}: strict object must require every property"),
            );
        }
        if gemini {
            v.expect(
                map.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()),
                &format!("{at}: Gemini object without properties"),
            );
        }
    }
    if types.contains(&"array") {
        v.expect(!gemini || map.contains_key("items"), &format!("{at}: Gemini array without items"));
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, sub) in props {
            let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
            walk(provider, sub, defs, depth + usize::from(is_object), &path, v);
        }
    }
    if let Some(items) = map.get("items") {
        walk(provider, items, defs, depth, &format!("{at}[]"), v);
    }
    if let Some(Value::Object(ap)) = map.get("additionalProperties") {
        v.expect(!strict && !gemini, &format!("{at}: map schema in strict/Gemini"));
        walk(provider, &Value::Object(ap.clone()), defs, depth, &format!("{at}[key]"), v);
    }
    for kw in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = map.get(kw) {
            v.expect(!gemini, &format!("{at}: `{kw}` in Gemini's OpenAPI subset (the older API has no unions)"));
            v.expect(!strict || kw == "anyOf", &format!("{at}: `{kw}` in strict mode"));
            for (i, m) in members.iter().enumerate() {
                walk(provider, m, defs, depth, &format!("{at}<{i}>"), v);
            }
        }
    }
}

fn walk_anthropic_strict(schema: &Value, at: &str, v: &mut Violations) {
    let Some(map) = schema.as_object() else {
        return v.fail(&format!("{at}: Anthropic strict schema is {schema}"));
    };
    for k in map.keys() {
        v.expect(
            ANTHROPIC_STRICT_ALLOWED.contains(&k.as_str()),
            &format!("{at}: Anthropic strict does not accept `{k}`"),
        );
    }
    v.expect(!map.contains_key("$ref"), &format!("{at}: Anthropic strict cannot take a recursive schema"));
    if let Some(n) = map.get("minItems") {
        v.expect(n == 0 || n == 1, &format!("{at}: Anthropic strict takes minItems 0 or 1 only, not {n}"));
    }
    if let Some(f) = map.get("format").and_then(Value::as_str) {
        v.expect(ANTHROPIC_STRICT_FORMATS.contains(&f), &format!("{at}: Anthropic strict does not take format `{f}`"));
    }
    if let Some(p) = map.get("pattern").and_then(Value::as_str) {
        let bad = ["(?=", "(?!", "(?<=", "(?<!", "\\b"].iter().any(|c| p.contains(c))
            || (1..=9).any(|d| p.contains(&format!("\\{d}")));
        v.expect(!bad, &format!("{at}: pattern `{p}` uses what Anthropic strict cannot compile"));
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        v.expect(
            values.iter().all(|x| !x.is_object() && !x.is_array()),
            &format!("{at}: Anthropic strict enums hold primitives only"),
        );
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if types.contains(&"object") || map.contains_key("properties") {
        v.expect(
            map.get("additionalProperties") == Some(&Value::Bool(false)),
            &format!("{at}: Anthropic strict object without additionalProperties: false"),
        );
    }
    for (name, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
        walk_anthropic_strict(sub, &path, v);
    }
    if let Some(items) = map.get("items") {
        walk_anthropic_strict(items, &format!("{at}[]"), v);
    }
    for kw in ["anyOf", "allOf"] {
        for (i, m) in map.get(kw).and_then(Value::as_array).into_iter().flatten().enumerate() {
            walk_anthropic_strict(m, &format!("{at}<{i}>"), v);
        }
    }
}

/// Whether `name` is required in the object schema `schema`.
pub fn is_required(schema: &Value, name: &str) -> bool {
    schema["required"].as_array().is_some_and(|r| r.iter().any(|n| n == name))
}
