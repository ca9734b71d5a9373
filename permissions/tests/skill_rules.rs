//! `Skill(name)` and `Skill(name *)` rules (Claude Code's skills documentation), and
//! a skill's `allowed-tools` granted for a while: only what the mode would ask.
#![allow(missing_docs)]

use serde_json::{Value, json};
use toolwright_core::access::{Access, Accesses, CommandLine};
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright_core::{Extensions, Flags};
use toolwright_permissions::grants::Grants;
use toolwright_permissions::rule::Source;
use toolwright_permissions::{Effect, RulePolicy};

fn request<'a>(
    tool: &'a str,
    rule_name: &'a str,
    input: &'a str,
    extensions: &'a Extensions,
    access: &'a Accesses,
) -> PermissionRequest<'a> {
    PermissionRequest {
        tool,
        rule_name: Some(rule_name),
        access,
        invoked_name: rule_name,
        call_id: "toolu_1",
        input,
        flags: Flags::NONE,
        cwd: std::path::Path::new("/tmp"),
        own_summary: None,
        extensions,
    }
}

fn skill_call(policy: &RulePolicy, input: Value) -> PermissionDecision {
    let (extensions, access) = (Extensions::new(), Accesses::undeclared());
    policy.check(&request("skill", "Skill", &input.to_string(), &extensions, &access))
}

#[test]
fn skill_rules_match_the_name_exactly_or_with_arguments() {
    let mut policy = RulePolicy::new();
    policy.add("Skill(commit)", Effect::Allow, Source::Session).unwrap();
    policy.add("Skill(review-pr *)", Effect::Allow, Source::Session).unwrap();
    policy.add("Skill(deploy)", Effect::Deny, Source::Session).unwrap();
    assert_eq!(skill_call(&policy, json!({"skill": "commit"})), PermissionDecision::Allow);
    assert_eq!(skill_call(&policy, json!({"skill": "/commit"})), PermissionDecision::Allow);
    assert!(matches!(skill_call(&policy, json!({"skill": "commit", "args": "-m x"})), PermissionDecision::Ask(_)));
    assert_eq!(skill_call(&policy, json!({"skill": "review-pr", "args": "123"})), PermissionDecision::Allow);
    assert!(matches!(skill_call(&policy, json!({"skill": "deploy"})), PermissionDecision::Deny(_)));
    assert!(matches!(skill_call(&policy, json!({"skill": "other"})), PermissionDecision::Ask(_)));
    // A bare `Skill` deny turns every skill off.
    let mut off = RulePolicy::new();
    off.add("Skill", Effect::Deny, Source::Session).unwrap();
    off.add("Skill(commit)", Effect::Allow, Source::Session).unwrap();
    assert!(matches!(skill_call(&off, json!({"skill": "commit"})), PermissionDecision::Deny(_)));
}

fn shell(policy: &RulePolicy, command: &str, extensions: &Extensions) -> PermissionDecision {
    let access = Accesses::of([Access::Command(CommandLine::new(command))]);
    let input = json!({ "command": command }).to_string();
    policy.check(&request("shell", "Bash", &input, extensions, &access))
}

#[test]
fn grants_answer_only_what_the_mode_would_ask() {
    let mut policy = RulePolicy::new();
    policy.add("Bash(git push:*)", Effect::Deny, Source::Session).unwrap();
    policy.add("Bash(git commit:*)", Effect::Ask, Source::Session).unwrap();
    let mut extensions = Extensions::new();
    assert!(matches!(shell(&policy, "git tag v1", &extensions), PermissionDecision::Ask(_)));
    extensions
        .insert(Grants::new("skill `release`", ["Bash(git tag:*)", "Bash(git push:*)", "Bash(git commit:*)"]).unwrap());
    assert_eq!(shell(&policy, "git tag v1", &extensions), PermissionDecision::Allow);
    assert!(matches!(shell(&policy, "git push origin", &extensions), PermissionDecision::Deny(_)));
    assert!(matches!(shell(&policy, "git commit -m x", &extensions), PermissionDecision::AskRule(_)));
    assert!(matches!(shell(&policy, "curl example.com", &extensions), PermissionDecision::Ask(_)));
}

#[test]
fn dont_ask_mode_denies_questions_for_the_user() {
    use toolwright_permissions::{Mode, ModeOverride};
    let policy = RulePolicy::new();
    let none = Accesses::none();
    let input = json!({"questions": []}).to_string();
    let mut extensions = Extensions::new();
    assert_eq!(
        policy.check(&request("ask_user", "AskUserQuestion", &input, &extensions, &none)),
        PermissionDecision::Allow
    );
    extensions.insert(ModeOverride(Mode::DontAsk));
    let decision = policy.check(&request("ask_user", "AskUserQuestion", &input, &extensions, &none));
    assert!(matches!(&decision, PermissionDecision::Deny(why) if why.contains("dontAsk")), "{decision:?}");
}

#[test]
fn a_grant_never_approves_a_plan() {
    use toolwright_permissions::{Mode, ModeOverride};
    let policy = RulePolicy::new();
    let undeclared = Accesses::undeclared();
    let mut extensions = Extensions::new();
    extensions.insert(ModeOverride(Mode::Plan));
    extensions.insert(Grants::new("skill `sneaky`", ["ExitPlanMode"]).unwrap());
    let decision = policy.check(&request("exit_plan_mode", "ExitPlanMode", "{}", &extensions, &undeclared));
    assert!(matches!(decision, PermissionDecision::Ask(_)), "{decision:?}");
}
