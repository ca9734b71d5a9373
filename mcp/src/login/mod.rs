//! Logging in to a mounted HTTP server with OAuth, as the MCP authorization spec
//! (2025-11-25) asks of a client: the server's 401 names its protected resource
//! metadata (RFC 9728), that names the authorization server (RFC 8414, then OpenID
//! discovery); the client is pre-registered (`oauth.clientId`), identified by a
//! Client ID Metadata Document (`oauth.clientMetadataUrl`, where the server supports
//! it) or registered on the spot (RFC 7591); the user approves in a browser and the
//! code comes back to a listener on 127.0.0.1; PKCE with S256 (a server that does not
//! advertise it is refused) and the `resource` parameter (RFC 8707) on every
//! request. rmcp's `auth` does the protocol; this module adds the loopback redirect,
//! the browser, the PKCE refusal and the credentials file.
//!
//! Mounting reads the file: a server with a login gets its token on every request,
//! refreshed before it expires and once on a 401 (rmcp's `AuthClient`), and the
//! refreshed token is written back. A server that wants a login and has none fails
//! to mount with one line naming `toolwright mcp login <server>`; nothing waits for
//! a browser outside `login`.

mod callback;
pub(crate) mod client_credentials;
mod legacy;
mod scope_watch;
mod store;

pub(crate) use scope_watch::ScopeWatch;

pub use store::{CREDENTIALS_FILE_ENV, CredentialFile, Login};

use crate::config::OAuthSettings;
use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadata, AuthorizationRequest, AuthorizationSession};
use std::time::Duration;

/// Why a login did not happen.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// No home folder to keep the credentials file in.
    #[error("no home folder to keep MCP logins in: set HOME, XDG_STATE_HOME or {CREDENTIALS_FILE_ENV}")]
    NoHome,
    /// The credentials file could not be read or written.
    #[error("{}: {message}", path.display())]
    Store {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The server answered without asking for credentials.
    #[error("`{0}` answered without asking for a login; nothing to do")]
    NotRequired(String),
    /// The server is not an HTTP server.
    #[error("`{0}` is a stdio server: it takes its credentials from its environment, not a login")]
    NotHttp(String),
    /// Finding the authorization server failed.
    #[error("finding the authorization server: {0}")]
    Discovery(String),
    /// The authorization server does not offer PKCE with S256.
    #[error(
        "the authorization server does not advertise PKCE with S256 (its code_challenge_methods_supported: {0}); \
         the MCP spec has clients refuse it"
    )]
    NoPkce(String),
    /// The loopback redirect failed or timed out.
    #[error("the login's redirect: {0}")]
    Callback(String),
    /// The authorization server or the user refused.
    #[error("the authorization server refused the login: {0}")]
    Refused(String),
    /// Registering, exchanging the code or another OAuth step failed.
    #[error("{0}")]
    OAuth(String),
}

fn oauth(e: rmcp::transport::auth::AuthError) -> LoginError {
    LoginError::OAuth(e.to_string())
}

/// One login to run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LoginRequest {
    /// The server's name in the config.
    pub server: String,
    /// Its URL.
    pub url: String,
    /// Its `oauth` settings.
    pub settings: OAuthSettings,
    /// A pre-registered client's secret (`MCP_CLIENT_SECRET`, as Claude Code reads it).
    pub client_secret: Option<String>,
    /// The client's name for dynamic registration.
    pub client_name: String,
    /// How long to wait for the browser.
    pub timeout: Duration,
}

impl LoginRequest {
    /// A login to `server` at `url` with its settings, waiting five minutes.
    pub fn new(server: impl Into<String>, url: impl Into<String>, settings: OAuthSettings) -> Self {
        LoginRequest {
            server: server.into(),
            url: url.into(),
            settings,
            client_secret: None,
            client_name: "toolwright".into(),
            timeout: Duration::from_secs(300),
        }
    }

    /// With a pre-registered client's secret.
    pub fn client_secret(mut self, secret: Option<String>) -> Self {
        self.client_secret = secret.filter(|s| !s.is_empty());
        self
    }

