use toolwright::prelude::*;

/// Reads a file.
#[tool]
pub struct ReadIt(pub String);

impl Tool for ReadIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.0)
    }
}

fn main() {}
