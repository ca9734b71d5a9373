use toolwright::prelude::*;

/// Echo text.
#[tool]
#[derive(Debug, Clone, toolwright::Deserialize, toolwright::JsonSchema)]
#[serde(crate = "toolwright::__private::serde")]
#[schemars(crate = "toolwright::__private::schemars")]
pub struct Echo {
    /// The text.
    pub text: String,
}

impl Tool for Echo {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.text)
    }
}

fn main() {
    let e = Echo { text: "a".into() };
    let _ = e.clone();
    // The user's derive is used, and unknown fields are still refused.
    let registry = toolwright::Registry::from_inventory().unwrap();
    assert!(registry.get("echo").unwrap().prepare(br#"{"text":"a","x":1}"#).is_err());
}
