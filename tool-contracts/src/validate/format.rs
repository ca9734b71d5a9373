//! The `format` keyword: the string formats checked, and the integer formats
//! `schemars` writes for Rust's integer types.

/// A string format that is checked. Formats not listed here are annotations only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Email,
    Uri,
    DateTime,
    Date,
    Time,
    Ipv4,
    Ipv6,
    Uuid,
    Hostname,
}

impl Format {
    pub(crate) fn of_name(name: &str) -> Option<Format> {
        Some(match name {
            "email" | "idn-email" => Format::Email,
            "uri" | "iri" => Format::Uri,
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uuid" => Format::Uuid,
            "hostname" | "idn-hostname" => Format::Hostname,
            _ => return None,
        })
    }

    /// How a message names it.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Format::Email => "an email address",
            Format::Uri => "an absolute URI (`https://example.com/a`)",
            Format::DateTime => "a date and time in RFC 3339 (`2026-01-31T12:00:00Z`)",
            Format::Date => "a date (`2026-01-31`)",
            Format::Time => "a time of day in RFC 3339 (`12:00:00Z`)",
            Format::Ipv4 => "an IPv4 address",
            Format::Ipv6 => "an IPv6 address",
            Format::Uuid => "a UUID",
            Format::Hostname => "a host name",
        }
    }

    pub(crate) fn accepts(self, s: &str) -> bool {
        match self {
            Format::Email => email(s),
            // The WHATWG parser the fetch tools use; an absolute URI has a scheme.
            Format::Uri => url::Url::parse(s).is_ok(),
            Format::DateTime => {
                s.split_once(['T', 't', ' ']).is_some_and(|(date_part, time_part)| date(date_part) && time(time_part))
            }
            Format::Date => date(s),
            Format::Time => time(s),
            Format::Ipv4 => s.parse::<std::net::Ipv4Addr>().is_ok(),
            Format::Ipv6 => s.parse::<std::net::Ipv6Addr>().is_ok(),
            Format::Uuid => uuid(s),
            Format::Hostname => hostname(s),
        }
    }
}

/// The range of an integer `format` (`uint8` is 0 to 255).
pub fn integer_range(name: &str) -> Option<(f64, f64)> {
    Some(match name {
        "int8" => (i8::MIN as f64, i8::MAX as f64),
        "int16" => (i16::MIN as f64, i16::MAX as f64),
        "int32" => (i32::MIN as f64, i32::MAX as f64),
        "int64" | "int" => (i64::MIN as f64, i64::MAX as f64),
        "uint8" => (0.0, u8::MAX as f64),
        "uint16" => (0.0, u16::MAX as f64),
        "uint32" => (0.0, u32::MAX as f64),
        "uint64" | "uint" => (0.0, u64::MAX as f64),
        _ => return None,
    })
}

/// `local@domain`: a dot-atom local part (or a quoted one) and a host name.
fn email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else { return false };
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        true
    } else {
        !local.is_empty()
            && local.len() <= 64
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local.chars().all(|c| {
                c.is_ascii_alphanumeric()
                    || matches!(c, '!' | '#' | '$' | '%' | '&' | '\'' | '*' | '+' | '/' | '=' | '?' | '^' | '_' | '`')
                    || matches!(c, '{' | '|' | '}' | '~' | '.' | '-')
                    || (!c.is_ascii() && c.is_alphanumeric())
            })
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => {
            literal.parse::<std::net::Ipv4Addr>().is_ok()
                || literal.strip_prefix("IPv6:").is_some_and(|v6| v6.parse::<std::net::Ipv6Addr>().is_ok())
        }
        None => hostname(domain) && domain.contains('.'),
    };
    local_ok && domain_ok
}

/// RFC 1123 host name: dot-separated labels of letters, digits and hyphens.
fn hostname(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || (!c.is_ascii() && c.is_alphanumeric()))
        })
}

/// `YYYY-MM-DD`, a real day of a real month.
fn date(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[range];
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else { return false };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `HH:MM:SS[.frac](Z|±HH:MM)`.
fn time(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() < 9 || bytes[2] != b':' || bytes[5] != b':' {
        return false;
    }
    let two = |at: usize, max: u32| {
        s.get(at..at + 2)
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u32>().is_ok_and(|n| n <= max))
    };
    // (60: a leap second.)
    if !(two(0, 23) && two(3, 59) && two(6, 60)) {
        return false;
    }
    let mut rest = &s[8..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &fraction[digits..];
    }
    match rest {
        "Z" | "z" => true,
        offset => {
            let b = offset.as_bytes();
            b.len() == 6 && matches!(b[0], b'+' | b'-') && b[3] == b':' && {
                let hours = &offset[1..3];
                let minutes = &offset[4..6];
                hours.bytes().all(|c| c.is_ascii_digit())
                    && minutes.bytes().all(|c| c.is_ascii_digit())
                    && hours.parse::<u32>().is_ok_and(|h| h <= 23)
                    && minutes.parse::<u32>().is_ok_and(|m| m <= 59)
            }
        }
    }
}

/// `8-4-4-4-12` hex digits.
fn uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn formats_accept_what_their_rfcs_do() {
        let cases = [
            (Format::Email, "a.b+c@example.com", true),
            (Format::Email, "not-an-email", false),
            (Format::Email, "a@b", false),
            (Format::Email, "a..b@example.com", false),
            (Format::Uri, "https://example.com/a?b#c", true),
            (Format::Uri, "example.com", false),
            (Format::DateTime, "2026-02-28T23:59:60.5+01:00", true),
            (Format::DateTime, "2026-02-29T00:00:00Z", false),
            (Format::Date, "2024-02-29", true),
            (Format::Date, "2024-13-01", false),
            (Format::Time, "12:00:00Z", true),
            (Format::Time, "24:00:00Z", false),
            (Format::Ipv4, "127.0.0.1", true),
            (Format::Ipv4, "256.0.0.1", false),
            (Format::Ipv6, "::1", true),
            (Format::Uuid, "123e4567-e89b-12d3-a456-426614174000", true),
            (Format::Uuid, "123e4567e89b12d3a456426614174000", false),
            (Format::Hostname, "api.example.com", true),
            (Format::Hostname, "-bad.example.com", false),
        ];
        for (format, text, expected) in cases {
            assert_eq!(format.accepts(text), expected, "{format:?} {text}");
        }
    }
}
