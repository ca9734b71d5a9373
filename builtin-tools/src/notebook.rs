//! Jupyter notebooks (nbformat 4): read as cells with their ids, sources and outputs,
//! and edited one cell at a time, keeping every other field of the file as it was.

use serde_json::{Map, Value, json};
use toolwright_core::{Content, ToolError};

/// The largest notebook read (Claude Code refuses over 100 MB too).
pub const MAX_NOTEBOOK_BYTES: u64 = 100 * 1024 * 1024;
/// Text kept of one cell's outputs.
const MAX_OUTPUT_CHARS: usize = 10_000;
/// Text of the whole rendering; the rest of the cells are named, not shown.
const MAX_TEXT_CHARS: usize = 256 * 1024;
/// Images returned from outputs, and the largest one.
const MAX_IMAGES: usize = 8;
const MAX_IMAGE_BASE64: usize = 2 * 1024 * 1024;

/// A parsed notebook.
pub(crate) struct Notebook {
    pub(crate) doc: Map<String, Value>,
}

impl Notebook {
    /// Parses `bytes` as an nbformat 4 notebook; the error names what is wrong.
    pub(crate) fn parse(bytes: &[u8], display: &str) -> Result<Notebook, ToolError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| ToolError::msg(format!("`{display}` is not a notebook: not JSON ({e})")))?;
        let Value::Object(doc) = value else {
            return Err(ToolError::msg(format!("`{display}` is not a notebook: not a JSON object")));
        };
        if !doc.get("cells").is_some_and(Value::is_array) {
            return Err(ToolError::msg(format!("`{display}` is not a notebook: it has no `cells` list")));
        }
        if let Some(major) = doc.get("nbformat").and_then(Value::as_u64)
            && major != 4
        {
            return Err(ToolError::msg(format!("`{display}` is nbformat {major}; only nbformat 4 is read and edited")));
        }
        Ok(Notebook { doc })
    }

    pub(crate) fn cells(&self) -> &[Value] {
        self.doc.get("cells").and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    fn cells_mut(&mut self) -> &mut Vec<Value> {
        self.doc.entry("cells").or_insert_with(|| Value::Array(Vec::new())).as_array_mut().expect("checked in parse")
    }

    /// The notebook's language (for a new code cell's language field in the result).
    pub(crate) fn language(&self) -> String {
        let meta = self.doc.get("metadata");
        meta.and_then(|m| m.pointer("/language_info/name"))
            .or_else(|| meta.and_then(|m| m.pointer("/kernelspec/language")))
            .and_then(Value::as_str)
            .unwrap_or("python")
            .to_owned()
    }

    /// Where the cell with `id` is: its `id`, or `cell-N` for a cell without one.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.cells().iter().enumerate().position(|(i, cell)| cell_id(cell, i) == id)
    }

    /// Renders every cell for the model: text, with output images as image blocks.
    pub(crate) fn render(&self, display: &str) -> Vec<Content> {
        let mut text = String::new();
        let mut images = Vec::new();
        let mut left_out = Vec::new();
        for (i, cell) in self.cells().iter().enumerate() {
            let id = cell_id(cell, i);
            if text.len() > MAX_TEXT_CHARS {
                left_out.push(id);
                continue;
            }
            let kind = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code");
            text.push_str(&format!("<cell id=\"{id}\" cell_type=\"{kind}\">\n"));
            text.push_str(&source_text(cell.get("source")));
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let outputs = outputs(cell, &mut images);
            if !outputs.is_empty() {
                text.push_str("<outputs>\n");
                text.push_str(&outputs);
                if !outputs.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str("</outputs>\n");
            }
            text.push_str("</cell>\n");
        }
        if self.cells().is_empty() {
            text.push_str(&format!("`{display}` has no cells.\n"));
        }
        if !left_out.is_empty() {
            text.push_str(&format!(
                "({} more cells not shown: the notebook's text is over {} KB. Their ids: {}. Read a slice with a \
                 shell command, such as `jq '.cells[10:20]' {display}`.)\n",
                left_out.len(),
                MAX_TEXT_CHARS / 1024,
                left_out.join(", ")
            ));
        }
        let mut content = vec![Content::Text(text)];
        content.extend(images);
        content
    }

    /// Replaces, inserts (after `id`, or first without one) or deletes a cell; the
    /// old source, the cell's id and its type.
    pub(crate) fn edit(&mut self, edit: &CellEdit<'_>) -> Result<EditDone, String> {
        let language = self.language();
        match edit.mode {
            "insert" => {
                let at = match edit.cell_id {
                    Some(id) => self.position(id).ok_or_else(|| self.unknown(id))? + 1,
                    None => 0,
                };
                let kind = edit.cell_type.ok_or("inserting a cell needs `cell_type` (`code` or `markdown`)")?;
                let id = self.new_id(edit.new_source);
                let mut cell =
                    json!({"cell_type": kind, "id": id, "metadata": {}, "source": split_source(edit.new_source)});
                if kind == "code" {
                    cell["execution_count"] = Value::Null;
                    cell["outputs"] = json!([]);
                }
                self.cells_mut().insert(at, cell);
                Ok(EditDone { id, cell_type: kind.to_owned(), old_source: None, language })
            }
            "delete" | "replace" => {
                let id = edit.cell_id.ok_or_else(|| format!("`{}` needs `cell_id`: the cell to change", edit.mode))?;
                let at = self.position(id).ok_or_else(|| self.unknown(id))?;
                let cell = &mut self.cells_mut()[at];
                let old_source = source_text(cell.get("source"));
                let old_kind = cell.get("cell_type").and_then(Value::as_str).unwrap_or("code").to_owned();
                if edit.mode == "delete" {
                    self.cells_mut().remove(at);
                    return Ok(EditDone {
                        id: id.to_owned(),
                        cell_type: old_kind,
                        old_source: Some(old_source),
                        language,
                    });
                }
                let kind = edit.cell_type.unwrap_or(&old_kind).to_owned();
                cell["source"] = split_source(edit.new_source);
                if kind != old_kind {
                    cell["cell_type"] = Value::String(kind.clone());
                }
                // A changed code cell's outputs describe the old code: cleared, as
                // Claude Code does.
                if kind == "code" {
                    cell["outputs"] = json!([]);
                    cell["execution_count"] = Value::Null;
                } else if let Some(map) = cell.as_object_mut() {
                    map.remove("outputs");
                    map.remove("execution_count");
                }
                Ok(EditDone { id: id.to_owned(), cell_type: kind, old_source: Some(old_source), language })
            }
            other => Err(format!("`edit_mode` is `replace`, `insert` or `delete`, not `{other}`")),
        }
    }

    fn unknown(&self, id: &str) -> String {
        let ids: Vec<String> = self.cells().iter().enumerate().take(20).map(|(i, c)| cell_id(c, i)).collect();
        format!("no cell `{id}` in the notebook; its cells are: {}", ids.join(", "))
    }

    fn new_id(&self, seed: &str) -> String {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write(seed.as_bytes());
        hasher.write_usize(self.cells().len());
        format!("{:08x}", hasher.finish() as u32)
    }

    /// The notebook as JSON text, one space of indent as Jupyter writes it.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(&self.doc, &mut serializer).expect("a JSON map serialises");
        out.push(b'\n');
        out
    }
}

