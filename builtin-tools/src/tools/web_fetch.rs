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

/// Fetch a web page, URL or file over HTTP(S) and return its content.
///
/// HTML is converted to markdown; other text comes back as is. Responses are limited
/// to 5 MB and 30 seconds. Redirects within the same host are followed; a redirect to
/// another host is reported, with its URL, instead of followed.
#[tool(title = "Fetch URL", read_only, concurrency_safe, open_world, rule_name = "WebFetch", aliases = ["WebFetch"])]
pub struct WebFetch {
    /// The URL, starting with `http://` or `https://`.
    pub url: String,
    /// What to look for; the whole page follows it.
    pub prompt: Option<String>,
    /// The URL parsed, once: the permission policy checks this value and the fetch
    /// requests it, so the host checked is the host reached.
    #[serde(skip)]
    parsed: OnceLock<Result<reqwest::Url, String>>,
}

impl WebFetch {
    /// A fetch of `url`.
    pub fn new(url: impl Into<String>) -> WebFetch {
        WebFetch { url: url.into(), prompt: None, parsed: OnceLock::new() }
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
        let page = tokio::select! {
            result = fetch => result?,
            () = cx.cancellation().cancelled() => return Err(ToolError::Cancelled),
        };
        // No model reads the page here (Claude Code has a small one do it): the
        // caller gets the page with its question, to answer itself.
        Ok(match self.prompt.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            Some(prompt) => format!("Asked of this page: {prompt}\n\n{page}"),
            None => page,
        })
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
        toolwright_core::tls::install_crypto();
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
    let text = String::from_utf8_lossy(&body).into_owned();
    let mut out = if !content_type.contains("html") {
        text
    } else if html_depth_over(&text, MAX_HTML_DEPTH) {
        // Parsing deep nesting costs time quadratic in its depth (20,000 levels: 0.9 s
        // to parse, 0.6 s to walk; 1 MB of them minutes): such a page is shown as it is.
        format!(
            "{text}\n\n(this page nests its elements more than {MAX_HTML_DEPTH} levels deep: its HTML is shown as \
             it is, not converted to markdown)"
        )
    } else {
        html_to_markdown(text).await.map_err(|e| ToolError::msg(format!("cannot convert the HTML of `{url}`: {e}")))?
    };
    if cut {
        out.push_str(&format!("\n\n(the response was cut at {MAX_FETCH_BYTES} bytes)"));
    }
    Ok(out.trim().to_owned())
}

/// How deep a page's elements are kept for its markdown; what is nested deeper keeps
/// its text and leaf elements, in order, one level down. The converter walks the tree
/// recursively: a page of 10,000 nested `<div>`s (60 KB) overflowed the stack and
/// aborted the process. Real pages nest a few dozen levels.
const MAX_HTML_DEPTH: usize = 256;

