//! The LSP tool through the real binary, on pyright installed from npm: servers
//! from a plugin's `.lsp.json` (Claude Code's way) and from a trusted workspace's,
//! navigation across files, new diagnostics after an edit, the read rules, and no
//! server process left when the run ends.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::peers;
use common::scripted::{self, Reply};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lsp_json() -> Value {
    json!({"pyright": {
        "command": peers::npm_bin("pyright-langserver"),
        "args": ["--stdio"],
        "extensionToLanguage": {".py": "python"}
    }})
}

/// A project with two modules, and its home.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("util.py"), "def helper(x: int) -> int:\n    return x + 1\n").unwrap();
    std::fs::write(root.join("app.py"), "from util import helper\n\nprint(helper(1))\n").unwrap();
    (dir, root)
}

fn call(home: &Path, root: &Path, tool: &str, input: Value, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", tool, &input.to_string(), "--json", "--yes", "--cwd"])
        .arg(root)
        .args(extra)
        .env("HOME", home)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
}

/// Processes whose working directory is inside `dir`.
fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&dir)) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}

#[test]
fn a_trusted_workspace_lsp_json_serves_navigation_and_edits_get_new_diagnostics() {
    let (home, root) = project();
    std::fs::write(root.join(".lsp.json"), lsp_json().to_string()).unwrap();
    // Not trusted: the servers are not started, and the tool is not there.
    let untrusted = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "LSP", r#"{"operation":"hover","filePath":"app.py","line":3,"character":7}"#, "--json", "--cwd"])
        .arg(&root)
        .env("HOME", home.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&untrusted.stderr);
    assert!(stderr.contains("not trusted"), "{stderr}");
    assert!(!untrusted.status.success());

    let trusted = ["--trust-workspace"];
    let definition = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "goToDefinition", "filePath": "app.py", "line": 3, "character": 7}),
        &trusted,
    );
    assert_eq!(definition["is_error"], false, "{definition}");
    assert!(text(&definition).contains("util.py:1:5: def helper(x: int) -> int:"), "{definition}");

    // Claude Code's input checks: a position is needed, 1-based.
    let no_line = call(home.path(), &root, "LSP", json!({"operation": "hover", "filePath": "app.py"}), &trusted);
    assert!(no_line["is_error"] == true && text(&no_line).contains("`line`"), "{no_line}");
    let beyond = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "hover", "filePath": "app.py", "line": 40, "character": 1}),
        &trusted,
    );
    assert!(beyond["is_error"] == true && text(&beyond).contains("has 3 lines"), "{beyond}");
    let uncovered = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "documentSymbol", "filePath": ".lsp.json", "line": 1, "character": 1}),
        &trusted,
    );
    assert!(uncovered["is_error"] == true && text(&uncovered).contains("no language server"), "{uncovered}");

    // An edit that breaks a type: the edit's result carries the new error.
    let read = call(home.path(), &root, "Read", json!({"file_path": "app.py"}), &trusted);
    assert_eq!(read["is_error"], false, "{read}");
    let edit = call(
        home.path(),
        &root,
        "Edit",
        json!({"file_path": "app.py", "old_string": "helper(1)", "new_string": "helper(\"one\")"}),
        &trusted,
    );
    assert_eq!(edit["is_error"], false, "{edit}");
    let shown = text(&edit);
    assert!(shown.contains("<new-diagnostics>Found 1 new diagnostic issue in 1 file:"), "{shown}");
    assert!(shown.contains("app.py:\n  ✘ [Line 3:14]"), "{shown}");

    // Read rules govern it as they govern Read.
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), json!({"permissions": {"deny": ["Read(util.py)"]}}).to_string())
        .unwrap();
    let denied = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "documentSymbol", "filePath": "util.py", "line": 1, "character": 1}),
        &trusted,
    );
    assert_eq!(denied["is_error"], true, "{denied}");
    let hidden = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "goToDefinition", "filePath": "app.py", "line": 3, "character": 7}),
        &trusted,
    );
    assert!(!text(&hidden).contains("util.py:1"), "a denied file's lines are not shown: {hidden}");
    assert!(processes_in(home.path()).is_empty(), "{:?}", processes_in(home.path()));
}

#[test]
fn an_agent_uses_a_plugins_language_server_and_leaves_no_process() {
    let (home, root) = project();
    let plugin = home.path().join("py-lsp");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(plugin.join(".claude-plugin/plugin.json"), r#"{"name": "pyright-lsp"}"#).unwrap();
    std::fs::write(plugin.join(".lsp.json"), lsp_json().to_string()).unwrap();
    let (url, log) = scripted::serve(|logged| match logged.results().len() {
        0 => Reply::calls(vec![(
            "LSP",
            json!({"operation": "findReferences", "filePath": "util.py", "line": 1, "character": 5}),
        )]),
        _ => Reply::text("done"),
    });
    let out: Output = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "anthropic", "--json", "--workspace"])
        .arg(&root)
        .arg("--plugin-dir")
        .arg(&plugin)
        .arg("Where is helper used?")
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", &url)
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = log.lock().unwrap();
    assert!(logs[0].tool_names().contains(&"lsp".to_owned()), "{:?}", logs[0].tool_names());
    let (_, result, is_error) = logs[1].results()[0].clone();
    assert!(!is_error, "{result}");
    assert!(result.contains("app.py:3:7") && result.contains("util.py:1:5"), "{result}");
    assert!(processes_in(home.path()).is_empty(), "{:?}", processes_in(home.path()));
}
