//! Who may reach the streamable HTTP endpoint: the `Host` names it answers to and
//! the browser origins it accepts. The MCP transport requires servers to validate
//! `Origin` (DNS rebinding: a web page whose name resolves to 127.0.0.1 must not
//! drive a local server). The HTTP front checks both before anything else (a
//! forbidden origin is `403` whether or not it brings a token) and rmcp checks
//! again; a page of an accepted origin gets the CORS headers a browser needs.

use std::fmt;

/// The hosts and origins an HTTP server accepts. The default answers to loopback
/// names only, from no browser page but one served from a loopback origin (any
/// port); a request with another `Host` or a present, unlisted `Origin` gets `403`.
///
/// ```
/// use toolwright_mcp::HttpAccess;
///
/// let access = HttpAccess::default()
///     .allow_host("tools.internal:8443").unwrap()
///     .allow_origin("https://app.example.com").unwrap();
/// assert!(access.hosts().contains(&"tools.internal:8443".to_owned()));
/// assert!(access.origins().contains(&"https://app.example.com:443".to_owned()));
/// assert!(HttpAccess::default().allow_origin("https://app.example.com/path").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAccess {
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// Loopback names, as `Host` carries them (rmcp compares without the port unless one
/// is given, and without IPv6 brackets).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "https://localhost:*",
    "http://127.0.0.1:*",
    "https://127.0.0.1:*",
    "http://[::1]:*",
    "https://[::1]:*",
];

impl Default for HttpAccess {
    fn default() -> Self {
        HttpAccess {
            hosts: LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
            origins: LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect(),
        }
    }
}

/// A host or origin that cannot be matched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HttpAccessError {
    /// Not a host name or `host:port` (empty, a scheme, a path, a space).
    #[error(
        "`{0}` is not a host: give a name or address, with `:port` if only that port (`tools.internal`, `10.0.0.5:8443`)"
    )]
    Host(String),
    /// Not an origin (`scheme://host[:port]`, no path).
    #[error(
        "`{0}` is not an origin: give `http://` or `https://`, a host, and `:port` or `:*` if not the scheme's default, with no path (`https://app.example.com`)"
    )]
    Origin(String),
}

impl HttpAccess {
    /// Also answers to `host` (a name or address, `host:port` for one port only).
    pub fn allow_host(mut self, host: &str) -> Result<HttpAccess, HttpAccessError> {
        let host = host.trim();
        match http::uri::Authority::try_from(host) {
            Ok(authority) if !host.contains('@') && !authority.host().is_empty() => {
                push_once(&mut self.hosts, host.to_ascii_lowercase());
                Ok(self)
            }
            _ => Err(HttpAccessError::Host(host.to_owned())),
        }
    }

    /// Also accepts requests from pages of `origin` (`https://app.example.com`,
    /// `http://localhost:5173`, `http://intranet:*` for any port).
    pub fn allow_origin(mut self, origin: &str) -> Result<HttpAccess, HttpAccessError> {
        let origin = origin.trim().trim_end_matches('/');
        // `:*` (any port) is not URI syntax: checked as a port of its own.
        let checked = origin.strip_suffix(":*").map_or_else(|| origin.to_owned(), |o| format!("{o}:1"));
        let valid = http::Uri::try_from(checked.as_str()).is_ok_and(|uri| {
            matches!(uri.scheme_str(), Some("http" | "https"))
                && uri.authority().is_some_and(|a| {
                    let after_host = a.as_str().rsplit_once(']').map_or(a.as_str(), |(_, rest)| rest);
                    !a.host().is_empty()
                        && !a.as_str().contains('@')
                        && (!after_host.contains(':') || a.port_u16().is_some())
                })
                && uri.path_and_query().is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/")
                && !checked.ends_with('/')
        });
        if !valid {
            return Err(HttpAccessError::Origin(origin.to_owned()));
        }
        // An origin without a port is the scheme's default port (RFC 6454), not any
        // port: written out, so `https://app` does not also admit `https://app:8443`.
        let has_port = origin.ends_with(":*")
            || http::Uri::try_from(origin).ok().and_then(|u| u.authority().and_then(|a| a.port_u16())).is_some();
        let origin = if has_port {
            origin.to_ascii_lowercase()
        } else {
            let port = if origin.starts_with("https://") { 443 } else { 80 };
            format!("{}:{port}", origin.to_ascii_lowercase())
        };
        push_once(&mut self.origins, origin);
        Ok(self)
    }

