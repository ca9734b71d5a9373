//! The link-time registry: built-ins present, generated lists in agreement with
//! inventory, runtime tools checked, renderings cached and byte-stable.
#![allow(missing_docs)]

use std::collections::BTreeSet;
use std::sync::Arc;
use toolwright::prelude::*;
use toolwright::{DEFAULT_TOOL_NAMES, DefaultTool, InputError, PreparedCall, RegistryError, ToolOrigin, ToolSpec};

/// Echo the text back.
#[tool(read_only, pure, concurrency_safe, idempotent, title = "Echo", aliases = ["say"])]
pub struct Echo {
    /// What to echo.
    pub text: String,
}

impl Tool for Echo {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} (as {})", self.text, cx.invoked_name()))
    }
}

fn builtin_tools_in_inventory() -> BTreeSet<String> {
    toolwright::linked_tools()
        .filter(|d| matches!(&d.spec().origin, ToolOrigin::Source { file, .. } if file.contains("builtin-tools")))
        .map(|d| d.spec().name.to_string())
        .collect()
}

#[test]
fn generated_enum_names_and_inventory_agree_both_ways() {
    let from_enum: BTreeSet<String> = DefaultTool::ALL.iter().map(|t| t.as_str().to_owned()).collect();
    let from_names: BTreeSet<String> = DEFAULT_TOOL_NAMES.iter().map(|n| n.to_string()).collect();
    let from_inventory = builtin_tools_in_inventory();
    assert!(from_enum.contains("read_file") && from_enum.contains("glob"), "{from_enum:?}");
    assert_eq!(from_enum, from_names);
    assert_eq!(from_enum, from_inventory, "every built-in #[tool] is in DefaultTool, and every variant is linked");
    assert_eq!(DefaultTool::ALL.len(), DEFAULT_TOOL_NAMES.len());
    for tool in DefaultTool::ALL {
        assert_eq!(tool.as_str().parse::<DefaultTool>().unwrap(), *tool);
        assert_eq!(tool.to_string(), tool.as_str());
    }
    let err = "nope".parse::<DefaultTool>().unwrap_err().to_string();
    assert!(err.contains("`nope` is not a built-in tool") && err.contains("read_file"), "{err}");
}

#[test]
fn registry_holds_builtins_and_local_tools_sorted() {
    let registry = toolwright::registry().unwrap();
    let names = registry.names();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for name in DEFAULT_TOOL_NAMES.iter().chain(&["echo"]) {
        assert!(registry.contains(name), "{name} missing from {names:?}");
    }
    assert!(Arc::ptr_eq(&registry.get("say").unwrap(), &registry.get("echo").unwrap()), "an alias shares the handler");
    // The explicit path holds the built-ins even with no inventory at all.
    let explicit = toolwright::builtin::register_all(Registry::builder()).build().unwrap();
    assert_eq!(explicit.names(), {
        let mut n = DEFAULT_TOOL_NAMES.to_vec();
        n.sort();
        n
    });
}

struct Runtime(ToolSpec);

impl DynTool for Runtime {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        unreachable!("not called in these tests")
    }
}

fn runtime(name: &str) -> Arc<dyn DynTool> {
    Arc::new(Runtime(ToolSpec::runtime(name.to_owned(), "A runtime tool.", "mcp server \"docs\"")))
}

#[test]
fn runtime_tools_are_checked_like_static_ones() {
    let ok = Registry::builder().with_inventory().register_dyn(runtime("search_docs")).build().unwrap();
    assert!(ok.definitions(Provider::Gemini).unwrap().as_str().contains("search_docs"));

    let err = Registry::builder().register_dyn(runtime("docs.search")).build().unwrap_err();
    assert!(matches!(&err, RegistryError::InvalidName { name, .. } if name == "docs.search"), "{err}");
    assert!(err.to_string().contains("mcp server \"docs\""), "{err}");

    let err = Registry::builder().with_inventory().register_dyn(runtime("echo")).build().unwrap_err().to_string();
    assert!(
        err.contains("tool `echo` at tests/registry.rs:") && err.contains("tool `echo` at mcp server \"docs\""),
        "{err}"
    );
}

#[test]
fn renderings_are_cached_and_identical() {
    let registry = toolwright::registry().unwrap();
    for provider in Provider::ALL {
        let first = registry.definitions(provider).unwrap();
        let second = registry.definitions(provider).unwrap();
        assert_eq!(first.as_str().as_ptr(), second.as_str().as_ptr(), "{provider}: second call must reuse the bytes");
        let rebuilt = toolwright::registry().unwrap().definitions(provider).unwrap();
        assert_eq!(first.as_str(), rebuilt.as_str(), "{provider}: a new registry renders the same bytes");
    }
}

#[test]
fn anthropic_cache_control_marks_only_the_last_tool() {
    let registry = toolwright::registry().unwrap();
    let plain = registry.definitions(Provider::ANTHROPIC).unwrap().to_value();
    let cached = registry.definitions(Provider::Anthropic { strict: false, cache_control: true }).unwrap().to_value();
    let (plain, cached) = (plain.as_array().unwrap(), cached.as_array().unwrap());
    assert_eq!(plain.len(), cached.len());
    let last = cached.len() - 1;
    assert_eq!(cached[last]["cache_control"], serde_json::json!({"type": "ephemeral"}));
    assert!(cached[..last].iter().all(|t| t.get("cache_control").is_none()));
    let mut unmarked = cached[last].clone();
    unmarked.as_object_mut().unwrap().shift_remove("cache_control");
    assert_eq!(unmarked, plain[last]);
}

#[test]
fn mcp_annotations_and_title_follow_the_flags() {
    let registry = toolwright::registry().unwrap();
    let echo: serde_json::Value =
        serde_json::from_str(&registry.definition("echo", Provider::Mcp).unwrap().unwrap()).unwrap();
    assert_eq!(echo["title"], "Echo");
    assert_eq!(
        echo["annotations"],
        serde_json::json!({"title": "Echo", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
}

#[test]
fn erased_calls_parse_once_and_explain_bad_input() {
    let registry = toolwright::registry().unwrap();
    let cx = ToolContext::new(".").with_invoked_name("say");
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let echo = registry.get("say").unwrap();
    let out = rt.block_on(toolwright::call_raw(echo.as_ref(), br#"{"text":"hi"}"#, &cx));
    assert_eq!((out.text_content().as_str(), out.is_error), ("hi (as say)", false));
    let cases: [(&[u8], &str); 4] = [
        (
            br#"{"text": 5}"#,
            "echo: invalid input: text: expected a string, got an integer 5. Send it as a string, in quotes",
        ),
        (br#"{}"#, "echo: invalid input: missing field `text`: expected an object with field `text`, got {}"),
        (
            br#"{"text":"a","loud":true}"#,
            "echo: invalid input: unknown field `loud`: expected an object with field `text`, got {\"text\":\"a\",\"loud\":true}",
        ),
        (
            br#"{"text":"a""#,
            "echo: invalid input: invalid JSON at `text`: EOF while parsing an object, after `{\"text\":\"a\"` (line 1, column 11)",
        ),
    ];
    for (input, expected) in cases {
        let out = rt.block_on(toolwright::call_raw(echo.as_ref(), input, &cx));
        assert!(out.is_error);
        assert_eq!(out.text_content(), expected);
    }
}
