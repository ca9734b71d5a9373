//! Streamable HTTP for [`McpServer`]: rmcp's service behind a check of each request
//! body against the [`MessageLimits`], measured as it arrives.

use super::access::HttpAccess;
use super::auth::{Authentication, Refusal};
use super::http_limits::{CountedFor, HttpLimits, InFlight, SessionOwners};
use super::limits::{Breach, MessageLimits, Scan};
use super::oauth::{OAuthRefusal, OAuthResource};
use super::server::{McpServer, ServeError};
use super::tls::TlsConfig;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use std::convert::Infallible;
use std::sync::Arc;

pub(crate) type Response = http::Response<BoxBody<Bytes, Infallible>>;

/// The path MCP is served at.
const ENDPOINT: &str = "/mcp";

/// Whether `path` is the MCP endpoint: `/mcp`, or the path of the canonical URL an
/// OAuth server was given (a proxy in front may keep its public path).
fn is_endpoint(path: &str, authentication: &Authentication) -> bool {
    // `/mcp/` is `/mcp`; `/` stays `/`.
    let bare = |p: &str| -> String {
        let p = p.trim_end_matches('/');
        if p.is_empty() { "/".into() } else { p.into() }
    };
    let path = bare(path);
    path == ENDPOINT
        || matches!(authentication, Authentication::OAuth(verifier) if bare(verifier.resource().path()) == path)
}

/// An HTTP refusal whose body is a JSON-RPC error (`id` the request's when known),
/// as clients read them; callers add the headers their status asks for.
pub(crate) fn jsonrpc_error(status: http::StatusCode, id: serde_json::Value, code: i32, message: &str) -> Response {
    let error = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut response = http::Response::new(Full::new(Bytes::from(error.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    response
}

/// A header value from text that may not be one (left out then).
fn insert(response: &mut Response, name: http::HeaderName, value: &str) {
    if let Ok(value) = http::HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

/// Any other path: `404` with a JSON-RPC error naming the endpoint.
fn not_found(path: &str) -> Response {
    let message = format!("there is no MCP endpoint at {path:?}; it is {ENDPOINT}");
    jsonrpc_error(http::StatusCode::NOT_FOUND, serde_json::Value::Null, -32600, &message)
}

pub(crate) async fn serve(
    server: McpServer,
    listener: tokio::net::TcpListener,
    limits: MessageLimits,
    access: HttpAccess,
    authentication: Authentication,
    gates: HttpLimits,
    tls: Option<TlsConfig>,
) -> Result<(), ServeError> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    // Bodies reach rmcp already measured: its own cap only has to let them by.
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(limits.max_bytes())
        .with_allowed_hosts(access.hosts().iter().cloned())
        .with_allowed_origins(access.origins().iter().cloned())
        .enforce_origin_validation();
    let config = if access.hosts().is_empty() { config.disable_allowed_hosts() } else { config };
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(gates.idle());
    manager.session_config.init_timeout = Some(gates.init());
    let manager = Arc::new(manager);
    // Calls hold their place in flight from the server (until their result, even if
    // the client stops listening); the HTTP layer refuses early when it is full.
    let flight = Arc::new(InFlight::default());
    let owners = Arc::new(SessionOwners::default());
    let authentication = Arc::new(authentication);
    let access = Arc::new(access);
    let server = server.with_flight(Arc::clone(&flight), gates);
    let service = Arc::new(StreamableHttpService::new(move || Ok(server.for_session()), Arc::clone(&manager), config));
    let connections = Arc::new(tokio::sync::Semaphore::new(gates.connections()));
    loop {
        let (stream, _) = listener
            .accept()
            .await
            .map_err(|source| ServeError::Io { context: "accepting a connection".into(), source })?;
        let service = Arc::clone(&service);
        let authentication = Arc::clone(&authentication);
        let (manager, flight) = (Arc::clone(&manager), Arc::clone(&flight));
        let owners = Arc::clone(&owners);
        let access = Arc::clone(&access);
        let permit = Arc::clone(&connections).try_acquire_owned().ok();
        let tls = tls.as_ref().map(TlsConfig::acceptor);
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = Arc::clone(&service);
                let authentication = Arc::clone(&authentication);
                let (manager, flight) = (Arc::clone(&manager), Arc::clone(&flight));
                let owners = Arc::clone(&owners);
                let access = Arc::clone(&access);
                let full = permit.is_none();
                async move {
                    if full {
                        return Ok::<_, Infallible>(busy(
                            http::StatusCode::SERVICE_UNAVAILABLE,
                            serde_json::Value::Null,
                            "too many open connections; try again later".into(),
                        ));
                    }
                    // Host and Origin before anything else (the metadata is public):
                    // a forbidden origin is 403 with or without a token.
                    let origin = if super::oauth::is_metadata_path(request.uri().path()) {
                        None
                    } else {
                        match access.check(request.uri(), request.headers()) {
                            Ok(origin) => origin,
                            Err(refused) => return Ok(super::cors::refused(refused)),
                        }
                    };
                    if request.method() == http::Method::OPTIONS && is_endpoint(request.uri().path(), &authentication) {
                        let asked = request.headers().get(http::header::ACCESS_CONTROL_REQUEST_HEADERS);
                        return Ok(super::cors::preflight(origin.as_deref(), asked));
                    }
                    let mut response = match admit(request, limits, &authentication, gates.read()).await {
                        Ok(request) => match gate(&request, &gates, &manager, &flight, &owners).await {
                            Ok(opening) => {
                                let deleting = request.method() == http::Method::DELETE;
                                let mut response = as_jsonrpc_refusal(service.handle(request).await).await;
                                // A session opened by a caller counts in its share.
                                if let (Some(opening), Some(session)) =
                                    (opening, response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()))
                                {
                                    opening.opened(session);
                                }
                                // A session closed on request: 200, which clients
                                // (the Python SDK) take as done; rmcp answers 202.
                                if deleting && response.status() == http::StatusCode::ACCEPTED {
                                    *response.status_mut() = http::StatusCode::OK;
                                }
                                response
                            }
                            Err(refusal) => refusal,
                        },
                        Err(refusal) => refusal,
                    };
                    if let Some(origin) = &origin {
                        super::cors::allow(&mut response, origin);
                    }
                    Ok(response)
                }
            });
            let mut http1 = hyper::server::conn::http1::Builder::new();
            // A client that sends its headers slowly (or nothing) is cut off.
            http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(gates.read());
            let served = match tls {
                None => http1.serve_connection(hyper_util::rt::TokioIo::new(stream), handler).await,
                Some(acceptor) => match tokio::time::timeout(gates.read(), acceptor.accept(stream)).await {
                    Ok(Ok(stream)) => http1.serve_connection(hyper_util::rt::TokioIo::new(stream), handler).await,
                    Ok(Err(e)) => {
                        tracing::debug!(error = %e, "TLS handshake failed");
                        return;
                    }
                    Err(_) => {
                        tracing::debug!("TLS handshake timed out");
                        return;
                    }
                },
            };
            if let Err(e) = served {
                tracing::debug!(error = %e, "MCP HTTP connection ended with an error");
            }
        });
    }
}

