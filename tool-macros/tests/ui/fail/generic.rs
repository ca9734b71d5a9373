use toolwright::prelude::*;

/// Wraps a value.
#[tool]
pub struct Wrapper<T> {
    pub value: T,
}

impl Tool for Wrapper<String> {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.value)
    }
}

fn main() {}
