use toolwright::prelude::*;

/// Picks a mode.
#[tool]
pub enum Mode {
    Fast,
    Slow,
}

impl Tool for Mode {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

fn main() {}