/// The request with its body read, or the answer to a body over the limits: `413`
/// or `400` with a JSON-RPC error naming the limit (and the request's id, when it
/// has one), as the streamable HTTP transport asks.
async fn admit(
    request: http::Request<Incoming>,
    limits: MessageLimits,
    authentication: &Authentication,
    read: std::time::Duration,
) -> Result<http::Request<Full<Bytes>>, Response> {
    let (mut parts, mut body) = request.into_parts();
    // The metadata is public: it says how to get a token. Only an OAuth server
    // has any (a client that sees it would try OAuth).
    if super::oauth::is_metadata_path(parts.uri.path()) {
        return Err(match authentication {
            Authentication::OAuth(verifier) if verifier.resource().serves_metadata_at(ENDPOINT, parts.uri.path()) => {
                metadata_answer(&parts, verifier.resource())
            }
            Authentication::OAuth(_) => {
                plain(http::StatusCode::NOT_FOUND, format!("no resource metadata here; it is for {ENDPOINT}"))
            }
            _ => plain(http::StatusCode::NOT_FOUND, "this server publishes no OAuth metadata".into()),
        });
    }
    if !is_endpoint(parts.uri.path(), authentication) {
        return Err(not_found(parts.uri.path()));
    }
    // Who is asking comes before reading what they ask.
    match authentication {
        Authentication::Open => {}
        Authentication::Tokens(tokens) => match tokens.check(&parts) {
            Ok(caller) => {
                parts.extensions.insert(caller);
            }
            Err(refusal) => return Err(unauthenticated(refusal)),
        },
        Authentication::OAuth(verifier) => match verifier.check(&parts).await {
            Ok(caller) => {
                parts.extensions.insert(caller);
            }
            Err(refusal) => return Err(unauthorized(verifier.resource(), &refusal)),
        },
    }
    let mut scan = Scan::default();
    let mut kept = Vec::new();
    let deadline = tokio::time::Instant::now() + read;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(_) => {
                return Err(busy(
                    http::StatusCode::REQUEST_TIMEOUT,
                    serde_json::Value::Null,
                    format!("the request body did not arrive within {} s", read.as_secs_f32()),
                ));
            }
        };
        let frame =
            frame.map_err(|e| plain(http::StatusCode::BAD_REQUEST, format!("reading the request body: {e}")))?;
        let Ok(data) = frame.into_data() else { continue };
        scan.feed(&data);
        if scan.bytes() <= limits.max_bytes() {
            kept.extend_from_slice(&data);
        } else if !kept.is_empty() {
            kept = Vec::new();
        }
    }
    if let Some(breach) = scan.breach(&limits) {
        tracing::warn!(%breach, max_bytes = limits.max_bytes(), max_depth = limits.max_depth(),
            "refusing an MCP request over the limits");
        let status = match breach {
            Breach::Bytes(_) => http::StatusCode::PAYLOAD_TOO_LARGE,
            Breach::Depth(_) => http::StatusCode::BAD_REQUEST,
        };
        return Err(http::Response::builder()
            .status(status)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(scan.limit_error(breach, &limits))).boxed())
            .unwrap_or_else(|_| plain(status, "over the message limits".into())));
    }
    Ok(http::Request::from_parts(parts, Full::new(Bytes::from(kept))))
}

