//! The property the subagent runtime rests on: for random rule sets, parent modes
//! and definitions, no call the parent would be denied is allowed in a child or a
//! grandchild. A child runs under the same rules with its own mode
//! ([`child_mode`], carried as a `ModeOverride`), so this checks the mode precedence
//! against the rule engine itself.
#![allow(missing_docs)]

use proptest::prelude::*;
use toolwright_agents::child_mode;
use toolwright_core::access::{Access, Accesses, CommandLine};
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright_core::{Extensions, Flags};
use toolwright_permissions::rule::Source;
use toolwright_permissions::{Effect, Mode, ModeOverride, RulePolicy};

const RULES: &[&str] = &[
    "Bash(rm *)",
    "Bash(git push *)",
    "Bash",
    "Edit(src/**)",
    "Edit",
    "Read(secrets/**)",
    "Read(~/.ssh/**)",
    "Write(*.lock)",
    "WebFetch(domain:example.com)",
    "Agent(Explore)",
    "Agent",
    "mcp__gh",
];

const MODES: &[Mode] = &[Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::DontAsk, Mode::BypassPermissions];

/// A call: the tool, its rule name, what it touches, its input, whether read-only.
fn calls() -> Vec<(&'static str, Option<&'static str>, Accesses, &'static str, bool)> {
    let cmd = |c: &str| Accesses::of([Access::Command(CommandLine::new(c))]);
    vec![
        ("shell", Some("Bash"), cmd("rm -rf build"), r#"{"command":"rm -rf build"}"#, false),
        ("shell", Some("Bash"), cmd("git push origin main"), r#"{"command":"git push origin main"}"#, false),
        ("shell", Some("Bash"), cmd("ls"), r#"{"command":"ls"}"#, true),
        (
            "edit_file",
            Some("Edit"),
            Accesses::of([Access::Write("src/main.rs".into())]),
            r#"{"path":"src/main.rs"}"#,
            false,
        ),
        (
            "write_file",
            Some("Write"),
            Accesses::of([Access::Write("Cargo.lock".into())]),
            r#"{"path":"Cargo.lock"}"#,
            false,
        ),
        (
            "write_file",
            Some("Write"),
            Accesses::of([Access::Write("/etc/passwd".into())]),
            r#"{"path":"/etc/passwd"}"#,
            false,
        ),
        (
            "read_file",
            Some("Read"),
            Accesses::of([Access::Read("secrets/key".into())]),
            r#"{"path":"secrets/key"}"#,
            true,
        ),
        ("read_file", Some("Read"), Accesses::of([Access::Read("README.md".into())]), r#"{"path":"README.md"}"#, true),
        (
            "web_fetch",
            Some("WebFetch"),
            Accesses::of([toolwright_core::access::fetch_of("https://example.com/x")]),
            r#"{"url":"https://example.com/x"}"#,
            true,
        ),
        ("agent", Some("Agent"), Accesses::none(), r#"{"prompt":"x","subagent_type":"Explore"}"#, false),
        ("agent", Some("Agent"), Accesses::none(), r#"{"prompt":"x"}"#, false),
        (
            "mcp__gh__create_issue",
            None,
            Accesses::of([Access::Mcp { server: "gh".into(), tool: "create_issue".into() }]),
            "{}",
            false,
        ),
        ("custom", None, Accesses::undeclared(), "{}", false),
    ]
}

fn decide(
    policy: &RulePolicy,
    mode: Option<Mode>,
    call: &(&str, Option<&str>, Accesses, &str, bool),
) -> PermissionDecision {
    let mut extensions = Extensions::new();
    if let Some(mode) = mode {
        extensions.insert(ModeOverride(mode));
    }
    let flags = Flags { read_only: call.4, ..Flags::NONE };
    let request = PermissionRequest {
        tool: call.0,
        rule_name: call.1,
        access: &call.2,
        invoked_name: call.0,
        call_id: "toolu_1",
        input: call.3,
        flags,
        cwd: std::path::Path::new("/work/project"),
        own_summary: None,
        extensions: &extensions,
    };
    policy.check(&request)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn nothing_the_parent_is_denied_runs_in_a_descendant(
        rules in proptest::collection::vec((0..RULES.len(), 0..3usize), 0..6),
        parent in 0..MODES.len(),
        child_def in proptest::option::of(0..MODES.len()),
        grandchild_def in proptest::option::of(0..MODES.len()),
        no_bypass in any::<bool>(),
    ) {
        let mut policy = RulePolicy::new().with_mode(MODES[parent]);
        if no_bypass {
            policy = policy.without_bypass();
        }
        for (rule, effect) in &rules {
            let effect = [Effect::Deny, Effect::Ask, Effect::Allow][*effect];
            // Some rules are not valid as allow rules; those are skipped, as settings would warn.
            let _ = policy.add(RULES[*rule], effect, Source::Session);
        }
        let parent_mode = policy.mode();
        let child = child_mode(parent_mode, child_def.map(|i| MODES[i]));
        let grandchild = child_mode(child, grandchild_def.map(|i| MODES[i]));
        for call in calls() {
            if let PermissionDecision::Deny(why) = decide(&policy, None, &call) {
                for (who, mode) in [("child", child), ("grandchild", grandchild)] {
                    let decision = decide(&policy, Some(mode), &call);
                    prop_assert!(
                        matches!(decision, PermissionDecision::Deny(_)),
                        "{} is denied to the parent ({:?}: {}) but the {} ({:?}) gets {:?}; rules {:?}",
                        call.0, parent_mode, why, who, mode, decision, rules
                    );
                }
            }
        }
    }
}
