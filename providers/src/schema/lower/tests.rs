use super::*;

fn strict(schema: &Value) -> Result<Value, LowerError> {
    lower(schema, Dialect::OpenAiStrict)
}

/// An object whose `next` property nests `levels` objects below the root.
fn nested(levels: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"next": schema}, "required": ["next"]});
    }
    json!({"type": "object", "properties": {"next": schema}, "required": ["next"]})
}

fn with_properties(names: impl Iterator<Item = String>) -> Value {
    let props: Map<String, Value> = names.map(|n| (n, json!({"type": "boolean"}))).collect();
    json!({"type": "object", "properties": props})
}

fn with_enum(values: Vec<String>) -> Value {
    json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}})
}

/// The text a field sent as JSON text carries to the model.
fn said_of(value: &Value) -> String {
    value["description"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn a_field_sent_as_json_text_states_the_rules_inside_it() {
    let leaf = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 40},
            "level": {"type": "integer", "format": "uint8"},
            "tags": {"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1, "uniqueItems": true},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        }, "required": ["name", "code"]});
    let mut schema = leaf.clone();
    for _ in 0..12 {
        schema = json!({"type": "object", "properties": {"next": schema}, "required": ["next"]});
    }
    let deep = strict(&schema).unwrap();
    let mut node = &deep;
    while node.get("properties").is_some() {
        node = &node["properties"]["next"];
    }
    let said = said_of(node);
    for rule in [
        "name: a string, 1 to 40 characters",
        "level?: an integer, from 0 to 255",
        "tags?: an array of a string, in the format uri, at least 1 item, no duplicates",
        "code: a string, matching the regular expression `^[A-Z]{3}$`",
    ] {
        assert!(said.contains(rule), "{rule:?} missing from {said:?}");
    }

    let recursive = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}}, "required": ["node"],
            "$defs": {"Node": {"type": "object", "properties": {
                "weight": {"type": "number", "exclusiveMinimum": 0},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "maxItems": 8},
            }, "required": ["weight", "children"]}}});
    for dialect in [Dialect::Gemini, Dialect::AnthropicStrict] {
        let lowered = lower(&recursive, dialect).unwrap();
        let items = &lowered["properties"]["node"]["properties"]["children"]["items"];
        let said = said_of(items);
        assert!(said.contains("weight: a number, greater than 0"), "{dialect:?}: {said:?}");
        assert!(said.contains("children: an array of a `Node`, at most 8 items"), "{dialect:?}: {said:?}");
    }
}

#[test]
fn openai_strict_depth_counts_the_root_as_level_zero() {
    let at_limit = strict(&nested(10)).unwrap();
    assert!(at_limit.to_string().matches("\"object\"").count() == 11, "an object 10 levels below the root");
    // One deeper: that object is sent as JSON text.
    let past = strict(&nested(11)).unwrap();
    let mut node = &past;
    for _ in 0..11 {
        node = &node["properties"]["next"];
    }
    assert_eq!(node["type"], json!("string"), "{past}");
    assert!(node["description"].as_str().unwrap().starts_with("JSON text"), "{node}");
    // Arrays do not add a level; objects inside them do.
    let in_array = json!({"type": "object", "properties": {"list": {"type": "array", "items": nested(9)}}});
    assert!(strict(&in_array).is_ok());
}

#[test]
fn a_schema_that_doubles_with_every_reference_is_refused_not_walked() {
    // d0 uses d1 twice, d1 uses d2 twice, ...: 2^40 nodes inlined.
    let mut defs = Map::new();
    for i in 0..40 {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(format!("d{i}"), json!({"type": "object", "properties": {"a": next, "b": next}}));
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    for dialect in [Dialect::Standard, Dialect::Gemini, Dialect::AnthropicStrict] {
        let e = lower(&schema, dialect).err().map(|e| e.message);
        assert!(e.as_deref().is_some_and(|m| m.contains("too large")), "{dialect:?}: {e:?}");
    }
    // OpenAI strict sends what is past its depth as JSON text: bounded by that.
    assert!(lower(&schema, Dialect::OpenAiStrict).is_ok());
    let started = std::time::Instant::now();
    let _ = super::super::adapt::Plan::of(&schema);
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "planning is bounded too");
}

