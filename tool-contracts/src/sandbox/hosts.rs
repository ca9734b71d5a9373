//! The sandbox's domain lists (`network.allowedDomains`, `network.deniedDomains`):
//! a host, a `*.` wildcard for its subdomains, or an IP literal (IPv6 bracketed),
//! each with an optional `:port`. Spelled as Claude Code spells them; read into a
//! [`HostPattern`] once, when the settings load, and matched by the sandbox's proxy
//! against the host a command asks for.
//!
//! Hosts are compared in the `url` crate's normal form (lowercase, IDNA, IPv4 in
//! any of its numeric spellings read as the address), so `LOCALHOST.`, `0x7f.1` and
//! `2130706433` are each one host and only one pattern can name it.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

/// Which hosts a pattern names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hosts {
    /// This domain only.
    Domain(String),
    /// Every subdomain of this domain (`*.example.com`), not the domain itself.
    Subdomains(String),
    /// This address.
    Ip(IpAddr),
}

/// One entry of a domain list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    hosts: Hosts,
    /// `None`: every port.
    port: Option<u16>,
}

/// Why an entry of a domain list names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostPatternError {
    /// Empty, or only a port.
    #[error("names no host")]
    Empty,
    /// Not a host name, a wildcard or an IP literal.
    #[error("`{0}` is not a host name, a `*.` wildcard or an IP literal")]
    Host(String),
    /// A port that is not a number from 1 to 65535 without leading zeros.
    #[error("`{0}` is not a port (a number from 1 to 65535, no leading zeros)")]
    Port(String),
    /// A wildcard anywhere but a leading `*.`.
    #[error("a wildcard is only a leading `*.` (`*.example.com`)")]
    Wildcard,
}

/// Which reading of an unbracketed entry with two or more colons a list takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    /// An allow list never allows more than was written: the address-and-port
    /// reading where it parses.
    Allow,
    /// A deny list denies every reading.
    Deny,
}

impl HostPattern {
    /// Reads one entry. An unbracketed entry with two or more colons may read two
    /// ways (`::1:443`); `kind` says which readings the list keeps (all of them are
    /// returned), and `ambiguous` is set so the caller can warn.
    pub fn parse(entry: &str, kind: ListKind) -> Result<Parsed, HostPatternError> {
        let entry = entry.trim();
        if let Some(rest) = entry.strip_prefix('[') {
            let (address, after) = rest.split_once(']').ok_or_else(|| HostPatternError::Host(entry.to_owned()))?;
            let ip: Ipv6Addr = address.parse().map_err(|_| HostPatternError::Host(entry.to_owned()))?;
            let port = match after {
                "" => None,
                _ => Some(port(after.strip_prefix(':').ok_or_else(|| HostPatternError::Port(after.to_owned()))?)?),
            };
            return Ok(Parsed::one(HostPattern { hosts: Hosts::Ip(IpAddr::V6(ip)), port }));
        }
        if entry.matches(':').count() >= 2 {
            let whole =
                entry.parse::<Ipv6Addr>().ok().map(|ip| HostPattern { hosts: Hosts::Ip(ip.into()), port: None });
            let split = entry.rsplit_once(':').and_then(|(address, p)| {
                Some(HostPattern {
                    hosts: Hosts::Ip(address.parse::<Ipv6Addr>().ok()?.into()),
                    port: Some(port(p).ok()?),
                })
            });
            let patterns = match (whole, split, kind) {
                (Some(whole), Some(split), ListKind::Deny) => vec![whole, split],
                (Some(_), Some(split), ListKind::Allow) => vec![split],
                (Some(one), None, _) | (None, Some(one), _) => vec![one],
                (None, None, _) => return Err(HostPatternError::Host(entry.to_owned())),
            };
            return Ok(Parsed { patterns, ambiguous: true });
        }
        let (host, port) = match entry.rsplit_once(':') {
            Some((host, p)) => (host, Some(port(p)?)),
            None => (entry, None),
        };
        if host.is_empty() {
            return Err(HostPatternError::Empty);
        }
        let hosts = match host.strip_prefix("*.") {
            Some(domain) if !domain.contains('*') => match normal(domain)? {
                Hosts::Domain(domain) => Hosts::Subdomains(domain),
                Hosts::Ip(_) | Hosts::Subdomains(_) => return Err(HostPatternError::Wildcard),
            },
            _ if host.contains('*') => return Err(HostPatternError::Wildcard),
            _ => normal(host)?,
        };
        Ok(Parsed::one(HostPattern { hosts, port }))
    }

