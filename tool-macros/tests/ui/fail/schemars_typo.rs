use toolwright::prelude::*;

/// Greets someone.
#[tool]
pub struct Greet {
    #[schemars(lenght(min = 1, max = 40))]
    pub name: String,
}

impl Tool for Greet {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.name)
    }
}

fn main() {}
