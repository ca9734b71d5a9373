use toolwright::prelude::*;

/// Reads a file.
#[tool(icons = ["http://example.com/read.svg", "data:text/html,<b>x</b>", "https://example.com/ok.png", 7])]
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
