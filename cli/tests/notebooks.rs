//! Jupyter notebooks through the real binary (Claude Code's Read and NotebookEdit):
//! cells with ids, one-cell edits that keep the file valid nbformat, read before
//! write, nothing lost on a failed edit, and hostile files bounded.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn call(dir: &Path, tool: &str, input: Value) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", tool, &input.to_string(), "--json", "--yes", "--cwd"])
        .arg(dir)
        .env("HOME", dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
}

fn notebook() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "title", "metadata": {}, "source": ["# Analysis\n", "Numbers."]},
            {"cell_type": "code", "id": "load", "metadata": {"tags": ["keep"]}, "execution_count": 1,
             "source": ["xs = [1, 2, 3]\n", "sum(xs)"],
             "outputs": [{"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": ["6"]}, "metadata": {}}]}
        ],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4, "nbformat_minor": 5
    })
}

#[test]
fn cells_are_read_with_ids_and_edited_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("analysis.ipynb");
    std::fs::write(&path, serde_json::to_string_pretty(&notebook()).unwrap()).unwrap();
    // Before a read, no edit.
    let early = call(
        dir.path(),
        "NotebookEdit",
        json!({"notebook_path": "analysis.ipynb", "cell_id": "load", "new_source": "x"}),
    );
    assert!(early["is_error"] == true && text(&early).contains("has not been read"), "{early}");
    let read = call(dir.path(), "Read", json!({"file_path": "analysis.ipynb"}));
    let shown = text(&read);
    assert!(
        shown.contains("<cell id=\"load\" cell_type=\"code\">\nxs = [1, 2, 3]\nsum(xs)\n<outputs>\n6\n</outputs>"),
        "{shown}"
    );
    let replaced = call(
        dir.path(),
        "NotebookEdit",
        json!({"notebook_path": "analysis.ipynb", "cell_id": "load", "new_source": "xs = [4]\nsum(xs)"}),
    );
    assert_eq!(replaced["is_error"], false, "{replaced}");
    assert_eq!(replaced["structured"]["old_source"], "xs = [1, 2, 3]\nsum(xs)");
    let inserted = call(
        dir.path(),
        "NotebookEdit",
        json!({"notebook_path": "analysis.ipynb", "cell_id": "title", "new_source": "## Method", "cell_type": "markdown", "edit_mode": "insert"}),
    );
    assert_eq!(inserted["is_error"], false, "{inserted}");
    let new_id = inserted["structured"]["cell_id"].as_str().unwrap().to_owned();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ids: Vec<&str> = saved["cells"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["title", new_id.as_str(), "load"]);
    assert_eq!(saved["cells"][2]["source"], json!(["xs = [4]\n", "sum(xs)"]));
    assert_eq!(saved["cells"][2]["outputs"], json!([]), "a changed code cell keeps no stale output");
    assert_eq!(saved["cells"][2]["metadata"]["tags"], json!(["keep"]));
    assert_eq!(saved["metadata"]["kernelspec"]["name"], "python3");
    // A bad edit changes nothing.
    let before = std::fs::read(&path).unwrap();
    for bad in [
        json!({"notebook_path": "analysis.ipynb", "cell_id": "nope", "new_source": "x"}),
        json!({"notebook_path": "analysis.ipynb", "new_source": "x", "edit_mode": "insert"}),
        json!({"notebook_path": "analysis.ipynb", "new_source": "x", "edit_mode": "delete"}),
    ] {
        let result = call(dir.path(), "NotebookEdit", bad.clone());
        assert_eq!(result["is_error"], true, "{bad}: {result}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let deleted = call(
        dir.path(),
        "NotebookEdit",
        json!({"notebook_path": "analysis.ipynb", "cell_id": "title", "new_source": "", "edit_mode": "delete"}),
    );
    assert_eq!(deleted["is_error"], false, "{deleted}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["cells"].as_array().unwrap().len(), 2);
}

#[test]
fn hostile_notebooks_are_refused_or_bounded() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.ipynb"), "{\"cells\": [").unwrap();
    let broken = call(dir.path(), "Read", json!({"file_path": "broken.ipynb"}));
    assert!(broken["is_error"] == true && text(&broken).contains("not a notebook"), "{broken}");
    // Three hundred cells of 20 KB output each: the text is bounded, the rest named.
    let cells: Vec<Value> = (0..300)
        .map(|i| json!({"cell_type": "code", "id": format!("c{i}"), "metadata": {}, "source": "print('x' * 100)",
                        "execution_count": 1, "outputs": [{"output_type": "stream", "name": "stdout", "text": "x".repeat(20_000)}]}))
        .collect();
    let big = json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    std::fs::write(dir.path().join("big.ipynb"), big.to_string()).unwrap();
    let read = call(dir.path(), "Read", json!({"file_path": "big.ipynb"}));
    let shown = text(&read);
    assert!(shown.len() < 1_000_000, "{} bytes", shown.len());
    assert!(
        shown.contains("more cells not shown") && shown.contains("[output cut"),
        "{}",
        &shown[shown.len().saturating_sub(300)..]
    );
    // Not a notebook by name: edit_file's job.
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let wrong =
        call(dir.path(), "NotebookEdit", json!({"notebook_path": "notes.txt", "cell_id": "a", "new_source": "x"}));
    assert!(text(&wrong).contains("is not a notebook"), "{wrong}");
}
