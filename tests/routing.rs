//! Routing: the runtime overlay, owners, lazy tools, MCP names, per-turn descriptions.
#![allow(missing_docs)]

mod common;

use common::runtime_tool::Runtime;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{ErrorKind, Executor, LazyTool, Profile, RegistryError, ToolCall, ToolSpec, TurnContext};

/// Describes itself by the turn: it lists the agents the host configured.
#[tool(read_only, pure)]
pub struct Agent {
    /// The task.
    pub task: String,
}
pub struct Agents(Vec<&'static str>);
impl Tool for Agent {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.task)
    }
    fn description(turn: &TurnContext) -> std::borrow::Cow<'static, str> {
        match turn.extensions().get::<Agents>() {
            Some(a) => format!("Start a subagent. Available: {}.", a.0.join(", ")).into(),
            None => "Start a subagent.".into(),
        }
    }
    fn is_enabled(turn: &TurnContext) -> bool {
        turn.extensions().get::<Agents>().is_some_and(|a| !a.0.is_empty())
    }
}

fn registry() -> Registry {
    toolwright::registry().unwrap()
}

fn turn_with(agents: Vec<&'static str>) -> TurnContext {
    let mut ext = toolwright::Extensions::new();
    ext.insert(Agents(agents));
    TurnContext::new(".").with_extensions(ext)
}

#[tokio::test]
async fn runtime_tools_come_and_go_while_the_registry_is_in_use() {
    let registry = Arc::new(registry());
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let g0 = registry.generation();
    registry.register_owned("docs-server", Runtime::shared("search_docs")).unwrap();
    registry.register_owned("docs-server", Runtime::shared("fetch_doc")).unwrap();
    registry.register(Runtime::shared("standalone")).unwrap();
    assert!(registry.generation() > g0);
    let r = ex.execute(&ToolCall::new("1", "search_docs", r#"{"q":"x"}"#), &TurnContext::new(".")).await;
    assert_eq!(r.output.text_content(), r#"search_docs got {"q":"x"}"#);
    assert!(registry.names().ends_with(&["fetch_doc".into(), "search_docs".into(), "standalone".into()]));

    let err = registry.register(Runtime::shared("glob")).unwrap_err().to_string();
    assert!(
        err.contains("duplicate tool name `glob`: tool `glob` at ") && err.contains("and tool `glob` at test"),
        "{err}"
    );
    let err = registry.register(Runtime::shared("standalone")).unwrap_err();
    assert!(matches!(err, RegistryError::DuplicateNames(_)));
    assert!(matches!(registry.register(Runtime::shared("bad name")), Err(RegistryError::InvalidName { .. })));

    assert_eq!(registry.clear_owner("docs-server"), 2);
    assert!(!registry.contains("search_docs") && registry.contains("standalone"));
    let r = ex.execute(&ToolCall::new("2", "search_docs", "{}"), &TurnContext::new(".")).await;
    assert_eq!(r.error, Some(ErrorKind::UnknownTool));
    assert!(registry.unregister("standalone") && !registry.unregister("standalone"));
    assert!(!registry.unregister("glob"), "link-time tools stay");
    assert_eq!(registry.overlay_stats(), toolwright::OverlayStats { tools: 0, routes: 0, owners: 0, mcp_names: 0 });
}

#[tokio::test]
async fn mcp_tools_route_through_the_reverse_table() {
    let registry = Arc::new(registry());
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let name = registry.register_mcp("files.server", "read file", Runtime::shared).unwrap();
    assert_eq!(name, "mcp__files_server__read_file");
    assert_eq!(registry.mcp_original(&name), Some(("files.server".into(), "read file".into())));
    // A second original that sanitises to the same name gets its own, suffixed name.
    let other = registry.register_mcp("files server", "read.file", Runtime::shared).unwrap();
    assert_ne!(other, name);
    assert!(other.starts_with("mcp__files_server__read_file_") && other.len() <= 63);
    let r = ex.execute(&ToolCall::new("1", &other, "{}"), &TurnContext::new(".")).await;
    assert_eq!(r.output.text_content(), format!("{other} got {{}}"));
    // A near miss is not routed by prefix or substring.
    let r = ex.execute(&ToolCall::new("2", "mcp__files_server__read", "{}"), &TurnContext::new(".")).await;
    assert_eq!(r.error, Some(ErrorKind::UnknownTool));
    assert!(
        r.output.text_content().contains("did you mean `mcp__files_server__read_file`"),
        "{}",
        r.output.text_content()
    );
    // A builder that ignores the name it was given is refused.
    let err = registry.register_mcp("s", "t", |_| Runtime::shared("something_else")).unwrap_err();
    assert!(err.to_string().contains("must be registered as `mcp__s__t`"), "{err}");
    assert_eq!(registry.clear_owner("files.server") + registry.clear_owner("files server"), 2);
    assert_eq!(registry.overlay_stats().mcp_names, 0);
}

#[tokio::test]
async fn lazy_tools_are_created_once_on_first_use() {
    let registry = Arc::new(registry());
    let made = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&made);
    let lazy = Arc::new(LazyTool::new(
        ToolSpec::runtime("subagent_reviewer", "Review code.", "subagent"),
        serde_json::json!({"type": "object", "properties": {}}),
        Arc::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(Runtime::shared("subagent_reviewer"))
        }),
    ));
    registry.register_owned("subagents", lazy.clone()).unwrap();
    assert!(!lazy.is_created());
    assert!(
        registry.definitions(Provider::ANTHROPIC).unwrap().as_str().contains("subagent_reviewer"),
        "listed before creation"
    );
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    for id in ["1", "2", "3"] {
        assert!(ex.execute(&ToolCall::new(id, "subagent_reviewer", "{}"), &TurnContext::new(".")).await.is_ok());
    }
    assert_eq!(made.load(Ordering::SeqCst), 1);

    let failing = Arc::new(LazyTool::new(
        ToolSpec::runtime("flaky", "Flaky.", "subagent"),
        serde_json::json!({"type": "object"}),
        Arc::new(|| Err(ToolError::msg("the model endpoint refused"))),
    ));
    registry.register(failing).unwrap();
    let r = ex.execute(&ToolCall::new("4", "flaky", "{}"), &TurnContext::new(".")).await;
    assert_eq!(r.output.text_content(), "flaky: the tool could not be started: the model endpoint refused");
}

