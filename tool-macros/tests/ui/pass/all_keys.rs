use toolwright::prelude::*;

/// Fetch a page.
///
/// Returns the body as markdown.
#[tool(
    name = "fetch_page",
    title = "Fetch page",
    aliases = ["web_fetch", "get-url"],
    advertised_aliases = ["fetch"],
    timeout_secs = 30,
    max_output_tokens = 5000,
    read_only,
    concurrency_safe = true,
    idempotent,
    open_world,
    destructive = false,
    crate = ::toolwright
)]
pub struct Fetch {
    /// The URL.
    pub url: String,
}

impl Tool for Fetch {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.url)
    }
}

fn main() {
    use toolwright::ToolInfo;
    let spec = Fetch::SPEC;
    assert_eq!(spec.name, "fetch_page");
    assert_eq!(spec.title.as_deref(), Some("Fetch page"));
    use toolwright::{Alias, OutputLimit};
    assert_eq!(&spec.aliases[..], &[Alias::hidden("web_fetch"), Alias::hidden("get-url"), Alias::advertised("fetch")]);
    assert_eq!(spec.timeout, Some(std::time::Duration::from_secs(30)));
    assert_eq!(spec.output_limit, Some(OutputLimit::Tokens(5000)));
    assert_eq!(spec.description, "Fetch a page.\n\nReturns the body as markdown.");
    assert!(spec.flags.read_only && spec.flags.concurrency_safe && spec.flags.idempotent && spec.flags.open_world);
    assert!(!spec.flags.destructive);
    assert!(spec.origin.to_string().ends_with("all_keys.rs:20"), "{}", spec.origin);
}
