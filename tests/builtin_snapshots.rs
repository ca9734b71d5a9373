//! Snapshots of every built-in tool's definition for every provider. A change to a
//! tool's prompt-facing text or schema shows up here for review.
#![allow(missing_docs)]

mod common;

use common::provider_rules::check_tool;
use toolwright::{DEFAULT_TOOL_NAMES, Provider};

fn slug(provider: Provider) -> String {
    match provider {
        Provider::Anthropic { strict, cache_control } => {
            format!("anthropic{}{}", if strict { "_strict" } else { "" }, if cache_control { "_cached" } else { "" })
        }
        Provider::OpenAiChat { strict } => format!("openai_chat{}", if strict { "_strict" } else { "" }),
        Provider::OpenAiResponses { strict } => format!("openai_responses{}", if strict { "_strict" } else { "" }),
        Provider::Gemini => "gemini".into(),
        Provider::GeminiJsonSchema => "gemini_json_schema".into(),
        Provider::Mcp => "mcp".into(),
    }
}

#[test]
fn builtin_definitions_per_provider() {
    let registry = toolwright::registry().unwrap();
    for name in DEFAULT_TOOL_NAMES {
        for provider in Provider::ALL {
            if matches!(provider, Provider::Anthropic { cache_control: true, .. }) {
                continue; // differs from plain Anthropic only in the list's last entry
            }
            let json = registry.definition(name, provider).unwrap().unwrap();
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(check_tool(provider, &value), Vec::<String>::new(), "{name} / {provider}");
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            insta::assert_snapshot!(format!("{name}__{}", slug(provider)), pretty);
        }
    }
}
