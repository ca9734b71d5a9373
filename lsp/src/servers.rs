//! The session's language servers: which one covers a file (the first configured
//! server that claims its extension; the others never start), one running server
//! per configuration and workspace folder, and their shutdown with the session.

use crate::config::{ConfigProblem, ServerConfig};
use crate::error::LspError;
use crate::server::Server;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long one navigation request may take.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long an edit waits for the server's diagnostics of the new text.
pub const DEFAULT_DIAGNOSTICS_WAIT: Duration = Duration::from_secs(3);

/// The language servers of a session. Clones share the running servers; put one in
/// the session's extensions for the `lsp` tool and the edit tools' diagnostics.
/// Call [`shutdown`](Self::shutdown) when the session ends; dropping the last clone
/// kills what is still running.
///
/// ```
/// use toolwright_lsp::{LspServers, ServerConfig};
/// let servers = LspServers::new(vec![
///     ServerConfig::new("pyright", "pyright-langserver", [(".py", "python"), (".pyi", "python")]).with_args(["--stdio"]),
/// ]);
/// assert!(servers.covers(std::path::Path::new("src/app.py")));
/// assert!(!servers.covers(std::path::Path::new("src/app.ts")));
/// ```
#[derive(Clone, Default)]
pub struct LspServers {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    configs: Vec<ServerConfig>,
    problems: Vec<ConfigProblem>,
    running: Mutex<HashMap<(usize, PathBuf), Arc<Server>>>,
    request_timeout: Option<Duration>,
    diagnostics_wait: Option<Duration>,
}

impl std::fmt::Debug for LspServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.inner.configs.iter().map(|c| c.name.as_str()).collect();
        f.debug_struct("LspServers").field("servers", &names).finish_non_exhaustive()
    }
}

impl LspServers {
    /// The servers of `configs`, in order of precedence.
    pub fn new(configs: Vec<ServerConfig>) -> LspServers {
        LspServers { inner: Arc::new(Inner { configs, ..Inner::default() }) }
    }

    fn with(self, change: impl FnOnce(&mut Inner)) -> LspServers {
        let mut inner = Inner {
            configs: self.inner.configs.clone(),
            problems: self.inner.problems.clone(),
            running: Mutex::default(),
            request_timeout: self.inner.request_timeout,
            diagnostics_wait: self.inner.diagnostics_wait,
        };
        change(&mut inner);
        LspServers { inner: Arc::new(inner) }
    }

    /// The same servers, none of them given the environment variables `names`
    /// (the sandbox's denied credentials).
    pub fn without_env(self, names: &[String]) -> LspServers {
        self.with(|inner| {
            for config in &mut inner.configs {
                config.env_removed.extend(names.iter().cloned());
            }
        })
    }

    /// The same servers, with the problems met reading their configuration (kept
    /// for a command that lists them).
    pub fn with_problems(self, problems: Vec<ConfigProblem>) -> LspServers {
        self.with(|inner| inner.problems = problems)
    }

    /// The same servers, each request given at most `timeout`.
    pub fn with_request_timeout(self, timeout: Duration) -> LspServers {
        self.with(|inner| inner.request_timeout = Some(timeout))
    }

    /// The same servers, an edit waiting at most `wait` for diagnostics.
    pub fn with_diagnostics_wait(self, wait: Duration) -> LspServers {
        self.with(|inner| inner.diagnostics_wait = Some(wait))
    }

    /// The configured servers.
    pub fn configs(&self) -> &[ServerConfig] {
        &self.inner.configs
    }

    /// The problems met reading the configuration.
    pub fn problems(&self) -> &[ConfigProblem] {
        &self.inner.problems
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.inner.configs.is_empty()
    }

    /// The extensions the servers cover, sorted, each once.
    pub fn extensions(&self) -> Vec<String> {
        let mut extensions: Vec<String> =
            self.inner.configs.iter().flat_map(|c| c.extension_to_language.keys().cloned()).collect();
        extensions.sort();
        extensions.dedup();
        extensions
    }

    /// Whether a server covers `path`'s extension.
    pub fn covers(&self, path: &Path) -> bool {
        self.config_for(path).is_some()
    }

    pub(crate) fn request_timeout(&self) -> Duration {
        self.inner.request_timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT)
    }

    pub(crate) fn diagnostics_wait(&self) -> Duration {
        self.inner.diagnostics_wait.unwrap_or(DEFAULT_DIAGNOSTICS_WAIT)
    }

    fn config_for(&self, path: &Path) -> Option<(usize, &ServerConfig)> {
        self.inner.configs.iter().enumerate().find(|(_, c)| c.language_of(path).is_some())
    }

    /// The server for `path` in the workspace `root` (its `workspaceFolder` if it
    /// names one), not started yet.
    pub(crate) fn server_for(&self, path: &Path, root: &Path) -> Result<Arc<Server>, LspError> {
        let Some((index, config)) = self.config_for(path) else {
            return Err(LspError::NoServer { path: path.to_path_buf(), configured: self.extensions() });
        };
        let root = config.workspace_folder.clone().unwrap_or_else(|| root.to_path_buf());
        let mut running = self.inner.running.lock().unwrap_or_else(PoisonError::into_inner);
        let server =
            running.entry((index, root.clone())).or_insert_with(|| Arc::new(Server::new(config.clone(), root))).clone();
        Ok(server)
    }

    fn all(&self) -> Vec<Arc<Server>> {
        self.inner.running.lock().unwrap_or_else(PoisonError::into_inner).values().cloned().collect()
    }

    /// The servers running now: each one's name and workspace folder.
    pub async fn running(&self) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        for server in self.all() {
            if server.is_running().await {
                out.push((server.config.name.clone(), server.root.clone()));
            }
        }
        out.sort();
        out
    }

    /// How many documents the server for `path` holds open.
    pub async fn open_documents(&self, path: &Path, root: &Path) -> usize {
        match self.server_for(path, root) {
            Ok(server) => server.open_documents().await,
            Err(_) => 0,
        }
    }

    /// Stops every running server (`shutdown`, `exit`, then killed after its
    /// `shutdownTimeout`), all at once.
    pub async fn shutdown(&self) {
        let mut stops = tokio::task::JoinSet::new();
        for server in self.all() {
            stops.spawn(async move { server.shutdown().await });
        }
        while stops.join_next().await.is_some() {}
    }
}
