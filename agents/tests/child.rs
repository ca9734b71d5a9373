//! A child can only have less: for random parent profiles, definitions, depths and
//! modes, no tool the parent is not offered is offered to a child (or a grandchild),
//! the tools a subagent never gets are never offered, the agent tools stop at the
//! depth limit, and a background child has only the background set.
#![allow(missing_docs)]

use proptest::prelude::*;
use std::borrow::Cow;
use toolwright_agents::{AGENT_TOOLS, AgentDefinition, BACKGROUND_TOOLS, NEVER_FOR_SUBAGENTS, Spawn, child_mode};
use toolwright_core::{Profile, ToolPattern, ToolSpec};
use toolwright_permissions::Mode;

/// Tools as a registry has them: toolwright's names with Claude Code's rule names,
/// Claude Code's own, MCP tools.
fn universe() -> Vec<ToolSpec> {
    let tools: &[(&str, Option<&str>)] = &[
        ("read_file", Some("Read")),
        ("edit_file", Some("Edit")),
        ("write_file", Some("Write")),
        ("shell", Some("Bash")),
        ("grep", Some("Grep")),
        ("glob", Some("Glob")),
        ("list_dir", Some("LS")),
        ("web_fetch", Some("WebFetch")),
        ("agent", Some("Agent")),
        ("task", None),
        ("AskUserQuestion", None),
        ("ExitPlanMode", None),
        ("TaskOutput", None),
        ("mcp__gh__create_issue", None),
        ("mcp__db__query", None),
        ("use_subagent_reviewer", None),
    ];
    tools
        .iter()
        .map(|(name, rule)| {
            let mut spec = ToolSpec::runtime(*name, "t", "test");
            spec.rule_name = rule.map(Cow::Borrowed);
            spec
        })
        .collect()
}

/// Patterns a rule or a definition may name.
const PATTERNS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "Bash",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "Agent",
    "Task",
    "read_file",
    "shell",
    "agent",
    "task",
    "mcp__gh",
    "mcp__*",
    "mcp__db__query",
    "use_subagent_*",
    "AskUserQuestion",
    "TaskOutput",
    "*",
];

fn patterns() -> impl Strategy<Value = Vec<String>> {
    proptest::sample::subsequence(PATTERNS, 0..6).prop_map(|p| p.into_iter().map(str::to_owned).collect())
}

fn profile(name: &'static str) -> impl Strategy<Value = Profile> {
    (proptest::option::of(patterns()), patterns()).prop_map(move |(allow, deny)| {
        let mut profile = Profile::new(name);
        if let Some(allow) = allow {
            profile = profile.allow(allow);
        }
        profile.deny(deny)
    })
}

fn definition() -> impl Strategy<Value = AgentDefinition> {
    (proptest::option::of(patterns()), patterns(), any::<bool>()).prop_map(|(tools, disallowed, background)| {
        let mut definition =
            AgentDefinition::new("child", "a child", "prompt").unwrap().with_disallowed_tools(disallowed);
        if let Some(tools) = tools {
            definition = definition.with_tools(tools);
        }
        if background {
            definition = definition.in_background();
        }
        definition
    })
}