    /// Whether a request for `host` (as a client wrote it, an IPv6 literal with or
    /// without brackets) on `port` is one this pattern names.
    pub fn matches(&self, host: &RequestedHost, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        match (&self.hosts, &host.0) {
            (Hosts::Domain(want), Hosts::Domain(got)) => want == got,
            (Hosts::Subdomains(base), Hosts::Domain(got)) => {
                got.len() > base.len() + 1
                    && got.ends_with(base.as_str())
                    && got[..got.len() - base.len()].ends_with('.')
            }
            // An IPv6 address that maps an IPv4 one (`::ffff:169.254.169.254`) is that
            // address: it is where the connection goes.
            (Hosts::Ip(want), Hosts::Ip(got)) => unmapped(*want) == unmapped(*got),
            _ => false,
        }
    }
}

/// `ip`, or the IPv4 address it maps.
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.hosts {
            Hosts::Domain(domain) => f.write_str(domain)?,
            Hosts::Subdomains(domain) => write!(f, "*.{domain}")?,
            Hosts::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]")?,
            Hosts::Ip(ip) => write!(f, "{ip}")?,
        }
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

/// The patterns one entry stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// One, or for an ambiguous entry in a deny list, each reading.
    pub patterns: Vec<HostPattern>,
    /// The entry is an unbracketed IPv6 spelling that could carry a port.
    pub ambiguous: bool,
}

impl Parsed {
    fn one(pattern: HostPattern) -> Parsed {
        Parsed { patterns: vec![pattern], ambiguous: false }
    }
}

/// A host a command asked the proxy for, in normal form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestedHost(Hosts);

impl RequestedHost {
    /// Reads a host as a client sent it (`example.com`, `10.0.0.1`, `[::1]`, `::1`).
    pub fn parse(host: &str) -> Result<RequestedHost, HostPatternError> {
        let host = host.trim();
        if let Ok(ip) = host.trim_start_matches('[').trim_end_matches(']').parse::<Ipv6Addr>() {
            return Ok(RequestedHost(Hosts::Ip(IpAddr::V6(ip))));
        }
        if host.contains('*') {
            return Err(HostPatternError::Wildcard);
        }
        normal(host).map(RequestedHost)
    }

    /// The address, for an IP literal.
    pub fn ip(&self) -> Option<IpAddr> {
        match self.0 {
            Hosts::Ip(ip) => Some(ip),
            _ => None,
        }
    }
}

impl fmt::Display for RequestedHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        HostPattern { hosts: self.0.clone(), port: None }.fmt(f)
    }
}

/// A host name or IPv4 literal in normal form: lowercase, no trailing dot, only
/// the characters a DNS name has.
fn normal(host: &str) -> Result<Hosts, HostPatternError> {
    let bad = || HostPatternError::Host(host.to_owned());
    let trimmed = host.strip_suffix('.').unwrap_or(host);
    if trimmed.is_empty() || trimmed.starts_with('.') || trimmed.contains("..") {
        return Err(bad());
    }
    match url::Host::parse(trimmed).map_err(|_| bad())? {
        url::Host::Domain(domain) => {
            let plain = domain.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
            if !plain {
                return Err(bad());
            }
            Ok(Hosts::Domain(domain))
        }
        url::Host::Ipv4(ip) => Ok(Hosts::Ip(IpAddr::V4(ip))),
        url::Host::Ipv6(ip) => Ok(Hosts::Ip(IpAddr::V6(ip))),
    }
}

