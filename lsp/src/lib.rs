//! toolwright's language-server client: the servers Claude Code's code-intelligence
//! plugins configure (`.lsp.json`), started on first use per workspace folder,
//! started again after a crash, stopped with the session; the `LSP` tool's nine
//! operations on them; and the new diagnostics an edit brings.
//!
//! Types come from `lsp-types`; the framing is the base protocol's, bounded
//! ([`framing`]). Each server runs in a process group of its own, tagged like a
//! shell command's processes, so nothing it starts outlives the session.
//!
//! ```no_run
//! # async fn run() -> Result<(), toolwright_lsp::LspError> {
//! use toolwright_lsp::{LspServers, Operation, Query, ServerConfig};
//! let servers = LspServers::new(vec![
//!     ServerConfig::new("pyright", "pyright-langserver", [(".py", "python")]).with_args(["--stdio"]),
//! ]);
//! let root = std::path::Path::new("/work/project");
//! let file = root.join("app.py");
//! let text = std::fs::read_to_string(&file).unwrap();
//! let show = |p: &std::path::Path| p.strip_prefix(root).ok().map(|p| p.display().to_string());
//! let query = Query::new(Operation::GoToDefinition, &file, "app.py", &text, root).at(3, 5);
//! println!("{}", servers.query(query, &show).await?);
//! servers.shutdown().await;
//! # Ok(()) }
//! ```

pub mod config;
mod connection;
mod diagnostics;
mod error;
pub mod framing;
mod ops;
mod position;
mod render;
mod server;
mod servers;

pub use config::{ConfigProblem, ServerConfig};
pub use error::LspError;
pub use ops::{Operation, Query};
pub use render::ShowPath;
pub use server::MAX_OPEN_DOCUMENTS;
pub use servers::{DEFAULT_DIAGNOSTICS_WAIT, DEFAULT_REQUEST_TIMEOUT, LspServers};