fn plain(status: http::StatusCode, text: String) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}

/// rmcp refuses what the transport forbids (an unsupported `MCP-Protocol-Version`,
/// a missing `Accept` type, another `Content-Type`, an unknown session, a method
/// it does not serve, a `Host` or `Origin` it was not told to accept) with its
/// status and a line of plain text; a client reads JSON-RPC errors, so the line
/// goes into one (the status stays, as the transport asks).
async fn as_jsonrpc_refusal(response: Response) -> Response {
    let plain_text = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_none_or(|t| !t.to_str().unwrap_or_default().contains("json"));
    if !response.status().is_client_error() || !plain_text {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let reason = String::from_utf8_lossy(&text);
    let advice = if reason.contains("Origin") {
        "; a browser page of another origin may not call this server (serve --allow-origin adds one)"
    } else if reason.contains("Host") {
        "; this server answers to other names only when told (serve --allow-host adds one)"
    } else if parts.status == http::StatusCode::NOT_FOUND {
        "; the session has ended or was never opened here: initialize a new one"
    } else {
        ""
    };
    let reason = if reason.trim().is_empty() { parts.status.to_string() } else { reason.trim().to_owned() };
    // -32001 for a session that is gone, as the official SDKs answer it.
    let code = if parts.status == http::StatusCode::NOT_FOUND { -32001 } else { -32600 };
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": format!("{reason}{advice}")},
    });
    let mut out = http::Response::from_parts(parts, Full::new(Bytes::from(error.to_string())).boxed());
    out.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    out.headers_mut().remove(http::header::CONTENT_LENGTH);
    out
}

/// The answer to a request without a good token: `401` (or `400` for a token in
/// the query string) with `WWW-Authenticate: Bearer ...` and a JSON-RPC error.
fn unauthenticated(refusal: Refusal) -> Response {
    let (status, challenge, message) = refusal.answer();
    tracing::warn!(?refusal, "refusing an MCP request without an accepted token");
    let mut response = jsonrpc_error(status, serde_json::Value::Null, -32001, message);
    insert(&mut response, http::header::WWW_AUTHENTICATE, challenge);
    response
}

