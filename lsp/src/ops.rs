//! The `LSP` tool's nine operations: each one's request, from a file and a 1-based
//! position, and its answer as text.

use crate::error::LspError;
use crate::position::to_lsp;
use crate::render::{Render, ShowPath, hover};
use crate::servers::LspServers;
use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare, DocumentSymbolRequest,
    GotoDefinition, GotoImplementation, HoverRequest, References, WorkspaceSymbolRequest,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyItem, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    DocumentSymbolParams, GotoDefinitionParams, HoverParams, PartialResultParams, ReferenceContext, ReferenceParams,
    TextDocumentIdentifier, TextDocumentPositionParams, WorkDoneProgressParams, WorkspaceSymbolParams,
};
use std::path::Path;
use std::time::Duration;

/// After a document is opened or changed, the silence that tells a server has not
/// begun work on it (its messages and `$/progress` reset the wait).
const QUIET_GRACE: Duration = Duration::from_millis(300);
/// The same for the first request of a server, which loads its project then
/// (typescript-language-server asks for its settings, then begins loading ~300 ms later).
const FIRST_QUIET_GRACE: Duration = Duration::from_millis(1000);

/// An operation of the `LSP` tool (Claude Code's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// Where the symbol at the position is defined.
    GoToDefinition,
    /// Every reference to it.
    FindReferences,
    /// Its documentation and type.
    Hover,
    /// The symbols of the file.
    DocumentSymbol,
    /// Symbols across the workspace matching `query`.
    WorkspaceSymbol,
    /// The implementations of an interface or abstract method.
    GoToImplementation,
    /// The call hierarchy item at the position.
    PrepareCallHierarchy,
    /// Who calls the function at the position.
    IncomingCalls,
    /// What the function at the position calls.
    OutgoingCalls,
}

impl Operation {
    /// Every operation.
    pub const ALL: [Operation; 9] = [
        Operation::GoToDefinition,
        Operation::FindReferences,
        Operation::Hover,
        Operation::DocumentSymbol,
        Operation::WorkspaceSymbol,
        Operation::GoToImplementation,
        Operation::PrepareCallHierarchy,
        Operation::IncomingCalls,
        Operation::OutgoingCalls,
    ];

    /// Its name in the tool's input (`goToDefinition`).
    pub fn name(self) -> &'static str {
        match self {
            Operation::GoToDefinition => "goToDefinition",
            Operation::FindReferences => "findReferences",
            Operation::Hover => "hover",
            Operation::DocumentSymbol => "documentSymbol",
            Operation::WorkspaceSymbol => "workspaceSymbol",
            Operation::GoToImplementation => "goToImplementation",
            Operation::PrepareCallHierarchy => "prepareCallHierarchy",
            Operation::IncomingCalls => "incomingCalls",
            Operation::OutgoingCalls => "outgoingCalls",
        }
    }

    /// Whether it works at a position (all but the two symbol listings).
    pub fn needs_position(self) -> bool {
        !matches!(self, Operation::DocumentSymbol | Operation::WorkspaceSymbol)
    }
}

/// One request of the tool.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Query<'a> {
    /// The operation.
    pub operation: Operation,
    /// The file, absolute.
    pub file: &'a Path,
    /// The file as the model sees it, for messages.
    pub display: &'a str,
    /// Its text now.
    pub text: &'a str,
    /// The session's workspace root (a server's folder unless it names one).
    pub root: &'a Path,
    /// 1-based line and character, for the operations at a position.
    pub position: Option<(u32, u32)>,
    /// `workspaceSymbol`'s query.
    pub query: &'a str,
}

impl<'a> Query<'a> {
    /// A query for `operation` on `file` (its `text` as read now) in the workspace `root`.
    pub fn new(operation: Operation, file: &'a Path, display: &'a str, text: &'a str, root: &'a Path) -> Query<'a> {
        Query { operation, file, display, text, root, position: None, query: "" }
    }

    /// At 1-based `line` and `character`.
    pub fn at(mut self, line: u32, character: u32) -> Query<'a> {
        self.position = Some((line, character));
        self
    }

    /// With `workspaceSymbol`'s query.
    pub fn with_query(mut self, query: &'a str) -> Query<'a> {
        self.query = query;
        self
    }
}

impl LspServers {
    /// Runs `query` on the server covering its file (started if need be, the file's
    /// text synced first) and renders the answer; `show` decides how result paths
    /// are shown and which are left out. A server found dead on the way (killed,
    /// crashed) is started again and asked once more: the operations only read.
    pub async fn query(&self, query: Query<'_>, show: ShowPath<'_>) -> Result<String, LspError> {
        match self.query_once(query, show).await {
            Err(LspError::Crashed { .. }) => self.query_once(query, show).await,
            answer => answer,
        }
    }

