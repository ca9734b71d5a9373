//! Snapshots of what a model reads when its input is wrong, for every built-in tool
//! and for `#[tool]` types of every shape: bad inputs are derived from each tool's own
//! schema (an array for the object, each field with a value of the wrong JSON type,
//! each bound crossed, an unknown field, nothing at all), run through the executor, and
//! the error results recorded. A change to a message shows up here for review.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::collections::BTreeMap;
use toolwright::{
    DEFAULT_TOOL_NAMES, ErrorKind, Executor, Registry, Tool, ToolCall, ToolContext, ToolError, TurnContext, tool,
};

/// Inputs that break `schema` one way each, with what each breaks.
fn bad_inputs(schema: &Value) -> Vec<(String, Value)> {
    let properties = schema["properties"].as_object().cloned().unwrap_or_default();
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    // A valid-looking base: every required field with a value of its type.
    let sample = |field: &Value| -> Value {
        match field["type"].as_str().or_else(|| field["type"][0].as_str()) {
            Some("string") => json!("src/main.rs"),
            Some("integer") => json!(field["minimum"].as_i64().unwrap_or(1).max(1)),
            Some("number") => json!(1.5),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            _ => json!({}),
        }
    };
    let mut base = serde_json::Map::new();
    for name in &required {
        base.insert((*name).to_owned(), sample(&properties[*name]));
    }
    let mut cases = vec![
        ("an array for the object".to_owned(), json!(["src/main.rs", 3])),
        ("an unknown field".to_owned(), {
            let mut v = base.clone();
            v.insert("pth".into(), json!("x"));
            Value::Object(v)
        }),
    ];
    if !required.is_empty() {
        cases.push(("nothing".to_owned(), json!({})));
    }
    for (name, field) in &properties {
        let wrong = match field["type"].as_str().or_else(|| field["type"][0].as_str()) {
            Some("string") => json!(5),
            Some("integer" | "number") => json!("ten"),
            Some("boolean") => json!("yes"),
            Some("array") => json!({"not": "a list"}),
            _ => json!(17),
        };
        let mut v = base.clone();
        v.insert(name.clone(), wrong);
        cases.push((format!("`{name}` of the wrong type"), Value::Object(v)));
        if let Some(max) = field["maximum"].as_f64() {
            let mut v = base.clone();
            v.insert(name.clone(), json!(max as i64 + 1));
            cases.push((format!("`{name}` above its maximum"), Value::Object(v)));
        }
        if let Some(min) = field["minimum"].as_f64().filter(|m| *m > 0.0) {
            let mut v = base.clone();
            v.insert(name.clone(), json!(min as i64 - 1));
            cases.push((format!("`{name}` below its minimum"), Value::Object(v)));
        }
        if field["minLength"].as_u64().is_some_and(|n| n > 0) {
            let mut v = base.clone();
            v.insert(name.clone(), json!(""));
            cases.push((format!("`{name}` too short"), Value::Object(v)));
        }
    }
    cases
}

fn report(executor: &Executor, registry: &Registry, name: &str) -> String {
    let schema = registry.resolve(name).unwrap().tool().input_schema();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let turn = TurnContext::new(dir.path());
    let mut out = String::new();
    for (what, input) in bad_inputs(&schema) {
        let call = ToolCall::new("c1", name, input.to_string());
        let result = rt.block_on(executor.execute(&call, &turn));
        assert_eq!(result.error, Some(ErrorKind::InvalidInput), "{name}, {what}: {}", result.output.text_content());
        out.push_str(&format!("{what}: {input}\n  {}\n", result.output.text_content()));
    }
    out
}

#[test]
fn every_builtin_explains_bad_input() {
    let registry = std::sync::Arc::new(toolwright::registry().unwrap());
    let executor = Executor::new(std::sync::Arc::clone(&registry));
    for name in DEFAULT_TOOL_NAMES {
        insta::assert_snapshot!(*name, report(&executor, &registry, name));
    }
}

/// A tool with the shapes whose errors used to speak Rust.
#[tool(pure)]
#[allow(dead_code)]
struct Shapes {
    /// A map of counts.
    counts: Option<BTreeMap<String, u8>>,
    /// A pair.
    pair: Option<(u8, String)>,
    /// A kind.
    kind: Option<Kind>,
    /// A shape.
    shape: Option<Shape>,
    /// An untagged value.
    either: Option<StrOrNum>,
    /// A short title.
    #[schemars(length(min = 1, max = 20))]
    title: Option<String>,
    /// How many, 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    times: Option<u8>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Fast,
    Careful,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle { radius: u8 },
    Square { side: u8 },
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum StrOrNum {
    Num(f64),
    Str(String),
}

impl Tool for Shapes {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok("ran".into())
    }
}

