//! `multi_edit`: several edits to one file, all or nothing.

use crate::edit::{Edit, edit_file};
use toolwright_core::{Tool, ToolContext, ToolError, tool};

/// Make several exact-string replacements in one file, all or nothing.
///
/// The edits apply in order, each to the result of the one before. If any edit
/// fails (no match, or several without `replace_all`), the file is left unchanged.
/// The same rules as edit_file apply.
#[tool(rule_name = "MultiEdit", title = "Edit file (several changes)", aliases = ["MultiEdit"])]
pub struct MultiEdit {
    /// Path of the file, relative to the workspace root (or absolute inside it).
    #[access(write)]
    pub path: String,
    /// The edits, applied in order.
    #[schemars(length(min = 1))]
    pub edits: Vec<Edit>,
}

impl Tool for MultiEdit {
    /// Claude Code's name for the path.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("file_path", "path")];

    type Output = String;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.edits.is_empty() {
            return Err(ToolError::msg("`edits` is empty; give at least one edit"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("edit {} ({} changes)", self.path, self.edits.len()))
    }

    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let (message, written) = edit_file(cx, &self.path, &self.edits)?;
        Ok(crate::code_intelligence::with_diagnostics(cx, written, message).await)
    }
}