#[test]
fn what_a_subset_drops_and_the_validator_holds_is_said_in_the_description() {
    let schema = json!({"type": "object", "properties": {
            "title": {"type": "string", "description": "A title", "minLength": 5, "maxLength": 120},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "home": {"type": "string", "format": "uri"},
        }, "required": ["title", "tags", "home"]});
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        let lowered = lower(&schema, dialect).unwrap();
        let said = |field: &str| lowered["properties"][field]["description"].as_str().unwrap_or("").to_owned();
        assert!(said("title").contains("5 to 120 characters"), "{dialect:?}: {lowered}");
        assert!(lowered["properties"]["title"].get("minLength").is_none());
        assert!(said("tags").contains("No duplicates"), "{dialect:?}: {lowered}");
        assert!(said("home").contains("In the format uri"), "{dialect:?}: {lowered}");
    }
    // Older Gemini API versions refuse `pattern`: the rendering for every version says it.
    let with_pattern = json!({"type": "object", "properties": {"slug": {"type": "string", "pattern": "^[a-z]+$"}}});
    let gemini = lower(&with_pattern, Dialect::Gemini).unwrap();
    let slug = &gemini["properties"]["slug"];
    assert!(slug.get("pattern").is_none(), "{gemini}");
    assert!(slug["description"].as_str().unwrap().contains("`^[a-z]+$`"), "{gemini}");
}

#[test]
fn gemini_says_a_numbers_exclusive_bound_it_shows_inclusive() {
    let schema = json!({"type": "object", "properties": {
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "count": {"type": "integer", "exclusiveMinimum": 0},
        }, "required": ["ratio", "count"]});
    let lowered = lower(&schema, Dialect::Gemini).unwrap();
    let ratio = &lowered["properties"]["ratio"];
    assert_eq!((&ratio["minimum"], &ratio["maximum"]), (&json!(0), &json!(1)));
    let said = ratio["description"].as_str().unwrap_or_default();
    assert!(said.contains("Greater than 0") && said.contains("less than 1"), "{lowered}");
    // An integer's bound is tightened by one, exactly: nothing to say.
    assert_eq!(lowered["properties"]["count"]["minimum"], json!(1));
    assert!(lowered["properties"]["count"].get("description").is_none());
}

#[test]
fn an_integer_width_the_check_holds_is_shown() {
    let schema = json!({"type": "object", "properties": {
            "small": {"type": "integer", "format": "uint8"},
            "count": {"type": "integer", "format": "uint32"},
            "delta": {"type": "integer", "format": "int16"},
            "big": {"type": "integer", "format": "int64"},
            "floor": {"type": "integer", "format": "uint8", "minimum": 3},
        }, "required": ["small", "count", "delta", "big", "floor"]});
    for dialect in [Dialect::Standard, Dialect::OpenAiStrict, Dialect::Gemini] {
        let lowered = lower(&schema, dialect).unwrap();
        let p = &lowered["properties"];
        assert_eq!((&p["small"]["minimum"], &p["small"]["maximum"]), (&json!(0), &json!(255)), "{dialect:?}");
        // Every width the check holds, exactly (4294967296 is refused: it is shown so).
        assert_eq!((&p["count"]["minimum"], &p["count"]["maximum"]), (&json!(0), &json!(4294967295u64)), "{dialect:?}");
        assert_eq!((&p["delta"]["minimum"], &p["delta"]["maximum"]), (&json!(-32768), &json!(32767)));
        assert_eq!((&p["big"]["minimum"], &p["big"]["maximum"]), (&json!(i64::MIN), &json!(i64::MAX)));
        assert_eq!(&p["floor"]["minimum"], &json!(3), "the schema's own bound stays");
    }
    let anthropic = lower(&schema, Dialect::AnthropicStrict).unwrap();
    let said = anthropic["properties"]["small"]["description"].as_str().unwrap_or_default().to_owned();
    assert!(said.contains("At least 0") && said.contains("at most 255"), "{anthropic}");
}