/// Whether `html` opens elements more than `max` levels deep, by one linear pass over
/// its tags: each start tag of an element that neither is void nor closes by itself
/// (`<p>`, `<li>`, `<td>`, ...) goes one level down, each end tag of one up; comments,
/// declarations and the text of `<script>`, `<style>` and the like are skipped. It can
/// read deeper than a parser builds (an unclosed `<a>` counts), never shallower for
/// the nesting a parser keeps.
fn html_depth_over(html: &str, max: usize) -> bool {
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
        "keygen", "frame", "basefont", "bgsound",
    ];
    const CLOSES_ITSELF: &[&str] = &[
        "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rt", "rp", "rtc", "thead", "tbody",
        "tfoot", "colgroup", "caption", "html", "head", "body",
    ];
    const RAW_TEXT: &[&str] =
        &["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"];
    let bytes = html.as_bytes();
    let (mut at, mut depth) = (0, 0usize);
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]) {
        at += lt + 1;
        let rest = &bytes[at..];
        if rest.starts_with(b"!--") {
            at += memchr::memmem::find(rest, b"-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_at = at + usize::from(closing);
        let name_len = bytes[name_at..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-').count();
        if name_len == 0 || !bytes[name_at].is_ascii_alphabetic() {
            continue;
        }
        let name = html[name_at..name_at + name_len].to_ascii_lowercase();
        // Past the tag, quoted attribute values included.
        let mut end = name_at + name_len;
        let mut quote = None;
        while let Some(&b) = bytes.get(end) {
            match (quote, b) {
                (None, b'>') => break,
                (None, b'"' | b'\'') => quote = Some(b),
                (Some(q), _) if b == q => quote = None,
                _ => {}
            }
            end += 1;
        }
        at = (end + 1).min(bytes.len());
        let name = name.as_str();
        if VOID.contains(&name) || CLOSES_ITSELF.contains(&name) {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else if RAW_TEXT.contains(&name) {
            // Its text runs to its end tag, whatever it holds.
            let mut from = at;
            at = bytes.len();
            while let Some(lt) = memchr::memmem::find(&bytes[from..], b"</") {
                let tag = from + lt + 2;
                if bytes.get(tag..tag + name.len()).is_some_and(|t| t.eq_ignore_ascii_case(name.as_bytes())) {
                    at = from + lt;
                    break;
                }
                from = tag;
            }
        } else {
            depth += 1;
            if depth > max {
                return true;
            }
        }
    }
    false
}

/// The stack of the thread that converts (touched only as deep as a page goes).
const CONVERTER_STACK: usize = 8 << 20;

/// A page's markdown, converted on a thread of its own: a known stack whatever the
/// runtime's, and the runtime is not held up by a large page (the call's timeout
/// still applies; a conversion it gives up on finishes unobserved).
async fn html_to_markdown(html: String) -> std::io::Result<String> {
    let (done, converted) = tokio::sync::oneshot::channel();
    std::thread::Builder::new().name("toolwright-html".into()).stack_size(CONVERTER_STACK).spawn(move || {
        let converter = htmd::HtmlToMarkdown::new();
        let markdown = converter.html_to_tree(&html).map(|tree| {
            flatten_below(&tree, MAX_HTML_DEPTH);
            converter.tree_to_markdown(&tree)
        });
        let _ = done.send(markdown);
    })?;
    converted.await.unwrap_or_else(|_| Err(std::io::Error::other("the HTML converter failed")))
}

/// Moves what lies deeper than `max` levels under `root` up to its ancestor at that
/// level: the leaves (text, empty elements) in document order, the elements between
/// them dropped. Iterative, like the tree's own drop.
fn flatten_below(root: &std::rc::Rc<htmd::Node>, max: usize) {
    let mut stack = vec![(std::rc::Rc::clone(root), 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth < max {
            stack.extend(node.children.borrow().iter().map(|child| (std::rc::Rc::clone(child), depth + 1)));
            continue;
        }
        let mut leaves = Vec::new();
        let mut pending: Vec<_> = node.children.take().into_iter().rev().collect();
        while let Some(next) = pending.pop() {
            let children = next.children.take();
            if children.is_empty() {
                next.parent.set(Some(std::rc::Rc::downgrade(&node)));
                leaves.push(next);
            } else {
                pending.extend(children.into_iter().rev());
            }
        }
        *node.children.borrow_mut() = leaves;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_read_from_the_tags_that_nest() {
        let nested = |n: usize, open: &str, close: &str| format!("{}x{}", open.repeat(n), close.repeat(n));
        assert!(!html_depth_over("<html><body><div><p>a<b>b</b></p></div></body></html>", 3));
        assert!(html_depth_over(&nested(300, "<div>", "</div>"), 256));
        assert!(!html_depth_over(&nested(256, "<DIV class='a>b'>", "</div>"), 256), "quotes, case");
        assert!(html_depth_over(&nested(257, "<span>", ""), 256), "unclosed");
        // Elements that close by themselves, void ones, comments, script text.
        for open in ["<p>", "<li>", "<td>", "<br>", "<img src=x>", "<option>"] {
            assert!(!html_depth_over(&open.repeat(10_000), 256), "{open}");
        }
        assert!(!html_depth_over(&format!("<!-- {} -->x", "<div>".repeat(1000)), 256));
        assert!(!html_depth_over(&format!("<script>{}</SCRIPT>x", "<div>".repeat(1000)), 256));
        assert!(html_depth_over(&format!("<script>a</script>{}", "<div>".repeat(300)), 256));
    }

    #[test]
    fn what_nests_past_the_limit_keeps_its_text_in_order() {
        // 200 nested tables: 200 levels by the tags, 800 in the tree (table, tbody, tr, td).
        let page = format!(
            "<p>top</p>{}<b>one</b> two <i>three</i>{}<p>after</p>",
            "<table><tr><td>".repeat(200),
            "</td></tr></table>".repeat(200)
        );
        assert!(!html_depth_over(&page, MAX_HTML_DEPTH));
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let markdown = rt.block_on(html_to_markdown(page)).unwrap();
        let (top, one, three, after) =
            (markdown.find("top"), markdown.find("one"), markdown.find("three"), markdown.find("after"));
        assert!(top < one && one < three && three < after && top.is_some(), "{markdown}");
    }
}
