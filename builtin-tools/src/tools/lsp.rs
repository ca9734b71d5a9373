//! `lsp` (Claude Code's `LSP`): code intelligence from the session's language
//! servers (`toolwright_lsp`): definitions, references, hover, symbols and the call
//! hierarchy at a 1-based position, paths as the workspace shows them.

use crate::code_intelligence::Visible;
use crate::workspace::{Workspace, resolve_existing};
use std::path::Path;
use toolwright_core::{Tool, ToolContext, ToolError, TurnContext, tool};
use toolwright_lsp::{LspServers, Operation, Query};

/// The largest file sent to a server.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// What to ask the language server, in [`Operation::ALL`]'s order.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum LspOperation {
    GoToDefinition,
    FindReferences,
    Hover,
    DocumentSymbol,
    WorkspaceSymbol,
    GoToImplementation,
    PrepareCallHierarchy,
    IncomingCalls,
    OutgoingCalls,
}

impl LspOperation {
    /// The client's operation: the variants are in [`Operation::ALL`]'s order.
    fn operation(self) -> Operation {
        Operation::ALL[self as usize]
    }
}

/// Code intelligence from a language server: find where a symbol (function, class,
/// variable) is defined or implemented, every reference to it, its type and docs
/// (hover), the symbols of a file or of the whole workspace (`query`), and who calls
/// a function or what it calls (call hierarchy). More precise than grep for code
/// navigation. `line` and `character` are 1-based, as an editor shows them, and
/// point at the symbol.
#[tool(title = "Code intelligence", read_only, concurrency_safe, rule_name = "LSP", aliases = ["LSP"])]
pub struct Lsp {
    /// goToDefinition, findReferences, hover, documentSymbol, workspaceSymbol,
    /// goToImplementation, prepareCallHierarchy, incomingCalls or outgoingCalls.
    pub operation: LspOperation,
    /// The file, relative to the workspace root (or absolute inside it).
    #[serde(rename = "filePath")]
    #[access(read)]
    pub file_path: String,
    /// The line of the symbol, 1-based (needed by all but documentSymbol and
    /// workspaceSymbol).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// The character of the symbol on its line, 1-based.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub character: Option<u32>,
    /// workspaceSymbol only: the name (or part of it) to look for.
    #[serde(default)]
    pub query: Option<String>,
}

impl Tool for Lsp {
    type Output = String;

    fn is_enabled(turn: &TurnContext) -> bool {
        turn.extensions().get::<LspServers>().is_some_and(|servers| !servers.is_empty())
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.file_path.trim().is_empty() {
            return Err(ToolError::msg("`filePath` is empty; give the file to ask about"));
        }
        let operation = self.operation.operation();
        if operation.needs_position() {
            match (self.line, self.character) {
                (None, _) => {
                    return Err(ToolError::msg(format!("`{}` needs `line` (1-based) and `character`", operation.name())));
                }
                (_, None) => return Err(ToolError::msg(format!("`{}` needs `character` (1-based)", operation.name()))),
                _ => {}
            }
        }
        if self.line == Some(0) || self.character == Some(0) {
            return Err(ToolError::msg("`line` and `character` are 1-based: the first is 1"));
        }
        if operation == Operation::WorkspaceSymbol && self.query.as_deref().is_none_or(|q| q.trim().is_empty()) {
            return Err(ToolError::msg("`workspaceSymbol` needs `query`: the symbol's name or part of it"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let operation = self.operation.operation().name();
        Some(match (self.line, self.character) {
            (Some(line), Some(character)) => format!("lsp {operation} {}:{line}:{character}", self.file_path),
            _ => format!("lsp {operation} {}", self.file_path),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let Some(servers) = cx.extension::<LspServers>().cloned() else {
            return Err(ToolError::msg(
                "no language server is configured: add a code-intelligence plugin (.lsp.json) or `lspServers` to the settings",
            ));
        };
        let file = resolve_existing(cx, &self.file_path)?;
        if !servers.covers(&file.path) {
            return Err(ToolError::msg(
                toolwright_lsp::LspError::NoServer { path: file.path.clone(), configured: servers.extensions() }.to_string(),
            ));
        }
        let bytes = crate::confined::read_all(&file, MAX_FILE_BYTES)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ToolError::msg(format!("`{}` is not UTF-8 text; a language server reads text", file.display)))?;
        let visible = Visible::new(Workspace::of(cx)?);
        let show = |path: &Path| visible.show(path);
        let mut query = Query::new(self.operation.operation(), &file.path, &file.display, &text, &file.root);
        if let (Some(line), Some(character)) = (self.line, self.character) {
            query = query.at(line, character);
        }
        let query_text = self.query.unwrap_or_default();
        let query = query.with_query(query_text.trim());
        tokio::select! {
            answer = servers.query(query, &show) => answer.map_err(|e| ToolError::msg(e.to_string())),
            () = cx.cancellation().cancelled() => Err(ToolError::msg("cancelled")),
        }
    }
}
