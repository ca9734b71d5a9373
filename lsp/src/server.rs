//! One configured server in one workspace folder: started on first use, started
//! again after a crash (within `maxRestarts`), and the documents it has open (at
//! most [`MAX_OPEN_DOCUMENTS`], the least recently used closed first).

use crate::config::ServerConfig;
use crate::connection::Connection;
use crate::error::LspError;
use lsp_types::notification::{DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument};
use lsp_types::{TextDocumentIdentifier, Url, VersionedTextDocumentIdentifier};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Documents a server holds open at once (Claude Code's bound).
pub const MAX_OPEN_DOCUMENTS: usize = 50;

pub(crate) struct Server {
    pub config: ServerConfig,
    pub root: PathBuf,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    connection: Option<Arc<Connection>>,
    /// Times it stopped or failed to start.
    stops: u32,
    last_reason: Option<String>,
    documents: HashMap<Url, Document>,
    tick: u64,
}

struct Document {
    version: i32,
    hash: u64,
    used: u64,
}

/// A document as the server now has it.
pub(crate) struct Synced {
    pub connection: Arc<Connection>,
    pub uri: Url,
    pub version: i32,
    /// Whether this sync sent new text.
    pub changed: bool,
}

impl Server {
    pub fn new(config: ServerConfig, root: PathBuf) -> Server {
        Server { config, root, state: tokio::sync::Mutex::default() }
    }

    /// The running connection, started (or started again) if need be.
    pub async fn connection(&self) -> Result<Arc<Connection>, LspError> {
        let mut state = self.state.lock().await;
        self.ensure(&mut state).await
    }

    /// Whether it is running now.
    pub async fn is_running(&self) -> bool {
        self.state.lock().await.connection.as_ref().is_some_and(|c| c.stopped().is_none())
    }

    async fn ensure(&self, state: &mut State) -> Result<Arc<Connection>, LspError> {
        if let Some(connection) = &state.connection {
            match connection.stopped() {
                None => return Ok(Arc::clone(connection)),
                Some(reason) => {
                    tracing::warn!(server = %self.config.name, %reason, "language server stopped");
                    state.connection = None;
                    state.documents.clear();
                    state.stops += 1;
                    state.last_reason = Some(reason);
                }
            }
        }
        if state.stops > 0 && (!self.config.restart_on_crash || state.stops > self.config.max_restarts) {
            return Err(LspError::GaveUp {
                server: self.config.name.clone(),
                times: state.stops,
                reason: state.last_reason.clone().unwrap_or_default(),
            });
        }
        match Connection::start(&self.config, &self.root).await {
            Ok(connection) => {
                let connection = Arc::new(connection);
                state.connection = Some(Arc::clone(&connection));
                Ok(connection)
            }
            Err(e) => {
                state.stops += 1;
                state.last_reason = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// Makes the server hold `text` for `path`: opened, or changed if it held other
    /// text; with `save`, a `didSave` follows (an edit written to disk).
    pub async fn sync(&self, path: &Path, text: &str, save: bool) -> Result<Synced, LspError> {
        let mut state = self.state.lock().await;
        let connection = self.ensure(&mut state).await?;
        let uri = Url::from_file_path(path)
            .map_err(|()| LspError::Position(format!("`{}` is not an absolute path", path.display())))?;
        let hash = {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut hasher);
            hasher.finish()
        };
        state.tick += 1;
        let tick = state.tick;
        let mut changed = true;
        let version = match state.documents.get_mut(&uri) {
            Some(document) if document.hash == hash => {
                document.used = tick;
                changed = false;
                document.version
            }
            Some(document) => {
                document.version += 1;
                document.hash = hash;
                document.used = tick;
                let params = lsp_types::DidChangeTextDocumentParams {
                    text_document: VersionedTextDocumentIdentifier { uri: uri.clone(), version: document.version },
                    content_changes: vec![lsp_types::TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text: text.to_owned(),
                    }],
                };
                let version = document.version;
                connection.notify::<DidChangeTextDocument>(params).await?;
                version
            }
            None => {
                if state.documents.len() >= MAX_OPEN_DOCUMENTS {
                    self.close_oldest(&mut state, &connection).await?;
                }
                let language = self.config.language_of(path).unwrap_or("plaintext").to_owned();
                let item = lsp_types::TextDocumentItem::new(uri.clone(), language, 1, text.to_owned());
                connection
                    .notify::<DidOpenTextDocument>(lsp_types::DidOpenTextDocumentParams { text_document: item })
                    .await?;
                state.documents.insert(uri.clone(), Document { version: 1, hash, used: tick });
                connection.touched();
                1
            }
        };
        if save {
            let params = lsp_types::DidSaveTextDocumentParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                text: Some(text.to_owned()),
            };
            connection.notify::<DidSaveTextDocument>(params).await?;
        }
        Ok(Synced { connection, uri, version, changed })
    }

    async fn close_oldest(&self, state: &mut State, connection: &Connection) -> Result<(), LspError> {
        let Some(oldest) = state.documents.iter().min_by_key(|(_, d)| d.used).map(|(uri, _)| uri.clone()) else {
            return Ok(());
        };
        state.documents.remove(&oldest);
        let params = lsp_types::DidCloseTextDocumentParams { text_document: TextDocumentIdentifier { uri: oldest } };
        connection.notify::<DidCloseTextDocument>(params).await
    }

    /// How many documents it holds open.
    pub async fn open_documents(&self) -> usize {
        self.state.lock().await.documents.len()
    }

    /// Stops it: `shutdown` and `exit`, killed after its `shutdownTimeout`.
    pub async fn shutdown(&self) {
        let connection = self.state.lock().await.connection.take();
        if let Some(connection) = connection {
            connection.shutdown(self.config.shutdown_timeout).await;
        }
    }
}
