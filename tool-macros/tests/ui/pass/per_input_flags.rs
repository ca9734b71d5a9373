use toolwright::prelude::*;

/// Run a shell command.
#[tool(name = "my_shell")]
pub struct Shell {
    /// The command.
    pub command: String,
}

impl Tool for Shell {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.command)
    }
    fn is_read_only(&self) -> bool {
        self.command.starts_with("ls")
    }
    fn is_concurrency_safe(&self) -> bool {
        self.is_read_only()
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().unwrap();
    let shell = registry.get("my_shell").unwrap();
    assert!(!shell.spec().flags.concurrency_safe);
    assert!(shell.prepare(br#"{"command":"ls -la"}"#).unwrap().flags().concurrency_safe);
    assert!(!shell.prepare(br#"{"command":"rm -rf x"}"#).unwrap().flags().concurrency_safe);
}
