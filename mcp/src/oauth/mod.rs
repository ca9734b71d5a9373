//! An OAuth 2.1 resource server for the HTTP endpoint, as the MCP authorization
//! spec asks: protected resource metadata (RFC 9728) at the well-known path, a
//! `401` whose `WWW-Authenticate` points at it, access tokens checked as JWTs
//! against the issuer's JWKS (RFC 9068 claims, audience per RFC 8707) or by
//! introspection (RFC 7662), and `403 insufficient_scope` naming the scope.
//!
//! The token is only read here: it never reaches a tool, a hook, a log line or a
//! mounted server (the caller's subject and scopes do, as a [`Caller`]).

mod introspect;
mod jwt;
mod metadata;

pub(crate) use metadata::is_metadata_path;

use std::time::Duration;
use toolwright_core::Caller;

pub(crate) use jwt::Verifier;

/// What an HTTP server asks of an OAuth access token, and how it checks one.
///
/// ```
/// use toolwright_mcp::OAuthResource;
///
/// let resource = OAuthResource::new("https://tools.example.com/mcp", "https://auth.example.com")?
///     .require_scope("mcp:tools")?;
/// assert_eq!(
///     resource.metadata_url(),
///     "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// // An HMAC algorithm would need a secret shared with the issuer: never taken.
/// assert!(resource.clone().algorithms(&["HS256"]).is_err());
/// // Only loopback addresses may use plain http.
/// assert!(OAuthResource::new("http://tools.example.com/mcp", "https://auth.example.com").is_err());
/// # Ok::<(), toolwright_mcp::OAuthError>(())
/// ```
#[derive(Clone)]
pub struct OAuthResource {
    resource: url::Url,
    issuer: String,
    authorization_servers: Vec<String>,
    jwks_uri: Option<url::Url>,
    introspection: Option<introspect::Introspection>,
    scopes_required: Vec<String>,
    scopes_supported: Vec<String>,
    algorithms: Vec<jsonwebtoken::Algorithm>,
    leeway: Duration,
}

impl std::fmt::Debug for OAuthResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The introspection secret stays out.
        f.debug_struct("OAuthResource")
            .field("resource", &self.resource.as_str())
            .field("issuer", &self.issuer)
            .field("jwks_uri", &self.jwks_uri.as_ref().map(url::Url::as_str))
            .field("introspection", &self.introspection.as_ref().map(|i| i.endpoint.as_str()))
            .field("scopes_required", &self.scopes_required)
            .field("algorithms", &self.algorithms)
            .finish()
    }
}

/// An OAuth setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthError {
    /// Not an absolute `http(s)` URL without a fragment, or plain `http` to a host
    /// that is not loopback.
    #[error("{what} `{url}`: {why}")]
    Url {
        /// Which setting.
        what: &'static str,
        /// The value given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// An algorithm that is not an asymmetric JWS algorithm.
    #[error(
        "algorithm `{0}`: give RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 or EdDSA (HMAC needs a secret shared with the issuer, and `none` signs nothing)"
    )]
    Algorithm(String),
    /// A scope with a space, a quote or a backslash (RFC 6749 3.3).
    #[error("scope `{0}`: a scope is printable ASCII without spaces, quotes or backslashes")]
    Scope(String),
    /// The introspection client's credentials are missing.
    #[error("introspection at `{0}` needs a client id and secret")]
    Client(String),
}

/// The algorithms taken unless told otherwise: every asymmetric one.
const DEFAULT_ALGORITHMS: [&str; 9] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"];

impl OAuthResource {
    /// A resource server at `resource` (this server's canonical URL, the audience
    /// tokens must name) trusting tokens from `issuer`. Keys come from the issuer's
    /// metadata (RFC 8414, then OpenID discovery) unless [`jwks_uri`](Self::jwks_uri)
    /// or [`introspection`](Self::introspection) say where.
    pub fn new(resource: &str, issuer: &str) -> Result<OAuthResource, OAuthError> {
        let resource = checked_url("the resource URL", resource)?;
        checked_url("the issuer", issuer)?;
        Ok(OAuthResource {
            resource,
            issuer: issuer.to_owned(),
            authorization_servers: vec![issuer.to_owned()],
            jwks_uri: None,
            introspection: None,
            scopes_required: Vec::new(),
            scopes_supported: Vec::new(),
            algorithms: DEFAULT_ALGORITHMS.iter().filter_map(|a| a.parse().ok()).collect(),
            leeway: Duration::from_secs(30),
        })
    }

    /// Takes the signing keys from this JWKS document instead of the issuer's metadata.
    pub fn jwks_uri(mut self, uri: &str) -> Result<OAuthResource, OAuthError> {
        self.jwks_uri = Some(checked_url("the JWKS URI", uri)?);
        Ok(self)
    }

