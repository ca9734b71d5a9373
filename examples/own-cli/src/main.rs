//! A tool crate's own command line: toolwright's commands over its two tools.
//!
//! Run: `cargo run -p toolwright-example-own-cli -- tools` (or `check`, `schema
//! --provider openai-chat --strict`, `call greet '{"name": "Ada"}'`, `serve`).

use toolwright::prelude::*;

/// How formal.
#[input]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// "Hello".
    Plain,
    /// "Good day".
    Formal,
}

/// Greet someone by name.
#[tool(read_only, concurrency_safe, pure)]
pub struct Greet {
    /// Who.
    #[schemars(length(min = 1, max = 40))]
    pub name: String,
    /// How (default plain).
    #[serde(default)]
    pub tone: Option<Tone>,
}

impl Tool for Greet {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        let hello = match self.tone {
            Some(Tone::Formal) => "Good day",
            _ => "Hello",
        };
        Ok(format!("{hello}, {}!", self.name))
    }
}

/// Add up numbers.
#[tool(read_only, concurrency_safe, pure)]
pub struct AddUp {
    /// The numbers, one to ten of them.
    #[schemars(length(min = 1, max = 10))]
    pub numbers: Vec<i64>,
}

impl Tool for AddUp {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.numbers.iter().sum::<i64>().to_string())
    }
}

fn main() -> std::process::ExitCode {
    toolwright_cli::main_with("own-cli", || {
        toolwright::Registry::builder().register::<Greet>().register::<AddUp>().build()
    })
}