    /// Names the client in a dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Waits this long for the browser.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

pub(crate) use toolwright_core::tls::install_crypto;

/// The server's challenge to an unauthenticated client: its `WWW-Authenticate` when
/// it answers `initialize`, or the `tools/list` after it, with 401 or 403 (some
/// servers let anyone initialize and guard everything else).
async fn challenge(request: &LoginRequest) -> Result<Option<String>, LoginError> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(request.timeout.min(Duration::from_secs(30)))
        .build()
        .map_err(|e| LoginError::Discovery(e.to_string()))?;
    let post = |body: serde_json::Value, session: Option<&str>| {
        let mut builder = client
            .post(&request.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", PROBE_VERSION)
            .json(&body);
        if let Some(session) = session {
            builder = builder.header("Mcp-Session-Id", session);
        }
        builder.send()
    };
    let failed = |e: reqwest::Error| LoginError::Discovery(format!("{}: {e}", request.url));
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": PROBE_VERSION, "capabilities": {}, "clientInfo": {"name": request.client_name, "version": env!("CARGO_PKG_VERSION")}}
    });
    let response = post(initialize, None).await.map_err(failed)?;
    if let Some(challenge) = challenge_of(&response) {
        return Ok(Some(challenge));
    }
    if !response.status().is_success() {
        return Ok(None);
    }
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    drop(response);
    let _ =
        post(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), session.as_deref()).await;
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let response = post(list, session.as_deref()).await.map_err(failed)?;
    Ok(challenge_of(&response))
}

/// The protocol revision the probe speaks.
const PROBE_VERSION: &str = "2025-11-25";

/// A 401 or 403's Bearer challenge (a bare `Bearer` when it sent none).
fn challenge_of(response: &reqwest::Response) -> Option<String> {
    if !matches!(response.status().as_u16(), 401 | 403) {
        return None;
    }
    Some(
        response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.trim_start().to_ascii_lowercase().starts_with("bearer"))
            .unwrap_or("Bearer")
            .to_owned(),
    )
}

/// Whether the server at `url` answers an unauthenticated `initialize` with 401 (or
/// 403): it wants a login.
pub async fn needs_login(url: &str) -> Result<bool, LoginError> {
    install_crypto();
    let request = LoginRequest::new("", url, OAuthSettings::default()).timeout(Duration::from_secs(10));
    Ok(challenge(&request).await?.is_some())
}

/// The HTTP client authorization metadata is fetched with: no redirects (a metadata
/// document is where it is said to be), 30 s at most.
fn discovery_client() -> Result<reqwest::Client, LoginError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| LoginError::Discovery(e.to_string()))
}

/// The authorization server's metadata from `authServerMetadataUrl` (HTTPS only).
async fn metadata_from(url: &str) -> Result<AuthorizationMetadata, LoginError> {
    if !url.starts_with("https://") {
        return Err(LoginError::Discovery(format!("oauth.authServerMetadataUrl `{url}` must start with https://")));
    }
    let response =
        discovery_client()?.get(url).send().await.map_err(|e| LoginError::Discovery(format!("{url}: {e}")))?;
    if !response.status().is_success() {
        return Err(LoginError::Discovery(format!("{url}: HTTP {}", response.status())));
    }
    response.json().await.map_err(|e| LoginError::Discovery(format!("{url}: not authorization server metadata: {e}")))
}

/// Refuses an authorization page that is not `https` (or `http` on this machine)
/// before it reaches a browser: metadata naming `file:`, `javascript:` or a plain
/// `http` page elsewhere does not get opened.
fn check_page(page: &str) -> Result<(), LoginError> {
    let refused = || {
        LoginError::Discovery(format!("the authorization page `{page}` is neither https nor on this machine; refused"))
    };
    let url = url::Url::parse(page).map_err(|_| refused())?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if crate::oauth::is_loopback(&url) => Ok(()),
        _ => Err(refused()),
    }
}

