//! Helpers shared by the integration tests.
#![allow(dead_code, missing_docs)]

pub mod http;
pub mod peers;
pub mod provider_rules;
pub mod runtime_tool;
pub mod scripted;
pub mod stateless;

/// A workspace for `serve`: a file to read, a directory the denied command
/// would delete, and project settings allowing `echo` and `sleep`.
pub fn workspace() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello from the workspace\n").unwrap();
    std::fs::create_dir(dir.path().join("precious")).unwrap();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(echo *)", "Bash(sleep *)"], "defaultMode": "acceptEdits"}}"#,
    )
    .unwrap();
    // A HOME of its own, so the machine's settings do not take part, where Claude
    // Code's record trusts the workspace: its settings are the tests' own.
    let home = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let record = serde_json::json!({ "projects": { root.to_string_lossy(): { "hasTrustDialogAccepted": true } } });
    std::fs::write(home.path().join(".claude.json"), record.to_string()).unwrap();
    (dir, home)
}