    async fn query_once(&self, query: Query<'_>, show: ShowPath<'_>) -> Result<String, LspError> {
        let server = self.server_for(query.file, query.root)?;
        let synced = server.sync(query.file, query.text, false).await?;
        let connection = synced.connection;
        // A server given a new document may begin loading its project: let it finish.
        // (After the first wait, only a server that reports its work is waited for.)
        let grace = match (connection.first_quiet(), synced.changed && connection.reports_progress()) {
            (true, _) => FIRST_QUIET_GRACE,
            (false, true) => QUIET_GRACE,
            (false, false) => Duration::ZERO,
        };
        connection.quiet(grace, self.request_timeout()).await;
        let document = TextDocumentIdentifier { uri: synced.uri };
        let timeout = self.request_timeout();
        let position = match (query.operation.needs_position(), query.position) {
            (true, Some((line, character))) => Some(to_lsp(query.text, line, character, query.display)?),
            (true, None) => {
                return Err(LspError::Position(format!(
                    "`{}` works at a position: give `line` and `character` (1-based)",
                    query.operation.name()
                )));
            }
            (false, _) => None,
        };
        let at = |p: lsp_types::Position| TextDocumentPositionParams { text_document: document.clone(), position: p };
        let here = query.position.map(|(l, c)| format!("{}:{l}:{c}", query.display)).unwrap_or_default();
        let mut render = Render::new(show);
        let progress = WorkDoneProgressParams::default;
        let partial = PartialResultParams::default;
        let unsupported =
            |what: &str| LspError::Unsupported { server: server.config.name.clone(), what: what.to_owned() };
        let caps = &connection.capabilities;
        Ok(match (query.operation, position) {
            (Operation::GoToDefinition, Some(p)) => {
                let params = GotoDefinitionParams {
                    text_document_position_params: at(p),
                    work_done_progress_params: progress(),
                    partial_result_params: partial(),
                };
                let answer = connection.request::<GotoDefinition>(params, timeout).await?;
                render.definitions("definition", &format!("No definition found at {here}."), answer)
            }
            (Operation::GoToImplementation, Some(p)) => {
                if caps.implementation_provider.is_none() {
                    return Err(unsupported("goToImplementation"));
                }
                let params = GotoDefinitionParams {
                    text_document_position_params: at(p),
                    work_done_progress_params: progress(),
                    partial_result_params: partial(),
                };
                let answer = connection.request::<GotoImplementation>(params, timeout).await?;
                render.definitions("implementation", &format!("No implementation found at {here}."), answer)
            }
            (Operation::FindReferences, Some(p)) => {
                let params = ReferenceParams {
                    text_document_position: at(p),
                    work_done_progress_params: progress(),
                    partial_result_params: partial(),
                    context: ReferenceContext { include_declaration: true },
                };
                let answer = connection.request::<References>(params, timeout).await?;
                render.references(&format!("No references found at {here}."), answer)
            }
            (Operation::Hover, Some(p)) => {
                let params =
                    HoverParams { text_document_position_params: at(p), work_done_progress_params: progress() };
                hover(&here, connection.request::<HoverRequest>(params, timeout).await?)
            }
            (Operation::DocumentSymbol, _) => {
                let params = DocumentSymbolParams {
                    text_document: document.clone(),
                    work_done_progress_params: progress(),
                    partial_result_params: partial(),
                };
                let answer = connection.request::<DocumentSymbolRequest>(params, timeout).await?;
                render.document_symbols(query.display, answer)
            }
            (Operation::WorkspaceSymbol, _) => {
                let params = WorkspaceSymbolParams {
                    query: query.query.to_owned(),
                    work_done_progress_params: progress(),
                    partial_result_params: partial(),
                };
                let answer = connection.request::<WorkspaceSymbolRequest>(params, timeout).await?;
                render.workspace_symbols(query.query, answer)
            }
            (Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls, Some(p)) => {
                if caps.call_hierarchy_provider.is_none() {
                    return Err(unsupported("the call hierarchy"));
                }
                let params = CallHierarchyPrepareParams {
                    text_document_position_params: at(p),
                    work_done_progress_params: progress(),
                };
                let items: Vec<CallHierarchyItem> =
                    connection.request::<CallHierarchyPrepare>(params, timeout).await?.unwrap_or_default();
                let none = format!("No function or method at {here} (no call hierarchy item).");
                let Some(item) = items.first().cloned() else { return Ok(none) };
                match query.operation {
                    Operation::IncomingCalls => {
                        let params = CallHierarchyIncomingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: progress(),
                            partial_result_params: partial(),
                        };
                        let calls = connection.request::<CallHierarchyIncomingCalls>(params, timeout).await?;
                        render.incoming(&item, calls.unwrap_or_default())
                    }
                    Operation::OutgoingCalls => {
                        let params = CallHierarchyOutgoingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: progress(),
                            partial_result_params: partial(),
                        };
                        let calls = connection.request::<CallHierarchyOutgoingCalls>(params, timeout).await?;
                        render.outgoing(&item, calls.unwrap_or_default())
                    }
                    _ => render.call_items(&none, &items),
                }
            }
            // Every operation at a position has its position by now.
            (_, None) => unreachable_position(query.operation)?,
        })
    }
}

fn unreachable_position(operation: Operation) -> Result<String, LspError> {
    Err(LspError::Position(format!("`{}` needs `line` and `character`", operation.name())))
}