/// Refuses an authorization server without PKCE S256 (the MCP spec: a client MUST
/// refuse when `code_challenge_methods_supported` is absent or lacks S256).
fn check_pkce(metadata: &AuthorizationMetadata) -> Result<(), LoginError> {
    match &metadata.code_challenge_methods_supported {
        Some(methods) if methods.iter().any(|m| m == "S256") => Ok(()),
        Some(methods) => Err(LoginError::NoPkce(format!("{methods:?}"))),
        None => Err(LoginError::NoPkce("absent".into())),
    }
}

/// Logs in: discovers, registers, sends the user to the authorization URL through
/// `open` (which gets it; print it, start a browser), waits for the redirect,
/// exchanges the code and keeps the tokens in `file`.
pub async fn login(
    request: &LoginRequest,
    file: &CredentialFile,
    open: impl FnOnce(&str),
) -> Result<Login, LoginError> {
    install_crypto();
    let challenge = challenge(request).await?;
    if challenge.is_none() && request.settings.auth_server_metadata_url.is_none() {
        return Err(LoginError::NotRequired(request.server.clone()));
    }
    let mut manager = AuthorizationManager::new(request.url.as_str()).await.map_err(oauth)?;
    manager.set_credential_store(file.for_server(&request.server, &request.url));
    // A 2025-03-26 server (no protected resource metadata) keeps its metadata with the
    // login: discovery at mount would not find it either.
    let mut legacy_metadata = None;
    let metadata = match &request.settings.auth_server_metadata_url {
        Some(url) => metadata_from(url).await?,
        None => match manager.resolve_metadata_from_challenge(challenge.as_deref()).await {
            // rmcp's 2025-03-26 default endpoints on the server's origin: that revision
            // has every client use PKCE S256, with no metadata to advertise it.
            Ok(resolution) if !resolution.source.is_discovered() => {
                let mut metadata = resolution.metadata;
                metadata.code_challenge_methods_supported.get_or_insert_with(|| vec!["S256".into()]);
                legacy_metadata = Some(metadata.clone());
                metadata
            }
            Ok(resolution) => resolution.metadata,
            Err(e) => match legacy::metadata(&request.url).await? {
                Some(metadata) => {
                    legacy_metadata = Some(metadata.clone());
                    metadata
                }
                None => return Err(LoginError::Discovery(e.to_string())),
            },
        },
    };
    check_pkce(&metadata)?;
    manager.set_metadata(metadata);

    let loopback = callback::Loopback::bind(request.settings.callback_port.unwrap_or(0)).await?;
    let redirect_uri = loopback.redirect_uri();
    let mut authorization = AuthorizationRequest::new(redirect_uri).with_client_name(request.client_name.clone());
    authorization = match (&request.settings.scopes, step_up_scopes(request, file, challenge.as_deref())?) {
        (Some(scopes), _) => authorization.with_scopes(scopes.split_whitespace()),
        (None, Some(scopes)) => authorization.with_scopes(scopes),
        (None, None) => authorization.with_initial_scope_selection(),
    };
    if let Some(client_id) = &request.settings.client_id {
        authorization = authorization.with_preregistered_client(client_id.clone());
        if let Some(secret) = &request.client_secret {
            authorization = authorization.with_client_secret(secret.clone());
        }
    }
    if let Some(url) = &request.settings.client_metadata_url {
        authorization = authorization.with_client_metadata_url(url.clone());
    }
    let session = AuthorizationSession::new(manager, authorization).await.map_err(|(_, e)| oauth(e))?;
    let page = session.get_authorization_url();
    check_page(page)?;
    open(page);
    let answer = loopback.wait(request.timeout).await?;
    session.handle_callback_with_issuer(&answer.code, &answer.state, answer.issuer.as_deref()).await.map_err(oauth)?;
    // The manager saved the tokens through the file; the secret goes beside them.
    let mut login = file
        .get(&request.server, &request.url)?
        .ok_or_else(|| LoginError::OAuth("the token exchange kept no credentials".into()))?;
    if request.client_secret.is_some() && request.settings.client_id.is_some() {
        login.client_secret = request.client_secret.clone();
    }
    login.legacy_metadata = legacy_metadata;
    file.put(login.clone())?;
    Ok(login)
}

