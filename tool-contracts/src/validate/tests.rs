//! The validator against schemas as `schemars` writes them, and messages as a model
//! reads them.

use super::Validator;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

fn validator_for<T: JsonSchema>() -> Validator {
    Validator::new(&crate::schema_of::input_schema_of::<T>())
}

fn error<T: JsonSchema + serde::de::DeserializeOwned + std::fmt::Debug>(raw: &str) -> String {
    validator_for::<T>().parse::<T>(raw.as_bytes()).unwrap_err().to_string()
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Echo {
    #[schemars(length(min = 1, max = 10))]
    text: String,
    #[schemars(range(min = 1, max = 5))]
    times: u8,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    tag: Option<String>,
    #[schemars(email)]
    email: Option<String>,
    #[schemars(length(max = 2))]
    items: Option<Vec<u8>>,
    colour: Option<Colour>,
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(rename_all = "snake_case")]
enum Colour {
    Red,
    Green,
}

#[test]
fn constraints_are_enforced_with_json_messages() {
    let ok = r#"{"text":"hi","times":2,"tag":"abc","email":"a@example.com","items":[1],"colour":"red"}"#;
    assert!(validator_for::<Echo>().parse::<Echo>(ok.as_bytes()).is_ok());
    let cases = [
        (r#"{"text":"","times":2}"#, "text: expected a string of 1 to 10 characters, got \"\" (0 characters)"),
        (r#"{"text":"hi","times":9}"#, "times: expected an integer from 1 to 5, got 9"),
        (
            r#"{"text":"hi","times":2,"tag":"ABC"}"#,
            "tag: expected a string matching the pattern `^[a-z]+$`, or null, got \"ABC\"",
        ),
        (r#"{"text":"hi","times":2,"email":"nope"}"#, "email: expected an email address, or null, got \"nope\""),
        (
            r#"{"text":"hi","times":2,"items":[1,2,3]}"#,
            "items: expected an array of at most 2 items, each an integer from 0 to 255, or null, got 3 items: [1,2,3]",
        ),
        (
            r#"{"text":"hi","times":2,"colour":"blue"}"#,
            "colour: expected one of `red`, `green`, or null, got a string \"blue\"",
        ),
        (
            r#"{"text":"hi","times":"2"}"#,
            "times: expected an integer from 1 to 5, got a string \"2\". Send the number itself, without quotes",
        ),
        (r#"{"text":"hi","times":300}"#, "times: expected an integer from 1 to 5, got 300"),
        (
            r#"{"text":"hi","times":2.5}"#,
            "times: expected an integer from 1 to 5, got a number 2.5. Write a whole number, without a fraction or exponent",
        ),
        (
            r#"{"text":"hi","tims":2}"#,
            "unknown field `tims`: expected an object with fields `text`, `times`, `tag`, `email`, `items`, `colour` (`text`, `times` required), got {\"text\":\"hi\",\"tims\":2}. Did you mean `times`?",
        ),
        (
            r#"{"text":"hi"}"#,
            "missing field `times`: expected an object with fields `text`, `times`, `tag`, `email`, `items`, `colour` (`text`, `times` required), got {\"text\":\"hi\"}",
        ),
    ];
    for (raw, expected) in cases {
        assert_eq!(error::<Echo>(raw), expected, "{raw}");
    }
}

#[test]
fn an_array_is_never_an_object() {
    let message = error::<Echo>(r#"["hi", 3]"#);
    assert!(message.starts_with("expected an object with fields `text`"), "{message}");
    assert!(message.ends_with("got an array [\"hi\",3]. Send the fields by name, as a JSON object"), "{message}");

    #[derive(Deserialize, JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
        y: i32,
    }
    #[derive(Deserialize, JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Shape {
        at: Point,
    }
    // Below the root too, although the struct has no other constraint.
    assert!(validator_for::<Shape>().has_constraints());
    assert_eq!(
        error::<Shape>(r#"{"at":[1,2]}"#),
        "at: expected an object with fields `x`, `y` (all required), got an array [1,2]. Send the fields by name, as a JSON object"
    );
}

#[test]
fn a_schema_without_constraints_is_not_walked() {
    #[derive(Deserialize, JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Plain {
        a: i64,
        b: String,
        c: Option<u32>,
        d: Vec<String>,
    }
    assert!(!validator_for::<Plain>().has_constraints());
    assert_eq!(
        error::<Plain>(r#"{"a":1,"b":"x","c":-1,"d":[]}"#),
        "c: expected an integer from 0 to 4294967295, or null, got -1"
    );
}

#[derive(Deserialize, JsonSchema, Debug)]
#[allow(dead_code)]
enum External {
    Unit,
    Circle { radius: u8 },
    Pair(u8, String),
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(dead_code)]
enum Internal {
    Circle { radius: u8 },
    Square { side: u8 },
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(tag = "t", content = "c")]
#[allow(dead_code)]
enum Adjacent {
    Num(u8),
    Text(String),
}

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    Num(u8),
    Text(String),
}

#[derive(Deserialize, JsonSchema, Debug)]
#[allow(dead_code)]
struct Deep {
    external: Option<External>,
    internal: Option<Internal>,
    adjacent: Option<Adjacent>,
    untagged: Option<Untagged>,
    map: Option<BTreeMap<String, u8>>,
    tuple: Option<(u8, String)>,
    grid: Option<Vec<Vec<u8>>>,
}

#[test]
fn paths_reach_through_enums_maps_and_tuples() {
    let cases = [
        (
            r#"{"external":{"Circle":{"radius":300}}}"#,
            "external.Circle.radius: expected an integer from 0 to 255, got 300",
        ),
        (
            r#"{"external":{"Pair":[1, 2]}}"#,
            "external.Pair[1]: expected a string, got an integer 2. Send it as a string, in quotes",
        ),
        (
            r#"{"external":"Nope"}"#,
            "external: expected one of: exactly `Unit`; an object with field `Circle`; an object with field `Pair`, got a string \"Nope\"",
        ),
        (r#"{"internal":{"type":"square","side":-1}}"#, "internal.side: expected an integer from 0 to 255, got -1"),
        (r#"{"adjacent":{"t":"Num","c":"x"}}"#, "adjacent.c: expected an integer from 0 to 255, got a string \"x\""),
        (r#"{"untagged":[1]}"#, "untagged: expected one of: an integer from 0 to 255; a string, got an array [1]"),
        (r#"{"map":{"a":1,"b c":"x"}}"#, "map[\"b c\"]: expected an integer from 0 to 255, got a string \"x\""),
        (r#"{"tuple":[1,2]}"#, "tuple[1]: expected a string, got an integer 2. Send it as a string, in quotes"),
        (r#"{"grid":[[1],[2,256]]}"#, "grid[1][1]: expected an integer from 0 to 255, got 256"),
    ];
    for (raw, expected) in cases {
        assert_eq!(error::<Deep>(raw), expected, "{raw}");
    }
    let unknown = error::<Deep>(r#"{"internal":{"type":"triangle"}}"#);
    assert!(unknown.starts_with("internal: expected one of: an object with fields `type` = `circle`, `radius` (all required); an object with fields `type` = `square`"), "{unknown}");
}

#[test]
fn received_values_are_clipped() {
    let huge = "x".repeat(50_000_000 / 1000);
    let message = error::<Echo>(&format!(r#"{{"text":"{huge}","times":2}}"#));
    assert!(message.len() < 400, "{} bytes", message.len());
    assert!(message.contains("(50000 characters)"), "{message}");
}

#[test]
fn syntax_errors_name_where_they_are_even_past_the_depth_limit() {
    let deep = format!(r#"{{"text":"a","times":1,"items":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
    let message = error::<Echo>(&deep);
    assert!(message.starts_with("invalid JSON at `items[0][0]"), "{message}");
    assert!(message.contains("nested deeper than 127 levels"), "{message}");
    assert!(message.len() < 200, "the path is clipped: {message}");
    assert_eq!(
        error::<Echo>(r#"{"text":"a","items":[1,}"#),
        "invalid JSON at `items[1]`: expected value, after `{\"text\":\"a\",\"items\":[1,` (line 1, column 24)"
    );
}

#[test]
fn recursive_schemas_compile_and_check() {
    #[derive(Deserialize, JsonSchema, Debug)]
    #[allow(dead_code)]
    struct Tree {
        #[schemars(range(max = 9))]
        value: u8,
        children: Vec<Tree>,
    }
    assert_eq!(
        error::<Tree>(r#"{"value":1,"children":[{"value":2,"children":[{"value":10,"children":[]}]}]}"#),
        "children[0].children[0].value: expected an integer from 0 to 9, got 10"
    );
}

#[test]
fn null_is_named_once() {
    let message = error::<Echo>(r#"{"text":null,"times":2}"#);
    assert!(message.contains("got null") && !message.contains("null null"), "{message}");
}

/// A defaulted field, as a strict rendering shows it (nullable) at every depth.
#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
struct Entry {
    name: String,
    #[serde(default)]
    weight: u32,
}

#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Dot {
        #[serde(default)]
        size: u8,
    },
    Line {
        length: u8,
        #[serde(default)]
        dashed: bool,
    },
}

#[derive(Deserialize, JsonSchema, Debug, PartialEq)]
struct Nested {
    by_name: BTreeMap<String, Entry>,
    pair: (Entry, u8),
    shapes: Vec<Shape>,
}

#[test]
fn a_null_for_a_defaulted_field_is_absent_in_maps_tuples_and_unions_too() {
    let raw = r#"{"by_name": {"a": {"name": "a", "weight": null}},
        "pair": [{"name": "p", "weight": null}, 1],
        "shapes": [{"kind": "dot", "size": null}, {"kind": "line", "length": 3, "dashed": null}]}"#;
    let validator = validator_for::<Nested>();
    let cleaned = validator.without_absent_nulls(raw.as_bytes());
    let parsed: Nested = validator.parse(&cleaned).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.by_name["a"].weight, 0);
    assert_eq!(parsed.pair.0.weight, 0);
    assert_eq!(parsed.shapes, [Shape::Dot { size: 0 }, Shape::Line { length: 3, dashed: false }]);
    // A null for a required field stays, and is refused.
    let required = r#"{"by_name": {}, "pair": [{"name": null}, 1], "shapes": []}"#;
    let cleaned = validator.without_absent_nulls(required.as_bytes());
    assert!(validator.parse::<Nested>(&cleaned).is_err());
}