/// The protected resource metadata (RFC 9728) for a `GET`; any other method gets
/// `405`. Browsers may read it from any origin.
fn metadata_answer(parts: &http::request::Parts, resource: &OAuthResource) -> Response {
    if parts.method != http::Method::GET && parts.method != http::Method::HEAD {
        let mut response = plain(http::StatusCode::METHOD_NOT_ALLOWED, "GET the metadata".into());
        response.headers_mut().insert(http::header::ALLOW, http::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    http::Response::builder()
        .status(http::StatusCode::OK)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header(http::header::CACHE_CONTROL, "max-age=300")
        .body(Full::new(Bytes::from(resource.metadata().to_string())).boxed())
        .unwrap_or_else(|_| plain(http::StatusCode::INTERNAL_SERVER_ERROR, "metadata".into()))
}

/// The answer to a request an OAuth server does not let in: the status and
/// `WWW-Authenticate` challenge the MCP authorization spec asks for, and a
/// JSON-RPC error saying why.
fn unauthorized(resource: &OAuthResource, refusal: &OAuthRefusal) -> Response {
    let (status, challenge, message) = resource.answer(refusal);
    tracing::warn!(?refusal, "refusing an MCP request without an accepted access token");
    let mut response = jsonrpc_error(status, serde_json::Value::Null, -32001, &message);
    if let Some(challenge) = challenge {
        insert(&mut response, http::header::WWW_AUTHENTICATE, &challenge);
    }
    if status == http::StatusCode::SERVICE_UNAVAILABLE {
        insert(&mut response, http::header::RETRY_AFTER, "5");
    }
    response
}

/// The session and in-flight limits for an admitted request: `503` for a new
/// session past the limit in all, `429` for one past its caller's share, `429` while
/// its session's, its caller's or all calls in flight are at the limit, each with
/// `Retry-After` and a JSON-RPC error. A request that opens a session gives its
/// caller, so the session can be counted in its share.
async fn gate(
    request: &http::Request<Full<Bytes>>,
    limits: &HttpLimits,
    manager: &rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    flight: &Arc<InFlight>,
    owners: &Arc<SessionOwners>,
) -> Result<Option<super::http_limits::Opening>, Response> {
    if request.method() != http::Method::POST {
        return Ok(None);
    }
    let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok());
    let caller = request.extensions().get::<toolwright_core::Caller>().map(|c| c.subject.as_str());
    // Read only when needed: a request of a session goes by without a parse.
    let body = || serde_json::from_slice::<serde_json::Value>(&body_bytes(request)).unwrap_or_default();
    let id = || body().get("id").cloned().unwrap_or(serde_json::Value::Null);
    let mut opening = None;
    // Only `initialize` opens a session; a 2026-07-28 request stands alone.
    if session.is_none() && body().get("method").and_then(|m| m.as_str()) == Some("initialize") {
        let sessions = manager.sessions.read().await;
        let open = sessions.len();
        if open >= limits.sessions() {
            return Err(busy(
                http::StatusCode::SERVICE_UNAVAILABLE,
                id(),
                format!("too many open sessions ({open}, the most this server keeps); try again later"),
            ));
        }
        if let Some(caller) = caller {
            let is_open = |s: &str| sessions.keys().any(|k| k.as_ref() == s);
            match owners.open(caller, limits.sessions_per_caller(), is_open) {
                Some(place) => opening = Some(place),
                None => {
                    let why = super::http_limits::too_many_sessions_for_caller(limits);
                    return Err(busy(http::StatusCode::TOO_MANY_REQUESTS, id(), why));
                }
            }
        }
    }
    match flight.full(CountedFor { session, caller }, limits) {
        None => Ok(opening),
        Some(why) => Err(busy(http::StatusCode::TOO_MANY_REQUESTS, id(), why)),
    }
}

/// The bytes of an admitted request's body (already read whole).
fn body_bytes(request: &http::Request<Full<Bytes>>) -> Bytes {
    use http_body_util::BodyExt as _;
    // A `Full` body yields its one frame at once: no await is needed to read it.
    let mut body = request.body().clone();
    match futures::FutureExt::now_or_never(body.frame()) {
        Some(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
        _ => Bytes::new(),
    }
}

fn busy(status: http::StatusCode, id: serde_json::Value, message: String) -> Response {
    tracing::warn!(%status, "{message}");
    let mut response = jsonrpc_error(status, id, -32000, &message);
    insert(&mut response, http::header::RETRY_AFTER, "1");
    response
}

#[cfg(test)]
mod tests {
    use super::{Authentication, is_endpoint};
    use crate::oauth::{OAuthResource, Verifier};
    use std::sync::Arc;

    fn oauth(resource: &str) -> Authentication {
        let resource = OAuthResource::new(resource, "https://auth.example.com").unwrap();
        Authentication::OAuth(Arc::new(Verifier::new(resource)))
    }

    #[test]
    fn the_endpoint_is_mcp_or_the_canonical_urls_path() {
        let open = Authentication::Open;
        assert!(is_endpoint("/mcp", &open) && is_endpoint("/mcp/", &open));
        assert!(!is_endpoint("/", &open) && !is_endpoint("/mcpx", &open) && !is_endpoint("/mcp/x", &open));
        let root = oauth("https://tools.example.com/");
        assert!(is_endpoint("/", &root) && is_endpoint("/mcp", &root) && !is_endpoint("/x", &root));
        let team = oauth("https://tools.example.com/team/mcp");
        assert!(is_endpoint("/team/mcp", &team) && is_endpoint("/team/mcp/", &team) && !is_endpoint("/team", &team));
    }
}
