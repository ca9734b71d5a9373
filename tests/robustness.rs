//! No input makes `execute` panic or hang: arbitrary JSON, arbitrary bytes, 10,000
//! levels of nesting and huge strings each get exactly one result.
#![allow(missing_docs)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

/// Store a record with nested fields.
#[tool(read_only, pure)]
pub struct Store {
    pub key: String,
    pub tags: Vec<String>,
    pub meta: Option<Meta>,
}
#[derive(toolwright::Deserialize, toolwright::JsonSchema)]
pub struct Meta {
    pub depth: u8,
    pub note: Option<String>,
}
impl Tool for Store {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} {} {}", self.key, self.tags.len(), self.meta.map_or(0, |m| m.depth)))
    }
}

const TOOLS: &[&str] = &["store", "read_file", "glob", "nope"];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z_]{1,8}",
                        Just("key".to_owned()),
                        Just("path".to_owned()),
                        Just("tags".to_owned())
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

struct Harness {
    rt: tokio::runtime::Runtime,
    ex: Executor,
    dir: tempfile::TempDir,
}

impl Harness {
    fn new() -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let registry = Arc::new(toolwright::registry().unwrap());
        let ex = Executor::builder(registry).policy(AllowAll).default_timeout(Duration::from_secs(20)).build();
        Harness { rt, ex, dir: tempfile::tempdir().unwrap() }
    }

    /// Runs one call and checks it got one well-formed result.
    fn one_result(&self, tool: &str, input: String) {
        let call = ToolCall::new("prop", tool, input);
        let turn = TurnContext::new(self.dir.path());
        let result = self.rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(30), self.ex.execute(&call, &turn)).await.expect("execute hung")
        });
        assert_eq!(&*result.call_id, "prop");
        assert_eq!(result.output.is_error, result.error.is_some());
        assert!(!result.output.content.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_gets_one_result(value in json_value(), tool in prop::sample::select(TOOLS)) {
        thread_local!(static H: Harness = Harness::new());
        H.with(|h| h.one_result(tool, value.to_string()));
    }

    #[test]
    fn arbitrary_text_gets_one_result(text in ".{0,200}", tool in prop::sample::select(TOOLS)) {
        thread_local!(static H: Harness = Harness::new());
        H.with(|h| h.one_result(tool, text));
    }
}

#[test]
fn extreme_inputs_get_one_result_each() {
    let h = Harness::new();
    let deep_array = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_object = format!("{}1{}", r#"{"key":"#.repeat(10_000), "}".repeat(10_000));
    let deep_field = format!(r#"{{"key":"k","tags":{}{}}}"#, "[".repeat(10_000), "]".repeat(10_000));
    let huge = format!(r#"{{"key":"{}","tags":[]}}"#, "x".repeat(10 << 20));
    let huge_path = format!(r#"{{"path":"{}"}}"#, "a/".repeat(500_000));
    for tool in TOOLS {
        for input in [&deep_array, &deep_object, &deep_field, &huge, &huge_path] {
            h.one_result(tool, input.clone());
        }
    }
    // The huge valid input really reaches the tool.
    let result = h.rt.block_on(h.ex.execute(&ToolCall::new("x", "store", huge), &TurnContext::new(h.dir.path())));
    assert!(result.is_ok(), "{:?}", result.error);
    assert!(result.output.text_content().starts_with("xxxx"));
}
