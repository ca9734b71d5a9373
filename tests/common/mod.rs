//! Helpers shared by the integration tests.
#![allow(dead_code, missing_docs)]

pub mod http;
pub mod peers;
pub mod provider_rules;
pub mod runtime_tool;

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
    // An empty HOME, so the machine's own settings do not take part.
    (dir, tempfile::tempdir().unwrap())
}
