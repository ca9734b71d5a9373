use toolwright::prelude::*;

/// Waits until a moment.
#[tool]
pub struct WaitUntil {
    /// When.
    pub until: std::time::Instant,
}

impl Tool for WaitUntil {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

fn main() {}
