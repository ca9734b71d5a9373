use toolwright::prelude::*;

#[tool(description = "Say hi.")]
pub struct Hi {}

impl Tool for Hi {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("hi")
    }
}

fn main() {
    use toolwright::ToolInfo;
    assert_eq!(Hi::SPEC.description, "Say hi.");
    assert_eq!(Hi::SPEC.name, "hi");
}