#[test]
fn definitions_follow_runtime_changes_and_turn_descriptions() {
    let registry = registry();
    let before = registry.definitions(Provider::Mcp).unwrap();
    registry.register(Runtime::shared("late")).unwrap();
    let after = registry.definitions(Provider::Mcp).unwrap();
    assert!(!before.as_str().contains("\"late\"") && after.as_str().contains("\"late\""));
    registry.unregister("late");
    assert_eq!(registry.definitions(Provider::Mcp).unwrap().as_str(), before.as_str());

    let two = registry.pool(&turn_with(vec!["reviewer", "tester"]), &Profile::main_agent(), &[]);
    let text = two.definitions(Provider::ANTHROPIC).unwrap();
    assert!(text.as_str().contains("Start a subagent. Available: reviewer, tester."));
    let same = registry.pool(&turn_with(vec!["reviewer", "tester"]), &Profile::main_agent(), &[]);
    assert_eq!(same.definitions(Provider::ANTHROPIC).unwrap().as_str().as_ptr(), text.as_str().as_ptr(), "cached");
    let one = registry.pool(&turn_with(vec!["reviewer"]), &Profile::main_agent(), &[]);
    assert!(one.definitions(Provider::ANTHROPIC).unwrap().as_str().contains("Available: reviewer."));
    let none = registry.pool(&turn_with(vec![]), &Profile::main_agent(), &[]);
    assert!(!none.contains("agent"), "is_enabled removes it");
    assert!(
        !registry.pool(&turn_with(vec!["r"]), &Profile::subagent(), &[]).contains("agent"),
        "subagents do not recurse"
    );
}

/// Edit a file (known to some models by an older name).
#[tool(aliases = ["str_replace"], advertised_aliases = ["str_replace_editor"])]
pub struct EditText {
    /// The path.
    pub path: String,
}
impl Tool for EditText {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} via {}", self.path, cx.invoked_name()))
    }
}

