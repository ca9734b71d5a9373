//! Metadata documents: this server's (RFC 9728, served) and the issuer's (RFC 8414
//! or OpenID discovery, read to find its JWKS).

use super::OAuthResource;
use serde_json::{Value, json};

const RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The well-known name inserted between the host and the path of `url` (RFC 9728
/// 3.1, RFC 8414 3.1); a trailing `/` of the path is dropped.
fn inserted(url: &url::Url, well_known: &str) -> url::Url {
    let mut out = url.clone();
    let path = url.path().trim_end_matches('/');
    out.set_path(&format!("{well_known}{path}"));
    out.set_query(None);
    out
}

pub(super) fn metadata_url(resource: &url::Url) -> String {
    inserted(resource, RESOURCE_WELL_KNOWN).to_string()
}

/// Whether a request path is under the protected resource metadata's well-known
/// name (answered there, with the document or a 404, never as MCP).
pub(crate) fn is_metadata_path(path: &str) -> bool {
    path == RESOURCE_WELL_KNOWN || path.starts_with(&format!("{RESOURCE_WELL_KNOWN}/"))
}

/// Whether this resource's document is at `path`: the well-known name inserted
/// before the resource's path, before the endpoint's own path `served` (the two
/// differ behind a proxy that maps paths), or the bare name that clients also try.
/// Another resource's path gets a 404: a client checks that the document's
/// `resource` is the one it asked about (RFC 9728 3.3), so a wrong one helps no one.
pub(super) fn serves_at(resource: &url::Url, served: &str, path: &str) -> bool {
    let local = format!("{RESOURCE_WELL_KNOWN}{}", served.trim_end_matches('/'));
    path == RESOURCE_WELL_KNOWN || path == inserted(resource, RESOURCE_WELL_KNOWN).path() || path == local
}

pub(super) fn document(resource: &OAuthResource) -> Value {
    let mut doc = json!({
        "resource": resource.resource.as_str(),
        "authorization_servers": resource.authorization_servers,
        "bearer_methods_supported": ["header"],
        "resource_name": "toolwright",
    });
    // Not `resource_signing_alg_values_supported`: RFC 9728 means the algorithms
    // this server signs its responses with, and it signs none.
    if !resource.scopes_supported.is_empty() {
        doc["scopes_supported"] = json!(resource.scopes_supported);
    }
    doc
}

/// The issuer's metadata: RFC 8414's well-known document, then OpenID Connect
/// discovery's; its `issuer` must be the one configured (RFC 8414 3.3).
pub(super) async fn discover(client: &reqwest::Client, issuer: &str) -> Result<Value, String> {
    let base = url::Url::parse(issuer).map_err(|e| format!("issuer `{issuer}`: {e}"))?;
    let oidc = format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'));
    let candidates = [inserted(&base, "/.well-known/oauth-authorization-server").to_string(), oidc];
    let mut failures = Vec::new();
    for url in candidates {
        match fetch_json(client, &url).await {
            Ok(doc) => {
                let named = doc.get("issuer").and_then(Value::as_str).unwrap_or_default();
                // The same issuer with or without a trailing `/` (see `issuer_forms`).
                if named.trim_end_matches('/') != issuer.trim_end_matches('/') {
                    return Err(format!("{url} names the issuer `{named}`, not `{issuer}`"));
                }
                return Ok(doc);
            }
            Err(e) => failures.push(e),
        }
    }
    Err(format!("no authorization server metadata for `{issuer}` ({})", failures.join("; ")))
}

/// A JSON document by GET, with a deadline and a size bound.
pub(super) async fn fetch_json(client: &reqwest::Client, url: &str) -> Result<Value, String> {
    let response = client
        .get(url)
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    read_json(url, response).await
}

/// The JSON body of a response (at most 1 MiB), or why not.
pub(super) async fn read_json(url: &str, response: reqwest::Response) -> Result<Value, String> {
    const MAX: usize = 1 << 20;
    if !response.status().is_success() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    if response.content_length().is_some_and(|n| n as usize > MAX) {
        return Err(format!("{url}: the document is over 1 MiB"));
    }
    let bytes = response.bytes().await.map_err(|e| format!("{url}: {e}"))?;
    if bytes.len() > MAX {
        return Err(format!("{url}: the document is over 1 MiB"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("{url}: not JSON: {e}"))
}
