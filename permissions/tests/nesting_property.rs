//! Property: wrapping a command in any compound structure never makes the decision
//! more permissive than the bare command's, in any mode. Deny stays deny; an ask rule's
//! question stays a question (or becomes a denial); only an allowed command may stay
//! allowed.
#![allow(missing_docs)]

mod support;

use proptest::prelude::*;
use std::path::Path;
use toolwright_core::permission::PermissionDecision;
use toolwright_permissions::{Effect, Mode, RulePolicy, Source};

const RULES: &[(&str, Effect)] =
    &[("Bash(npm test)", Effect::Allow), ("Bash(rm *)", Effect::Deny), ("Bash(git push *)", Effect::Ask)];

/// The bare commands: denied, asked by a rule, allowed by a rule, read-only, unknown to the rules.
const BARE: &[&str] = &["rm -rf build", "git push origin main", "npm test", "ls -la", "touch new.txt"];

fn policy(mode: Mode) -> RulePolicy {
    let mut policy = RulePolicy::new().with_mode(mode).with_project("/work/proj");
    for (rule, effect) in RULES {
        policy.add(rule, *effect, Source::Project).unwrap();
    }
    policy
}

/// How permissive a decision is: an allow is the most, a deny the least.
fn rank(decision: &PermissionDecision) -> u8 {
    match decision {
        PermissionDecision::Allow => 3,
        PermissionDecision::Ask(_) => 2,
        PermissionDecision::AskRule(_) => 1,
        PermissionDecision::Deny(_) => 0,
    }
}

/// One layer of shell structure around `inner`.
fn wrap(inner: &str, layer: u8) -> String {
    match layer % 22 {
        0 => format!("( {inner} )"),
        1 => format!("({inner})"),
        2 => format!("{{ {inner}; }}"),
        3 => format!("true && {inner}"),
        4 => format!("false || {inner}"),
        5 => format!("echo start; {inner}"),
        6 => format!("if true; then {inner}; fi"),
        7 => format!("if false; then :; else {inner}; fi"),
        8 => format!("while false; do :; done; {inner}"),
        9 => format!("for i in 1 2; do {inner}; done"),
        10 => format!("case x in x) {inner};; esac"),
        11 => format!("echo $({inner})"),
        12 => format!("cat <({inner})"),
        13 => format!("f() {{ {inner}; }}; f"),
        14 => format!("x=$({inner})"),
        15 => format!("{inner} | cat"),
        16 => format!("time {inner}"),
        17 => format!("! {inner}"),
        18 => format!("{inner} &"),
        19 => format!("until true; do :; done; {inner}"),
        20 => format!("(({inner}) )"),
        // Unescaped backquotes do not nest (bash runs nothing inside the inner pair).
        _ if inner.contains('`') => format!("echo $({inner})"),
        _ => format!("echo `{inner}`"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn wrapping_never_loosens_a_decision(bare in 0..BARE.len(), layers in prop::collection::vec(any::<u8>(), 1..6), mode in 0..5u8) {
        let mode = [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::DontAsk, Mode::BypassPermissions][mode as usize];
        let policy = policy(mode);
        let cwd = Path::new("/work/proj");
        let decide = |command: &str| support::decide(&policy, "shell", &serde_json::json!({ "command": command }), cwd);
        let command = BARE[bare];
        let mut wrapped = command.to_owned();
        for layer in &layers {
            wrapped = wrap(&wrapped, *layer);
        }
        let (alone, inside) = (decide(command), decide(&wrapped));
        prop_assert!(rank(&inside) <= rank(&alone), "`{}` is {:?} but `{}` is {:?} in {:?}", command, alone, wrapped, inside, mode);
    }
}