/// One cell edit (NotebookEdit's input).
pub(crate) struct CellEdit<'a> {
    pub(crate) cell_id: Option<&'a str>,
    pub(crate) new_source: &'a str,
    pub(crate) cell_type: Option<&'a str>,
    pub(crate) mode: &'a str,
}

/// What an edit did.
pub(crate) struct EditDone {
    pub(crate) id: String,
    pub(crate) cell_type: String,
    pub(crate) old_source: Option<String>,
    pub(crate) language: String,
}

/// A cell's id: its own, or `cell-N` (its place) in notebooks older than 4.5.
pub(crate) fn cell_id(cell: &Value, index: usize) -> String {
    cell.get("id").and_then(Value::as_str).map_or_else(|| format!("cell-{index}"), str::to_owned)
}

/// nbformat's source: a string, or a list of lines.
fn source_text(source: Option<&Value>) -> String {
    match source {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// A source as nbformat writes it: lines, each but the last with its newline.
fn split_source(text: &str) -> Value {
    Value::Array(text.split_inclusive('\n').map(|l| Value::String(l.to_owned())).collect())
}

/// A code cell's outputs as text (bounded), its images into `images`.
fn outputs(cell: &Value, images: &mut Vec<Content>) -> String {
    let mut text = String::new();
    for output in cell.get("outputs").and_then(Value::as_array).into_iter().flatten() {
        match output.get("output_type").and_then(Value::as_str) {
            Some("stream") => text.push_str(&source_text(output.get("text"))),
            Some("error") => {
                let ename = output.get("ename").and_then(Value::as_str).unwrap_or("Error");
                let evalue = output.get("evalue").and_then(Value::as_str).unwrap_or("");
                text.push_str(&format!("{ename}: {evalue}\n"));
                for line in output.get("traceback").and_then(Value::as_array).into_iter().flatten() {
                    text.push_str(&strip_ansi(line.as_str().unwrap_or("")));
                    text.push('\n');
                }
            }
            Some("execute_result" | "display_data") => {
                let data = output.get("data");
                for (mime, media_type) in [("image/png", "image/png"), ("image/jpeg", "image/jpeg")] {
                    if let Some(b64) = data.and_then(|d| d.get(mime)).map(|v| source_text(Some(v))) {
                        let b64: String = b64.split_whitespace().collect();
                        if images.len() < MAX_IMAGES && b64.len() <= MAX_IMAGE_BASE64 {
                            images.push(Content::Image { media_type: media_type.to_owned(), data: b64 });
                            text.push_str(&format!("[image: {mime}, shown below]\n"));
                        } else {
                            text.push_str(&format!("[image: {mime}, not shown: too many or too large]\n"));
                        }
                    }
                }
                if let Some(plain) = data.and_then(|d| d.get("text/plain")) {
                    text.push_str(&source_text(Some(plain)));
                    text.push('\n');
                }
            }
            _ => {}
        }
        if text.len() > MAX_OUTPUT_CHARS {
            let cut = (0..=MAX_OUTPUT_CHARS).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            text.truncate(cut);
            text.push_str("\n[output cut: over 10,000 characters]\n");
            break;
        }
    }
    text
}

/// Terminal colour codes out of a traceback.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for next in chars.by_ref() {
                if next.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{"cells": [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Text"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "print(1)",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                     {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\u001b[31mValueError\u001b[0m: bad"]},
                     {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}, "metadata": {}}]}
    ], "metadata": {"kernelspec": {"language": "python"}, "custom": 7}, "nbformat": 4, "nbformat_minor": 4}"##;

    #[test]
    fn cells_render_with_ids_sources_and_outputs() {
        let nb = Notebook::parse(NB.as_bytes(), "a.ipynb").unwrap();
        let content = nb.render("a.ipynb");
        let Content::Text(text) = &content[0] else { panic!() };
        assert!(text.contains("<cell id=\"intro\" cell_type=\"markdown\">\n# Title\nText\n</cell>"), "{text}");
        assert!(
            text.contains(
                "<cell id=\"cell-1\" cell_type=\"code\">\nprint(1)\n<outputs>\n1\nValueError: bad\nValueError: bad\n"
            ),
            "{text}"
        );
        assert!(matches!(&content[1], Content::Image { media_type, .. } if media_type == "image/png"));
    }

    /// Mutated notebooks (bytes flipped, cut, fields of the wrong type) never panic
    /// the reader or an edit: they parse and render, or are refused with a reason.
    #[test]
    fn mangled_notebooks_never_panic() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let variants = [
            r#"{"cells": [{"cell_type": 7, "id": [], "source": {"a": 1}, "outputs": "x"}], "nbformat": 4}"#,
            r#"{"cells": [{"outputs": [{"output_type": "error", "traceback": [1, null]}, {"output_type": "display_data", "data": {"image/png": 5}}]}]}"#,
            r#"{"cells": [], "nbformat": 3}"#,
            NB,
        ];
        for round in 0..3_000 {
            let base = variants[round % variants.len()].as_bytes();
            let mut bytes = base.to_vec();
            for _ in 0..(next() % 4) {
                let at = (next() as usize) % bytes.len().max(1);
                match next() % 3 {
                    0 => bytes[at] = next() as u8,
                    1 => bytes.truncate(at),
                    _ => bytes.insert(at, b"{}[]\",\\\x1b"[(next() % 7) as usize]),
                }
                if bytes.is_empty() {
                    break;
                }
            }
            if let Ok(mut nb) = Notebook::parse(&bytes, "fuzz.ipynb") {
                let _ = nb.render("fuzz.ipynb");
                let _ =
                    nb.edit(&CellEdit { cell_id: Some("cell-0"), new_source: "x", cell_type: None, mode: "replace" });
                let _ = nb.edit(&CellEdit { cell_id: None, new_source: "y", cell_type: Some("code"), mode: "insert" });
                assert!(Notebook::parse(&nb.to_bytes(), "again").is_ok());
            }
        }
    }

    #[test]
    fn edits_keep_the_rest_of_the_file() {
        let mut nb = Notebook::parse(NB.as_bytes(), "a.ipynb").unwrap();
        let done = nb
            .edit(&CellEdit {
                cell_id: Some("cell-1"),
                new_source: "print(2)\nx = 3",
                cell_type: None,
                mode: "replace",
            })
            .unwrap();
        assert_eq!(done.old_source.as_deref(), Some("print(1)"));
        let inserted = nb
            .edit(&CellEdit {
                cell_id: Some("intro"),
                new_source: "## Part",
                cell_type: Some("markdown"),
                mode: "insert",
            })
            .unwrap();
        assert_eq!(nb.position(&inserted.id), Some(1));
        assert!(nb.edit(&CellEdit { cell_id: None, new_source: "", cell_type: None, mode: "insert" }).is_err());
        nb.edit(&CellEdit { cell_id: Some("intro"), new_source: "", cell_type: None, mode: "delete" }).unwrap();
        let again = Notebook::parse(&nb.to_bytes(), "a.ipynb").unwrap();
        assert_eq!(again.cells().len(), 2);
        assert_eq!(again.doc["metadata"]["custom"], 7);
        assert_eq!(again.cells()[1]["source"], json!(["print(2)\n", "x = 3"]));
        assert_eq!(again.cells()[1]["outputs"], json!([]));
        assert!(Notebook::parse(b"{\"cells\": 3}", "b").is_err());
    }
}
