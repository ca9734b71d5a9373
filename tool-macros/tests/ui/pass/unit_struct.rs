use toolwright::prelude::*;

/// Report the time.
#[tool(read_only, concurrency_safe)]
pub struct Now;

impl Tool for Now {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok("noon".into())
    }
}

fn main() {
    let tool = toolwright::Registry::from_inventory().unwrap();
    let now = tool.get("now").unwrap();
    assert!(now.prepare(b"{}").is_ok());
    assert!(now.prepare(b"null").is_ok());
    assert!(now.prepare(b"").is_ok());
    let err = now.prepare(br#"{"tz":"UTC"}"#).err().unwrap().to_string();
    assert!(err.contains("unknown field `tz`") && err.contains("takes no parameters"), "{err}");
    let rendered = tool.definition("now", Provider::ANTHROPIC).unwrap().unwrap();
    assert!(rendered.ends_with(r#""input_schema":{"type":"object","properties":{},"additionalProperties":false}}"#), "{rendered}");
    let gemini = tool.definition("now", Provider::Gemini).unwrap().unwrap();
    assert!(!gemini.contains("parameters"), "{gemini}");
}
