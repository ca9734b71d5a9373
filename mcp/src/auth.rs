//! Static bearer tokens for the HTTP endpoint: each token names its caller, is
//! compared in constant time and is never logged. A request without a good token
//! gets `401` with `WWW-Authenticate: Bearer` (RFC 6750), a token in the query
//! string is refused (the MCP authorization spec forbids it), and the caller's name
//! travels to the call as a [`Caller`](toolwright_core::Caller).

use std::fmt;
use std::path::Path;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use toolwright_core::Caller;

/// The tokens an HTTP server accepts, each with the name of the caller it stands
/// for. Secrets are kept out of `Debug` and every message.
///
/// ```
/// use toolwright_mcp::BearerTokens;
///
/// let tokens = BearerTokens::default().with("ci", "a-long-random-secret").unwrap();
/// assert_eq!(format!("{tokens:?}"), "BearerTokens([\"ci\"])");
/// assert!(BearerTokens::default().with("ci", "").is_err());
/// ```
#[derive(Clone, Default)]
pub struct BearerTokens {
    tokens: Arc<Vec<(String, Vec<u8>)>>,
}

/// A token that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The caller's name is empty or has characters a log line could not carry.
    #[error("caller name `{0}`: use letters, digits, `-`, `_`, `.` or `@`")]
    Name(String),
    /// The secret is empty, too short or not printable ASCII.
    #[error("the token for `{0}` is empty, shorter than 16 characters, or not printable ASCII")]
    Secret(String),
    /// Two callers would have the same name or the same token.
    #[error("`{0}` is given twice (as a name or as a token)")]
    Twice(String),
    /// The environment variable is not set.
    #[error("the environment variable `{var}` (the token for `{name}`) is not set")]
    Env {
        /// The caller.
        name: String,
        /// The variable.
        var: String,
    },
    /// The file could not be read.
    #[error("{path} (the token for `{name}`): {source}")]
    File {
        /// The caller.
        name: String,
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BearerTokens").field(&self.names().collect::<Vec<_>>()).finish()
    }
}

/// A caller's name as a log line can carry it, or why not (checked before any
/// secret is looked up, so the error is about the name).
fn caller_name(name: &str) -> Result<&str, TokenError> {
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c)) {
        return Err(TokenError::Name(name.to_owned()));
    }
    Ok(name)
}

impl BearerTokens {
    /// Also accepts `secret`, standing for the caller `name`.
    pub fn with(self, name: &str, secret: &str) -> Result<BearerTokens, TokenError> {
        let name = caller_name(name)?;
        let secret = secret.trim();
        // RFC 6750's token68 is printable ASCII without spaces.
        if secret.len() < 16 || !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(TokenError::Secret(name.to_owned()));
        }
        if self.tokens.iter().any(|(n, s)| n == name || bool::from(s.as_slice().ct_eq(secret.as_bytes()))) {
            return Err(TokenError::Twice(name.to_owned()));
        }
        let mut tokens = Vec::clone(&self.tokens);
        tokens.push((name.to_owned(), secret.as_bytes().to_vec()));
        Ok(BearerTokens { tokens: Arc::new(tokens) })
    }

    /// The token for `name` from the environment variable `var`.
    pub fn with_env(self, name: &str, var: &str) -> Result<BearerTokens, TokenError> {
        caller_name(name)?;
        let secret = std::env::var(var).map_err(|_| TokenError::Env { name: name.to_owned(), var: var.to_owned() })?;
        self.with(name, &secret)
    }

    /// The token for `name` from a file (its first line).
    pub fn with_file(self, name: &str, path: &Path) -> Result<BearerTokens, TokenError> {
        caller_name(name)?;
        let text = std::fs::read_to_string(path).map_err(|source| TokenError::File {
            name: name.to_owned(),
            path: path.display().to_string(),
            source,
        })?;
        self.with(name, text.lines().next().unwrap_or(""))
    }

    /// Whether no token is configured (then nothing is checked).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The callers' names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|(name, _)| name.as_str())
    }

    /// The caller a request's headers and query authenticate, or the refusal.
    pub(crate) fn check(&self, parts: &http::request::Parts) -> Result<Caller, Refusal> {
        // Every query parameter an OAuth token could travel in (RFC 6750 2.3).
        if let Some(query) = parts.uri.query()
            && query.split('&').any(|pair| pair.split('=').next() == Some("access_token"))
        {
            return Err(Refusal::QueryToken);
        }
        let Some(header) = parts.headers.get(http::header::AUTHORIZATION) else {
            return Err(Refusal::Missing);
        };
        let Some(token) = header.to_str().ok().and_then(bearer) else {
            return Err(Refusal::Malformed);
        };
        // Every token is compared, whatever matched, so the time says nothing.
        let mut found: Option<&str> = None;
        for (name, secret) in self.tokens.iter() {
            if bool::from(secret.as_slice().ct_eq(token.as_bytes())) {
                found = Some(name);
            }
        }
        found.map(|name| Caller { subject: name.to_owned(), scopes: Vec::new() }).ok_or(Refusal::Invalid)
    }
}