    /// Checks tokens by RFC 7662 introspection at `endpoint`, as the client
    /// `client_id` (HTTP Basic with `secret`), instead of as JWTs.
    pub fn introspection(mut self, endpoint: &str, client_id: &str, secret: &str) -> Result<OAuthResource, OAuthError> {
        let endpoint = checked_url("the introspection endpoint", endpoint)?;
        if client_id.is_empty() || secret.is_empty() {
            return Err(OAuthError::Client(endpoint.to_string()));
        }
        self.introspection =
            Some(introspect::Introspection { endpoint, client_id: client_id.to_owned(), secret: secret.to_owned() });
        Ok(self)
    }

    /// Every request needs a token with `scope` (also listed in the metadata and
    /// the `401` challenge). Repeatable: all are needed.
    pub fn require_scope(mut self, scope: &str) -> Result<OAuthResource, OAuthError> {
        check_scope(scope)?;
        if !self.scopes_required.iter().any(|s| s == scope) {
            self.scopes_required.push(scope.to_owned());
        }
        if !self.scopes_supported.iter().any(|s| s == scope) {
            self.scopes_supported.push(scope.to_owned());
        }
        Ok(self)
    }

    /// Lists `scope` in the metadata's `scopes_supported` without requiring it.
    pub fn support_scope(mut self, scope: &str) -> Result<OAuthResource, OAuthError> {
        check_scope(scope)?;
        if !self.scopes_supported.iter().any(|s| s == scope) {
            self.scopes_supported.push(scope.to_owned());
        }
        Ok(self)
    }

    /// The JWS algorithms accepted (by name); asymmetric ones only.
    pub fn algorithms(mut self, names: &[&str]) -> Result<OAuthResource, OAuthError> {
        let mut algorithms = Vec::new();
        for name in names {
            let algorithm = DEFAULT_ALGORITHMS
                .iter()
                .find(|a| *a == name)
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| OAuthError::Algorithm((*name).to_owned()))?;
            algorithms.push(algorithm);
        }
        if algorithms.is_empty() {
            return Err(OAuthError::Algorithm(String::new()));
        }
        self.algorithms = algorithms;
        Ok(self)
    }

    /// The clock skew allowed on `exp` and `nbf` (default 30 seconds).
    pub fn leeway(mut self, leeway: Duration) -> OAuthResource {
        self.leeway = leeway;
        self
    }

    /// This server's canonical URL, the audience a token must name.
    pub fn resource(&self) -> &str {
        self.resource.as_str()
    }

    /// Where the protected resource metadata is served: the well-known name
    /// inserted between the host and the resource's path (RFC 9728 3.1).
    pub fn metadata_url(&self) -> String {
        metadata::metadata_url(&self.resource)
    }

    /// The `iss` values taken: the issuer as configured, with and without a
    /// trailing `/` (`https://auth.example.com` and `https://auth.example.com/` name
    /// the same issuer; a configuration should not fail on the habit of either).
    pub(crate) fn issuer_forms(&self) -> [String; 2] {
        let bare = self.issuer.trim_end_matches('/');
        [bare.to_owned(), format!("{bare}/")]
    }

    /// The `aud` values taken: the canonical URL, with and without a trailing `/`
    /// (the endpoint answers at both, and clients derive the resource from the URL
    /// they were given).
    pub(crate) fn audience_forms(&self) -> [String; 2] {
        let bare = self.resource.as_str().trim_end_matches('/');
        [bare.to_owned(), format!("{bare}/")]
    }

    /// The canonical URL's path.
    pub(crate) fn path(&self) -> &str {
        self.resource.path()
    }

    /// Whether the metadata is served at `path` for an endpoint at `served`.
    pub(crate) fn serves_metadata_at(&self, served: &str, path: &str) -> bool {
        metadata::serves_at(&self.resource, served, path)
    }

    /// The protected resource metadata document (RFC 9728 2).
    pub fn metadata(&self) -> serde_json::Value {
        metadata::document(self)
    }
}

/// An absolute `http(s)` URL with no fragment; plain `http` only to loopback.
fn checked_url(what: &'static str, given: &str) -> Result<url::Url, OAuthError> {
    let fail = |why| OAuthError::Url { what, url: given.to_owned(), why };
    let url = url::Url::parse(given).map_err(|_| fail("not an absolute URL"))?;
    if url.fragment().is_some() {
        return Err(fail("a URL here has no fragment (`#...`)"));
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(fail("plain http is taken only for loopback addresses; use https")),
        _ => Err(fail("give an http or https URL")),
    }
}

