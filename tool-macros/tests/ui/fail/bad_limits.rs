use toolwright::prelude::*;

/// Runs things.
#[tool(timeout_secs = 0, max_output_bytes = 1000, max_output_tokens = 200)]
pub struct Limits {
    pub command: String,
}

impl Tool for Limits {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.command)
    }
}

fn main() {}
