use toolwright::prelude::*;

/// Reads a file.
#[tool(aliases = ["cat", "read_it"])]
pub struct ReadIt {
    pub path: String,
}

impl Tool for ReadIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
