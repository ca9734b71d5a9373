//! How `serve --http` meets the network: TLS from a certificate and key, or plain
//! HTTP behind a proxy that terminates TLS (said explicitly), and the limits on
//! connections and slow clients.

use std::net::SocketAddr;
use std::path::PathBuf;
use toolwright::mcp::TlsConfig;

#[derive(clap::Args)]
pub struct NetworkArgs {
    /// With --http: serve HTTPS with this certificate chain (PEM, leaf first).
    #[arg(long, value_name = "FILE", requires_all = ["http", "tls_key"])]
    tls_cert: Option<PathBuf>,
    /// With --tls-cert: the certificate's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// With --http: plain HTTP on an address other than loopback, for a reverse
    /// proxy that terminates TLS in front (give --resource-url, the address
    /// clients use). Forwarded headers are not trusted for any decision.
    #[arg(long, requires = "http", conflicts_with = "tls_cert")]
    behind_proxy: bool,
    /// With --http: the most connections open at once; one more gets 503 and is
    /// closed.
    #[arg(long, value_name = "N", default_value_t = 256, requires = "http")]
    max_connections: usize,
    /// With --http: the seconds a request's headers (then its body, then a TLS
    /// handshake) may take to arrive; a slower client is cut off (408 for a body).
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "http")]
    read_timeout: u64,
}

impl NetworkArgs {
    /// The TLS configuration, if any, after checking that plain HTTP off loopback
    /// was asked for.
    pub fn tls(&self, bound: SocketAddr) -> Result<Option<TlsConfig>, String> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => {
                TlsConfig::from_pem_files(cert, key).map(Some).map_err(|e| format!("--tls-cert: {e}"))
            }
            _ if bound.ip().is_loopback() || self.behind_proxy => Ok(None),
            _ => Err(format!(
                "--http {bound}: plain HTTP off loopback would carry tokens and tool results in the clear; give \
                 --tls-cert and --tls-key, or --behind-proxy when a proxy in front terminates TLS"
            )),
        }
    }

    /// The scheme clients reach this server with.
    pub fn scheme(&self) -> &'static str {
        if self.tls_cert.is_some() || self.behind_proxy { "https" } else { "http" }
    }

    pub fn limits(&self, limits: toolwright::mcp::HttpLimits) -> Result<toolwright::mcp::HttpLimits, String> {
        if self.max_connections == 0 {
            return Err("--max-connections: must be at least 1".into());
        }
        if self.read_timeout == 0 {
            return Err("--read-timeout: must be at least 1".into());
        }
        Ok(limits.max_connections(self.max_connections).read_timeout(std::time::Duration::from_secs(self.read_timeout)))
    }
}
