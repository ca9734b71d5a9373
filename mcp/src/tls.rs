//! TLS for the HTTP endpoint (rustls with ring, the provider the client side
//! already uses): a certificate chain and its key from PEM files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A server certificate and key, ready to accept TLS connections.
#[derive(Clone)]
pub struct TlsConfig {
    config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsConfig { .. }")
    }
}

/// A certificate or key that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// The file holds no PEM certificate.
    #[error("{0}: no PEM certificate (`-----BEGIN CERTIFICATE-----`) in it")]
    NoCertificate(PathBuf),
    /// The file holds no usable PEM private key.
    #[error("{path}: no PEM private key (PKCS#8, PKCS#1 or SEC1) in it: {why}")]
    Key {
        /// The key file.
        path: PathBuf,
        /// What the reader said.
        why: String,
    },
    /// A file could not be read.
    #[error("{path}: {why}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the reader said.
        why: String,
    },
    /// rustls refused the pair (the key does not match the certificate, or an
    /// unsupported key type).
    #[error("the certificate and key cannot be used together: {0}")]
    Mismatch(String),
}

impl TlsConfig {
    /// The certificate chain in `cert` (leaf first) and the private key in `key`,
    /// both PEM. Only HTTP/1.1 is offered by ALPN.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsConfig, TlsError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let read =
            |path: &Path| std::fs::read(path).map_err(|e| TlsError::Read { path: path.to_owned(), why: e.to_string() });
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&read(cert)?)
            .collect::<Result<_, _>>()
            .map_err(|e| TlsError::Read { path: cert.to_owned(), why: e.to_string() })?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate(cert.to_owned()));
        }
        let key_der = PrivateKeyDer::from_pem_slice(&read(key)?)
            .map_err(|e| TlsError::Key { path: key.to_owned(), why: e.to_string() })?;
        // ring's provider is deprecated in rustls 0.23.48 (no post-quantum key
        // exchange); it is the one this build has, and no warning reaches users.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Mismatch(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(chain, key_der)
            .map_err(|e| TlsError::Mismatch(e.to_string()))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsConfig { config: Arc::new(config) })
    }

    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(Arc::clone(&self.config))
    }
}
