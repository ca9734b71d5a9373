use toolwright::prelude::*;

/// Write a file.
#[tool(partial_input)]
pub struct WriteIt {
    pub path: String,
    pub content: String,
}

impl Tool for WriteIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

/// Read a file: no partial input.
#[tool]
pub struct ReadIt {
    pub path: String,
}

impl Tool for ReadIt {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.path)
    }
}

#[derive(serde::Deserialize)]
pub struct WriteItSoFar {
    pub path: Option<String>,
}

impl PartialInput for WriteIt {
    type Partial = WriteItSoFar;
    fn on_partial_input(partial: WriteItSoFar) -> Option<Progress> {
        partial.path.map(|path| Progress::message(format!("writing {path}")))
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().unwrap();
    let hook = registry.get("write_it").unwrap().partial_input().expect("opted in");
    let progress = hook(&serde_json::json!({"path": "a.txt"})).unwrap();
    assert_eq!(progress.message, "writing a.txt");
    assert!(hook(&serde_json::json!({})).is_none());
    assert!(registry.get("read_it").unwrap().partial_input().is_none());
}
