//! What a strict rendering offers is accepted: OpenAI strict requires every field and
//! offers null for the optional ones, so a model that leaves out a defaulted field
//! sends null, which reads as absent (the field's default), for a nested input type
//! and a defaulted enum alike.

#![allow(missing_docs)]

// The tests name the facade's paths; here the core is that crate.
extern crate toolwright_core as toolwright;

use std::sync::Arc;
use toolwright::{Tool, ToolCall, ToolContext, ToolError, tool};

/// How loud.
#[toolwright::input]
#[derive(Default, Debug)]
pub enum Volume {
    #[default]
    Quiet,
    Loud,
}

/// Where.
#[toolwright::input]
#[derive(Default, Debug)]
pub struct Place {
    /// The room.
    #[serde(default)]
    pub room: Volume,
    /// How many times.
    #[schemars(range(min = 1))]
    pub times: Option<u32>,
}

/// Say it.
#[tool]
pub struct Say {
    /// What.
    #[schemars(length(min = 1, max = 40))]
    pub text: String,
    /// How.
    #[serde(default)]
    pub volume: Volume,
    /// Where.
    #[serde(default)]
    pub place: Option<Place>,
}

impl Tool for Say {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        let times = self.place.as_ref().and_then(|p| p.times).unwrap_or(1);
        Ok(format!("{} {:?} x{times}", self.text, self.volume))
    }
}

async fn say(input: serde_json::Value) -> (bool, String) {
    let registry = Arc::new(toolwright::Registry::builder().register::<Say>().build().unwrap());
    let executor = toolwright::Executor::builder(registry).policy(toolwright::permission::AllowAll).build();
    let turn = toolwright::TurnContext::new(std::env::temp_dir());
    let result = executor.execute(&ToolCall::new("1", "say", input.to_string()), &turn).await;
    (result.is_ok(), result.output.text_content())
}

#[tokio::test]
async fn the_nulls_openai_strict_offers_read_as_absent() {
    let registry = toolwright::Registry::builder().register::<Say>().build().unwrap();
    let rendered = registry.definitions(toolwright::Provider::OpenAiChat { strict: true }).unwrap().to_value();
    let volume = &rendered[0]["function"]["parameters"]["properties"]["volume"];
    assert!(
        volume["enum"].as_array().unwrap().contains(&serde_json::Value::Null),
        "the rendering offers null: {volume}"
    );
    // What the rendering allows, the check accepts: null is the default.
    assert_eq!(
        say(serde_json::json!({"text": "hi", "volume": null, "place": null})).await,
        (true, "hi Quiet x1".into())
    );
    let nested = serde_json::json!({"text": "hi", "volume": "Loud", "place": {"room": null, "times": null}});
    assert_eq!(say(nested).await, (true, "hi Loud x1".into()));
    // A required field's null is still refused, with why.
    let (ok, text) = say(serde_json::json!({"text": null})).await;
    assert!(!ok && text.contains("text"), "{text}");
    // Constraints still hold on what is given.
    let (ok, text) = say(serde_json::json!({"text": "hi", "place": {"times": 0}})).await;
    assert!(!ok && text.contains("times"), "{text}");
}
