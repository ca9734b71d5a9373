use toolwright::prelude::*;

/// Greets someone.
#[tool]
#[serde(rename_al = "camelCase")]
pub struct Greet {
    #[serde(defualt)]
    pub name: String,
    #[schemars(rnage(min = 1))]
    pub times: u32,
}

impl Tool for Greet {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.name)
    }
}

fn main() {}
