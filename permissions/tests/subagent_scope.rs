//! What the rules and hooks make of a subagent's calls: its own permission mode under
//! the same rules, `Agent(type)` rules, and the agent's id and type in hook input.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::fs;
use std::sync::Arc;
use toolwright_core::access::Accesses;
use toolwright_core::permission::{Approval, PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright_core::{AgentScope, Executor, Extensions, Flags, SessionInfo, ToolCall, TurnContext};
use toolwright_permissions::hooks::CommandHooks;
use toolwright_permissions::rule::Source;
use toolwright_permissions::{Effect, Mode, ModeOverride, RulePolicy, StopVerdict, settings};

fn agent_request<'a>(input: &'a str, extensions: &'a Extensions, access: &'a Accesses) -> PermissionRequest<'a> {
    PermissionRequest {
        tool: "agent",
        rule_name: Some("Agent"),
        access,
        invoked_name: "Agent",
        call_id: "toolu_1",
        input,
        flags: Flags::NONE,
        cwd: std::path::Path::new("/"),
        own_summary: None,
        extensions,
    }
}

#[test]
fn agent_rules_match_the_agent_type_and_its_default() {
    let mut policy = RulePolicy::new();
    policy.add("Agent(Explore)", Effect::Deny, Source::Session).unwrap();
    policy.add("Task(general-*)", Effect::Ask, Source::Session).unwrap();
    let (extensions, none) = (Extensions::new(), Accesses::none());
    let decide = |input: Value| policy.check(&agent_request(&input.to_string(), &extensions, &none));
    assert!(matches!(decide(json!({"prompt": "x", "subagent_type": "Explore"})), PermissionDecision::Deny(_)));
    assert_eq!(decide(json!({"prompt": "x", "subagent_type": "reviewer"})), PermissionDecision::Allow);
    // No type is the general-purpose agent, which the ask rule names.
    assert!(matches!(decide(json!({"prompt": "x"})), PermissionDecision::AskRule(_)));
    // A bare `Agent` denies every start.
    let mut all = RulePolicy::new();
    all.add("Agent", Effect::Deny, Source::Session).unwrap();
    let input = json!({"prompt": "x", "subagent_type": "reviewer"}).to_string();
    assert!(matches!(all.check(&agent_request(&input, &extensions, &none)), PermissionDecision::Deny(_)));
}

/// Runs `write_file` of `name` in `dir` under `policy`, with `extensions`; whether it
/// ran and how many questions were asked.
async fn write(dir: &std::path::Path, policy: RulePolicy, extensions: Extensions, name: &str) -> (bool, usize) {
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let approver = move |_: &PermissionRequest<'_>, _: &str| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Approval::Unanswered("nobody here".into())
    };
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let executor = Executor::builder(registry).policy(policy).approver(approver).build();
    let turn = TurnContext::new(dir).with_extensions(extensions);
    let call = ToolCall::new("toolu_1", "write_file", json!({"path": name, "content": "x"}).to_string());
    let result = executor.execute(&call, &turn).await;
    (result.is_ok() && dir.join(name).exists(), asked.load(std::sync::atomic::Ordering::SeqCst))
}

fn with(mode: Mode) -> Extensions {
    let mut extensions = toolwright_builtin::session();
    extensions.insert(ModeOverride(mode));
    extensions
}

#[tokio::test]
async fn a_subagents_mode_applies_to_its_calls_under_the_same_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // The policy asks (default mode); a child in acceptEdits writes without asking.
    assert_eq!(write(&root, RulePolicy::new(), toolwright_builtin::session(), "a.txt").await, (false, 1));
    assert_eq!(write(&root, RulePolicy::new(), with(Mode::AcceptEdits), "b.txt").await, (true, 0));
    // A child in plan mode changes nothing, and is not asked.
    assert_eq!(write(&root, RulePolicy::new(), with(Mode::Plan), "c.txt").await, (false, 0));
    // A deny rule holds in every mode, bypassPermissions included.
    let mut denying = RulePolicy::new();
    denying.add("Edit(d.txt)", Effect::Deny, Source::Session).unwrap();
    assert_eq!(write(&root, denying, with(Mode::BypassPermissions), "d.txt").await, (false, 0));
    // bypassPermissions disabled by settings stays disabled for a child.
    let policy = RulePolicy::new().without_bypass();
    assert_eq!(policy.mode_for(&with(Mode::BypassPermissions)), Mode::Default);
    assert_eq!(
        write(&root, RulePolicy::new().without_bypass(), with(Mode::BypassPermissions), "e.txt").await,
        (false, 1)
    );
}

