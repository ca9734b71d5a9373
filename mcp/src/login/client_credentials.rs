//! Machine to machine: the client credentials grant (the MCP authorization
//! extension SEP-1046), for a server whose entry says `"oauth": {"clientId": ..,
//! "clientCredentials": true}`. No person and no browser: each connection exchanges
//! the client's id and secret (read from `MCP_CLIENT_SECRET`, or the variable
//! `clientSecretEnv` names) for a token at the authorization server the server's
//! metadata names, so nothing is kept on disk. The secret goes in the request body, or
//! in `Authorization: Basic` when the server accepts only that (rmcp decides).

use super::ScopeWatch;
use crate::config::OAuthSettings;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::{ClientCredentialsConfig, OAuthState};

/// The environment variable the secret is read from by default (Claude Code's).
const SECRET_ENV: &str = "MCP_CLIENT_SECRET";

/// An HTTP client holding a token from the client credentials grant.
pub(crate) async fn client(
    server: &str,
    url: &str,
    settings: &OAuthSettings,
) -> Result<ScopeWatch<AuthClient<reqwest::Client>>, String> {
    let client_id = settings.client_id.clone().ok_or("oauth.clientCredentials needs oauth.clientId")?;
    let var = settings.client_secret_env.as_deref().unwrap_or(SECRET_ENV);
    let client_secret = std::env::var(var).ok().filter(|s| !s.is_empty()).ok_or_else(|| {
        format!("oauth.clientCredentials: the environment variable `{var}` (the client's secret) is not set")
    })?;
    super::install_crypto();
    let scopes =
        settings.scopes.as_deref().map(|s| s.split_whitespace().map(str::to_owned).collect()).unwrap_or_default();
    // The server's URL is the resource the token is for (RFC 8707).
    let resource = Some(url.to_owned());
    let config = ClientCredentialsConfig::ClientSecret { client_id, client_secret, scopes, resource };
    let mut state = OAuthState::new(url, None).await.map_err(|e| e.to_string())?;
    state.authenticate_client_credentials(config).await.map_err(|e| format!("the client credentials grant: {e}"))?;
    let manager = state.into_authorization_manager().ok_or("the client credentials grant left no authorization")?;
    Ok(ScopeWatch {
        inner: AuthClient::new(reqwest::Client::default(), manager),
        // No login to note scopes beside: a 403's scope goes in `oauth.scopes`.
        file: super::CredentialFile::at(""),
        server: server.to_owned(),
        url: url.to_owned(),
    })
}