/// Whether `url` names this machine (`localhost` or a loopback address).
pub(crate) fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn check_scope(scope: &str) -> Result<(), OAuthError> {
    // RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
    let ok = !scope.is_empty()
        && scope.bytes().all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
    if ok { Ok(()) } else { Err(OAuthError::Scope(scope.to_owned())) }
}

/// Why a request was not let in, in OAuth terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OAuthRefusal {
    /// No bearer token at all: the client should start the authorization flow.
    Missing,
    /// A token in the query string (the MCP spec forbids it).
    QueryToken,
    /// The token is not accepted; the text says why (no secret in it).
    Invalid(String),
    /// The token lacks these scopes.
    Scope(Vec<String>),
    /// The issuer's keys or introspection endpoint could not be reached.
    Unavailable(String),
}

impl OAuthResource {
    /// The status, the `WWW-Authenticate` value (if any) and the client's message.
    pub(crate) fn answer(&self, refusal: &OAuthRefusal) -> (http::StatusCode, Option<String>, String) {
        let metadata = format!("resource_metadata=\"{}\"", self.metadata_url());
        let scope = |scopes: &[String]| {
            if scopes.is_empty() { String::new() } else { format!(", scope=\"{}\"", scopes.join(" ")) }
        };
        match refusal {
            OAuthRefusal::Missing => (
                http::StatusCode::UNAUTHORIZED,
                Some(format!("Bearer {metadata}{}", scope(&self.scopes_required))),
                "authorization required: send `Authorization: Bearer <access token>` (see the resource metadata)"
                    .into(),
            ),
            OAuthRefusal::QueryToken => (
                http::StatusCode::BAD_REQUEST,
                Some(format!(
                    "Bearer error=\"invalid_request\", error_description=\"tokens are not taken from the query string\", {metadata}"
                )),
                "a token in the query string is refused: send it in the Authorization header".into(),
            ),
            OAuthRefusal::Invalid(why) => (
                http::StatusCode::UNAUTHORIZED,
                Some(format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", {metadata}{}",
                    quoted(why),
                    scope(&self.scopes_required)
                )),
                format!("the access token is not accepted: {why}"),
            ),
            OAuthRefusal::Scope(missing) => (
                http::StatusCode::FORBIDDEN,
                Some(format!(
                    "Bearer error=\"insufficient_scope\", {}, {metadata}, error_description=\"the token lacks scope {}\"",
                    scope(&self.scopes_required).trim_start_matches(", "),
                    quoted(&missing.join(" "))
                )),
                format!("the access token lacks the scope {}", missing.join(" ")),
            ),
            OAuthRefusal::Unavailable(why) => {
                (http::StatusCode::SERVICE_UNAVAILABLE, None, format!("the token cannot be checked now: {why}"))
            }
        }
    }

    /// The caller, if it has every required scope.
    fn scoped(&self, caller: Caller) -> Result<Caller, OAuthRefusal> {
        let missing: Vec<String> =
            self.scopes_required.iter().filter(|s| !caller.scopes.contains(s)).cloned().collect();
        if missing.is_empty() { Ok(caller) } else { Err(OAuthRefusal::Scope(missing)) }
    }
}

/// Text fit for a quoted-string: no quotes, backslashes or controls (RFC 6750 3
/// limits `error_description` to printable ASCII without `"` and `\`).
fn quoted(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '\'' }).collect()
}

/// The bearer token of a request, or why there is none.
pub(crate) fn bearer_of(parts: &http::request::Parts) -> Result<&str, OAuthRefusal> {
    if let Some(query) = parts.uri.query()
        && query.split('&').any(|pair| pair.split('=').next() == Some("access_token"))
    {
        return Err(OAuthRefusal::QueryToken);
    }
    let Some(header) = parts.headers.get(http::header::AUTHORIZATION) else {
        return Err(OAuthRefusal::Missing);
    };
    let value = header.to_str().map_err(|_| OAuthRefusal::Invalid("the Authorization header is not ASCII".into()))?;
    match value.trim().split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => Ok(token.trim()),
        // Another scheme is no bearer authentication at all (RFC 6750 3).
        _ => Err(OAuthRefusal::Missing),
    }
}

/// Scopes from a claim or an introspection answer: a space-separated string
/// (RFC 9068 `scope`) or a list (`scp`, as some issuers write it).
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(crate) enum Scopes {
    Spaced(String),
    Listed(Vec<String>),
}

impl Scopes {
    pub(crate) fn into_vec(this: Option<Scopes>) -> Vec<String> {
        match this {
            Some(Scopes::Spaced(s)) => s.split_whitespace().map(str::to_owned).collect(),
            Some(Scopes::Listed(v)) => v,
            None => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
