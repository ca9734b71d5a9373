//! The crypto provider of the HTTP tools' TLS: reqwest's rustls is built without one
//! (as rmcp's is), and ring, which this build links, is installed before a client is
//! made. Its deprecation in rustls 0.23.48 is about post-quantum key exchange; no
//! warning reaches a user's build.

/// Installs ring as the process's rustls provider, unless one is installed already.
pub(crate) fn install_crypto() {
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
}
