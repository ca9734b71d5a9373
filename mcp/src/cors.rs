//! What a browser page of an accepted origin needs to call the HTTP endpoint (the
//! Fetch standard's CORS): an answer to its preflight, and on every answer the
//! origin it may read it from and the headers it may see. Pages of other origins
//! never get here: [`HttpAccess`](super::HttpAccess) refuses them with `403`.

use super::access::Refused;
use super::http::Response;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use http_body_util::{BodyExt, Full};

/// The request headers an MCP client sends.
const ALLOW_HEADERS: &str = "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id";
/// The response headers a client must read: its session, the revision, and the
/// challenge that starts OAuth.
const EXPOSE_HEADERS: &str = "mcp-session-id, mcp-protocol-version, www-authenticate";

/// A request whose `Host` or `Origin` is refused: its status and a JSON-RPC error
/// saying which and how to allow it.
pub(crate) fn refused(refused: Refused) -> Response {
    tracing::warn!(status = %refused.status, "{}", refused.message);
    super::http::jsonrpc_error(refused.status, serde_json::Value::Null, -32600, &refused.message)
}

/// The answer to `OPTIONS` on the endpoint: `204` with the methods, and for a page
/// of an accepted origin what its requests may carry (an MCP client's headers and
/// any others it asks for: the origin is trusted, and a client may be configured
/// to send its own). No token is asked for: a browser sends none on a preflight.
pub(crate) fn preflight(origin: Option<&str>, asked: Option<&HeaderValue>) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE, OPTIONS"));
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE"));
        let allowed = match asked.and_then(|a| a.to_str().ok()).map(str::trim).filter(|a| !a.is_empty()) {
            Some(asked) => HeaderValue::from_str(&format!("{ALLOW_HEADERS}, {asked}"))
                .unwrap_or(HeaderValue::from_static(ALLOW_HEADERS)),
            None => HeaderValue::from_static(ALLOW_HEADERS),
        };
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, allowed);
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        allow(&mut response, origin);
    }
    response
}

/// Lets the page of `origin` (already accepted) read this answer.
pub(crate) fn allow(response: &mut Response, origin: &str) {
    let Ok(origin) = HeaderValue::from_str(origin) else { return };
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSE_HEADERS));
    headers.append(header::VARY, HeaderValue::from_static("origin"));
}
