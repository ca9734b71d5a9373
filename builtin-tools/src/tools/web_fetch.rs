//! `web_fetch`: an HTTP(S) GET, HTML converted to markdown, with size and time limits.

use std::sync::OnceLock;
use std::time::Duration;
use toolwright_core::access::{Access, Accesses};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Bytes of a response body read at most; the rest is not downloaded.
pub const MAX_FETCH_BYTES: usize = 5 * 1024 * 1024;
/// The whole request's time limit.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(30);
/// Same-host redirects followed at most.
const MAX_REDIRECTS: usize = 5;

/// Fetch a web page or file over HTTP(S) and return its content.
///
/// HTML is converted to markdown; other text comes back as is. Responses are limited
/// to 5 MB and 30 seconds. Redirects within the same host are followed; a redirect to
/// another host is reported, with its URL, instead of followed.
#[tool(title = "Fetch URL", read_only, concurrency_safe, open_world, rule_name = "WebFetch")]
pub struct WebFetch {
    /// The URL, starting with `http://` or `https://`.
    pub url: String,
    /// The URL parsed, once: the permission policy checks this value and the fetch
    /// requests it, so the host checked is the host reached.
    #[serde(skip)]
    parsed: OnceLock<Result<reqwest::Url, String>>,
}

impl WebFetch {
    /// A fetch of `url`.
    pub fn new(url: impl Into<String>) -> WebFetch {
        WebFetch { url: url.into(), parsed: OnceLock::new() }
    }

    fn parsed(&self) -> Result<&reqwest::Url, ToolError> {
        self.parsed.get_or_init(|| parse_url(&self.url)).as_ref().map_err(|e| ToolError::msg(e.clone()))
    }
}

impl Tool for WebFetch {
    type Output = String;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        self.parsed().map(drop)
    }

    fn access(&self) -> Accesses {
        match self.parsed() {
            Ok(url) => Accesses::of([Access::Fetch(url.clone())]),
            Err(e) => Accesses::of([Access::Opaque(e.to_string())]),
        }
    }

    fn summary(&self) -> Option<String> {
        Some(format!("fetch {}", self.url))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let url = self.parsed()?.clone();
        let fetch = fetch(url);
        tokio::select! {
            result = fetch => result,
            () = cx.cancellation().cancelled() => Err(ToolError::Cancelled),
        }
    }
}

fn parse_url(raw: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(raw.trim()).map_err(|e| format!("`{raw}` is not a valid URL: {e}"))?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(format!("`{raw}` uses the `{other}` scheme; only http and https URLs can be fetched")),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(format!("`{raw}` has no host"));
    }
    Ok(url)
}

/// One client for the process: connections and TLS setup are reused.
fn client() -> Result<&'static reqwest::Client, ToolError> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    let built = CLIENT.get_or_init(|| {
        let same_host = reqwest::redirect::Policy::custom(|attempt| {
            let first = attempt.previous().first().and_then(|u| u.host_str().map(str::to_owned));
            if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else if first.as_deref() == attempt.url().host_str() {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        reqwest::Client::builder()
            .redirect(same_host)
            .timeout(FETCH_TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .user_agent(concat!("toolwright/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())
    });
    built.as_ref().map_err(|e| ToolError::msg(format!("cannot create an HTTP client: {e}")))
}

async fn fetch(url: reqwest::Url) -> Result<String, ToolError> {
    let host = url.host_str().unwrap_or_default().to_owned();
    let mut response = client()?.get(url.clone()).send().await.map_err(|e| request_error(&url, &host, &e))?;
    let status = response.status();
    if status.is_redirection() {
        let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("");
        let target = response.url().join(location).map(|u| u.to_string()).unwrap_or_else(|_| location.to_owned());
        return Ok(format!(
            "`{url}` redirects ({status}) to another host: {target}\nFetch that URL to follow the redirect."
        ));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut body = Vec::new();
    let mut cut = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| request_error(&url, &host, &e))? {
        let room = MAX_FETCH_BYTES - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if chunk.len() > room {
            cut = true;
            break;
        }
    }
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body);
        let excerpt: String = text.chars().take(500).collect();
        return Err(ToolError::msg(format!("`{url}` answered {status}: {excerpt}")));
    }
    let is_text = content_type.is_empty()
        || content_type.starts_with("text/")
        || ["json", "xml", "javascript", "yaml", "toml"].iter().any(|t| content_type.contains(t));
    if !is_text {
        return Err(ToolError::msg(format!(
            "`{url}` is `{content_type}` ({} bytes), not text; web_fetch returns text and HTML",
            body.len()
        )));
    }
    let text = String::from_utf8_lossy(&body);
    let mut out = if content_type.contains("html") {
        htmd::convert(&text).map_err(|e| ToolError::msg(format!("cannot convert the HTML of `{url}`: {e}")))?
    } else {
        text.into_owned()
    };
    if cut {
        out.push_str(&format!("\n\n(the response was cut at {MAX_FETCH_BYTES} bytes)"));
    }
    Ok(out.trim().to_owned())
}

fn request_error(url: &reqwest::Url, host: &str, e: &reqwest::Error) -> ToolError {
    let why = if e.is_timeout() {
        format!("no answer within {} s", FETCH_TIMEOUT.as_secs())
    } else if e.is_connect() {
        format!("cannot connect to `{host}`")
    } else {
        e.to_string()
    };
    // The source chain says why (refused, DNS, TLS).
    let mut detail = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    if detail.is_empty() {
        ToolError::msg(format!("fetching `{url}` failed: {why}"))
    } else {
        ToolError::msg(format!("fetching `{url}` failed: {why} ({detail})"))
    }
}
