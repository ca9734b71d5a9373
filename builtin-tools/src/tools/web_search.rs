//! `web_search` (Claude Code's `WebSearch`): titles and URLs from a search API the
//! user configured, for the model to read with web_fetch.

use crate::search_backends::{SearchBackend, matches_domain};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, TurnContext, tool};

/// Searches a session may make (Claude Code's default; `CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION`).
const DEFAULT_MAX_SEARCHES: usize = 200;

/// The searches made in a session, shared by its agents.
#[derive(Debug, Clone, Default)]
pub struct WebSearches(pub Arc<AtomicUsize>);

/// Search the web for current information (documentation, releases, error
/// messages, news): returns the titles and URLs of the results, to read with
/// web_fetch. Narrow it with `allowed_domains` (only these sites) or
/// `blocked_domains` (never these). After answering from the results, end with a
/// "Sources:" list of the pages used, as Markdown links.
#[tool(title = "Search the web", read_only, concurrency_safe, open_world, rule_name = "WebSearch", aliases = ["WebSearch"])]
pub struct WebSearch {
    /// What to search for (at least 2 characters).
    #[schemars(length(min = 2))]
    pub query: String,
    /// Only results from these domains (subdomains included; no scheme).
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// No results from these domains.
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

impl Tool for WebSearch {
    type Output = ToolOutput;

    fn is_enabled(turn: &TurnContext) -> bool {
        turn.extensions().get::<SearchBackend>().is_some() || SearchBackend::from_env().is_some()
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.query.trim().chars().count() < 2 {
            return Err(ToolError::msg("`query` needs at least 2 characters"));
        }
        let given = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
        if given(&self.allowed_domains) && given(&self.blocked_domains) {
            return Err(ToolError::msg("give `allowed_domains` or `blocked_domains`, not both"));
        }
        for domain in self.allowed_domains.iter().chain(&self.blocked_domains).flatten() {
            if domain.contains("://") || domain.trim().is_empty() || domain.contains(char::is_whitespace) {
                return Err(ToolError::msg(format!("`{domain}` is not a domain: give it without a scheme (`docs.rs`)")));
            }
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("web search: {}", self.query.trim()))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Some(backend) = cx.extension::<SearchBackend>().cloned().or_else(SearchBackend::from_env) else {
            return Err(ToolError::msg(
                "no search API is configured: set BRAVE_SEARCH_API_KEY, TAVILY_API_KEY or SEARXNG_URL",
            ));
        };
        let max = std::env::var("CLAUDE_CODE_MAX_WEB_SEARCHES_PER_SESSION")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_MAX_SEARCHES);
        if let Some(WebSearches(count)) = cx.extension::<WebSearches>()
            && count.fetch_add(1, Ordering::SeqCst) >= max
        {
            return Ok(ToolOutput::text(format!(
                "This session has made its {max} web searches; no more are made. Answer from what you have found."
            )));
        }
        let allowed = self.allowed_domains.clone().unwrap_or_default();
        let blocked = self.blocked_domains.clone().unwrap_or_default();
        let started = std::time::Instant::now();
        let hits = backend.search(self.query.trim(), &allowed, &blocked).await?;
        // The lists hold whatever the API did with them.
        let hits: Vec<_> = hits
            .into_iter()
            .filter(|h| allowed.is_empty() || allowed.iter().any(|d| matches_domain(&h.url, d)))
            .filter(|h| !blocked.iter().any(|d| matches_domain(&h.url, d)))
            .collect();
        // What web_fetch may not read is not offered: the fetch rules' deny list is
        // the search's too.
        let before = hits.len();
        let hits: Vec<_> = match cx.fetch_filter() {
            Some(filter) => hits
                .into_iter()
                .filter(|h| url::Url::parse(&h.url).map_or(true, |u| filter.denied(&u).is_none()))
                .collect(),
            None => hits,
        };
        let withheld = before - hits.len();
        let mut text = format!("Web search results for \"{}\" ({}):\n", self.query.trim(), backend.name());
        if hits.is_empty() {
            text.push_str("\nNo results.");
        }
        for (i, hit) in hits.iter().enumerate() {
            text.push_str(&format!("\n{}. {}\n   {}", i + 1, hit.title.trim(), hit.url));
            let snippet: String = hit.snippet.split_whitespace().collect::<Vec<_>>().join(" ");
            if !snippet.is_empty() {
                let cut: String = snippet.chars().take(300).collect();
                text.push_str(&format!("\n   {cut}"));
            }
        }
        if withheld > 0 {
            let note = if withheld == 1 { "1 result is".to_owned() } else { format!("{withheld} results are") };
            text.push_str(&format!("\n\n({note} left out: the permission rules deny fetching their sites.)"));
        }
        text.push_str("\n\nRead a page with web_fetch. Cite the pages you use in a \"Sources:\" list of Markdown links.");
        let links: Vec<_> = hits.iter().map(|h| json!({"title": h.title, "url": h.url})).collect();
        let mut output = ToolOutput::text(text);
        output.structured = Some(json!({
            "query": self.query.trim(),
            "results": [{"tool_use_id": cx.call_id(), "content": links}],
            "durationSeconds": started.elapsed().as_secs_f64(),
        }));
        Ok(output)
    }
}
