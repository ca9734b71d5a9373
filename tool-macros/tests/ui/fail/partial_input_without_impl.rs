use toolwright::prelude::*;

/// Write a file.
#[tool(partial_input)]
pub struct WriteIt {
    pub path: String,
}

impl Tool for WriteIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

fn main() {}