struct Setup {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Setup { _dir: dir, root }
    }

    /// A hook script that saves its stdin as `<name>.json` (appending one line per run) and prints `out`.
    fn saver(&self, name: &str, out: &str, code: i32) -> String {
        let path = self.root.join(format!("{name}.sh"));
        let saved = self.root.join(format!("{name}.json"));
        fs::write(
            &path,
            format!(
                "#!/bin/sh\ncat >> '{}'\necho >> '{}'\nprintf '%s' '{out}'\nexit {code}\n",
                saved.display(),
                saved.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    fn saved(&self, name: &str) -> Vec<Value> {
        fs::read_to_string(self.root.join(format!("{name}.json")))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn hooks(&self, hooks: Value) -> CommandHooks {
        let file = self.root.join(".claude/settings.json");
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(&file, json!({ "hooks": hooks }).to_string()).unwrap();
        let hooks = settings::hooks_from_files(&[(Source::Project, file)], settings::Trust::Trusted).unwrap();
        assert!(hooks.warnings().is_empty(), "{:?}", hooks.warnings());
        hooks
    }
}

fn group(matcher: &str, command: &str) -> Value {
    json!([{ "matcher": matcher, "hooks": [{ "type": "command", "command": command, "timeout": 5 }] }])
}

#[tokio::test]
async fn tool_hooks_inside_a_subagent_carry_its_id_and_type() {
    let s = Setup::new();
    let hooks = s.hooks(json!({ "PreToolUse": group("Read", &s.saver("pre", "", 0)) }));
    fs::write(s.root.join("a.txt"), "a").unwrap();
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let builder = Executor::builder(registry).policy(RulePolicy::new().with_mode(Mode::Plan));
    let executor = hooks.install(builder).build();
    let call = ToolCall::new("toolu_1", "read_file", json!({"path": "a.txt"}).to_string());
    // The main agent's call: no agent fields.
    executor.execute(&call, &TurnContext::new(&s.root)).await;
    let mut extensions = toolwright_builtin::session();
    extensions.insert(AgentScope::new("a1b2", "reviewer", None));
    extensions.insert(ModeOverride(Mode::AcceptEdits));
    executor.execute(&call, &TurnContext::new(&s.root).with_extensions(extensions)).await;
    let saved = s.saved("pre");
    assert_eq!(saved.len(), 2);
    assert!(saved[0].get("agent_id").is_none() && saved[0]["permission_mode"] == "plan", "{}", saved[0]);
    assert_eq!(saved[1]["agent_id"], "a1b2");
    assert_eq!(saved[1]["agent_type"], "reviewer");
    assert_eq!(saved[1]["permission_mode"], "acceptEdits", "the child's own mode");
}

#[tokio::test]
async fn subagent_start_and_stop_hooks_get_claude_codes_fields_and_decide() {
    let s = Setup::new();
    let start = s.saver(
        "start",
        r#"{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Follow the guide."}}"#,
        0,
    );
    let stop = s.saver("stop", r#"{"decision": "block", "reason": "Run the tests first."}"#, 0);
    let other = s.saver("other", "", 0);
    let hooks = s.hooks(json!({
        "SubagentStart": group("reviewer", &start),
        "SubagentStop": group("^rev.*$", &stop),
        "PreToolUse": group("", &other),
    }));
    let mut agent = AgentScope::new("a1b2", "reviewer", None);
    agent.transcript_path = Some(s.root.join("t/subagents/agent-a1b2.jsonl"));
    let session = SessionInfo::new().with_transcript(s.root.join("t.jsonl"));
    let added = hooks.subagent_start(&agent, Some(&session), &s.root, "default").await;
    assert_eq!(added, ["Follow the guide."]);
    let verdict = hooks.subagent_stop(&agent, Some(&session), &s.root, "default", false, "All done.").await;
    assert_eq!(verdict, StopVerdict::Continue { reason: "Run the tests first.".into() });
    let started = &s.saved("start")[0];
    for key in ["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "agent_id", "agent_type"]
    {
        assert!(started.get(key).is_some(), "SubagentStart lacks {key}: {started}");
    }
    assert_eq!(started["hook_event_name"], "SubagentStart");
    assert_eq!(started["session_id"], session.id.as_str());
    let stopped = &s.saved("stop")[0];
    assert_eq!(stopped["hook_event_name"], "SubagentStop");
    assert_eq!(stopped["stop_hook_active"], false);
    assert_eq!(stopped["last_assistant_message"], "All done.");
    assert!(stopped["agent_transcript_path"].as_str().unwrap().ends_with("subagents/agent-a1b2.jsonl"));
    assert_eq!(stopped["background_tasks"], json!([]));
    // The matcher is on the agent type: another type runs none of them.
    let other_agent = AgentScope::new("c3", "explorer", None);
    assert!(hooks.subagent_start(&other_agent, None, &s.root, "default").await.is_empty());
    assert_eq!(hooks.subagent_stop(&other_agent, None, &s.root, "default", true, "").await, StopVerdict::Finish);
    // Exit 2 keeps the child going with stderr as its instruction.
    let s2 = Setup::new();
    let path = s2.root.join("block.sh");
    fs::write(&path, "#!/bin/sh\ncat >/dev/null\necho 'Not yet.' >&2\nexit 2\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    let hooks = s2.hooks(json!({ "SubagentStop": group("", &path.display().to_string()) }));
    let verdict = hooks.subagent_stop(&agent, None, &s2.root, "default", true, "x").await;
    assert_eq!(verdict, StopVerdict::Continue { reason: "Not yet.".into() });
}
