//! `notebook_edit` (Claude Code's `NotebookEdit`): replaces, inserts or deletes one
//! cell of a Jupyter notebook, atomically, keeping the file valid nbformat.

use crate::notebook::{CellEdit, MAX_NOTEBOOK_BYTES, Notebook};
use crate::session::check_fresh;
use crate::workspace::resolve_for_write;
use serde_json::json;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// A cell's type.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum CellType {
    Code,
    Markdown,
}

/// What to do with the cell.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum EditMode {
    Replace,
    Insert,
    Delete,
}

/// Edit one cell of a Jupyter notebook (`.ipynb`): replace its source, insert a new
/// cell after it (or first, without `cell_id`), or delete it. Read the notebook with
/// read_file first: its cells come with the ids this takes. A replaced code cell's
/// outputs are cleared.
#[tool(title = "Edit a notebook cell", rule_name = "NotebookEdit", aliases = ["NotebookEdit"])]
pub struct NotebookEdit {
    /// The notebook, relative to the workspace root (or absolute inside it).
    #[access(write)]
    pub notebook_path: String,
    /// The cell's new source (empty for a delete).
    pub new_source: String,
    /// The cell's id, as read_file shows it (`cell-N` for a notebook whose cells have
    /// none). Needed to replace or delete; with insert, the new cell goes after it.
    #[serde(default)]
    pub cell_id: Option<String>,
    /// `code` or `markdown`: needed to insert; with replace, the cell's type changes.
    #[serde(default)]
    pub cell_type: Option<CellType>,
    /// `replace` (the default), `insert` or `delete`.
    #[serde(default)]
    pub edit_mode: Option<EditMode>,
}

impl Tool for NotebookEdit {
    type Output = ToolOutput;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if !self.notebook_path.to_ascii_lowercase().ends_with(".ipynb") {
            return Err(ToolError::msg(format!(
                "`{}` is not a notebook (.ipynb); edit other files with edit_file",
                self.notebook_path
            )));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let cell = self.cell_id.as_deref().unwrap_or("the start");
        Some(format!("{} cell {cell} of {}", mode_name(self.edit_mode.unwrap_or(EditMode::Replace)), self.notebook_path))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let target = resolve_for_write(cx, &self.notebook_path)?;
        if !target.path.is_file() {
            return Err(ToolError::msg(format!("`{}` does not exist; notebook_edit changes an existing notebook", target.display)));
        }
        let bytes = crate::confined::read_all(&target, MAX_NOTEBOOK_BYTES)?;
        check_fresh(cx, &target.path, &target.display, &bytes)?;
        let mut notebook = Notebook::parse(&bytes, &target.display)?;
        let mode = self.edit_mode.unwrap_or(EditMode::Replace);
        let cell_type = self.cell_type.map(|t| match t {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        });
        let edit = CellEdit { cell_id: self.cell_id.as_deref(), new_source: &self.new_source, cell_type, mode: mode_name(mode) };
        let done = notebook.edit(&edit).map_err(|why| ToolError::msg(format!("`{}`: {why}", target.display)))?;
        // Written only whole and valid: a failed edit leaves the file as it was.
        crate::fsio::write_atomic(cx, &target, &notebook.to_bytes())?;
        let text = match mode {
            EditMode::Replace => format!("Updated cell {} of `{}`.", done.id, target.display),
            EditMode::Insert => format!("Inserted cell {} into `{}`.", done.id, target.display),
            EditMode::Delete => format!("Deleted cell {} of `{}`.", done.id, target.display),
        };
        let mut output = ToolOutput::text(text);
        output.structured = Some(json!({
            "new_source": self.new_source, "old_source": done.old_source, "cell_id": done.id,
            "cell_type": done.cell_type, "language": done.language, "edit_mode": mode_name(mode),
            "notebook_path": target.path,
        }));
        Ok(output)
    }
}

fn mode_name(mode: EditMode) -> &'static str {
    match mode {
        EditMode::Replace => "replace",
        EditMode::Insert => "insert",
        EditMode::Delete => "delete",
    }
}
