//! Settings files on disk, symlinks, and "always allow" through a real executor.
#![allow(missing_docs)]

mod support;

use serde_json::json;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolwright_core::permission::{Approval, Approver, PermissionDecision, PermissionRequest};
use toolwright_core::{BoxFuture, ToolCall};
use toolwright_permissions::rule::Source;
use toolwright_permissions::settings::{self, SettingsError, Trust};
use toolwright_permissions::{Mode, RulePolicy};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn a_claude_code_project_settings_file_works_unchanged() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    write(
        &root.join(".claude/settings.json"),
        r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "some-model",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)", "Edit(/src/**)"],
    "deny": ["Bash(curl:*)", "Read(./.env)", "Read(./secrets/**)"],
    "ask": ["Bash(git push:*)"],
    "additionalDirectories": ["../docs/"],
    "defaultMode": "acceptEdits"
  },
  "env": {"FOO": "bar"}
}"#,
    );
    write(&root.join(".claude/settings.local.json"), r#"{"permissions": {"deny": ["WebFetch"]}}"#);
    let files = vec![
        (Source::Project, root.join(".claude/settings.json")),
        (Source::Local, root.join(".claude/settings.local.json")),
    ];
    let policy = settings::policy_from_files_with(&root, &files, Trust::Trusted).unwrap();
    assert!(policy.warnings().is_empty(), "{:?}", policy.warnings());
    assert_eq!(policy.mode(), Mode::AcceptEdits);
    let decide = |tool: &str, input: serde_json::Value| support::decide(&policy, tool, &input, &root);
    assert_eq!(decide("shell", json!({"command": "npm run test -- --watch"})), PermissionDecision::Allow);
    // `:*` is the legacy spelling of ` *`: a word boundary, so `test:unit` is another command.
    assert!(matches!(decide("shell", json!({"command": "npm run test:unit"})), PermissionDecision::Ask(_)));
    assert!(matches!(decide("shell", json!({"command": "curl https://x"})), PermissionDecision::Deny(_)));
    assert!(matches!(decide("shell", json!({"command": "git push"})), PermissionDecision::AskRule(_)));
    assert!(matches!(decide("read_file", json!({"path": ".env"})), PermissionDecision::Deny(_)));
    assert_eq!(decide("edit_file", json!({"path": "src/a.rs"})), PermissionDecision::Allow);
    assert_eq!(decide("edit_file", json!({"path": "lib/a.rs"})), PermissionDecision::Allow, "acceptEdits");
    assert!(policy.removes("web_fetch", Some("WebFetch")));
}

/// Runs git in `dir` (for a repository the settings live in).
fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_untrusted_workspace_only_restricts() {
    // A cloned repository's settings: they try to grant themselves everything.
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    let home = tempfile::tempdir().unwrap();
    git(&root, &["init", "-q"]);
    write(
        &root.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash", "Edit"], "deny": ["Read(./.env)"], "ask": ["Bash(git push *)"],
            "additionalDirectories": ["/"], "defaultMode": "bypassPermissions"}}"#,
    );
    // A local file the repository supplies (tracked) waits as well; the user's own
    // (untracked) grants.
    write(&root.join(".claude/settings.local.json"), r#"{"permissions": {"allow": ["Bash(make *)"]}}"#);
    git(&root, &["add", ".claude/settings.local.json"]);
    write(&root.join(".toolwright/settings.local.json"), r#"{"permissions": {"allow": ["Bash(npm test)"]}}"#);
    let settings = settings::Settings::new(&root).with_home(Some(home.path().to_owned())).with_managed(vec![]);
    let policy = settings.policy().unwrap();
    assert_eq!(policy.mode(), Mode::Default, "bypassPermissions from the repository waits for trust");
    let warnings = policy.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with(&root.join(".claude/settings.json").display().to_string()), "{warnings:?}");
    assert!(
        warnings[0].contains("2 allow rules, 1 additional directory, the starting mode `bypassPermissions`"),
        "{warnings:?}"
    );
    assert!(warnings[1].starts_with(&root.join(".claude/settings.local.json").display().to_string()), "{warnings:?}");
    let decide =
        |policy: &RulePolicy, tool: &str, input: serde_json::Value| support::decide(policy, tool, &input, &root);
    let sh = |command: &str| json!({"command": command});
    assert!(matches!(decide(&policy, "shell", sh("rm -rf build")), PermissionDecision::Ask(_)), "`Bash` is not used");
    assert!(matches!(decide(&policy, "shell", sh("make all")), PermissionDecision::Ask(_)), "tracked local file");
    assert_eq!(decide(&policy, "shell", sh("npm test")), PermissionDecision::Allow, "the user's own local file");
    assert!(matches!(decide(&policy, "read_file", json!({"path": ".env"})), PermissionDecision::Deny(_)));
    assert!(matches!(decide(&policy, "shell", sh("git push")), PermissionDecision::AskRule(_)));
    assert!(matches!(decide(&policy, "read_file", json!({"path": "/etc/hostname"})), PermissionDecision::Ask(_)));
    // A stricter starting mode applies untrusted.
    write(&root.join(".claude/settings.json"), r#"{"permissions": {"defaultMode": "plan"}}"#);
    assert_eq!(settings.policy().unwrap().mode(), Mode::Plan);

    // Trusted (by the host, or by Claude Code's record for the repository root), all apply.
    write(&root.join(".claude/settings.json"), r#"{"permissions": {"allow": ["Bash"], "defaultMode": "acceptEdits"}}"#);
    let trusted = settings.clone().with_trust(Trust::Trusted).policy().unwrap();
    assert!(trusted.warnings().is_empty(), "{:?}", trusted.warnings());
    assert_eq!(trusted.mode(), Mode::AcceptEdits);
    assert_eq!(decide(&trusted, "shell", sh("make all")), PermissionDecision::Allow);
    let record = json!({ "projects": { root.to_string_lossy(): { "hasTrustDialogAccepted": true } } });
    fs::write(home.path().join(".claude.json"), record.to_string()).unwrap();
    let recorded = settings.policy().unwrap();
    assert_eq!(recorded.mode(), Mode::AcceptEdits);
    assert_eq!(decide(&recorded, "shell", sh("rm -rf build")), PermissionDecision::Allow);
}

#[test]
fn the_starting_mode_comes_from_the_highest_level_and_bypass_can_be_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (managed, user) = (root.join("managed.json"), root.join("home/.claude/settings.json"));
    let (project, local) = (root.join("ws/.claude/settings.json"), root.join("ws/.claude/settings.local.json"));
    let ws = root.join("ws");
    let files = vec![
        (Source::Managed, managed.clone()),
        (Source::User, user.clone()),
        (Source::Project, project.clone()),
        (Source::Local, local.clone()),
    ];
    let mode_of = |text: [&str; 4]| {
        for (path, text) in [&managed, &user, &project, &local].into_iter().zip(text) {
            write(path, &format!(r#"{{"permissions": {{{text}}}}}"#));
        }
        settings::policy_from_files_with(&ws, &files, Trust::Trusted).unwrap()
    };
    let m = |mode: &str| format!(r#""defaultMode": "{mode}""#);
    // Managed, then local, then project, then user (Claude Code's precedence), whatever
    // order the files are read in.
    assert_eq!(mode_of([&m("plan"), "", &m("bypassPermissions"), &m("acceptEdits")]).mode(), Mode::Plan);
    assert_eq!(mode_of(["", &m("plan"), &m("acceptEdits"), ""]).mode(), Mode::AcceptEdits);
    assert_eq!(mode_of(["", &m("acceptEdits"), &m("plan"), &m("dontAsk")]).mode(), Mode::DontAsk);
    assert_eq!(mode_of(["", &m("plan"), "", ""]).mode(), Mode::Plan);
    // `disableBypassPermissionsMode` from any file: bypass is not entered, now or later.
    let disabled = r#""disableBypassPermissionsMode": "disable""#;
    let policy = mode_of(["", disabled, &m("bypassPermissions"), ""]);
    assert_eq!(policy.mode(), Mode::Default);
    assert!(policy.bypass_disabled());
    assert!(policy.warnings().iter().any(|w| w.contains("bypassPermissions is disabled")), "{:?}", policy.warnings());
    assert_eq!(policy.with_mode(Mode::BypassPermissions).mode(), Mode::Default);
    let policy = mode_of(["", r#""disableBypassPermissionsMode": "yes""#, "", ""]);
    assert!(!policy.bypass_disabled() && policy.warnings()[0].contains("the one value it takes is \"disable\""));
    assert_eq!(policy.with_mode(Mode::BypassPermissions).mode(), Mode::BypassPermissions);
}

#[test]
fn managed_rules_can_be_the_only_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (managed, project) = (root.join("managed.json"), root.join(".claude/settings.json"));
    write(&managed, r#"{"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash(make *)"]}}"#);
    write(
        &project,
        r#"{"allowManagedPermissionRulesOnly": false, "permissions": {"allow": ["Bash(rm *)"], "deny": ["Bash(make *)"]}}"#,
    );
    let files = vec![(Source::Managed, managed), (Source::Project, project.clone())];
    let policy = settings::policy_from_files_with(&root, &files, Trust::Trusted).unwrap();
    let decide = |command: &str| support::decide(&policy, "shell", &json!({"command": command}), &root);
    assert_eq!(decide("make all"), PermissionDecision::Allow, "the project's deny is not used");
    assert!(matches!(decide("rm x"), PermissionDecision::Ask(_)), "nor its allow");
    let warnings = policy.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|w| w.starts_with(&project.display().to_string())), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("read from managed settings only")), "{warnings:?}");
}

#[test]
fn a_symlinked_settings_directory_is_the_repositorys() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    write(&root.join("vendor/settings.local.json"), r#"{"permissions": {"allow": ["Bash(make *)"]}}"#);
    std::os::unix::fs::symlink(root.join("vendor"), root.join(".claude")).unwrap();
    let files = vec![(Source::Local, root.join(".claude/settings.local.json"))];
    let untrusted = settings::policy_from_files_with(&root, &files, Trust::Untrusted).unwrap();
    let make = json!({"command": "make all"});
    assert!(matches!(support::decide(&untrusted, "shell", &make, &root), PermissionDecision::Ask(_)));
    let trusted = settings::policy_from_files_with(&root, &files, Trust::Trusted).unwrap();
    assert_eq!(support::decide(&trusted, "shell", &make, &root), PermissionDecision::Allow);
}

#[test]
fn malformed_files_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\", 42]\n  }\n}\n");
    let files = vec![(Source::Project, path.clone())];
    let err = settings::policy_from_files(dir.path(), &files).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SettingsError::Invalid { line: 3, .. }), "{text}");
    assert!(text.starts_with(&format!("{}:3:", path.display())) && text.contains("permissions.allow[1]"), "{text}");
    write(&path, "{ \"permissions\": { \"defaultMode\": \"yolo\" } }");
    let text = settings::policy_from_files(dir.path(), &files).unwrap_err().to_string();
    assert!(text.contains("permissions.defaultMode") && text.contains("yolo"), "{text}");
    write(&path, "{ \"permissions\": ");
    assert!(settings::policy_from_files(dir.path(), &files).unwrap_err().to_string().contains("EOF"));
    // A malformed rule is a warning naming the rule and the file; the others apply.
    write(&path, r#"{ "permissions": { "allow": ["Bash(ls", "mcp__*", "Bash(pwd)"] } }"#);
    let policy = settings::policy_from_files_with(dir.path(), &files, Trust::Trusted).unwrap();
    assert_eq!(policy.warnings().len(), 2, "{:?}", policy.warnings());
    assert!(policy.warnings().iter().all(|w| w.starts_with(&path.display().to_string())));
    assert!(policy.warnings()[0].contains("`Bash(ls`") && policy.warnings()[1].contains("`mcp__*`"));
}

/// A project with `private/key` and an empty `public/`; the directory lives as long as
/// the first value.
fn project_with_a_private_key() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("public")).unwrap();
    write(&root.join("private/key"), "k");
    (dir, root)
}

#[test]
fn symlinks_an_allow_needs_both_ends_a_deny_either() {
    let (_dir, root) = project_with_a_private_key();
    std::os::unix::fs::symlink(root.join("private/key"), root.join("public/key")).unwrap();
    fs::write(root.join("public/ok.txt"), "ok").unwrap();
    let edit = |policy: &RulePolicy, path: &str| support::decide(policy, "edit_file", &json!({"path": path}), &root);
    let allow = RulePolicy::new().allow("Edit(./public/**)");
    assert_eq!(edit(&allow, "public/ok.txt"), PermissionDecision::Allow);
    assert!(matches!(edit(&allow, "public/key"), PermissionDecision::Ask(_)), "the target is not allowed");
    let deny = RulePolicy::new().deny("Read(./private/**)");
    assert!(matches!(edit(&deny, "public/key"), PermissionDecision::Deny(_)), "the target is denied");
    let read = support::decide(&deny, "read_file", &json!({"path": "public/key"}), &root);
    assert!(matches!(read, PermissionDecision::Deny(_)));
}

#[test]
fn shell_commands_are_followed_through_symlinked_directories() {
    let (_dir, root) = project_with_a_private_key();
    fs::write(root.join("public/readme"), "r").unwrap();
    // `docs` is the private directory under another name; `public/key` is its key.
    std::os::unix::fs::symlink(root.join("private"), root.join("docs")).unwrap();
    std::os::unix::fs::symlink("../private/key", root.join("public/key")).unwrap();
    let policy = RulePolicy::new().deny("Read(./private/**)");
    let run = |command: &str| support::decide(&policy, "shell", &json!({ "command": command }), &root);
    let denied = |command: &str| matches!(run(command), PermissionDecision::Deny(_));
    for command in [
        "cat docs/key",
        "cd docs && cat key",
        "cd docs",
        "ls docs",
        "grep -r k docs",
        "cat public/key",
        "cat public/../docs/key",
        "echo x > docs/new.txt",
        "cd public && cat key",
        "cd public && cat ../docs/key",
    ] {
        assert!(denied(command), "{command}: {:?}", run(command));
    }
    for command in ["cat public/readme", "cd public && cat readme", "ls public", "cat docs-old/key"] {
        assert_eq!(run(command), PermissionDecision::Allow, "{command}");
    }
    // A file tool writing a new file below a symlinked directory writes into its target.
    let write = support::decide(&policy, "write_file", &json!({"path": "docs/new.txt", "content": "x"}), &root);
    assert!(matches!(write, PermissionDecision::Deny(_)), "{write:?}");
}

/// Says "always allow" and counts the questions.
struct AlwaysYes(Arc<AtomicUsize>);

impl Approver for AlwaysYes {
    fn approve<'a>(&'a self, _request: &'a PermissionRequest<'a>, _question: &'a str) -> BoxFuture<'a, Approval> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Approval::AlwaysAllow })
    }
}

#[tokio::test]
async fn with_managed_rules_only_always_allow_saves_no_rule() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let managed = root.join("managed.json");
    write(&managed, r#"{"allowManagedPermissionRulesOnly": true}"#);
    let policy = settings::policy_from_files_with(&root, &[(Source::Managed, managed)], Trust::Trusted).unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let executor =
        toolwright_core::Executor::builder(registry).policy(policy).approver(AlwaysYes(asked.clone())).build();
    let turn = toolwright_core::TurnContext::new(&root).with_extensions(toolwright_builtin::session());
    let call = ToolCall::new("c", "shell", json!({"command": "touch made"}).to_string());
    let result = executor.execute(&call, &turn).await;
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(!settings::local_settings_path(&root).exists(), "an always-allow rule was saved");
}

#[tokio::test]
async fn always_allow_saves_one_rule_per_subcommand_and_never_asks_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let local = settings::local_settings_path(&root);
    let policy = RulePolicy::new().with_local_settings(&local).with_read_only_shell_auto_allow(false);
    let asked = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let executor =
        toolwright_core::Executor::builder(registry).policy(policy).approver(AlwaysYes(asked.clone())).build();
    let turn = toolwright_core::TurnContext::new(&root).with_extensions(toolwright_builtin::session());
    let run = |command: &str| ToolCall::new("c", "shell", json!({"command": command}).to_string());
    let first = executor.execute(&run("echo one && echo two | wc -l"), &turn).await;
    assert!(first.error.is_none(), "{}", first.output.text_content());
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // The same parts again, in another order: not asked.
    executor.execute(&run("echo two | wc -l; echo one"), &turn).await;
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // Something new is asked about: "always" was about those commands, not the tool.
    executor.execute(&run("echo three"), &turn).await;
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    let saved: serde_json::Value = serde_json::from_str(&fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(
        saved["permissions"]["allow"],
        json!(["Bash(echo one)", "Bash(echo two)", "Bash(wc -l)", "Bash(echo three)"])
    );
    // A new session from the saved file does not ask either.
    let files = vec![(Source::Local, local.clone())];
    let reloaded = settings::policy_from_files(&root, &files).unwrap().with_read_only_shell_auto_allow(false);
    assert_eq!(support::decide(&reloaded, "shell", &json!({"command": "echo one"}), &root), PermissionDecision::Allow);
}
