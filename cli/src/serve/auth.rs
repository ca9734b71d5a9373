//! How `serve --http` knows its callers: static bearer tokens, or OAuth access
//! tokens from an issuer (never both).

use std::net::SocketAddr;
use toolwright::mcp::{BearerTokens, OAuthError, OAuthResource};

#[derive(clap::Args)]
pub struct AuthArgs {
    /// With --http: accept the bearer token in environment variable VAR as the
    /// caller NAME (`--token-env ci=CI_MCP_TOKEN`); with any token given, every
    /// request needs one. Repeatable.
    #[arg(long, value_name = "NAME=VAR", requires = "http")]
    token_env: Vec<String>,
    /// With --http: accept the bearer token in FILE (its first line) as the caller
    /// NAME (`--token-file alice=/run/secrets/alice`). Repeatable.
    #[arg(long, value_name = "NAME=FILE", requires = "http")]
    token_file: Vec<String>,
    /// With --http: be an OAuth 2.1 resource server for access tokens from this
    /// issuer (its `iss`): serve the protected resource metadata, and check every
    /// request's token as a JWT against the issuer's JWKS (found through its
    /// metadata unless --oauth-jwks-uri) or by --oauth-introspect.
    #[arg(long, value_name = "URL", requires = "http", conflicts_with_all = ["token_env", "token_file"])]
    oauth_issuer: Option<String>,
    /// With --oauth-issuer: the issuer's JWKS document.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    oauth_jwks_uri: Option<String>,
    /// With --oauth-issuer: check tokens by RFC 7662 introspection at URL instead
    /// of as JWTs (with --oauth-client-id and --oauth-client-secret-env).
    #[arg(long, value_name = "URL", requires_all = ["oauth_issuer", "oauth_client_id", "oauth_client_secret_env"],
          conflicts_with = "oauth_jwks_uri")]
    oauth_introspect: Option<String>,
    /// With --oauth-introspect: this server's client id at the issuer.
    #[arg(long, value_name = "ID", requires = "oauth_introspect")]
    oauth_client_id: Option<String>,
    /// With --oauth-introspect: the environment variable holding its client secret.
    #[arg(long, value_name = "VAR", requires = "oauth_introspect")]
    oauth_client_secret_env: Option<String>,
    /// With --oauth-issuer: a scope every request's token must have (named in the
    /// metadata and the 401 challenge; without it, 403 insufficient_scope).
    /// Repeatable: all are needed.
    #[arg(long, value_name = "SCOPE", requires = "oauth_issuer")]
    oauth_scope: Vec<String>,
    /// With --oauth-issuer: the JWS algorithms taken (default every asymmetric
    /// one: RS256..RS512, PS256..PS512, ES256, ES384, EdDSA; never HMAC or none).
    #[arg(long, value_name = "ALG", value_delimiter = ',', requires = "oauth_issuer")]
    oauth_algorithms: Vec<String>,
    /// With --oauth-issuer: the clock skew allowed on exp and nbf, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "oauth_issuer")]
    oauth_leeway: u64,
    /// With --http: this server's canonical URL, as clients reach it (the
    /// audience OAuth tokens must name); default `http://ADDR:PORT/mcp` as bound.
    #[arg(long, value_name = "URL", requires = "http")]
    resource_url: Option<String>,
}

/// What `serve` authenticates with.
pub enum Authentication {
    Tokens(BearerTokens),
    OAuth(Box<OAuthResource>),
}

impl AuthArgs {
    /// The authentication for a server bound at `bound`, or what is wrong with
    /// the flags.
    pub fn authentication(&self, bound: SocketAddr, scheme: &str) -> Result<Authentication, String> {
        let Some(issuer) = &self.oauth_issuer else {
            return self.tokens().map(Authentication::Tokens);
        };
        let resource = self.resource_url(bound, scheme);
        let mut oauth = OAuthResource::new(&resource, issuer).map_err(|e| match &e {
            // The canonical URL is --resource-url's (or the bound address's).
            OAuthError::Url { what, .. } if what.contains("resource") => format!("--resource-url: {e}"),
            _ => format!("--oauth-issuer: {e}"),
        })?;
        if let Some(uri) = &self.oauth_jwks_uri {
            oauth = oauth.jwks_uri(uri).map_err(|e| format!("--oauth-jwks-uri: {e}"))?;
        }
        if let Some(endpoint) = &self.oauth_introspect {
            let var = self.oauth_client_secret_env.as_deref().unwrap_or_default();
            let secret = std::env::var(var)
                .map_err(|_| format!("--oauth-client-secret-env: the environment variable `{var}` is not set"))?;
            let id = self.oauth_client_id.as_deref().unwrap_or_default();
            oauth = oauth.introspection(endpoint, id, secret.trim()).map_err(|e| format!("--oauth-introspect: {e}"))?;
        }
        for scope in &self.oauth_scope {
            oauth = oauth.require_scope(scope).map_err(|e| format!("--oauth-scope: {e}"))?;
        }
        if !self.oauth_algorithms.is_empty() {
            let names: Vec<&str> = self.oauth_algorithms.iter().map(|a| a.trim()).collect();
            oauth = oauth.algorithms(&names).map_err(|e| format!("--oauth-algorithms: {e}"))?;
        }
        Ok(Authentication::OAuth(Box::new(oauth.leeway(std::time::Duration::from_secs(self.oauth_leeway)))))
    }

    /// The canonical URL: as given, or the bound address's.
    pub fn resource_url(&self, bound: SocketAddr, scheme: &str) -> String {
        self.resource_url.clone().unwrap_or_else(|| format!("{scheme}://{bound}/mcp"))
    }

    /// The `host[:port]` of a given --resource-url, which the server must answer to.
    pub fn resource_host(&self, bound: SocketAddr, scheme: &str) -> Option<String> {
        self.resource_url.as_ref()?;
        let url = url::Url::parse(&self.resource_url(bound, scheme)).ok()?;
        let host = url.host_str()?.trim_start_matches('[').trim_end_matches(']').to_owned();
        Some(match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host,
        })
    }

    fn tokens(&self) -> Result<BearerTokens, String> {
        let mut tokens = BearerTokens::default();
        let given = self
            .token_env
            .iter()
            .map(|g| ("--token-env", g))
            .chain(self.token_file.iter().map(|g| ("--token-file", g)));
        for (flag, given) in given {
            let Some((name, source)) = given.split_once('=').filter(|(_, source)| !source.trim().is_empty()) else {
                return Err(format!(
                    "{flag} {given}: give NAME={}",
                    if flag == "--token-env" { "VAR" } else { "FILE" }
                ));
            };
            tokens = if flag == "--token-env" {
                tokens.with_env(name, source)
            } else {
                tokens.with_file(name, source.as_ref())
            }
            .map_err(|e| format!("{flag}: {e}"))?;
        }
        Ok(tokens)
    }
}
