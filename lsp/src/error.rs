//! What can go wrong between a request and a language server's answer. Each
//! message names the server, and the program or method at fault.

use std::path::PathBuf;

/// A language server request that failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LspError {
    /// No configured server covers the file's extension.
    #[error("no language server is configured for `{}` files ({})", extension_of(.path), listed(.configured))]
    NoServer {
        /// The file.
        path: PathBuf,
        /// The extensions the configured servers cover.
        configured: Vec<String>,
    },
    /// The server's program is not installed.
    #[error("the language server `{server}` could not start: `{command}` is not installed or not on PATH")]
    NotInstalled {
        /// The server's name.
        server: String,
        /// Its program.
        command: String,
    },
    /// The server could not be started or initialised.
    #[error("the language server `{server}` could not start: {reason}")]
    Start {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// The server stopped (crashed, or broke the protocol) while a request waited.
    #[error("the language server `{server}` stopped: {reason}; it is started again on the next request")]
    Crashed {
        /// The server's name.
        server: String,
        /// Why, with the end of what it wrote to stderr.
        reason: String,
    },
    /// The server crashed as often as its `maxRestarts` allows.
    #[error("the language server `{server}` stopped {times} times and is not started again this session: {reason}")]
    GaveUp {
        /// The server's name.
        server: String,
        /// How many times it stopped.
        times: u32,
        /// Why it last stopped.
        reason: String,
    },
    /// The server did not answer in time.
    #[error("the language server `{server}` did not answer `{method}` within {seconds} s")]
    Timeout {
        /// The server's name.
        server: String,
        /// The request.
        method: String,
        /// The time it had.
        seconds: u64,
    },
    /// The server answered with an error.
    #[error("the language server `{server}` could not answer `{method}`: {message}")]
    Refused {
        /// The server's name.
        server: String,
        /// The request.
        method: String,
        /// Its message.
        message: String,
    },
    /// The server's answer is not what LSP says it is.
    #[error("the language server `{server}` answered `{method}` with something that is not LSP: {detail}")]
    BadReply {
        /// The server's name.
        server: String,
        /// The request.
        method: String,
        /// What did not parse.
        detail: String,
    },
    /// The server does not offer the operation.
    #[error("the language server `{server}` does not support {what}")]
    Unsupported {
        /// The server's name.
        server: String,
        /// The operation.
        what: String,
    },
    /// A position outside the file.
    #[error("{0}")]
    Position(String),
}

fn extension_of(path: &std::path::Path) -> String {
    match path.extension() {
        Some(ext) => format!(".{}", ext.to_string_lossy()),
        None => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    }
}

fn listed(extensions: &[String]) -> String {
    if extensions.is_empty() {
        "none is configured: add a code-intelligence plugin with an .lsp.json, or `lspServers` in the settings"
            .to_owned()
    } else {
        format!("the servers cover {}", extensions.join(", "))
    }
}
