//! A tool nobody told the rules about: it declares what it touches, and Claude Code's
//! rules govern it through a real executor, with no edit anywhere else.
#![allow(missing_docs)]

extern crate toolwright_core as toolwright;

use std::sync::Arc;
use toolwright_core::{ErrorKind, Executor, Registry, Tool, ToolCall, ToolContext, ToolError, TurnContext, tool};
use toolwright_permissions::{Mode, RulePolicy};

/// Upload a file to a URL.
#[tool(rule_name = "Upload")]
pub struct UploadFile {
    /// The file to send.
    #[access(read)]
    pub file: String,
    /// Where to send it.
    #[access(fetch)]
    pub url: String,
}

impl Tool for UploadFile {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let bytes = std::fs::read(cx.cwd().join(&self.file)).map_err(|e| ToolError::io(&self.file, e))?;
        Ok(format!("would send {} bytes to {}", bytes.len(), self.url))
    }
}

/// Save a note.
#[tool]
pub struct SaveNote {
    /// Where.
    #[access(write)]
    pub path: String,
    /// What.
    pub text: String,
}

impl Tool for SaveNote {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        std::fs::write(cx.cwd().join(&self.path), &self.text).map_err(|e| ToolError::io(&self.path, e))?;
        Ok("saved".into())
    }
}

fn run(policy: RulePolicy, dir: &std::path::Path, tool: &str, input: serde_json::Value) -> (Option<ErrorKind>, String) {
    let registry = Registry::builder().register::<UploadFile>().register::<SaveNote>().build().unwrap();
    let executor = Executor::builder(Arc::new(registry)).policy(policy).build();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let result = rt.block_on(executor.execute(&ToolCall::new("c1", tool, input.to_string()), &TurnContext::new(dir)));
    (result.error, result.output.text_content())
}

#[test]
fn a_new_tool_is_governed_by_the_rules_it_declares_facts_for() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key"), "k").unwrap();
    std::fs::write(root.join("notes.txt"), "n").unwrap();
    let upload = |file: &str, url: &str| serde_json::json!({"file": file, "url": url});

    // Read rules govern what it reads.
    let policy = RulePolicy::new().deny("Read(./secrets/**)").allow("WebFetch(domain:example.com)");
    let (kind, text) = run(policy, &root, "upload_file", upload("secrets/key", "https://example.com/"));
    assert_eq!(kind, Some(ErrorKind::Denied), "{text}");
    assert!(text.contains("Read(./secrets/**)"), "{text}");
    // WebFetch rules govern where it sends.
    let policy = RulePolicy::new().allow("WebFetch(domain:example.com)");
    let (kind, text) = run(policy, &root, "upload_file", upload("notes.txt", "https://example.com/x"));
    assert_eq!(kind, None, "{text}");
    let policy = RulePolicy::new().deny("WebFetch(domain:*.evil.io)");
    let (kind, _) = run(policy, &root, "upload_file", upload("notes.txt", "https://a.EVIL.io./x"));
    assert_eq!(kind, Some(ErrorKind::Denied));
    // Without a rule, a fetch asks (no approver here: denied, saying so).
    let (kind, text) = run(RulePolicy::new(), &root, "upload_file", upload("notes.txt", "https://example.com/"));
    assert_eq!(kind, Some(ErrorKind::Denied));
    assert!(text.contains("needs approval") && text.contains("no one is there to approve it"), "{text}");
    // Its rule name works in rules and globs.
    let (kind, _) =
        run(RulePolicy::new().deny("Upload"), &root, "upload_file", upload("notes.txt", "https://example.com/"));
    assert_eq!(kind, Some(ErrorKind::Denied));
    let (kind, _) =
        run(RulePolicy::new().deny("Up*"), &root, "upload_file", upload("notes.txt", "https://example.com/"));
    assert_eq!(kind, Some(ErrorKind::Denied));

    // Edit rules, acceptEdits and protected paths govern what it writes.
    let note = |path: &str| serde_json::json!({"path": path, "text": "hi"});
    let (kind, _) = run(RulePolicy::new().deny("Edit(./*.md)"), &root, "save_note", note("a.md"));
    assert_eq!(kind, Some(ErrorKind::Denied));
    let (kind, _) = run(RulePolicy::new().deny("Read(./secrets/**)"), &root, "save_note", note("secrets/new"));
    assert_eq!(kind, Some(ErrorKind::Denied), "a Read deny blocks writes too");
    let (kind, text) = run(RulePolicy::new().with_mode(Mode::AcceptEdits), &root, "save_note", note("a.md"));
    assert_eq!((kind, text.as_str()), (None, "saved"));
    let (kind, _) = run(RulePolicy::new().with_mode(Mode::AcceptEdits).allow("Edit"), &root, "save_note", note(".git"));
    assert_eq!(kind, Some(ErrorKind::Denied), "a protected path is not written on an allow rule");
    let (kind, _) = run(RulePolicy::new().with_mode(Mode::AcceptEdits), &root, "save_note", note("../outside.txt"));
    assert_eq!(kind, Some(ErrorKind::Denied));
    assert!(!root.parent().unwrap().join("outside.txt").exists());
}