    /// Answers to any `Host` (behind a proxy that checks it). Not for a server a
    /// browser on the same machine can reach by name.
    pub fn any_host(mut self) -> HttpAccess {
        self.hosts.clear();
        self
    }

    /// The `Host` values answered to.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The origins accepted.
    pub fn origins(&self) -> &[String] {
        &self.origins
    }
}

impl fmt::Display for HttpAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hosts = if self.hosts.is_empty() { "any".to_owned() } else { self.hosts.join(", ") };
        write!(f, "hosts {hosts}; origins {}", self.origins.join(", "))
    }
}

/// Why a request's `Host` or `Origin` is refused: the status (`400` for a `Host`
/// that cannot be read, else `403`) and what to tell the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) status: http::StatusCode,
    pub(crate) message: String,
}

impl HttpAccess {
    /// Checks a request's `Host` and `Origin`: the accepted origin, if one was sent
    /// (to answer with CORS headers), or why the request is refused.
    pub(crate) fn check(&self, uri: &http::Uri, headers: &http::HeaderMap) -> Result<Option<String>, Refused> {
        let refuse = |status, message: &str| Err(Refused { status, message: message.to_owned() });
        let host = match headers.get(http::header::HOST) {
            Some(value) => value.to_str().ok().and_then(|v| authority(v.trim())),
            None => uri.authority().and_then(|a| authority(a.as_str())),
        };
        let Some((name, port)) = host else {
            return refuse(http::StatusCode::BAD_REQUEST, "Bad Request: missing or invalid Host header");
        };
        let host_ok = self.hosts.is_empty()
            || self
                .hosts
                .iter()
                .filter_map(|entry| authority(entry))
                .any(|(h, p)| h == name && p.is_none_or(|p| Some(p) == port));
        if !host_ok {
            return refuse(
                http::StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed; this server answers to other names only when told (serve --allow-host adds one)",
            );
        }
        let Some(origin) = headers.get(http::header::ORIGIN) else { return Ok(None) };
        let origin = origin.to_str().unwrap_or_default().trim();
        let accepted = origin_parts(origin).is_some_and(|(scheme, host, port)| {
            self.origins.iter().any(|entry| {
                let (base, any_port) = entry.strip_suffix(":*").map_or((entry.as_str(), false), |b| (b, true));
                origin_parts(base).is_some_and(|(s, h, p)| s == scheme && h == host && (any_port || p == port))
            })
        });
        if !accepted {
            return refuse(
                http::StatusCode::FORBIDDEN,
                "Forbidden: Origin header is not allowed; a browser page of another origin may not call this server (serve --allow-origin adds one)",
            );
        }
        Ok(Some(origin.to_owned()))
    }
}

/// A `host[:port]`: the host lowercase without IPv6 brackets, and the port if given
/// (a bare IPv6 address, as the loopback list has `::1`, is a host alone).
fn authority(value: &str) -> Option<(String, Option<u16>)> {
    let bare = |h: &str| h.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    match http::uri::Authority::try_from(value) {
        Ok(a) if !value.contains('@') && !a.host().is_empty() => Some((bare(a.host()), a.port_u16())),
        _ if value.contains(':') && value.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') => {
            Some((bare(value), None))
        }
        _ => None,
    }
}

/// An origin's scheme, host (lowercase, no IPv6 brackets) and port (the scheme's
/// default when none is written, RFC 6454); `None` for `null` or anything else.
fn origin_parts(value: &str) -> Option<(String, String, u16)> {
    let uri = http::Uri::try_from(value).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    if authority.as_str().contains('@') || uri.path_and_query().is_some_and(|p| !matches!(p.as_str(), "" | "/")) {
        return None;
    }
    let default = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    Some((scheme, host, authority.port_u16().unwrap_or(default)))
}

