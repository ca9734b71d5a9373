use toolwright::prelude::*;

/// Copies a file: every access mistake is reported at once.
#[tool(pure, rule_name = "Copy Tool")]
pub struct CopyIt {
    /// From.
    #[access(raed)]
    pub from: String,
    /// To.
    #[access(write)]
    pub to: String,
    /// How many times.
    #[access(read)]
    pub times: u32,
}

impl Tool for CopyIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.from)
    }
}

fn main() {}
