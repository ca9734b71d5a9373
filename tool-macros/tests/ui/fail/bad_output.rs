use toolwright::prelude::*;

/// Counts.
#[tool]
pub struct Count {
    pub n: u32,
}

impl Tool for Count {
    type Output = u32;
    async fn call(self, _cx: &ToolContext) -> Result<u32, ToolError> {
        Ok(self.n)
    }
}

fn main() {}
