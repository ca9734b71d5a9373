//! `replace_in_file`: Cline's SEARCH/REPLACE blocks, through the same edit code.

use crate::edit::{edit_file, parse_search_replace};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Replace sections of a file with SEARCH/REPLACE blocks (Cline's format).
#[tool(rule_name = "Edit", 
    title = "Replace in file",
    description = "Replace sections of a file with SEARCH/REPLACE blocks.\n\nEach block is:\n------- SEARCH\n[exact lines to find]\n=======\n[lines to put in their place]\n+++++++ REPLACE\n\nSEARCH text must match the file exactly (indentation included) and occur once. Blocks apply in order, all or nothing. The file must have been read with read_file in this session and not changed since."
)]
pub struct ReplaceInFile {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    #[access(write)]
    pub path: String,
    /// One or more SEARCH/REPLACE blocks.
    pub diff: String,
}

impl Tool for ReplaceInFile {
    type Output = String;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        parse_search_replace(&self.diff).map(drop).map_err(|e| ToolError::msg(format!("`diff`: {e}")))
    }

    fn summary(&self) -> Option<String> {
        Some(format!("replace in {}", self.path))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let edits = parse_search_replace(&self.diff).map_err(|e| ToolError::msg(format!("`diff`: {e}")))?;
        let (message, written) = edit_file(cx, &self.path, &edits)?;
        Ok(crate::code_intelligence::with_diagnostics(cx, written, message).await)
    }
}
