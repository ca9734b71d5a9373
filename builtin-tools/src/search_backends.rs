//! The search APIs `web_search` asks: Brave Search, Tavily, and a SearXNG instance
//! (its JSON API), chosen by the environment or given in code.

use serde_json::{Value, json};
use std::time::Duration;
use toolwright_core::ToolError;

/// How long one search may take.
const SEARCH_TIMEOUT: Duration = Duration::from_secs(20);
/// Results asked of a backend.
pub const RESULTS: usize = 10;

/// A search API and how to reach it. Put one in the turn's extensions, or let
/// [`SearchBackend::from_env`] find one.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchBackend {
    /// Brave Search's web search API (`BRAVE_SEARCH_API_KEY`; `BRAVE_SEARCH_BASE_URL`
    /// for another endpoint).
    Brave {
        /// The subscription token.
        key: String,
        /// The API's base URL.
        base: String,
    },
    /// Tavily's search API (`TAVILY_API_KEY`; `TAVILY_BASE_URL`).
    Tavily {
        /// The API key.
        key: String,
        /// The API's base URL.
        base: String,
    },
    /// A SearXNG instance with its JSON format on (`SEARXNG_URL`).
    Searxng {
        /// The instance's base URL.
        base: String,
    },
}

impl std::fmt::Debug for SearchBackend {
    // Keys never reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One result: what the model gets to choose from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// A snippet, when the backend gives one.
    pub snippet: String,
}

impl SearchBackend {
    /// The backend the environment names: `TOOLWRIGHT_SEARCH_BACKEND` (`brave`,
    /// `tavily`, `searxng`) if set, else the first of Brave, Tavily and SearXNG whose
    /// key or URL is set.
    pub fn from_env() -> Option<SearchBackend> {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        let brave = || {
            var("BRAVE_SEARCH_API_KEY").map(|key| SearchBackend::Brave {
                key,
                base: var("BRAVE_SEARCH_BASE_URL").unwrap_or_else(|| "https://api.search.brave.com".into()),
            })
        };
        let tavily = || {
            var("TAVILY_API_KEY").map(|key| SearchBackend::Tavily {
                key,
                base: var("TAVILY_BASE_URL").unwrap_or_else(|| "https://api.tavily.com".into()),
            })
        };
        let searxng = || var("SEARXNG_URL").map(|base| SearchBackend::Searxng { base });
        match var("TOOLWRIGHT_SEARCH_BACKEND").as_deref() {
            Some("brave") => brave(),
            Some("tavily") => tavily(),
            Some("searxng") => searxng(),
            _ => brave().or_else(tavily).or_else(searxng),
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            SearchBackend::Brave { .. } => "Brave Search",
            SearchBackend::Tavily { .. } => "Tavily",
            SearchBackend::Searxng { .. } => "SearXNG",
        }
    }