#[tokio::test]
async fn advertised_aliases_are_listed_and_hidden_ones_only_route() {
    let registry = Arc::new(registry());
    let tools = registry.definitions(Provider::OpenAiChat { strict: true }).unwrap().to_value();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    let at = names.iter().position(|n| *n == "edit_text").unwrap();
    assert_eq!(names[at + 1], "str_replace_editor", "the advertised alias follows its tool");
    assert!(!names.contains(&"str_replace"));
    assert_eq!(tools[at]["function"]["parameters"], tools[at + 1]["function"]["parameters"]);
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    for name in ["edit_text", "str_replace", "str_replace_editor"] {
        let r = ex.execute(&ToolCall::new("1", name, r#"{"path":"a"}"#), &TurnContext::new(".")).await;
        assert_eq!((&*r.tool, r.output.text_content()), ("edit_text", format!("a via {name}")));
    }
}

/// A Claude-trained model's calls: Claude Code's tool names and `file_path` reach the
/// built-ins, whose schemas still show only their own names.
#[tokio::test]
async fn claude_codes_tool_names_and_file_path_reach_the_builtins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let registry = std::sync::Arc::new(toolwright::registry().unwrap());
    let executor = toolwright::Executor::builder(std::sync::Arc::clone(&registry))
        .policy(toolwright::permission::AllowAll)
        .build();
    let turn = toolwright::TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let run = |id: &str, name: &str, input: serde_json::Value| {
        let call = toolwright::ToolCall::new(id, name, input.to_string());
        let executor = &executor;
        let turn = &turn;
        async move { executor.execute(&call, turn).await }
    };
    let read = run("1", "Read", serde_json::json!({"file_path": "a.txt"})).await;
    assert!(read.is_ok() && read.output.text_content().contains("two"), "{}", read.output.text_content());
    assert_eq!(&*read.tool, "read_file");
    let edit =
        run("2", "Edit", serde_json::json!({"file_path": "a.txt", "old_string": "two", "new_string": "2"})).await;
    assert!(edit.is_ok(), "{}", edit.output.text_content());
    let write = run("3", "Write", serde_json::json!({"file_path": "b.txt", "content": "x"})).await;
    assert!(write.is_ok(), "{}", write.output.text_content());
    assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n2\n");
    let bash = run("4", "Bash", serde_json::json!({"command": "cat b.txt", "description": "show"})).await;
    assert!(bash.is_ok() && bash.output.text_content().contains('x'), "{}", bash.output.text_content());
    // Both names given: `path` wins and the alias is named as unknown.
    let both = run("5", "Read", serde_json::json!({"file_path": "a.txt", "path": "a.txt"})).await;
    assert!(both.output.text_content().contains("unknown field `file_path`"), "{}", both.output.text_content());
    // The schema shows only `path`, and the aliases are hidden.
    let schema = registry.get("read_file").unwrap().input_schema();
    assert!(schema["properties"].get("file_path").is_none());
    let listed = registry.definitions(toolwright::provider::Api::Anthropic.provider()).unwrap().to_value();
    assert!(listed.as_array().unwrap().iter().all(|t| t["name"] != "Read"));
}

/// The rest of Claude Code's documented inputs, as its tools reference spells them:
/// Grep's `-o` and `context`, TodoWrite's items without ids and with `activeForm`,
/// LS's `ignore`, Bash's `dangerouslyDisableSandbox`, BashOutput's `bash_id` and
/// `filter`.
#[tokio::test]
async fn claude_codes_other_input_fields_work_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), "let x = 10;\nlet y = 200;\nnothing\n").unwrap();
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::fs::write(dir.path().join("logs/run.log"), "").unwrap();
    std::fs::write(dir.path().join("notes.md"), "").unwrap();
    let registry = std::sync::Arc::new(toolwright::registry().unwrap());
    let executor = toolwright::Executor::builder(std::sync::Arc::clone(&registry))
        .policy(toolwright::permission::AllowAll)
        .build();
    let turn = toolwright::TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let run = |name: &'static str, input: serde_json::Value| {
        let call = toolwright::ToolCall::new("1", name, input.to_string());
        let (executor, turn) = (&executor, &turn);
        async move {
            let result = executor.execute(&call, turn).await;
            (result.is_ok(), result.output.text_content())
        }
    };
    let grep = run("Grep", serde_json::json!({"pattern": "[0-9]+", "output_mode": "content", "-o": true})).await;
    assert_eq!(grep, (true, "a.rs:1:10\na.rs:2:200".to_owned()));
    let refused = run("Grep", serde_json::json!({"pattern": "x", "-o": true})).await;
    assert!(!refused.0 && refused.1.contains("`-o` needs `output_mode: \"content\"`"), "{}", refused.1);
    let context = run("Grep", serde_json::json!({"pattern": "y =", "output_mode": "content", "context": 1})).await;
    assert_eq!(context, (true, "a.rs-1-let x = 10;\na.rs:2:let y = 200;\na.rs-3-nothing".to_owned()));

    let todos = run(
        "TodoWrite",
        serde_json::json!({"todos": [
            {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
            {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"}
        ]}),
    )
    .await;
    assert_eq!(
        todos,
        (true, "Todo list (1/2 done):\n[x] Read the code (1)\n[~] Fix the bug (2): Fixing the bug".to_owned())
    );

    let ls = run("LS", serde_json::json!({"path": dir.path(), "ignore": ["*.log", "notes.md"]})).await;
    assert!(ls.0 && ls.1.contains("a.rs") && ls.1.contains("logs/"), "{}", ls.1);
    assert!(!ls.1.contains("run.log") && !ls.1.contains("notes.md"), "{}", ls.1);
    let bad = run("LS", serde_json::json!({"ignore": ["a{"]})).await;
    assert!(!bad.0 && bad.1.contains("`ignore`: invalid glob `a{`"), "{}", bad.1);

    let bash = run(
        "Bash",
        serde_json::json!({"command": "printf 'keep 1\\ndrop\\nkeep 2\\n'", "run_in_background": true, "dangerouslyDisableSandbox": false}),
    )
    .await;
    assert!(bash.0, "{}", bash.1);
    let id = bash.1.split('`').nth(1).expect("a handle in backquotes").to_owned();
    let mut output = String::new();
    for _ in 0..200 {
        let (ok, text) = run("BashOutput", serde_json::json!({"bash_id": id, "filter": "^keep"})).await;
        assert!(ok, "{text}");
        output.push_str(&text);
        output.push('\n');
        if text.contains("exited") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // (The header names the command, `drop` and all: the output lines are what count.)
    let lines: Vec<&str> = output.lines().filter(|l| !l.starts_with('`') && *l != "(no new output)").collect();
    assert_eq!(lines, ["keep 1", "keep 2"], "{output}");
}

/// `Profile::claude_code()` shows the built-ins as Claude Code does (its tool
/// names, `file_path`), for every provider, and the calls a Claude-trained model
/// makes from that list run in that pool.
#[tokio::test]
async fn a_claude_code_profile_shows_the_builtins_under_claude_codes_names() {
    use toolwright::{Profile, Provider};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let registry = std::sync::Arc::new(toolwright::registry().unwrap());
    let turn = toolwright::TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let pool = registry.pool(&turn, &Profile::claude_code(), &[]);
    let listed = pool.definitions(toolwright::provider::Api::Anthropic.provider()).unwrap().to_value();
    let names: Vec<&str> = listed.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in
        ["Bash", "BashOutput", "Edit", "Glob", "Grep", "LS", "MultiEdit", "Read", "TodoWrite", "WebFetch", "Write"]
    {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // replace_in_file answers to no Claude Code name: it keeps its own.
    assert!(names.contains(&"replace_in_file") && !names.contains(&"read_file"), "{names:?}");
    let read = listed.as_array().unwrap().iter().find(|t| t["name"] == "Read").unwrap();
    let schema = &read["input_schema"];
    assert_eq!(schema["required"], serde_json::json!(["file_path"]));
    let fields: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(fields, ["file_path", "offset", "limit", "pages"]);
    // Every provider's list renders, and the strict ones keep the renamed fields.
    for provider in Provider::ALL {
        let text = pool.definitions(provider).unwrap().as_str().to_owned();
        assert!(text.contains("\"file_path\"") && !text.contains("\"read_file\""), "{provider}");
    }
    // The default profile is unchanged.
    let own = registry.pool(&turn, &Profile::main_agent(), &[]);
    let own = own.definitions(toolwright::provider::Api::Anthropic.provider()).unwrap().as_str().to_owned();
    assert!(own.contains("\"read_file\"") && !own.contains("\"file_path\""));

    let executor = toolwright::Executor::builder(std::sync::Arc::clone(&registry))
        .policy(toolwright::permission::AllowAll)
        .build();
    let call = toolwright::ToolCall::new("1", "Read", r#"{"file_path":"a.txt"}"#);
    let result = executor.execute_in(&pool, &call, &turn).await;
    assert!(result.is_ok() && result.output.text_content().contains("one"), "{}", result.output.text_content());
}