#[test]
fn tool_types_explain_bad_input_in_json_terms() {
    let registry = std::sync::Arc::new(Registry::builder().register::<Shapes>().build().unwrap());
    let executor = Executor::new(std::sync::Arc::clone(&registry));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let turn = TurnContext::new(".");
    let inputs = [
        r#"["a", 3]"#,
        r#"{"counts": {"a": 1, "b": 300}}"#,
        r#"{"counts": {"a": "x"}}"#,
        r#"{"pair": [1]}"#,
        r#"{"pair": [1, 2]}"#,
        r#"{"kind": "slow"}"#,
        r#"{"kind": "fats"}"#,
        r#"{"shape": {"type": "circle", "radius": -1}}"#,
        r#"{"shape": {"type": "triangle"}}"#,
        r#"{"shape": [1, 2]}"#,
        r#"{"either": [1]}"#,
        r#"{"title": ""}"#,
        r#"{"times": 9}"#,
        r#"{"times": "3"}"#,
        r#"{"times": 2.5}"#,
        r#"{"tims": 3}"#,
        r#"{"counts": {"a": 1"#,
    ];
    let mut out = String::new();
    for input in inputs {
        let result = rt.block_on(executor.execute(&ToolCall::new("c1", "shapes", input), &turn));
        assert_eq!(result.error, Some(ErrorKind::InvalidInput), "{input}: {}", result.output.text_content());
        out.push_str(&format!("{input}\n  {}\n", result.output.text_content()));
    }
    let ok = rt.block_on(executor.execute(
        &ToolCall::new("c1", "shapes", r#"{"times": 3, "title": "t", "shape": {"type": "square", "side": 2}}"#),
        &turn,
    ));
    assert_eq!(ok.error, None, "{}", ok.output.text_content());
    insta::assert_snapshot!("tool_types", out);
}

#[test]
fn only_schemas_with_constraints_are_walked() {
    let registry = toolwright::registry().unwrap();
    let walked: Vec<&str> = DEFAULT_TOOL_NAMES
        .iter()
        .copied()
        .filter(|name| {
            let schema = registry.resolve(name).unwrap().tool().input_schema();
            toolwright::validate::Validator::new(&schema).has_constraints()
        })
        .collect();
    insta::assert_snapshot!("walked_builtins", walked.join("\n"));
}

/// A tool without parameters.
#[tool(pure)]
struct Nothing;

impl Tool for Nothing {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok("done".into())
    }
}

#[test]
fn a_tool_without_parameters_takes_nothing_null_or_an_empty_object() {
    let registry = Registry::builder().register::<Nothing>().build().unwrap();
    let tool = registry.get("nothing").unwrap();
    for ok in [&b""[..], b"  ", b"null", b"{}", b" { } "] {
        assert!(tool.prepare(ok).is_ok(), "{}", String::from_utf8_lossy(ok));
    }
    let err = tool.prepare(br#"{"tz":"UTC"}"#).err().unwrap().to_string();
    assert_eq!(err, r#"unknown field `tz`: expected an empty object (the tool takes no parameters), got {"tz":"UTC"}"#);
    let err = tool.prepare(b"[]").err().unwrap().to_string();
    assert!(err.starts_with("expected an empty object"), "{err}");
}

/// One label of [`Labels`]: constrained here, not on `Labels`'s own fields.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Label {
    /// The label's text.
    #[schemars(length(min = 1, max = 8))]
    text: String,
}

/// Labels issues (its constraints are in a nested type, so it parses the text once
/// after the check, instead of building itself from the checked tree).
#[tool(pure)]
struct Labels {
    /// The labels to add.
    labels: Vec<Label>,
}

impl Tool for Labels {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.labels.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(","))
    }
}

#[test]
fn constraints_in_nested_types_are_checked_on_either_parse() {
    let registry = std::sync::Arc::new(Registry::builder().register::<Labels>().build().unwrap());
    let executor = Executor::builder(std::sync::Arc::clone(&registry)).policy(toolwright::permission::AllowAll).build();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let turn = TurnContext::new(".");
    let run = |name: &str, input: &str| rt.block_on(executor.execute(&ToolCall::new("c1", name, input), &turn));
    let long = run("labels", r#"{"labels": [{"text": "bug"}, {"text": "much-too-long"}]}"#);
    assert_eq!(long.error, Some(ErrorKind::InvalidInput), "{}", long.output.text_content());
    assert!(long.output.text_content().contains("labels[1].text"), "{}", long.output.text_content());
    let ok = run("labels", r#"{"labels": [{"text": "bug"}, {"text": "ui"}]}"#);
    assert_eq!(ok.error, None, "{}", ok.output.text_content());
    assert_eq!(ok.output.text_content(), "bug,ui");
    // A wrong type after a passing check is still explained where it is.
    let typed = run("labels", r#"{"labels": [{"text": 3}]}"#);
    assert_eq!(typed.error, Some(ErrorKind::InvalidInput));
    assert!(typed.output.text_content().contains("labels[0].text"), "{}", typed.output.text_content());
}
