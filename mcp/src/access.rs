//! Who may reach the streamable HTTP endpoint: the `Host` names it answers to and
//! the browser origins it accepts. The MCP transport requires servers to validate
//! `Origin` (DNS rebinding: a web page whose name resolves to 127.0.0.1 must not
//! drive a local server); rmcp does the matching, this is its configuration.

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
}
