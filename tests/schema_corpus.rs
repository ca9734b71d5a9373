//! A corpus of tricky input structs, each rendered for every provider and checked
#![allow(missing_docs)]
//! against the provider rules in `common/provider_rules.rs`. Where a provider cannot
//! express a struct, the expected error is asserted instead.

mod common;

use common::provider_rules::{check_anthropic_strict_list, check_tool, is_required};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use toolwright::prelude::*;
use toolwright::{Deserialize, JsonSchema};

/// Every tool in this file has the same do-nothing `call`; the schemas are the point.
macro_rules! noop_tools {
    ($($t:ident),* $(,)?) => {$(
        impl Tool for $t {
            type Output = String;
            async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
                Ok(String::new())
            }
        }
    )*};
}

#[derive(Deserialize, JsonSchema)]
pub struct Point {
    /// Horizontal.
    pub x: f64,
    /// Vertical.
    pub y: f64,
}

#[derive(Deserialize, JsonSchema)]
pub struct Level3 {
    pub leaf: String,
}
#[derive(Deserialize, JsonSchema)]
pub struct Level2 {
    pub inner: Level3,
    pub tags: Vec<String>,
}
#[derive(Deserialize, JsonSchema)]
pub struct Level1 {
    pub inner: Level2,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    Green,
    Blue,
}

/// A shape.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        radius: f64,
    },
    Square {
        side: f64,
    },
    At(Point),
    Nothing,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "op", content = "args")]
pub enum Adjacent {
    Add(i32),
    Rename { from: String, to: String },
}

#[derive(Debug, Deserialize, JsonSchema)]
pub enum External {
    Text(String),
    Pair { a: u8, b: u8 },
    Empty,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Untagged {
    Number(i64),
    Words(Vec<String>),
}

#[derive(Deserialize, JsonSchema)]
pub struct TreeNode {
    pub label: String,
    pub children: Vec<TreeNode>,
}

/// A list that ends where `next` is left out or null.
#[derive(Deserialize, JsonSchema)]
pub struct Link {
    #[schemars(length(min = 1, max = 20))]
    pub label: String,
    pub weight: u8,
    pub next: Option<Box<Link>>,
}

#[derive(Deserialize, JsonSchema)]
pub struct Common {
    /// Page size.
    pub page_size: Option<u32>,
    pub verbose: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "mode")]
pub enum Mode {
    Fast { level: u8 },
    Careful { checks: Vec<String> },
}

macro_rules! deep {
    ($name:ident => $inner:ty) => {
        #[derive(Deserialize, JsonSchema)]
        pub struct $name {
            pub next: $inner,
        }
    };
}
deep!(D11 => String);
deep!(D10 => D11);
deep!(D9 => D10);
deep!(D8 => D9);
deep!(D7 => D8);
deep!(D6 => D7);
deep!(D5 => D6);
deep!(D4 => D5);
deep!(D3 => D4);
deep!(D2 => D3);
deep!(D1 => D2);

fn positive_with_exclusive(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "number", "exclusiveMinimum": 0})
}
fn version_const(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "const": "v1"})
}
fn numeric_const(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "const": 3})
}
fn default_limit() -> u32 {
    50
}

/// Flat primitives.
#[tool]
pub struct C01Primitives {
    pub s: String,
    pub b: bool,
    pub f32_value: f32,
    pub f64_value: f64,
    pub c: char,
}
/// Integer widths.
#[tool]
pub struct C02Integers {
    pub a: i8,
    pub b: u8,
    pub c: i16,
    pub d: u16,
    pub e: i32,
    pub f: u32,
    pub g: i64,
    pub h: u64,
    pub i: usize,
    pub j: isize,
}
/// Nested struct.
#[tool]
pub struct C03Nested {
    /// Where to go.
    pub target: Point,
}
/// Three levels deep.
#[tool]
pub struct C04Deep {
    pub top: Level1,
}
/// Option of Vec.
#[tool]
pub struct C05OptionVec {
    /// Optional list.
    pub items: Option<Vec<String>>,
    pub points: Option<Vec<Point>>,
}
/// A HashMap field.
#[tool]
pub struct C06HashMap {
    pub env: HashMap<String, String>,
}
/// A BTreeMap of structs.
#[tool]
pub struct C07BTreeMap {
    pub points: BTreeMap<String, Point>,
}
/// A unit enum.
#[tool]
pub struct C08UnitEnum {
    /// The colour.
    pub color: Color,
}
/// An internally tagged enum.
#[tool]
pub struct C09Tagged {
    pub shape: Shape,
}
/// An adjacently tagged enum.
#[tool]
pub struct C10Adjacent {
    pub action: Adjacent,
}
/// An externally tagged enum.
#[tool]
pub struct C11External {
    pub value: External,
}
/// An untagged enum.
#[tool]
pub struct C12Untagged {
    pub value: Untagged,
}
/// Renamed fields.
#[tool]
#[serde(rename_all = "camelCase")]
pub struct C13Renamed {
    pub file_path: String,
    #[serde(rename = "max")]
    pub max_count: u32,
}
/// Defaults.
#[tool]
pub struct C14Defaults {
    pub query: String,
    /// How many.
    #[serde(default = "default_limit")]
    pub limit: u32,
    #[serde(default)]
    pub include_hidden: bool,
    /// How loud: an input type without `Serialize`, so its default is not known to
    /// the schema and strict mode offers null for it.
    #[serde(default)]
    pub volume: Volume,
}

