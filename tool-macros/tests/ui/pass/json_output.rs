use toolwright::prelude::*;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Files seen.
    pub files: u32,
}

/// Count files.
#[tool(read_only)]
pub struct CountFiles {
    /// Where.
    pub dir: String,
}

impl Tool for CountFiles {
    type Output = Json<Report>;
    async fn call(self, _cx: &ToolContext) -> Result<Json<Report>, ToolError> {
        Ok(Json(Report { files: self.dir.len() as u32 }))
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().unwrap();
    let tool = registry.get("count_files").unwrap();
    let out = tool.output_schema().unwrap();
    assert_eq!(out["properties"]["files"]["type"], "integer");
    let mcp = registry.definition("count_files", Provider::Mcp).unwrap().unwrap();
    assert!(mcp.contains(r#""outputSchema":{"type":"object""#), "{mcp}");
}
