use toolwright::prelude::*;

#[derive(toolwright::Deserialize, toolwright::JsonSchema)]
pub struct Paging {
    /// Page size.
    pub page_size: u32,
}

/// Search things.
#[tool]
#[serde(rename_all = "camelCase")]
pub struct Search {
    /// Query text.
    pub query_text: String,
    /// Renamed.
    #[serde(rename = "max")]
    pub max_results: Option<u32>,
    /// Has a default.
    #[serde(default)]
    pub include_hidden: bool,
    /// Never sent by the model.
    #[serde(skip)]
    pub internal: u64,
    #[serde(flatten)]
    pub paging: Paging,
}

impl Tool for Search {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} {:?} {} {} {}", self.query_text, self.max_results, self.include_hidden, self.internal, self.paging.page_size))
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().unwrap();
    let tool = registry.get("search").unwrap();
    let schema = tool.input_schema();
    let props = schema["properties"].as_object().unwrap();
    let keys: std::vec::Vec<&str> = props.keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["queryText", "max", "includeHidden", "page_size"]);
    assert!(tool.prepare(br#"{"queryText":"x","page_size":3}"#).is_ok());
    // flatten turns off deny_unknown_fields (serde cannot combine them).
    assert!(tool.prepare(br#"{"queryText":"x","page_size":3,"extra":1}"#).is_ok());
}
