use toolwright::prelude::*;

#[tool(read_only)]
pub struct Undocumented {
    pub path: String,
}

impl Tool for Undocumented {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