#[test]
fn openai_strict_property_count_at_and_past_the_limit() {
    assert!(strict(&with_properties((0..5000).map(|i| format!("p{i}")))).is_ok());
    let e = strict(&with_properties((0..5001).map(|i| format!("p{i}")))).unwrap_err();
    assert!(e.message.contains("more than 5000 properties"), "{e:?}");
}

#[test]
fn openai_strict_enum_values_at_and_past_the_limit() {
    assert!(strict(&with_enum((0..1000).map(|i| i.to_string()).collect())).is_ok());
    let e = strict(&with_enum((0..1001).map(|i| i.to_string()).collect())).unwrap_err();
    assert!(e.message.contains("more than 1000 enum values"), "{e:?}");
}

#[test]
fn openai_strict_large_enum_string_length_at_and_past_the_limit() {
    // 300 values of 50 characters: 15,000 in all.
    let values = |last: usize| -> Vec<String> {
        (0..300).map(|i| format!("{i:0>width$}", width = if i == 299 { last } else { 50 })).collect()
    };
    assert!(strict(&with_enum(values(50))).is_ok());
    let e = strict(&with_enum(values(51))).unwrap_err();
    assert!(e.message.contains("15000"), "{e:?}");
    // A small enum has no such limit.
    let long: Vec<String> = (0..10).map(|i| format!("{i:0>2000}")).collect();
    assert!(strict(&with_enum(long)).is_ok());
}

#[test]
fn openai_strict_total_string_length_at_and_past_the_limit() {
    // 5,000 names of 24 characters: 120,000.
    let names =
        |extra: usize| (0..5000).map(move |i| format!("{i:0>width$}", width = 24 + usize::from(i == 0) * extra));
    assert!(strict(&with_properties(names(0))).is_ok());
    let e = strict(&with_properties(names(1))).unwrap_err();
    assert!(e.message.contains("120000 characters"), "{e:?}");
}

#[test]
fn gemini_says_a_multiple_it_cannot_show() {
    let schema = json!({"type": "object", "properties": {"step": {"type": "integer", "multipleOf": 5}}});
    let lowered = lower(&schema, Dialect::Gemini).unwrap();
    let step = &lowered["properties"]["step"];
    assert!(step.get("multipleOf").is_none(), "{lowered}");
    assert!(said_of(step).contains("multiple of 5"), "{lowered}");
}

#[test]
fn a_rule_the_description_already_says_is_not_said_again() {
    let schema = json!({"type": "object", "properties": {
        "note": {"type": "string", "maxLength": 40, "description": "A note to add, at most 40 characters."}}});
    for dialect in [Dialect::Gemini, Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
        let lowered = lower(&schema, dialect).unwrap();
        let said = said_of(&lowered["properties"]["note"]);
        assert_eq!(said.to_lowercase().matches("at most 40 characters").count(), 1, "{dialect:?}: {said}");
    }
}

#[test]
fn json_text_states_closed_objects_maps_and_tuples() {
    let closed = json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}},
        "required": ["a"], "additionalProperties": false});
    let map = json!({"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}});
    let tuple = json!({"type": "array", "prefixItems": [{"type": "integer", "format": "uint8"}, {"type": "string"}],
        "items": false});
    assert_eq!(summary(&closed), "{a: \"x\" or \"y\"}, no other fields");
    assert_eq!(summary(&map), "an object whose values are each a string, at most 3 characters");
    assert_eq!(summary(&tuple), "an array of [an integer, from 0 to 255, a string]");
}