    /// Searches for `query`, narrowed to `allowed` domains where the API can.
    pub async fn search(
        &self,
        query: &str,
        allowed: &[String],
        blocked: &[String],
    ) -> Result<Vec<SearchHit>, ToolError> {
        let client = client()?;
        // `site:` narrows the engines that have no domain parameter.
        let sited = match allowed {
            [] => query.to_owned(),
            domains => {
                format!("{query} ({})", domains.iter().map(|d| format!("site:{d}")).collect::<Vec<_>>().join(" OR "))
            }
        };
        let request = match self {
            SearchBackend::Brave { key, base } => client
                .get(format!("{}/res/v1/web/search", base.trim_end_matches('/')))
                .query(&[("q", sited.as_str()), ("count", &RESULTS.to_string())])
                .header("X-Subscription-Token", key)
                .header("Accept", "application/json"),
            SearchBackend::Tavily { key, base } => {
                let mut body = json!({"query": query, "max_results": RESULTS});
                if !allowed.is_empty() {
                    body["include_domains"] = json!(allowed);
                }
                if !blocked.is_empty() {
                    body["exclude_domains"] = json!(blocked);
                }
                client
                    .post(format!("{}/search", base.trim_end_matches('/')))
                    .bearer_auth(key)
                    .header("Content-Type", "application/json")
                    .body(body.to_string())
            }
            SearchBackend::Searxng { base } => client
                .get(format!("{}/search", base.trim_end_matches('/')))
                .query(&[("q", sited.as_str()), ("format", "json")]),
        };
        let response = request.send().await.map_err(|e| self.failed(&redact(&e.to_string())))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.failed(&redact(&e.to_string())))?;
        if !status.is_success() {
            let why = match status.as_u16() {
                401 | 403 => "the API refused the key".to_owned(),
                429 => "the API's rate limit was reached; try again later".to_owned(),
                code => format!("HTTP {code}"),
            };
            return Err(self.failed(&why));
        }
        let body: Value =
            serde_json::from_slice(&bytes).map_err(|e| self.failed(&format!("its answer is not JSON: {e}")))?;
        let (list, snippet) = match self {
            SearchBackend::Brave { .. } => (body.pointer("/web/results"), "description"),
            SearchBackend::Tavily { .. } | SearchBackend::Searxng { .. } => (body.get("results"), "content"),
        };
        let hits = list
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| {
                let url = r.get("url")?.as_str()?.to_owned();
                let title = r.get("title").and_then(Value::as_str).unwrap_or(&url).to_owned();
                let snippet = r.get(snippet).and_then(Value::as_str).unwrap_or_default().to_owned();
                Some(SearchHit { title, url, snippet })
            })
            .collect();
        Ok(hits)
    }

    fn failed(&self, why: &str) -> ToolError {
        ToolError::msg(format!("the web search through {} failed: {why}", self.name()))
    }
}

/// The client every search shares (made once: connections and TLS are reused).
fn client() -> Result<&'static reqwest::Client, ToolError> {
    static CLIENT: std::sync::OnceLock<Result<reqwest::Client, String>> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            toolwright_core::tls::install_crypto();
            reqwest::Client::builder()
                .timeout(SEARCH_TIMEOUT)
                .connect_timeout(Duration::from_secs(10))
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| ToolError::msg(format!("the HTTP client: {e}")))
}

/// An error's text without the query string (it may carry a key).
fn redact(text: &str) -> String {
    match text.find('?') {
        Some(at) => format!("{}?…{}", &text[..at], text[at..].find(' ').map_or("", |end| &text[at + end..])),
        None => text.to_owned(),
    }
}

/// Whether `url`'s host is `domain` or below it (`docs.rs` covers `www.docs.rs`); a
/// domain with a path (`example.com/blog`) also needs the path to start with it.
pub fn matches_domain(url: &str, domain: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url) else { return false };
    let Some(host) = parsed.host_str() else { return false };
    let domain = domain.trim().trim_start_matches("https://").trim_start_matches("http://").to_ascii_lowercase();
    let (name, path) = match domain.split_once('/') {
        Some((name, path)) => (name.to_owned(), Some(format!("/{path}"))),
        None => (domain.clone(), None),
    };
    let name = name.trim_start_matches("*.").trim_start_matches('.');
    let host = host.to_ascii_lowercase();
    let host_ok = host == name || host.ends_with(&format!(".{name}"));
    host_ok && path.is_none_or(|p| parsed.path().starts_with(p.trim_end_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_cover_their_subdomains_and_paths() {
        assert!(matches_domain("https://www.rust-lang.org/learn", "rust-lang.org"));
        assert!(matches_domain("https://rust-lang.org/", "rust-lang.org"));
        assert!(!matches_domain("https://evilrust-lang.org/", "rust-lang.org"));
        assert!(matches_domain("https://example.com/blog/post", "example.com/blog"));
        assert!(!matches_domain("https://example.com/shop", "example.com/blog"));
        assert!(!matches_domain("not a url", "example.com"));
    }
}
