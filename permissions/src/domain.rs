//! Domain patterns of `WebFetch(domain:...)` rules, matched against the host of the
//! URL the fetch will request (as the `url` parser gives it: lower-case, IDNA
//! encoded). Claude Code's documented forms:
//!
//! - `example.com`: that host only;
//! - `*.example.com`: any subdomain at any depth, not the host itself;
//! - `*`: every host (the same as a bare `WebFetch`);
//! - elsewhere `*` matches one label: `example.*` matches `example.org`, not
//!   `example.evil.com`.
//!
//! Case does not matter, and a trailing `.` is dropped from both sides.

/// A compiled domain pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    /// As written.
    pub raw: String,
    /// `*.`: one or more labels before the rest.
    subdomains: bool,
    /// The labels after a leading `*.`, each literal or `*` (one label).
    labels: Vec<Label>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Label {
    Any,
    Literal(String),
}

impl DomainPattern {
    /// Compiles the text after `domain:`. The error says what is wrong.
    pub fn new(raw: &str) -> Result<DomainPattern, String> {
        let text = raw.trim().trim_end_matches('.').to_ascii_lowercase();
        if text.is_empty() {
            return Err("the domain is empty".into());
        }
        if text == "*" {
            return Ok(DomainPattern { raw: raw.trim().to_owned(), subdomains: false, labels: Vec::new() });
        }
        let (subdomains, rest) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        let mut labels = Vec::new();
        for label in rest.split('.') {
            if label == "*" {
                labels.push(Label::Any);
                continue;
            }
            if label.is_empty() || label.contains('*') {
                return Err(format!(
                    "`{raw}` is not a domain pattern: `*` stands for a whole label (`*.example.com`, `example.*`)"
                ));
            }
            if label.contains(['/', ':', '@', ' ', '\\', '?', '#']) {
                return Err(format!("`{raw}` is not a domain: `{label}` is not a host name label"));
            }
            labels.push(Label::Literal(normalise_label(label)?));
        }
        Ok(DomainPattern { raw: raw.trim().to_owned(), subdomains, labels })
    }

    /// Whether `host` (as the URL parser gives it) matches. An IPv6 address that maps
    /// an IPv4 one (`[::ffff:127.0.0.1]`, which reaches `127.0.0.1`) matches as that
    /// address too.
    pub fn matches(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(v6) = host.parse::<std::net::Ipv6Addr>()
            && let Some(v4) = v6.to_ipv4_mapped()
            && self.matches_name(&v4.to_string())
        {
            return true;
        }
        self.matches_name(host)
    }

    fn matches_name(&self, host: &str) -> bool {
        if self.labels.is_empty() && !self.subdomains {
            return true;
        }
        let parts: Vec<&str> = host.split('.').collect();
        let fits = |labels: &[&str]| {
            labels.len() == self.labels.len()
                && labels.iter().zip(&self.labels).all(|(part, label)| match label {
                    Label::Any => !part.is_empty(),
                    Label::Literal(literal) => part == literal,
                })
        };
        if self.subdomains {
            // At least one label before the rest.
            parts.len() > self.labels.len()
                && parts[..parts.len() - self.labels.len()].iter().all(|p| !p.is_empty())
                && fits(&parts[parts.len() - self.labels.len()..])
        } else {
            fits(&parts)
        }
    }
}

/// A label as the URL parser writes it: IDNA (punycode) for non-ASCII.
fn normalise_label(label: &str) -> Result<String, String> {
    if label.is_ascii() {
        return Ok(label.to_owned());
    }
    match url::Host::parse(label) {
        Ok(url::Host::Domain(domain)) => Ok(domain),
        _ => Err(format!("`{label}` is not a valid host name label")),
    }
}

#[cfg(test)]
mod tests {
    use super::DomainPattern;

    fn m(pattern: &str, host: &str) -> bool {
        DomainPattern::new(pattern).unwrap().matches(host)
    }

    #[test]
    fn documented_forms() {
        assert!(
            m("example.com", "example.com") && m("Example.COM.", "example.com.") && !m("example.com", "a.example.com")
        );
        assert!(m("*.example.com", "api.example.com") && m("*.example.com", "a.b.example.com"));
        assert!(!m("*.example.com", "example.com") && !m("*.example.com", "evilexample.com"));
        assert!(m("*", "anything.at.all") && m("*", "127.0.0.1"));
        assert!(m("example.*", "example.org") && !m("example.*", "example.evil.com") && !m("example.*", "example"));
        assert!(m("api.*.example.com", "api.eu.example.com") && !m("api.*.example.com", "api.a.b.example.com"));
        assert!(m("bücher.de", "xn--bcher-kva.de"));
        assert!(DomainPattern::new("exa*mple.com").is_err() && DomainPattern::new("a..b").is_err());
        assert!(DomainPattern::new("example.com/path").is_err());
        // The IPv4 address an IPv6 one maps is the address it reaches.
        assert!(m("127.0.0.1", "[::ffff:7f00:1]") && m("127.0.0.1", "::ffff:127.0.0.1"));
        assert!(!m("127.0.0.1", "[::1]") && !m("127.0.0.2", "[::ffff:7f00:1]"));
    }
}