fn matches_any(list: &[&str], spec: &ToolSpec) -> bool {
    list.iter().any(|p| {
        let p = ToolPattern::new(*p);
        p.matches(&spec.name) || spec.rule_name.as_deref().is_some_and(|r| p.matches(r))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_child_never_has_more_than_its_parent(
        parent in profile("parent"),
        child in definition(),
        grandchild in definition(),
        depth in 1usize..5,
        max_depth in 1usize..4,
        background in any::<bool>(),
    ) {
        let mut spawn = Spawn::at_depth(depth).max_depth(max_depth);
        if background {
            spawn = spawn.in_background();
        }
        let child_profile = child.profile(&parent, spawn);
        let grandchild_profile = grandchild.profile(&child_profile, Spawn::at_depth(depth + 1).max_depth(max_depth));
        for spec in universe() {
            for (who, profile) in [("child", &child_profile), ("grandchild", &grandchild_profile)] {
                if !profile.admits_tool(&spec) {
                    continue;
                }
                prop_assert!(parent.admits_tool(&spec), "{who} has {} which the parent has not", spec.name);
                prop_assert!(!matches_any(NEVER_FOR_SUBAGENTS, &spec), "{who} has {}", spec.name);
                if let Some(tools) = &child.tools {
                    let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
                    prop_assert!(matches_any(&tools, &spec), "{who} has {} outside the definition's tools", spec.name);
                }
                let disallowed: Vec<&str> = child.disallowed_tools.iter().map(String::as_str).collect();
                prop_assert!(!matches_any(&disallowed, &spec), "{who} has the disallowed {}", spec.name);
                if background || child.background {
                    prop_assert!(matches_any(BACKGROUND_TOOLS, &spec), "a background {who} has {}", spec.name);
                }
            }
            if depth >= max_depth {
                prop_assert!(!(child_profile.admits_tool(&spec) && matches_any(AGENT_TOOLS, &spec)),
                    "a child at the depth limit may start agents: {}", spec.name);
            }
            if depth + 1 >= max_depth {
                prop_assert!(!(grandchild_profile.admits_tool(&spec) && matches_any(AGENT_TOOLS, &spec)),
                    "a grandchild at the depth limit may start agents: {}", spec.name);
            }
        }
    }
}

#[test]
fn definitions_name_tools_as_claude_code_does() {
    let spec = |name: &str, rule: Option<&'static str>| {
        let mut spec = ToolSpec::runtime(name.to_owned(), "t", "test");
        spec.rule_name = rule.map(Cow::Borrowed);
        spec
    };
    let reviewer = AgentDefinition::new("reviewer", "d", "p").unwrap().with_tools(["Read", "Grep", "mcp__gh"]);
    let profile = reviewer.profile(&Profile::main_agent(), Spawn::at_depth(1));
    assert!(profile.admits_tool(&spec("read_file", Some("Read"))));
    assert!(profile.admits_tool(&spec("mcp__gh__create_issue", None)));
    assert!(!profile.admits_tool(&spec("shell", Some("Bash"))));
    assert!(!profile.admits_tool(&spec("mcp__db__query", None)));
    // Inheriting everything still leaves out what a subagent never gets, and the
    // agent tools at the depth limit only.
    let worker = AgentDefinition::new("worker", "d", "p").unwrap();
    let shallow = worker.profile(&Profile::main_agent(), Spawn::at_depth(1));
    assert!(shallow.admits_tool(&spec("agent", Some("Agent"))) && !shallow.admits_tool(&spec("AskUserQuestion", None)));
    let deep = worker.profile(&Profile::main_agent(), Spawn::at_depth(3));
    assert!(!deep.admits_tool(&spec("agent", Some("Agent"))) && !deep.admits_tool(&spec("use_subagent_x", None)));
    let background = worker.profile(&Profile::main_agent(), Spawn::at_depth(1).in_background());
    assert!(
        background.admits_tool(&spec("shell", Some("Bash"))) && !background.admits_tool(&spec("agent", Some("Agent")))
    );
    // Code intelligence is for the foreground: a background child has no LSP.
    assert!(shallow.admits_tool(&spec("lsp", Some("LSP"))) && !background.admits_tool(&spec("lsp", Some("LSP"))));
}

#[test]
fn the_mode_follows_claude_codes_precedence() {
    assert_eq!(child_mode(Mode::Default, None), Mode::Default);
    assert_eq!(child_mode(Mode::Default, Some(Mode::Plan)), Mode::Plan);
    // A dontAsk parent's child is denied what would ask, as its parent is (the
    // property in no_escalation.rs).
    assert_eq!(child_mode(Mode::DontAsk, Some(Mode::AcceptEdits)), Mode::DontAsk);
    // These parents keep their own mode.
    assert_eq!(child_mode(Mode::BypassPermissions, Some(Mode::Plan)), Mode::BypassPermissions);
    assert_eq!(child_mode(Mode::AcceptEdits, Some(Mode::Default)), Mode::AcceptEdits);
    // A planning parent's child changes no files either.
    assert_eq!(child_mode(Mode::Plan, Some(Mode::AcceptEdits)), Mode::Plan);
}

#[test]
fn a_subagent_in_plan_mode_keeps_exit_plan_mode_and_nothing_else_of_the_never_list() {
    let parent = Profile::new("main");
    let mut planner = AgentDefinition::new("planner", "Plans", "You plan.").unwrap();
    planner.permission_mode = Some(Mode::Plan);
    let profile = planner.profile(&parent, Spawn::at_depth(1));
    assert!(profile.admits_name("ExitPlanMode") && profile.admits_name("exit_plan_mode"));
    for name in ["AskUserQuestion", "ask_user", "EnterPlanMode", "enter_plan_mode"] {
        assert!(!profile.admits_name(name), "{name}");
    }
    let other = AgentDefinition::new("coder", "Codes", "You code.").unwrap().profile(&parent, Spawn::at_depth(1));
    assert!(!other.admits_name("ExitPlanMode") && !other.admits_name("exit_plan_mode"));
}
