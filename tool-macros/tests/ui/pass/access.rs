use std::path::PathBuf;
use toolwright::access::Access;
use toolwright::prelude::*;

/// Reads files and writes one.
#[tool(rule_name = "Edit")]
pub struct Merge {
    /// The inputs.
    #[access(read)]
    pub inputs: Vec<String>,
    /// An optional extra input.
    #[access(read)]
    pub extra: Option<PathBuf>,
    /// The output.
    #[access(write)]
    pub output: String,
}

impl Tool for Merge {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.output)
    }
}

/// Touches nothing.
#[tool(pure)]
pub struct Noop;

impl Tool for Noop {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

fn main() {
    let merge = Merge { inputs: vec!["a".into(), "b".into()], extra: None, output: "c".into() };
    let facts: Vec<Access> = merge.access().iter().cloned().collect();
    assert_eq!(facts, [Access::Read("a".into()), Access::Read("b".into()), Access::Write("c".into())]);
    assert!(Noop.access().is_none());
}
