//! The crypto provider of reqwest's rustls, which toolwright's crates build without
//! one (as rmcp's is): ring, which they link, is installed before an HTTP client is
//! made. One place for the built-ins' web tools, the agent's model clients and MCP.

/// Installs ring as the process's rustls provider, unless one is installed already.
/// Its deprecation in rustls 0.23.48 is about post-quantum key exchange; no warning
/// reaches a user's build.
pub fn install_crypto() {
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
}