fn port(text: &str) -> Result<u16, HostPatternError> {
    let bad = || HostPatternError::Port(text.to_owned());
    if text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    text.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(entry: &str) -> HostPattern {
        let parsed = HostPattern::parse(entry, ListKind::Allow).unwrap();
        assert_eq!(parsed.patterns.len(), 1, "{entry}");
        parsed.patterns.into_iter().next().unwrap()
    }

    fn hit(pattern: &str, host: &str, port: u16) -> bool {
        one(pattern).matches(&RequestedHost::parse(host).unwrap(), port)
    }

    #[test]
    fn domains_wildcards_and_ports_match_as_documented() {
        assert!(hit("github.com", "github.com", 443));
        assert!(hit("github.com", "GitHub.COM.", 22));
        assert!(!hit("github.com", "api.github.com", 443));
        assert!(!hit("github.com", "github.com.evil.net", 443));
        assert!(hit("*.npmjs.org", "registry.npmjs.org", 443));
        assert!(hit("*.npmjs.org", "a.b.npmjs.org", 443));
        assert!(!hit("*.npmjs.org", "npmjs.org", 443));
        assert!(!hit("*.npmjs.org", "evilnpmjs.org", 443));
        assert!(hit("api.example.com:443", "api.example.com", 443));
        assert!(!hit("api.example.com:443", "api.example.com", 80));
    }

    #[test]
    fn addresses_match_in_every_spelling_and_only_addresses() {
        assert!(hit("127.0.0.1", "2130706433", 80));
        assert!(hit("127.0.0.1", "0x7f.1", 80));
        assert!(!hit("localhost", "127.0.0.1", 80));
        assert!(hit("[::1]", "::1", 80));
        assert!(hit("[::1]:443", "[::1]", 443));
        assert!(!hit("[::1]:443", "[::1]", 80));
        // Both ways: a mapped IPv6 spelling is the IPv4 address.
        assert!(hit("169.254.169.254", "[::ffff:169.254.169.254]", 80));
        assert!(hit("[::ffff:a9fe:a9fe]", "169.254.169.254", 80));
        assert!(!hit("127.0.0.1", "[::1]", 80));
        // A wildcard over an address names nothing.
        assert_eq!(HostPattern::parse("*.0.0.1", ListKind::Allow), Err(HostPatternError::Wildcard));
    }

    #[test]
    fn ambiguous_ipv6_spellings_never_widen_an_allow_list() {
        let allow = HostPattern::parse("2001:db8::1:443", ListKind::Allow).unwrap();
        assert!(allow.ambiguous);
        assert_eq!(allow.patterns.len(), 1);
        assert_eq!(allow.patterns[0].to_string(), "[2001:db8::1]:443");
        let deny = HostPattern::parse("2001:db8::1:443", ListKind::Deny).unwrap();
        assert_eq!(deny.patterns.len(), 2);
    }

    #[test]
    fn malformed_entries_say_what_is_wrong() {
        for (entry, error) in [
            ("", HostPatternError::Empty),
            (":443", HostPatternError::Empty),
            ("example.com:0443", HostPatternError::Port("0443".into())),
            ("example.com:70000", HostPatternError::Port("70000".into())),
            ("ex*ample.com", HostPatternError::Wildcard),
            ("*", HostPatternError::Wildcard),
            ("a b.com", HostPatternError::Host("a b.com".into())),
            ("user@host.com", HostPatternError::Host("user@host.com".into())),
            ("host.com/path", HostPatternError::Host("host.com/path".into())),
        ] {
            assert_eq!(HostPattern::parse(entry, ListKind::Allow).unwrap_err(), error, "{entry:?}");
        }
    }
}
