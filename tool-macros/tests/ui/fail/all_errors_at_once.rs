use toolwright::prelude::*;

#[tool(name = "bad name", read_only, destructive, colour = "blue")]
pub struct Many {
    pub path: String,
}

impl Tool for Many {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
