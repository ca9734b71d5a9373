//! `edit_file`: replace an exact string in a file.

use crate::edit::{Edit, edit_file};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Edit a file: replace an exact string in it (change a line, fix code, rename).
///
/// `old_string` must match the file exactly (indentation included) and occur once,
/// unless `replace_all` is set. The file must have been read with read_file in this
/// session and not changed since. Line endings (CRLF) and a UTF-8 BOM are kept. The
/// result shows a unified diff.
#[tool(rule_name = "Edit", title = "Edit file", aliases = ["Edit"])]
pub struct EditFile {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    #[access(write)]
    pub path: String,
    /// The exact text to replace.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence. Defaults to false.
    #[serde(default)]
    pub replace_all: bool,
}

impl Tool for EditFile {
    /// Claude Code's name for the path.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("file_path", "path")];

    type Output = String;

    fn summary(&self) -> Option<String> {
        Some(format!("edit {}", self.path))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let edit = Edit { old_string: self.old_string, new_string: self.new_string, replace_all: self.replace_all };
        let (message, written) = edit_file(cx, &self.path, &[edit])?;
        Ok(crate::code_intelligence::with_diagnostics(cx, written, message).await)
    }
}
