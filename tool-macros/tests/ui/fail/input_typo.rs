use toolwright::prelude::*;

#[toolwright::input]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[serde(renme = "quick")]
    Fast,
    Careful,
}

/// Runs in a mode.
#[tool]
pub struct Run {
    pub mode: Mode,
}

impl Tool for Run {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

fn main() {}