/// How an HTTP server knows its callers.
pub(crate) enum Authentication {
    /// Anyone who reaches it (loopback by default).
    Open,
    /// Static bearer tokens.
    Tokens(BearerTokens),
    /// OAuth access tokens.
    OAuth(Arc<crate::oauth::Verifier>),
}

/// `Bearer <token>` (scheme case-insensitive), the token.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

/// Why a request was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Missing,
    Malformed,
    Invalid,
    QueryToken,
}

impl Refusal {
    /// The status, the `WWW-Authenticate` value and the message for the client.
    pub(crate) fn answer(self) -> (http::StatusCode, &'static str, &'static str) {
        match self {
            Refusal::Missing => (
                http::StatusCode::UNAUTHORIZED,
                r#"Bearer realm="toolwright""#,
                "authentication required: send `Authorization: Bearer <token>`",
            ),
            Refusal::Malformed => (
                http::StatusCode::UNAUTHORIZED,
                r#"Bearer realm="toolwright", error="invalid_request", error_description="the Authorization header is not a bearer token""#,
                "the Authorization header is not `Bearer <token>`",
            ),
            Refusal::Invalid => (
                http::StatusCode::UNAUTHORIZED,
                r#"Bearer realm="toolwright", error="invalid_token", error_description="the token is not accepted""#,
                "the token is not accepted",
            ),
            Refusal::QueryToken => (
                http::StatusCode::BAD_REQUEST,
                r#"Bearer realm="toolwright", error="invalid_request", error_description="tokens are not taken from the query string""#,
                "a token in the query string is refused: send it in the Authorization header",
            ),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{BearerTokens, Refusal};

    /// A request's head with `uri` and an optional `Authorization` value.
    pub(crate) fn parts(uri: &str, auth: Option<&str>) -> http::request::Parts {
        let mut request = http::Request::builder().uri(uri);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn only_a_listed_bearer_token_in_the_header_names_a_caller() {
        let tokens = BearerTokens::default()
            .with("ci", "ci-secret-0123456789")
            .unwrap()
            .with("alice", "alice-secret-0123456789")
            .unwrap();
        assert_eq!(tokens.check(&parts("/mcp", Some("Bearer alice-secret-0123456789"))).unwrap().subject, "alice");
        assert_eq!(tokens.check(&parts("/mcp", Some("bearer ci-secret-0123456789"))).unwrap().subject, "ci");
        assert_eq!(tokens.check(&parts("/mcp", None)).unwrap_err(), Refusal::Missing);
        assert_eq!(tokens.check(&parts("/mcp", Some("Basic Y2k6eA=="))).unwrap_err(), Refusal::Malformed);
        assert_eq!(tokens.check(&parts("/mcp", Some("Bearer ci-secret-012345678"))).unwrap_err(), Refusal::Invalid);
        assert_eq!(
            tokens.check(&parts("/mcp?access_token=ci-secret-0123456789", None)).unwrap_err(),
            Refusal::QueryToken
        );
        assert!(BearerTokens::default().with("x", "short").is_err());
        assert!(tokens.clone().with("ci", "another-secret-0123456789").is_err(), "a name twice");
        assert!(tokens.with("bob", "ci-secret-0123456789").is_err(), "a token twice");
    }

    #[test]
    fn a_bad_caller_name_is_named_before_any_secret_is_looked_up() {
        use super::TokenError;
        let unset = "TOOLWRIGHT_TEST_SURELY_UNSET_VAR";
        for name in ["", " ", "a b", "x\ny"] {
            let env = BearerTokens::default().with_env(name, unset).unwrap_err();
            assert!(matches!(env, TokenError::Name(_)), "{name:?}: {env}");
            let file = BearerTokens::default().with_file(name, "/nonexistent".as_ref()).unwrap_err();
            assert!(matches!(file, TokenError::Name(_)), "{name:?}: {file}");
        }
    }
}
