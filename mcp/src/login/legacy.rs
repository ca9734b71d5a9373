//! Servers of the 2025-03-26 revision, which predate protected resource metadata: the
//! MCP server's own origin is the authorization server, its metadata at the origin's
//! `/.well-known/oauth-authorization-server` whatever issuer it names (rmcp refuses
//! such metadata; without any metadata, rmcp's own fallback to the default endpoints
//! applies, which `login` gives PKCE S256).
//!
//! Used only when the server has no protected resource metadata at all. Without
//! RFC 8414's issuer binding, endpoints are trusted only on the server's own origin:
//! metadata that sends the code or the token elsewhere is refused.

use super::LoginError;
use rmcp::transport::auth::AuthorizationMetadata;

/// The legacy metadata of the server at `url`, or `None` when it publishes protected
/// resource metadata or no metadata at its origin (then discovery's own error stands).
pub(super) async fn metadata(url: &str) -> Result<Option<AuthorizationMetadata>, LoginError> {
    let parsed = url::Url::parse(url).map_err(|e| LoginError::Discovery(format!("{url}: {e}")))?;
    let origin = parsed.origin().ascii_serialization();
    let client = super::discovery_client()?;
    let path = parsed.path().trim_end_matches('/');
    for prm in [
        format!("{origin}/.well-known/oauth-protected-resource{path}"),
        format!("{origin}/.well-known/oauth-protected-resource"),
    ] {
        if client.get(&prm).send().await.is_ok_and(|r| r.status().is_success()) {
            return Ok(None);
        }
    }
    let at = format!("{origin}/.well-known/oauth-authorization-server");
    let response = client.get(&at).send().await.map_err(|e| LoginError::Discovery(format!("{at}: {e}")))?;
    // No metadata at all is rmcp's own fallback (its default endpoints, which
    // `login` gives S256); here only metadata that names another issuer is taken.
    if !response.status().is_success() {
        return Ok(None);
    }
    let metadata: AuthorizationMetadata = response
        .json()
        .await
        .map_err(|e| LoginError::Discovery(format!("{at}: not authorization server metadata: {e}")))?;
    for endpoint in [
        Some(&metadata.authorization_endpoint),
        Some(&metadata.token_endpoint),
        metadata.registration_endpoint.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        same_origin(endpoint, &origin)?;
    }
    Ok(Some(metadata))
}

/// Refuses an endpoint off the server's origin (no issuer binds it to the server).
fn same_origin(endpoint: &str, origin: &str) -> Result<(), LoginError> {
    let theirs = url::Url::parse(endpoint)
        .map_err(|e| LoginError::Discovery(format!("the authorization server's endpoint `{endpoint}`: {e}")))?;
    if theirs.origin().ascii_serialization() != origin {
        return Err(LoginError::Discovery(format!(
            "the server's 2025-03-26 metadata sends the login to `{endpoint}`, off its origin {origin}; refused \
             (without protected resource metadata only the server's own origin is trusted)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_endpoint_off_the_origin_is_refused() {
        assert!(super::same_origin("http://127.0.0.1:9/oauth/token", "http://127.0.0.1:9").is_ok());
        let err = super::same_origin("https://evil.example/token", "http://127.0.0.1:9").unwrap_err().to_string();
        assert!(err.contains("evil.example") && err.contains("refused"), "{err}");
        assert!(super::same_origin("http://127.0.0.1:10/token", "http://127.0.0.1:9").is_err());
    }
}
