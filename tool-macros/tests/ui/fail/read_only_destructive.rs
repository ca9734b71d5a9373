use toolwright::prelude::*;

/// Deletes everything, read-only.
#[tool(read_only, destructive)]
pub struct Contradiction {
    pub path: String,
}

impl Tool for Contradiction {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