#[toolwright::input]
#[derive(Default)]
pub enum Volume {
    #[default]
    Quiet,
    Loud,
}
/// A flattened struct.
#[tool]
pub struct C15Flatten {
    pub query: String,
    #[serde(flatten)]
    pub common: Common,
}
/// A flattened enum.
#[tool]
pub struct C16FlattenEnum {
    pub name: String,
    #[serde(flatten)]
    pub mode: Mode,
}
/// A boxed field.
#[tool]
pub struct C17Boxed {
    pub point: Box<Point>,
}
/// A recursive type reached through an optional field.
#[tool]
pub struct C34RecursiveOptional {
    pub chain: Link,
    pub spare: Option<Link>,
}
/// A recursive type.
#[tool]
pub struct C18Recursive {
    pub tree: TreeNode,
}
/// Strings with formats and constraints.
#[tool]
pub struct C19StringFormats {
    #[schemars(email)]
    pub email: String,
    #[schemars(url)]
    pub homepage: String,
    #[schemars(length(min = 1, max = 80))]
    pub title: String,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    pub slug: String,
    #[schemars(range(min = 1, max = 10))]
    pub rating: u8,
}
/// Counts, sets, lookaround and a format outside Anthropic's strict list.
#[tool]
pub struct C32Counted {
    /// Between two and five tags.
    #[schemars(length(min = 2, max = 5))]
    pub tags: Vec<String>,
    pub unique: std::collections::BTreeSet<u16>,
    #[schemars(regex(pattern = r"^(?!tmp)[a-z]+$"))]
    pub name: String,
    /// A ratio.
    #[schemars(range(min = 0.5))]
    pub ratio: f64,
    pub at_least_one: Option<Vec<u8>>,
}
/// Declared fields and a flattened map; answers with what it parsed.
#[tool]
#[derive(Debug)]
pub struct C36FlattenMap {
    pub name: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, u32>,
}

impl Tool for C36FlattenMap {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{self:?}"))
    }
}
/// Unions of different kinds of value; answers with what it parsed.
#[tool]
#[derive(Debug)]
pub struct C35Mixed {
    pub external: External,
    pub untagged: Option<Untagged>,
}

impl Tool for C35Mixed {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{:?}", self))
    }
}
/// Every adapted shape, nested too; answers with what it parsed.
#[tool]
#[derive(Debug)]
pub struct C34Adapted {
    pub pair: (u8, String),
    pub env: HashMap<String, String>,
    pub payload: serde_json::Value,
    pub routes: BTreeMap<String, (u16, bool)>,
    pub extra: Option<BTreeMap<String, serde_json::Value>>,
    pub values: Vec<serde_json::Value>,
}

impl Tool for C34Adapted {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        let mut env: Vec<_> = self.env.iter().collect();
        env.sort();
        Ok(format!("{:?} {env:?} {} {:?} {:?} {:?}", self.pair, self.payload, self.routes, self.extra, self.values))
    }
}
/// Nested vectors.
#[tool]
pub struct C20VecVec {
    pub grid: Vec<Vec<i32>>,
}
/// A tuple field.
#[tool]
pub struct C21Tuple {
    pub pair: (u8, String),
}
/// A free-form JSON field.
#[tool]
pub struct C22AnyJson {
    pub payload: serde_json::Value,
}
/// No parameters at all.
#[tool]
pub struct C23Unit;
/// An empty braced struct.
#[tool]
pub struct C24EmptyBraces {}
/// Option of an enum.
#[tool]
pub struct C25OptionEnum {
    /// Maybe a colour.
    pub color: Option<Color>,
}
/// Option of a struct.
#[tool]
pub struct C26OptionStruct {
    /// Maybe a point.
    pub at: Option<Point>,
}
/// Vec of options.
#[tool]
pub struct C27VecOfOptions {
    pub cells: Vec<Option<String>>,
}
/// A path and a skipped field.
#[tool]
pub struct C28PathAndSkip {
    pub path: PathBuf,
    #[serde(skip)]
    pub cache: Vec<u8>,
}
/// Nested more than ten levels.
#[tool]
pub struct C29TooDeep {
    pub next: D1,
}
/// Nested exactly ten levels below the root: OpenAI strict's limit, accepted.
#[tool]
pub struct C33AtTheDepthLimit {
    pub next: D2,
}
/// Exclusive bounds and a string constant.
#[tool]
pub struct C30Keywords {
    #[schemars(schema_with = "positive_with_exclusive")]
    pub weight: f64,
    #[schemars(schema_with = "version_const")]
    pub version: String,
}
/// A numeric constant.
#[tool]
pub struct C31NumericConst {
    #[schemars(schema_with = "numeric_const")]
    pub three: u8,
}
/// A list of tagged enums.
#[tool]
pub struct C32VecOfTagged {
    pub shapes: Vec<Shape>,
}

noop_tools!(
    C01Primitives,
    C02Integers,
    C03Nested,
    C04Deep,
    C05OptionVec,
    C06HashMap,
    C07BTreeMap,
    C08UnitEnum,
    C09Tagged,
    C10Adjacent,
    C11External,
    C12Untagged,
    C13Renamed,
    C14Defaults,
    C15Flatten,
    C16FlattenEnum,
    C17Boxed,
    C18Recursive,
    C19StringFormats,
    C32Counted,
    C20VecVec,
    C21Tuple,
    C22AnyJson,
    C23Unit,
    C24EmptyBraces,
    C25OptionEnum,
    C26OptionStruct,
    C27VecOfOptions,
    C28PathAndSkip,
    C29TooDeep,
    C33AtTheDepthLimit,
    C30Keywords,
    C31NumericConst,
    C32VecOfTagged,
    C34RecursiveOptional,
);

/// Which provider family a failure is expected for.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    Standard,
    Strict,
    AnthropicStrict,
    Gemini,
    All,
}

fn family_of(p: Provider) -> Option<Family> {
    match p {
        Provider::OpenAiChat { strict: true } | Provider::OpenAiResponses { strict: true } => Some(Family::Strict),
        Provider::Anthropic { strict: true, .. } => Some(Family::AnthropicStrict),
        Provider::Gemini => Some(Family::Gemini),
        _ => Some(Family::Standard),
    }
}

/// (tool, family, text the error must contain). Everything not listed must render
/// and pass the rules checker.
const EXPECTED_ERRORS: &[(&str, Family, &str)] = &[("c31_numeric_const", Family::Gemini, "strings only")];