/// What a login asks for when the server wanted more since the last one (a call's
/// `403 insufficient_scope`): what was granted, what the challenge names and what
/// the server asked for, once each.
fn step_up_scopes(
    request: &LoginRequest,
    file: &CredentialFile,
    challenge: Option<&str>,
) -> Result<Option<Vec<String>>, LoginError> {
    let Some(login) = file.get(&request.server, &request.url)? else { return Ok(None) };
    if login.wanted_scopes.is_empty() {
        return Ok(None);
    }
    let challenged = challenge.and_then(scope_watch::scope_of).unwrap_or_default();
    let mut scopes: Vec<String> = Vec::new();
    let all = login.credentials.granted_scopes.iter().cloned().chain(challenged.split_whitespace().map(str::to_owned));
    for scope in all.chain(login.wanted_scopes.iter().cloned()) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(Some(scopes))
}

/// rmcp's authorization manager for a server with a login in `file`, ready to sign
/// requests (and refresh into the file); `None` when there is no login.
async fn manager_for(
    server: &str,
    url: &str,
    settings: &OAuthSettings,
    file: &CredentialFile,
) -> Result<Option<AuthorizationManager>, String> {
    let Some(login) = file.get(server, url).map_err(|e| e.to_string())? else { return Ok(None) };
    install_crypto();
    let mut manager = AuthorizationManager::new(url).await.map_err(|e| e.to_string())?;
    manager.set_credential_store(file.for_server(server, url));
    if let Some(metadata_url) = &settings.auth_server_metadata_url {
        manager.set_metadata(metadata_from(metadata_url).await.map_err(|e| e.to_string())?);
    } else if let Some(metadata) = &login.legacy_metadata {
        manager.set_metadata(metadata.clone());
    }
    if !manager.initialize_from_store().await.map_err(|e| e.to_string())? {
        return Ok(None);
    }
    if let Some(secret) = &login.client_secret {
        let config = rmcp::transport::auth::OAuthClientConfig::new(
            login.credentials.client_id.clone(),
            "http://127.0.0.1/callback",
        )
        .with_client_secret(secret.clone());
        manager.configure_client(config).map_err(|e| e.to_string())?;
    }
    Ok(Some(manager))
}

/// The HTTP client for a server with a login in `file`: rmcp's `AuthClient` (the
/// token on every request, refreshed), watched for a scope the server wants.
pub(crate) async fn authorized_client(
    server: &str,
    url: &str,
    settings: &OAuthSettings,
    file: &CredentialFile,
) -> Result<Option<ScopeWatch<rmcp::transport::AuthClient<reqwest::Client>>>, String> {
    let Some(manager) = manager_for(server, url, settings, file).await? else { return Ok(None) };
    Ok(Some(ScopeWatch {
        inner: rmcp::transport::AuthClient::new(reqwest::Client::default(), manager),
        file: file.clone(),
        server: server.to_owned(),
        url: url.to_owned(),
    }))
}

/// A failed connection's error, with what to do when it was a 401: log in, or set headers.
pub(crate) fn unauthorized_advice(server: &str, error: String) -> String {
    let lower = error.to_ascii_lowercase();
    if error.contains("401") || lower.contains("unauthorized") || lower.contains("auth required") {
        format!(
            "needs a login: run `toolwright mcp login {server}` (the server answered 401: {error}); or give its entry `headers` (`\"Authorization\": \"Bearer ${{TOKEN}}\"`, with TOKEN in the environment) or a `headersHelper` command that prints them"
        )
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_https_or_local_pages_are_opened() {
        for page in ["https://auth.example/authorize?x=1", "http://127.0.0.1:9/authorize", "http://localhost:3000/a"] {
            assert!(super::check_page(page).is_ok(), "{page}");
        }
        for page in ["http://auth.example/authorize", "file:///etc/passwd", "javascript:alert(1)", "not a url"] {
            assert!(super::check_page(page).is_err(), "{page}");
        }
    }
}