fn push_once(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}

#[cfg(test)]
mod tests {
    use super::{HttpAccess, HttpAccessError};

    #[test]
    fn hosts_and_origins_are_checked_when_given() {
        let access = HttpAccess::default().allow_host("Tools.Internal").unwrap().allow_host("[::2]:8443").unwrap();
        assert!(access.hosts().contains(&"tools.internal".to_owned()));
        assert!(access.hosts().contains(&"[::2]:8443".to_owned()));
        for bad in ["", "http://x", "x/y", "a b", "user@x"] {
            assert_eq!(
                HttpAccess::default().allow_host(bad),
                Err(HttpAccessError::Host(bad.trim().to_owned())),
                "{bad}"
            );
        }
        for good in
            ["https://app.example.com", "http://localhost:5173", "http://intranet:*", "https://app.example.com/"]
        {
            assert!(HttpAccess::default().allow_origin(good).is_ok(), "{good}");
        }
        for bad in ["app.example.com", "ftp://x", "https://", "https://x/path", "https://x:port", "null"] {
            assert!(HttpAccess::default().allow_origin(bad).is_err(), "{bad}");
        }
    }

    fn check(access: &HttpAccess, host: Option<&str>, origin: Option<&str>) -> Result<Option<String>, u16> {
        let mut headers = http::HeaderMap::new();
        if let Some(host) = host {
            headers.insert(http::header::HOST, host.parse().unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(http::header::ORIGIN, origin.parse().unwrap());
        }
        access.check(&"/mcp".parse().unwrap(), &headers).map_err(|r| r.status.as_u16())
    }

    #[test]
    fn hosts_and_origins_of_a_request_are_matched_as_listed() {
        let default = HttpAccess::default();
        for host in ["localhost:8080", "127.0.0.1:1", "[::1]:8080", "LOCALHOST"] {
            assert_eq!(check(&default, Some(host), None), Ok(None), "{host}");
        }
        assert_eq!(check(&default, Some("evil.example"), None), Err(403));
        assert_eq!(check(&default, Some("127.0.0.1.evil.example:80"), None), Err(403));
        assert_eq!(check(&default, None, None), Err(400));
        assert_eq!(check(&default, Some("a b"), None), Err(400));
        // Loopback pages, any port; nothing else, `null` included.
        let ok = |o: &str| Ok(Some(o.to_owned()));
        assert_eq!(check(&default, Some("localhost:1"), Some("http://localhost:5173")), ok("http://localhost:5173"));
        assert_eq!(check(&default, Some("localhost:1"), Some("http://[::1]:3000")), ok("http://[::1]:3000"));
        for origin in ["https://evil.example", "null", "http://localhost.evil.example", "file://", "garbage"] {
            assert_eq!(check(&default, Some("localhost:1"), Some(origin)), Err(403), "{origin}");
        }
        // A listed origin without a port is its scheme's default port only.
        let app = HttpAccess::default().allow_origin("https://App.example.com").unwrap();
        assert!(check(&app, Some("localhost"), Some("https://app.example.com")).is_ok());
        assert!(check(&app, Some("localhost"), Some("https://app.example.com:443")).is_ok());
        assert_eq!(check(&app, Some("localhost"), Some("https://app.example.com:8443")), Err(403));
        assert_eq!(check(&app, Some("localhost"), Some("http://app.example.com")), Err(403));
        // A host with a port is that port only; any host when the list is cleared.
        let one = HttpAccess::default().allow_host("tools.internal:8443").unwrap();
        assert!(check(&one, Some("tools.internal:8443"), None).is_ok());
        assert_eq!(check(&one, Some("tools.internal:9000"), None), Err(403));
        assert!(check(&HttpAccess::default().any_host(), Some("anything.example"), None).is_ok());
    }
}
