//! Streamable HTTP for [`McpServer`]: rmcp's service behind a check of each request
//! body against the [`MessageLimits`], measured as it arrives.

use super::access::HttpAccess;
use super::auth::{BearerTokens, Refusal};
use super::limits::{Breach, MessageLimits, Scan};
use super::server::{McpServer, ServeError};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use std::convert::Infallible;
use std::sync::Arc;

type Response = http::Response<BoxBody<Bytes, Infallible>>;

pub(crate) async fn serve(
    server: McpServer,
    listener: tokio::net::TcpListener,
    limits: MessageLimits,
    access: HttpAccess,
    tokens: BearerTokens,
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
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(server.for_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    loop {
        let (stream, _) = listener
            .accept()
            .await
            .map_err(|source| ServeError::Io { context: "accepting a connection".into(), source })?;
        let service = Arc::clone(&service);
        let tokens = tokens.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = Arc::clone(&service);
                let tokens = tokens.clone();
                async move {
                    Ok::<_, Infallible>(match admit(request, limits, &tokens).await {
                        Ok(request) => as_jsonrpc_refusal(service.handle(request).await).await,
                        Err(refusal) => refusal,
                    })
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = hyper::server::conn::http1::Builder::new().serve_connection(io, handler).await {
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
    tokens: &BearerTokens,
) -> Result<http::Request<Full<Bytes>>, Response> {
    let (mut parts, mut body) = request.into_parts();
    // Who is asking comes before reading what they ask.
    if !tokens.is_empty() {
        match tokens.check(&parts) {
            Ok(caller) => {
                parts.extensions.insert(caller);
            }
            Err(refusal) => return Err(unauthenticated(refusal)),
        }
    }
    let mut scan = Scan::default();
    let mut kept = Vec::new();
    while let Some(frame) = body.frame().await {
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

/// rmcp refuses a `Host` or `Origin` it was not told to accept with `403` and a line
/// of plain text; a client reads JSON-RPC errors, so the line goes into one (the
/// status stays, as the transport asks).
async fn as_jsonrpc_refusal(response: Response) -> Response {
    let plain_text = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_none_or(|t| !t.to_str().unwrap_or_default().contains("json"));
    if response.status() != http::StatusCode::FORBIDDEN || !plain_text {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let reason = String::from_utf8_lossy(&text);
    let advice = if reason.contains("Origin") {
        "; a browser page of another origin may not call this server (serve --allow-origin adds one)"
    } else if reason.contains("Host") {
        "; this server answers to other names only when told (serve --allow-host adds one)"
    } else {
        ""
    };
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32600, "message": format!("{}{advice}", reason.trim())},
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
    let error = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": message}});
    http::Response::builder()
        .status(status)
        .header(http::header::WWW_AUTHENTICATE, challenge)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(error.to_string())).boxed())
        .unwrap_or_else(|_| plain(status, message.into()))
}
