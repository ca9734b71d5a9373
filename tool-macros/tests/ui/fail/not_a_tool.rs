use toolwright::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Plain {
    pub path: String,
}

impl Tool for Plain {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