fn expected_error(tool: &str, provider: Provider) -> Option<&'static str> {
    EXPECTED_ERRORS.iter().find_map(|(t, fam, text)| {
        let applies = *fam == Family::All || family_of(provider) == Some(*fam);
        (*t == tool && applies).then_some(*text)
    })
}

fn registry() -> toolwright::Registry {
    toolwright::registry().unwrap()
}

fn corpus_names(registry: &toolwright::Registry) -> Vec<String> {
    registry.names().into_iter().filter(|n| n.starts_with('c') && n.as_bytes()[1].is_ascii_digit()).collect()
}

#[test]
fn every_corpus_tool_renders_within_the_rules_or_fails_clearly() {
    let registry = registry();
    let names = corpus_names(&registry);
    assert!(names.len() >= 30, "corpus has {} tools", names.len());
    let mut problems = Vec::new();
    for name in &names {
        for provider in Provider::ALL {
            let rendered = registry.definition(name, provider).unwrap();
            match (rendered, expected_error(name, provider)) {
                (Ok(json), None) => {
                    let value: Value = serde_json::from_str(&json).unwrap();
                    for violation in check_tool(provider, &value) {
                        problems.push(format!("{name} / {provider}: {violation}\n  {json}"));
                    }
                }
                (Ok(json), Some(text)) => {
                    problems.push(format!("{name} / {provider}: expected an error containing `{text}`, got {json}"))
                }
                (Err(e), Some(text)) => {
                    let message = e.to_string();
                    if !message.contains(text) || !message.contains(name) {
                        problems.push(format!(
                            "{name} / {provider}: error `{message}` does not name the tool and `{text}`"
                        ));
                    }
                }
                (Err(e), None) => problems.push(format!("{name} / {provider}: unexpected error: {e}")),
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

fn schema(name: &str, provider: Provider) -> Value {
    let registry = registry();
    let json: Value = serde_json::from_str(&registry.definition(name, provider).unwrap().unwrap()).unwrap();
    match provider {
        Provider::Anthropic { .. } => json["input_schema"].clone(),
        Provider::OpenAiChat { .. } => json["function"]["parameters"].clone(),
        Provider::Mcp => json["inputSchema"].clone(),
        Provider::GeminiJsonSchema => json["parametersJsonSchema"].clone(),
        _ => json["parameters"].clone(),
    }
}

#[test]
fn option_is_optional_nullable_or_nullable_flag_per_provider() {
    let anthropic = schema("c05_option_vec", Provider::ANTHROPIC);
    assert!(!is_required(&anthropic, "items"));
    assert_eq!(
        anthropic["properties"]["items"],
        json!({"type": "array", "description": "Optional list.", "items": {"type": "string"}})
    );

    let strict = schema("c05_option_vec", Provider::OpenAiChat { strict: true });
    assert!(is_required(&strict, "items") && is_required(&strict, "points"));
    assert_eq!(strict["properties"]["items"]["type"], json!(["array", "null"]));
    assert_eq!(strict["properties"]["points"]["items"]["additionalProperties"], json!(false));

    let gemini = schema("c05_option_vec", Provider::Gemini);
    assert!(!is_required(&gemini, "items"));
    assert_eq!(gemini["properties"]["items"]["nullable"], json!(true));
    assert_eq!(gemini["properties"]["items"]["type"], json!("array"));

    // Option of a struct: `anyOf [ref, null]` collapses into the struct.
    let gemini = schema("c26_option_struct", Provider::Gemini);
    assert_eq!(gemini["properties"]["at"]["type"], json!("object"));
    assert_eq!(gemini["properties"]["at"]["nullable"], json!(true));
    assert_eq!(gemini["properties"]["at"]["description"], json!("Maybe a point."));
    let strict = schema("c26_option_struct", Provider::OpenAiResponses { strict: true });
    assert_eq!(strict["properties"]["at"]["anyOf"][1], json!({"type": "null"}));

    // Option of an enum: null joins the enum in strict mode, `nullable` in Gemini.
    let strict = schema("c25_option_enum", Provider::OpenAiChat { strict: true });
    assert_eq!(strict["properties"]["color"]["enum"], json!(["red", "green", "blue", null]));
    let gemini = schema("c25_option_enum", Provider::Gemini);
    assert_eq!(gemini["properties"]["color"]["enum"], json!(["red", "green", "blue"]));
}

#[test]
fn refs_are_inlined_and_recursion_kept_where_expressible_else_unrolled() {
    let anthropic = schema("c03_nested", Provider::ANTHROPIC);
    let text = anthropic.to_string();
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    assert_eq!(anthropic["properties"]["target"]["description"], json!("Where to go."));
    assert_eq!(anthropic["properties"]["target"]["properties"]["x"]["description"], json!("Horizontal."));

    let recursive = schema("c18_recursive", Provider::OpenAiChat { strict: true });
    assert_eq!(recursive["$defs"]["TreeNode"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/TreeNode"}));
    // Where there are no references, the type once, and the copy inside as JSON text.
    for provider in [Provider::Gemini, Provider::Anthropic { strict: true, cache_control: false }] {
        let unrolled = schema("c18_recursive", provider);
        let child = &unrolled["properties"]["tree"]["properties"]["children"]["items"];
        assert_eq!(child["type"], json!("string"), "{provider}: {unrolled}");
        assert!(
            child["description"]
                .as_str()
                .unwrap()
                .contains("`TreeNode` {label: a string; children: an array of a `TreeNode`}"),
            "{child}"
        );
        let sent = json!({"tree": {"label": "root", "children": ["{\"label\": \"leaf\", \"children\": []}"]}});
        let ok = run_tool("c18_recursive", &sent, Some(provider));
        assert!(!ok.output.is_error, "{provider}: {}", ok.output.text_content());
        assert!(run_tool("c18_recursive", &sent, None).output.is_error);
    }
}

#[test]
fn a_recursive_optional_field_takes_the_null_it_is_shown_with() {
    for provider in [
        Provider::OpenAiChat { strict: true },
        Provider::Gemini,
        Provider::Anthropic { strict: true, cache_control: false },
        Provider::ANTHROPIC,
    ] {
        let rendered = schema("c34_recursive_optional", provider).to_string();
        let ends = json!({"chain": {"label": "a", "weight": 1, "next": null}, "spare": null});
        let run = run_tool("c34_recursive_optional", &ends, Some(provider));
        assert!(!run.output.is_error, "{provider}: {} for {rendered}", run.output.text_content());
        // The rules inside the copy sent as JSON text are held, and were said.
        if provider != Provider::ANTHROPIC && provider != (Provider::OpenAiChat { strict: true }) {
            assert!(rendered.contains("label: a string, 1 to 20 characters"), "{provider}: {rendered}");
            let long = json!({"chain": {"label": "a", "weight": 1, "next": format!("{{\"label\": \"{}\", \"weight\": 1}}", "x".repeat(21))}});
            let run = run_tool("c34_recursive_optional", &long, Some(provider));
            assert!(run.output.is_error, "{provider}: a 21-character label inside JSON text passed");
        }
    }
}

#[test]
fn tagged_enum_variants_merge_their_fields_and_lose_const_where_unsupported() {
    let strict = schema("c09_tagged", Provider::OpenAiChat { strict: true });
    let variants = strict["properties"]["shape"]["anyOf"].as_array().unwrap();
    assert_eq!(variants.len(), 4);
    // The newtype variant `At(Point)`: its tag and Point's fields in one object.
    let at = &variants[2];
    assert_eq!(at["properties"]["kind"]["enum"], json!(["at"]));
    assert!(at["properties"]["x"].is_object() && at["properties"]["y"].is_object());
    assert_eq!(at["required"], json!(["kind", "x", "y"]));
    let standard = schema("c09_tagged", Provider::ANTHROPIC);
    assert_eq!(standard["properties"]["shape"]["oneOf"][0]["properties"]["kind"]["const"], json!("circle"));
}

#[test]
fn defaults_stay_visible_when_the_keyword_is_dropped() {
    let anthropic = schema("c14_defaults", Provider::ANTHROPIC);
    assert_eq!(anthropic["properties"]["limit"]["default"], json!(50));
    assert!(!is_required(&anthropic, "limit"));
    let strict = schema("c14_defaults", Provider::OpenAiChat { strict: true });
    // Required, not nullable: null would not parse into a u32.
    assert!(is_required(&strict, "limit"));
    assert_eq!(strict["properties"]["limit"]["type"], json!("integer"));
    assert_eq!(strict["properties"]["limit"]["description"], json!("How many. Default: 50."));
    assert_eq!(strict["properties"]["include_hidden"]["description"], json!("Default: false."));
}

/// Runs corpus tool `tool` with `input` (allowed), the model having been shown
/// `provider`'s rendering.
fn run_tool(tool: &str, input: &Value, provider: Option<Provider>) -> toolwright::ToolResult {
    let registry = std::sync::Arc::new(registry());
    let policy = toolwright::rules::RulePolicy::new().allow(tool);
    let executor = toolwright::Executor::builder(registry).policy(policy).build();
    let mut turn = toolwright::TurnContext::new(".");
    if let Some(provider) = provider {
        turn = turn.with_provider(provider);
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(executor.execute(&toolwright::ToolCall::new("1", tool, input.to_string()), &turn))
}

fn adapted_call(input: &Value, provider: Option<Provider>) -> toolwright::ToolResult {
    run_tool("c34_adapted", input, provider)
}

#[test]
fn adapted_shapes_parse_to_the_same_value_as_the_plain_shape() {
    let plain = json!({
        "pair": [7, "seven"],
        "env": {"A": "1", "B": "2"},
        "payload": {"deep": [1, {"x": null}]},
        "routes": {"/": [80, true]},
        "extra": {"k": [1, 2]},
        "values": [1, true, {"three": 3}],
    });
    let expected = adapted_call(&plain, None);
    assert!(!expected.output.is_error, "{}", expected.output.text_content());
    let lowered = json!({
        "pair": {"_0": 7, "_1": "seven"},
        "env": [{"key": "A", "value": "1"}, {"key": "B", "value": "2"}],
        "payload": "{\"deep\": [1, {\"x\": null}]}",
        "routes": [{"key": "/", "value": {"_0": 80, "_1": true}}],
        "extra": [{"key": "k", "value": "[1, 2]"}],
        "values": ["1", "true", "{\"three\": 3}"],
    });
    for provider in [
        Provider::OpenAiChat { strict: true },
        Provider::OpenAiResponses { strict: true },
        Provider::Anthropic { strict: true, cache_control: false },
        Provider::Gemini,
    ] {
        // What the provider was shown describes the lowered shape.
        let rendered = registry().definition("c34_adapted", provider).unwrap().unwrap();
        assert!(!rendered.contains("prefixItems") && !rendered.contains("additionalProperties\":{"), "{rendered}");
        let got = adapted_call(&lowered, Some(provider));
        assert_eq!(got.output.text_content(), expected.output.text_content(), "{provider}");
        // The plain shape still works whatever the provider (a free value that is a
        // string is the exception: that provider was told to send JSON text).
        assert_eq!(adapted_call(&plain, Some(provider)).output.text_content(), expected.output.text_content());
    }
    // Without the provider, JSON text stays text: a plain rendering takes any value.
    let as_text =
        adapted_call(&json!({"pair": [1, "a"], "env": {}, "payload": "[1]", "routes": {}, "values": []}), None);
    assert!(as_text.output.text_content().contains(r#" "[1]" "#), "{}", as_text.output.text_content());
    // Broken JSON text is an error naming the field.
    let broken = json!({"pair": [1, "a"], "env": {}, "payload": "{oops", "routes": {}, "values": []});
    let e = adapted_call(&broken, Some(Provider::Gemini));
    assert!(e.output.is_error);
    assert!(e.output.text_content().contains("payload: expected JSON text"), "{}", e.output.text_content());
}

#[test]
fn a_flattened_enum_renders_as_one_object_and_comes_back() {
    for provider in Provider::ALL {
        let root = schema("c16_flatten_enum", provider);
        assert!(root.get("anyOf").is_none() && root.get("oneOf").is_none(), "{provider}: {root}");
        assert_eq!(root["properties"]["mode"]["enum"], json!(["Fast", "Careful"]), "{provider}: {root}");
        assert!(root["description"].as_str().unwrap().contains(r#"{mode: "Fast", level}"#), "{provider}: {root}");
    }
    // OpenAI strict requires every field, so the other variant's comes as null.
    let strict = Some(Provider::OpenAiChat { strict: true });
    let sent = json!({"name": "n", "mode": "Fast", "level": 3, "checks": null});
    let ok = run_tool("c16_flatten_enum", &sent, strict);
    assert!(!ok.output.is_error, "{}", ok.output.text_content());
    // A variant's fields with another's tag are still refused by the real schema.
    let wrong = run_tool("c16_flatten_enum", &json!({"name": "n", "mode": "Careful", "level": 3}), None);
    assert!(wrong.output.is_error, "{}", wrong.output.text_content());
}

#[test]
fn an_object_past_openai_strict_depth_is_json_text_and_comes_back() {
    let strict = Provider::OpenAiChat { strict: true };
    let mut node = schema("c29_too_deep", strict);
    for _ in 0..10 {
        node = node["properties"]["next"].clone();
    }
    // D10 is at level 10; its `next`, D11, would be at 11.
    assert_eq!(node["properties"]["next"]["type"], json!("string"), "{node}");
    let mut sent = json!("{\"next\": \"deep\"}");
    for _ in 0..11 {
        sent = json!({ "next": sent });
    }
    let ok = run_tool("c29_too_deep", &sent, Some(strict));
    assert!(!ok.output.is_error, "{}", ok.output.text_content());
    assert!(run_tool("c29_too_deep", &sent, None).output.is_error, "JSON text only for OpenAI strict's calls");
}

#[test]
fn a_flattened_map_comes_back_from_its_list_of_entries() {
    let plain = json!({"name": "n", "a": 1, "b": 2});
    let expected = run_tool("c36_flatten_map", &plain, None).output.text_content();
    assert!(expected.contains(r#"extra: {"a": 1, "b": 2}"#), "{expected}");
    let lowered = json!({"name": "n", "_extra": [{"key": "a", "value": 1}, {"key": "b", "value": 2}]});
    for provider in [
        Provider::OpenAiChat { strict: true },
        Provider::Anthropic { strict: true, cache_control: false },
        Provider::Gemini,
    ] {
        let root = schema("c36_flatten_map", provider);
        assert_eq!(root["properties"]["_extra"]["items"]["properties"]["value"]["type"], json!("integer"), "{root}");
        assert_eq!(run_tool("c36_flatten_map", &lowered, Some(provider)).output.text_content(), expected, "{provider}");
    }
    // OpenAI strict sends `null` when there are none.
    let none =
        run_tool("c36_flatten_map", &json!({"name": "n", "_extra": null}), Some(Provider::OpenAiChat { strict: true }));
    assert!(none.output.text_content().contains("extra: {}"), "{}", none.output.text_content());
}

#[test]
fn a_field_the_variants_shape_differently_is_json_text_for_gemini() {
    // `#[serde(tag = "op", content = "args")]`: `args` is an integer or an object.
    let gemini = schema("c10_adjacent", Provider::Gemini);
    let args = &gemini["properties"]["action"]["properties"]["args"];
    assert_eq!(args["type"], json!("string"), "{gemini}");
    let sent = json!({"action": {"op": "Rename", "args": "{\"from\": \"a\", \"to\": \"b\"}"}});
    let ok = run_tool("c10_adjacent", &sent, Some(Provider::Gemini));
    assert!(!ok.output.is_error, "{}", ok.output.text_content());
    assert!(run_tool("c10_adjacent", &sent, None).output.is_error, "only Gemini's calls are read as JSON text");
    let plain = json!({"action": {"op": "Add", "args": 3}});
    assert!(!run_tool("c10_adjacent", &plain, Some(Provider::OpenAiChat { strict: true })).output.is_error);
}

#[test]
fn unions_of_different_kinds_come_back_from_gemini_json_text() {
    let gemini = schema("c35_mixed", Provider::Gemini);
    assert_eq!(gemini["properties"]["external"]["type"], json!("string"));
    let said = gemini["properties"]["external"]["description"].as_str().unwrap();
    assert!(
        said.starts_with("JSON text")
            && said.contains(r#""Empty""#)
            && said.contains("{Pair: {a: an integer, from 0 to 255; b: an integer, from 0 to 255}}"),
        "{said}"
    );
    assert_eq!(gemini["properties"]["untagged"]["nullable"], json!(true));
    let run = |input: Value, provider: Option<Provider>| run_tool("c35_mixed", &input, provider).output.text_content();
    let plain = run(json!({"external": "Empty", "untagged": [ "a", "b" ]}), None);
    assert!(plain.contains("Empty") && plain.contains("Words"), "{plain}");
    let from_gemini = run(json!({"external": "\"Empty\"", "untagged": "[\"a\", \"b\"]"}), Some(Provider::Gemini));
    assert_eq!(from_gemini, plain);
    // OpenAI strict keeps the union: its calls are not read as JSON text.
    let strict = Provider::OpenAiChat { strict: true };
    assert_eq!(run(json!({"external": "Empty", "untagged": ["a", "b"]}), Some(strict)), plain);
    let pair = run(json!({"external": "{\"Pair\": {\"a\": 1, \"b\": 2}}", "untagged": "7"}), Some(Provider::Gemini));
    assert!(pair.contains("Pair { a: 1, b: 2 }") && pair.contains("Number(7)"), "{pair}");
}

#[test]
fn gemini_merges_union_variants_and_says_string_lengths() {
    let gemini = schema("c09_tagged", Provider::Gemini);
    let shape = &gemini["properties"]["shape"];
    assert!(shape.get("anyOf").is_none(), "{shape}");
    assert_eq!(shape["type"], json!("object"));
    assert_eq!(shape["properties"]["kind"]["enum"], json!(["circle", "square", "at", "nothing"]));
    for field in ["radius", "side", "x", "y"] {
        assert!(shape["properties"][field].is_object(), "{field}: {shape}");
    }
    assert_eq!(shape["required"], json!(["kind"]), "only what every variant requires");
    let said = shape["description"].as_str().unwrap();
    assert!(said.contains(r#"{kind: "circle", radius}"#) && said.contains(r#"{kind: "nothing"}"#), "{said}");
    // `char`: one character, said rather than `minLength`/`maxLength`.
    let scalars = schema("c01_primitives", Provider::Gemini);
    let c = &scalars["properties"]["c"];
    assert!(c.get("minLength").is_none() && c.get("maxLength").is_none(), "{c}");
    assert_eq!(c["description"], json!("Exactly 1 character."));
    // The JSON Schema form keeps the union as it is.
    let json_schema = registry().definition("c09_tagged", Provider::GeminiJsonSchema).unwrap().unwrap();
    let json_schema: Value = serde_json::from_str(&json_schema).unwrap();
    assert_eq!(json_schema["parametersJsonSchema"]["properties"]["shape"]["oneOf"].as_array().unwrap().len(), 4);
}

#[test]
fn an_input_in_a_merged_shape_is_still_held_to_the_real_union() {
    let run = |input: Value| run_tool("c09_tagged", &input, None);
    let ok = run(json!({"shape": {"kind": "circle", "radius": 1.5}}));
    assert!(!ok.output.is_error, "{:?}", ok.output.text_content());
    // The merged object would allow this; the tool's own schema does not.
    let mixed = run(json!({"shape": {"kind": "circle", "side": 2.0}}));
    assert!(mixed.output.is_error, "{:?}", mixed.output.text_content());
}

#[test]
fn gemini_lowers_keywords_it_lacks() {
    let gemini = schema("c30_keywords", Provider::Gemini);
    // An exclusive bound on a number is shown inclusive (Gemini has no other), and the
    // description says it is exclusive: the check holds to it.
    assert_eq!(
        gemini["properties"]["weight"],
        json!({"type": "number", "description": "Greater than 0.", "minimum": 0})
    );
    assert_eq!(gemini["properties"]["version"], json!({"type": "string", "enum": ["v1"]}));
    let ints = schema("c02_integers", Provider::Gemini);
    assert_eq!(ints["properties"]["b"], json!({"type": "integer", "minimum": 0, "maximum": 255}));
}

#[test]
fn anthropic_strict_moves_what_it_cannot_carry_into_descriptions() {
    let strict = Provider::Anthropic { strict: true, cache_control: false };
    let formats = schema("c19_string_formats", strict);
    let p = &formats["properties"];
    assert_eq!(p["email"]["format"], json!("email"));
    assert_eq!(p["homepage"]["format"], json!("uri"), "uri is on Anthropic's list");
    assert_eq!(p["slug"]["pattern"], json!("^[a-z]+$"), "a simple pattern stays");
    assert!(p["title"].get("maxLength").is_none() && p["title"].get("minLength").is_none());
    assert_eq!(p["title"]["description"], json!("1 to 80 characters."));
    assert!(p["rating"].get("minimum").is_none() && p["rating"].get("maximum").is_none());
    assert_eq!(p["rating"]["description"], json!("From 1 to 10."));
    assert_eq!(formats["additionalProperties"], json!(false));

    let counted = schema("c32_counted", strict);
    let p = &counted["properties"];
    assert_eq!(p["tags"]["description"], json!("Between two and five tags. 2 to 5 items."));
    assert!(p["tags"].get("minItems").is_none() && p["tags"].get("maxItems").is_none());
    assert!(p["unique"].get("uniqueItems").is_none());
    assert!(p["unique"]["description"].as_str().unwrap().contains("No duplicates"), "{}", p["unique"]);
    assert!(p["name"].get("pattern").is_none(), "lookahead cannot be compiled into a grammar");
    assert!(p["name"]["description"].as_str().unwrap().contains("`^(?!tmp)[a-z]+$`"), "{}", p["name"]);
    assert_eq!(p["ratio"]["description"], json!("A ratio. At least 0.5."));
    // Optional stays optional: out of `required`, and not a union with null.
    assert_eq!(counted["required"], json!(["tags", "unique", "name", "ratio"]));
    assert_eq!(p["at_least_one"]["type"], json!("array"));
}

#[test]
fn anthropic_strict_constraints_are_still_enforced_on_input() {
    let registry = std::sync::Arc::new(registry());
    let executor = toolwright::Executor::new(std::sync::Arc::clone(&registry));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let input = json!({"tags": ["only one"], "unique": [1], "name": "ok", "ratio": 1.0}).to_string();
    let result = rt.block_on(
        executor.execute(&toolwright::ToolCall::new("1", "c32_counted", input), &toolwright::TurnContext::new(".")),
    );
    assert!(result.output.is_error);
    assert!(result.output.text_content().contains("tags"), "{}", result.output.text_content());
}

#[test]
fn anthropic_strict_lists_keep_to_the_per_request_limits() {
    let strict = Provider::Anthropic { strict: true, cache_control: false };
    // The built-in set: more optional parameters in all than the 24 strict tools may have.
    let builtins = toolwright::builtin::register_all(toolwright::Registry::builder()).build().unwrap();
    let list = builtins.definitions(strict).unwrap().to_value();
    assert_eq!(check_anthropic_strict_list(&list), Vec::<String>::new());
    let marked = list.as_array().unwrap().iter().filter(|t| t["strict"] == json!(true)).count();
    assert!((1..list.as_array().unwrap().len()).contains(&marked), "{marked} strict tools: the budget binds");
    // Every tool, strict or not, is in the strict subset, so any of them can be made strict.
    for tool in list.as_array().unwrap() {
        let mut marked = tool.clone();
        marked["strict"] = json!(true);
        assert_eq!(check_tool(strict, &marked), Vec::<String>::new(), "{}", tool["name"]);
    }
}

#[test]
fn string_constraints_survive_where_supported() {
    let anthropic = schema("c19_string_formats", Provider::ANTHROPIC);
    assert_eq!(anthropic["properties"]["email"]["format"], json!("email"));
    assert_eq!(anthropic["properties"]["title"]["maxLength"], json!(80));
    let strict = schema("c19_string_formats", Provider::OpenAiChat { strict: true });
    assert_eq!(strict["properties"]["email"]["format"], json!("email"));
    assert_eq!(strict["properties"]["slug"]["pattern"], json!("^[a-z]+$"));
    assert!(strict["properties"]["homepage"].get("format").is_none(), "strict mode has no `uri` format");
    assert!(strict["properties"]["title"].get("maxLength").is_none());
}

/// A value the rendered schema `schema` allows (`defs`: the document's `$defs`):
/// `variant` picks among the choices a schema leaves (which union member, whether an
/// optional field is given, null where null is allowed, the low or the high bound).
/// Patterns are satisfied only where the corpus's are known.
fn generate(schema: &Value, defs: &Value, variant: u32, depth: usize) -> Option<Value> {
    if depth > 12 {
        return None;
    }
    // What the description says, read as the constraint it states: a model reads it.
    let said = schema["description"].as_str().unwrap_or_default();
    if said.starts_with("JSON text") {
        // The value is JSON encoded in a string: its own shape is only described.
        return None;
    }
    let mut schema = schema.clone();
    read_description(said, &mut schema);
    let schema = &schema;
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or_default();
        return generate(&defs[name], defs, variant, depth + 1);
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.get(variant as usize % values.len().max(1)).cloned();
    }
    if let Some(constant) = schema.get("const") {
        return Some(constant.clone());
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(members) = schema.get(union).and_then(Value::as_array) {
            let start = variant as usize % members.len().max(1);
            return (0..members.len())
                .find_map(|k| generate(&members[(start + k) % members.len()], defs, variant / 2, depth + 1));
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let nullable = schema["nullable"] == true || types.contains(&"null");
    if nullable && variant % 3 == 1 {
        return Some(Value::Null);
    }
    let kind = types.iter().copied().find(|t| *t != "null").unwrap_or(if types.is_empty() { "any" } else { "null" });
    let high = variant % 2 == 1;
    Some(match kind {
        "null" => Value::Null,
        "boolean" => Value::Bool(high),
        "integer" | "number" => {
            let min = schema["minimum"].as_f64().or(schema["exclusiveMinimum"].as_f64().map(|m| m + 1.0));
            let max = schema["maximum"].as_f64().or(schema["exclusiveMaximum"].as_f64().map(|m| m - 1.0));
            let n = match (high, min, max) {
                (false, Some(min), _) => min,
                (true, _, Some(max)) => max,
                (_, Some(min), None) => min + 1.0,
                (_, None, Some(max)) => max - 1.0,
                (_, None, None) => 7.0,
            };
            let n = match schema["multipleOf"].as_f64() {
                Some(m) if m > 0.0 => (n / m).ceil() * m,
                _ => n,
            };
            if kind == "integer" { json!(n as i64) } else { json!(n) }
        }
        "string" => {
            if let Some(format) = schema["format"].as_str() {
                let sample = match format {
                    "email" => "a@example.com",
                    "uri" | "url" => "https://example.com/a",
                    "date-time" => "2026-12-03T10:00:00Z",
                    "date" => "2026-12-03",
                    "time" => "10:00:00",
                    "uuid" => "67e55044-10b1-426f-9247-bb680e5fe0c8",
                    "ipv4" => "192.0.2.1",
                    "ipv6" => "2001:db8::1",
                    "hostname" => "example.com",
                    "duration" => "P1D",
                    _ => "x",
                };
                return Some(json!(sample));
            }
            if let Some(pattern) = schema["pattern"].as_str() {
                return Some(json!(match pattern {
                    "^[a-z]+$" => "abc",
                    _ => return None,
                }));
            }
            let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
            let max = schema["maxLength"].as_u64().map(|m| m as usize);
            let len = match (high, max) {
                (true, Some(max)) => max,
                _ => min.max(1).min(max.unwrap_or(usize::MAX)),
            };
            json!("a".repeat(len))
        }
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0) as usize;
            let max = schema["maxItems"].as_u64().map(|m| m as usize).unwrap_or(3);
            let unique = schema["uniqueItems"] == true;
            let n = if high { max.min(3).max(min) } else { min.max(1).min(max) };
            let mut items = Vec::new();
            if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
                for item in prefix {
                    items.push(generate(item, defs, variant, depth + 1)?);
                }
                return Some(Value::Array(items));
            }
            for i in 0..n {
                let item = generate(&schema["items"], defs, variant + if unique { i as u32 } else { 0 }, depth + 1)?;
                if unique && items.contains(&item) {
                    continue;
                }
                items.push(item);
            }
            if items.len() < min {
                return None;
            }
            Value::Array(items)
        }
        "object" => {
            let mut out = serde_json::Map::new();
            let mut required: Vec<String> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            // A merged union says its variants: `One of {kind: "circle", radius} or ...`.
            let mut fixed: Vec<(String, Value)> = Vec::new();
            let mut only: Option<Vec<String>> = None;
            if let Some(variants) = said.split("One of ").nth(1) {
                let alternatives: Vec<&str> =
                    variants.split(" or ").filter(|a| a.trim_start().starts_with('{')).collect();
                if let Some(pick) = alternatives.get(variant as usize % alternatives.len().max(1)) {
                    let inner = pick.trim().trim_end_matches('.').trim_start_matches('{').trim_end_matches('}');
                    let mut names = Vec::new();
                    for field in inner.split(", ") {
                        match field.split_once(": ") {
                            Some((name, value)) => {
                                fixed.push((name.to_owned(), serde_json::from_str(value).ok()?));
                                names.push(name.to_owned());
                            }
                            None => names.push(field.trim_end_matches('?').to_owned()),
                        }
                    }
                    required.extend(names.iter().filter(|n| !inner.contains(&format!("{n}?"))).cloned());
                    only = Some(names);
                }
            }
            for (name, sub) in schema["properties"].as_object().into_iter().flatten() {
                let in_variant = only.as_ref().is_none_or(|names| {
                    names.contains(name) || schema["required"].as_array().is_some_and(|r| r.contains(&json!(name)))
                });
                let give = required.contains(name) || (high && in_variant);
                if !give || !in_variant && !required.contains(name) {
                    continue;
                }
                // A field its variant names is given a value, not the null strict mode allows.
                let named = only.as_ref().is_some_and(|names| names.contains(name));
                let choice = if named { variant * 3 } else { variant };
                match fixed.iter().find(|(n, _)| n == name) {
                    Some((_, value)) => out.insert(name.clone(), value.clone()),
                    None => out.insert(name.clone(), generate(sub, defs, choice, depth + 1)?),
                };
            }
            Value::Object(out)
        }
        _ => json!("free"),
    })
}

/// Every corpus tool, rendered for every provider: a value each rendering allows is
/// accepted by the tool's check (with the turn's provider set, as the agent loop
/// does), so a model is never refused for a rule it was not shown.
#[test]
fn what_each_rendering_allows_the_check_accepts() {
    let registry = registry();
    let mut problems = Vec::new();
    let mut checked = 0;
    for name in corpus_names(&registry) {
        for provider in Provider::ALL {
            let Some(Ok(_)) = registry.definition(&name, provider) else { continue };
            let mut rendered = schema(&name, provider);
            if rendered.is_null() {
                // A tool without parameters (Gemini leaves `parameters` out).
                rendered = json!({"type": "object", "properties": {}});
            }
            let defs = rendered.get("$defs").cloned().unwrap_or(Value::Null);
            for variant in 0..6 {
                let Some(value) = generate(&rendered, &defs, variant, 0) else { continue };
                checked += 1;
                // With the turn's provider set (as the agent loop sets it) and without
                // (a loop of the user's own that does not).
                for turn_provider in [Some(provider), None] {
                    let result = run_tool(&name, &value, turn_provider);
                    if result.output.is_error {
                        problems.push(format!(
                            "{name} / {provider} / variant {variant} / provider on the turn: {}: {value}\n  refused: {}",
                            turn_provider.is_some(),
                            result.output.text_content()
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} values were generated");
    assert!(problems.is_empty(), "{} of {checked} refused:\n{}", problems.len(), problems.join("\n"));
}

/// Reads what a description states (`2 to 5 items.`, `No duplicates.`, `Greater than
/// 0.`, `In the format uri.`, `From 1 to 10.`) into the keywords it stands for.
fn read_description(said: &str, schema: &mut Value) {
    let number = |text: &str| text.trim().trim_end_matches('.').parse::<f64>().ok();
    for sentence in said.split(['.', ';']).map(str::trim).flat_map(|s| s.split(", ")) {
        let lower = sentence.to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let set = |schema: &mut Value, key: &str, value: Value| {
            if schema.get(key).is_none() {
                schema[key] = value;
            }
        };
        match words.as_slice() {
            ["no", "duplicates"] => set(schema, "uniqueItems", json!(true)),
            ["in", "the", "format", format] => set(schema, "format", json!(format)),
            ["greater", "than", n] => {
                if let Some(n) = number(n) {
                    set(schema, "exclusiveMinimum", json!(n));
                    schema.as_object_mut().map(|m| m.remove("minimum"));
                }
            }
            ["less", "than", n] => {
                if let Some(n) = number(n) {
                    set(schema, "exclusiveMaximum", json!(n));
                    schema.as_object_mut().map(|m| m.remove("maximum"));
                }
            }
            ["from", a, "to", b] => {
                if let (Some(a), Some(b)) = (number(a), number(b)) {
                    set(schema, "minimum", json!(a));
                    set(schema, "maximum", json!(b));
                }
            }
            ["at", "least", n] => {
                if let Some(n) = number(n) {
                    set(schema, "minimum", json!(n));
                }
            }
            ["at", "most", n] => {
                if let Some(n) = number(n) {
                    set(schema, "maximum", json!(n));
                }
            }
            [a, "to", b, unit] | ["from", a, "to", b, unit] => {
                let (key_min, key_max) = match *unit {
                    "items" | "item" => ("minItems", "maxItems"),
                    "characters" | "character" => ("minLength", "maxLength"),
                    _ => continue,
                };
                if let (Some(a), Some(b)) = (number(a), number(b)) {
                    set(schema, key_min, json!(a as u64));
                    set(schema, key_max, json!(b as u64));
                }
            }
            ["at", "least", n, unit] | ["at", "most", n, unit] | ["exactly", n, unit] => {
                let Some(n) = number(n) else { continue };
                let (key_min, key_max) = match *unit {
                    "items" | "item" => ("minItems", "maxItems"),
                    "characters" | "character" => ("minLength", "maxLength"),
                    _ => continue,
                };
                if words[0] != "at" || words[1] == "least" {
                    set(schema, key_min, json!(n as u64));
                }
                if words[0] != "at" || words[1] == "most" {
                    set(schema, key_max, json!(n as u64));
                }
            }
            _ => {
                if let Some(pattern) = sentence
                    .strip_prefix("Matching the regular expression `")
                    .or_else(|| sentence.strip_prefix("matching the regular expression `"))
                {
                    set(schema, "pattern", json!(pattern.trim_end_matches('`')));
                }
            }
        }
    }
}
