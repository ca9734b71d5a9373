//! Deferred tools and the tool search, through the public API: deferral by
//! `#[tool(defer)]`, by a runtime tool's spec and by budget; a call to a tool not
//! loaded; a search that loads; the byte-stable prefix after a load; sessions that
//! do not share loads; Anthropic's native `defer_loading` rendering.
#![allow(missing_docs)]

use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::deferred::{Budget, Deferral, NativeSearch, TOOL_SEARCH, ToolSession};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Defer, Extensions, InputError, PreparedCall, Profile, Provider, ToolPool, ToolSpec};

/// Convert an amount between two currencies at today's exchange rate.
#[tool(read_only, pure, defer)]
pub struct ConvertCurrency {
    /// How much.
    pub amount: f64,
    /// ISO code of the currency it is in.
    pub from: String,
    /// ISO code of the currency wanted.
    pub to: String,
}

impl Tool for ConvertCurrency {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} {} in {}", self.amount, self.from, self.to))
    }
}

/// A runtime tool, like a mounted MCP server's.
struct Remote(ToolSpec);

impl DynTool for Remote {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string", "description": "what to look for"}}})
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        Ok(Box::new(Answer(self.0.name.to_string())))
    }
}

struct Answer(String);

impl PreparedCall for Answer {
    fn flags(&self) -> toolwright::Flags {
        toolwright::Flags { read_only: true, ..toolwright::Flags::NONE }
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn access(&self) -> toolwright::access::Accesses {
        toolwright::access::Accesses::none()
    }
    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> toolwright::BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::text(format!("{} ran", self.0))) })
    }
}

fn remote(name: &str, description: &str, defer: Defer) -> Arc<dyn DynTool> {
    let mut spec = ToolSpec::runtime(name.to_owned(), description.to_owned(), "test");
    spec.defer = defer;
    Arc::new(Remote(spec))
}

/// The facade's registry plus the search tool and `extra` runtime tools.
fn registry_with(extra: Vec<Arc<dyn DynTool>>, session: &ToolSession) -> Arc<Registry> {
    let registry = toolwright::registry().unwrap();
    for tool in extra {
        registry.register(tool).unwrap();
    }
    session.install(&registry).unwrap();
    Arc::new(registry)
}

fn turn(session: &ToolSession, provider: Provider) -> TurnContext {
    let mut extensions = Extensions::new();
    extensions.insert(session.clone());
    TurnContext::new(".").with_extensions(extensions).with_provider(provider)
}

const ANTHROPIC: Provider = Provider::Anthropic { strict: false, cache_control: false };

fn run(executor: &Executor, pool: &ToolPool, turn: &TurnContext, name: &str, input: Value) -> ToolResult {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(executor.execute_in(pool, &ToolCall::new("c1", name, input.to_string()), turn))
}

fn names(definitions: &Value) -> Vec<String> {
    definitions.as_array().unwrap().iter().map(|d| d["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_deferred_tool_is_found_loaded_and_appended_after_what_was_sent() {
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    let registry = registry_with(
        vec![
            remote("mcp__weather__get_forecast", "Get the weather forecast for a city.", Defer::Always),
            remote("mcp__weather__get_alerts", "Severe weather alerts for a US state.", Defer::Always),
            remote("mcp__github__create_issue", "Open a new issue in a GitHub repository.", Defer::Always),
            remote("lookup", "An eager runtime tool.", Defer::Auto),
        ],
        &session,
    );
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let turn = turn(&session, ANTHROPIC);
    let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
    let deferred: Vec<&str> = pool.deferred_names().collect();
    assert_eq!(deferred.len(), 4, "the #[tool(defer)] tool and the three runtime ones: {deferred:?}");
    assert!(deferred.contains(&"convert_currency"));
    assert!(pool.contains("lookup") && pool.contains(TOOL_SEARCH) && pool.contains("read_file"));
    let before = pool.definitions(ANTHROPIC).unwrap();
    let sent = names(&before.to_value());
    assert!(!sent.iter().any(|n| n.contains("weather") || n == "convert_currency"), "{sent:?}");
    // The search tool says what can be found.
    let search = before.to_value().as_array().unwrap().iter().find(|d| d["name"] == TOOL_SEARCH).cloned().unwrap();
    let description = search["description"].as_str().unwrap();
    assert!(description.contains("- weather (2 tools)") && description.contains("- github (1 tool)"), "{description}");
    assert!(description.contains("4 deferred tools can be loaded"), "{description}");
    assert!(description.contains("Tools: create_issue."), "the names fit the budget: {description}");

    // Not loaded: an error that says how to get it.
    let result = run(&executor, &pool, &turn, "mcp__weather__get_forecast", json!({"query": "Paris"}));
    assert!(result.error.is_some());
    let text = result.output.text_content();
    assert!(text.contains("not loaded yet") && text.contains("select:mcp__weather__get_forecast"), "{text}");

    // A search loads the best matches, and says what they do.
    let result =
        run(&executor, &pool, &turn, TOOL_SEARCH, json!({"query": "will it rain in paris tomorrow", "limit": 1}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    let text = result.output.text_content();
    assert!(text.contains("- mcp__weather__get_forecast (server weather): Get the weather forecast"), "{text}");
    assert_eq!(session.loaded(), ["mcp__weather__get_forecast"]);
    // Callable at once, in the same turn's pool.
    let result = run(&executor, &pool, &turn, "mcp__weather__get_forecast", json!({"query": "Paris"}));
    assert!(result.error.is_none(), "{}", result.output.text_content());

    // The next pool sends it after everything sent before: the old bytes are a prefix.
    let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
    let after = pool.definitions(ANTHROPIC).unwrap();
    let old = before.as_str().strip_suffix(']').unwrap();
    assert!(after.as_str().starts_with(old), "the load changed what was sent before");
    assert_eq!(names(&after.to_value()).last().unwrap(), "mcp__weather__get_forecast");
    assert_eq!(pool.deferred_len(), 3);
    // select: loads by name; loading again is a no-op that keeps the order.
    let result = run(&executor, &pool, &turn, TOOL_SEARCH, json!({"query": "select:convert_currency,nope"}));
    let text = result.output.text_content();
    assert!(text.contains("convert_currency") && text.contains("No deferred tool is named nope"), "{text}");
    let result = run(&executor, &pool, &turn, TOOL_SEARCH, json!({"query": "regex", "regex": true}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
    let third = pool.definitions(ANTHROPIC).unwrap();
    assert!(third.as_str().starts_with(after.as_str().strip_suffix(']').unwrap()));
    let sent = names(&third.to_value());
    assert_eq!(&sent[sent.len() - 2..], ["mcp__weather__get_forecast", "convert_currency"]);
    assert_eq!(session.searches().len(), 3, "{:?}", session.searches());

    // Claude Code's field names: `max_results`; rules and hooks know it as ToolSearch.
    let result = run(&executor, &pool, &turn, TOOL_SEARCH, json!({"query": "weather", "max_results": 1}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert_eq!(session.loaded().len(), 3, "one more: {:?}", session.loaded());
    assert_eq!(registry.get(TOOL_SEARCH).unwrap().spec().rule_name.as_deref(), Some("ToolSearch"));
    // Shown to a Claude-trained model as Claude Code's tool, fields included, and
    // called by that name.
    let claude = registry.pool(&turn, &Profile::claude_code(), &[]);
    let shown = claude.definitions(ANTHROPIC).unwrap().to_value();
    let search = shown.as_array().unwrap().iter().find(|d| d["name"] == "ToolSearch").expect("shown as ToolSearch");
    assert!(search["input_schema"]["properties"]["max_results"].is_object(), "{search}");
    assert!(search["description"].as_str().unwrap().contains("deferred tools can be loaded"), "{search}");
    let result = run(&executor, &claude, &turn, "ToolSearch", json!({"query": "github issue", "max_results": 1}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert!(session.loaded().iter().any(|n| n == "mcp__github__create_issue"), "{:?}", session.loaded());
}

#[test]
fn a_deferred_tools_title_is_searched() {
    // A mounted MCP tool's `title` is in its spec; the session's index reads it.
    let session = ToolSession::new(Deferral::default());
    let mut spec =
        ToolSpec::runtime("mcp__cal__insert".to_owned(), "Insert into the primary store.".to_owned(), "test");
    spec.defer = Defer::Always;
    spec.title = Some("Create Calendar Event".into());
    let registry = registry_with(
        vec![Arc::new(Remote(spec)), remote("mcp__cal__put", "Put an object into the store.", Defer::Always)],
        &session,
    );
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let turn = turn(&session, ANTHROPIC);
    let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
    let result = run(&executor, &pool, &turn, TOOL_SEARCH, json!({"query": "calendar event", "limit": 1}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert_eq!(session.loaded(), ["mcp__cal__insert"]);
}

#[test]
fn loads_belong_to_their_session() {
    let first = ToolSession::new(Deferral::default());
    let registry = registry_with(vec![remote("mcp__db__run_query", "Run a SQL query.", Defer::Always)], &first);
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let first_turn = turn(&first, ANTHROPIC);
    let pool = registry.pool(&first_turn, &Profile::main_agent(), &[]);
    let result = run(&executor, &pool, &first_turn, TOOL_SEARCH, json!({"query": "sql query"}));
    assert!(result.output.text_content().contains("mcp__db__run_query"), "{}", result.output.text_content());
    assert!(registry.pool(&first_turn, &Profile::main_agent(), &[]).contains("mcp__db__run_query"));
    // A subagent's session and a second session start with nothing loaded.
    for other in [first.fork(), ToolSession::new(Deferral::default())] {
        let other_turn = turn(&other, ANTHROPIC);
        let pool = registry.pool(&other_turn, &Profile::subagent(), &[]);
        assert!(!pool.contains("mcp__db__run_query"));
        let result = run(&executor, &pool, &other_turn, "mcp__db__run_query", json!({}));
        assert!(result.output.text_content().contains("not loaded yet"), "{}", result.output.text_content());
    }
    assert_eq!(first.loaded(), ["mcp__db__run_query"]);

    // A bare-name deny pattern names a tool by its own name or Claude Code's.
    for denied in ["tool_search", "ToolSearch"] {
        let pool = registry.pool(&first_turn, &Profile::main_agent(), &[toolwright::ToolPattern::new(denied)]);
        assert!(!pool.contains(TOOL_SEARCH), "{denied}");
        // Nothing is held back where nothing could find it.
        assert_eq!(pool.deferred_len(), 0, "{denied}");
        assert!(pool.contains("mcp__db__run_query") && pool.contains("convert_currency"), "{denied}");
    }
}

#[test]
fn auto_tools_are_deferred_past_the_budget_and_only_then() {
    let many: Vec<Arc<dyn DynTool>> = (0..40)
        .map(|i| remote(&format!("mcp__big__tool_{i:02}"), &format!("Tool number {i} of a large server."), Defer::Auto))
        .collect();
    let small = ToolSession::new(Deferral::default().budget(Budget::Tokens(2_000)));
    let registry = registry_with(many, &small);
    let pool = registry.pool(&turn(&small, ANTHROPIC), &Profile::main_agent(), &[]);
    assert_eq!(pool.deferred_len(), 41, "runtime tools go past the budget (with the `defer` one); built-ins stay");
    assert!(pool.contains("read_file") && pool.contains(TOOL_SEARCH));
    let (sent, held) = pool.token_report(ANTHROPIC).unwrap();
    assert!(held > 0 && sent > 0, "{sent} {held}");

    let roomy = ToolSession::new(Deferral::default().budget(Budget::ShareOfContext { window: 1_000_000, percent: 50 }));
    let pool = registry.pool(&turn(&roomy, ANTHROPIC), &Profile::main_agent(), &[]);
    assert_eq!(pool.deferred_names().collect::<Vec<_>>(), ["convert_currency"], "under the budget only `defer` tools");
    assert!(pool.contains("mcp__big__tool_00") && pool.contains(TOOL_SEARCH));
    let never = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    let builtins = toolwright::builtin::register_all(Registry::builder()).build().unwrap();
    never.install(&builtins).unwrap();
    let pool = builtins.pool(&turn(&never, ANTHROPIC), &Profile::main_agent(), &[]);
    assert_eq!(pool.deferred_len(), 0);
    assert!(!pool.contains(TOOL_SEARCH), "nothing to search for: no search tool");
    // Without a session the registry behaves as before: no deferral, no search tool.
    let plain = registry.pool(&TurnContext::new("."), &Profile::main_agent(), &[]);
    assert!(plain.contains("mcp__big__tool_00"), "{plain:?}");
    assert!(plain.contains("convert_currency"), "{plain:?}");
    assert!(!plain.contains(TOOL_SEARCH), "{plain:?}");
}

#[test]
fn anthropic_native_search_sends_deferred_tools_with_defer_loading() {
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited).native_anthropic(NativeSearch::Regex));
    let registry = registry_with(vec![remote("mcp__weather__get_forecast", "Forecast.", Defer::Always)], &session);
    let turn = turn(&session, Provider::Anthropic { strict: false, cache_control: true });
    let pool = registry.pool(&turn, &Profile::main_agent(), &[]);
    let definitions = pool.definitions(Provider::Anthropic { strict: false, cache_control: true }).unwrap().to_value();
    let list = definitions.as_array().unwrap();
    // Anthropic's published shape: the search tool by type and name, deferred tools
    // with `defer_loading: true`, the rest unchanged; not toolwright's own search.
    assert_eq!(
        list.last().unwrap(),
        &json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );
    for tool in list.iter().filter(|t| t.get("input_schema").is_some()) {
        let deferred = matches!(tool["name"].as_str(), Some("mcp__weather__get_forecast" | "convert_currency"));
        assert_eq!(tool.get("defer_loading") == Some(&json!(true)), deferred, "{tool}");
        assert!(tool["description"].is_string());
    }
    assert!(!list.iter().any(|t| t["name"] == TOOL_SEARCH));
    let cached: Vec<&Value> = list.iter().filter(|t| t.get("cache_control").is_some()).collect();
    assert_eq!(cached.len(), 1);
    assert!(cached[0].get("defer_loading").is_none(), "the cache breakpoint is on the last tool sent up front");
    // The server loads them: a call is the model's to make.
    assert!(pool.callable("mcp__weather__get_forecast"));
    // Other providers get toolwright's own search.
    let openai =
        registry.pool(&self::turn(&session, Provider::OpenAiChat { strict: false }), &Profile::main_agent(), &[]);
    assert!(openai.contains(TOOL_SEARCH) && openai.needs_search("mcp__weather__get_forecast"));
}

/// A runtime tool whose description depends on the turn.
struct Local(ToolSpec);

impl DynTool for Local {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn description(&self, turn: &TurnContext) -> std::borrow::Cow<'_, str> {
        format!("List the files of the project at {}.", turn.cwd().display()).into()
    }
    fn is_enabled(&self, turn: &TurnContext) -> bool {
        turn.cwd() != std::path::Path::new("/srv/off")
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        Ok(Box::new(Answer(self.0.name.to_string())))
    }
}

fn description_of(pool: &ToolPool, name: &str) -> String {
    let definitions = pool.definitions(ANTHROPIC).unwrap().to_value();
    let tool = definitions.as_array().unwrap().iter().find(|d| d["name"] == name).cloned();
    tool.unwrap_or_else(|| panic!("{name} not sent: {definitions}"))["description"].as_str().unwrap().to_owned()
}

#[test]
fn the_session_follows_registry_changes_profiles_and_turns() {
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    let mut spec = ToolSpec::runtime("mcp__files__list_project".to_owned(), String::new(), "test");
    spec.defer = Defer::Always;
    let registry = registry_with(vec![Arc::new(Local(spec))], &session);
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let here = turn(&session, ANTHROPIC);
    let pool = registry.pool(&here, &Profile::main_agent(), &[]);
    assert_eq!(pool.deferred_len(), 2, "{:?}", pool.deferred_names().collect::<Vec<_>>());

    // A tool mounted after the first pool is deferred, found and loaded.
    registry.register(remote("mcp__mail__send_email", "Send an email message to a recipient.", Defer::Always)).unwrap();
    let pool = registry.pool(&here, &Profile::main_agent(), &[]);
    assert_eq!(pool.deferred_len(), 3);
    let result = run(&executor, &pool, &here, TOOL_SEARCH, json!({"query": "email someone", "limit": 1}));
    assert!(result.output.text_content().contains("mcp__mail__send_email"), "{}", result.output.text_content());
    let result = run(&executor, &pool, &here, "mcp__mail__send_email", json!({}));
    assert!(result.error.is_none(), "{}", result.output.text_content());

    // A loaded tool is asked for its description every turn.
    let result = run(&executor, &pool, &here, TOOL_SEARCH, json!({"query": "select:mcp__files__list_project"}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    let mut extensions = Extensions::new();
    extensions.insert(session.clone());
    let elsewhere = TurnContext::new("/srv/other").with_extensions(extensions).with_provider(ANTHROPIC);
    for (turn, want) in [(&here, "project at ."), (&elsewhere, "project at /srv/other")] {
        let pool = registry.pool(turn, &Profile::main_agent(), &[]);
        assert!(description_of(&pool, "mcp__files__list_project").contains(want));
        let sent: Vec<&str> = pool.names().collect();
        assert_eq!(&sent[sent.len() - 2..], ["mcp__mail__send_email", "mcp__files__list_project"]);
    }

    // A loaded tool not enabled in a turn is neither sent nor callable there.
    let mut extensions = Extensions::new();
    extensions.insert(session.clone());
    let off = TurnContext::new("/srv/off").with_extensions(extensions).with_provider(ANTHROPIC);
    let pool = registry.pool(&off, &Profile::main_agent(), &[]);
    assert!(!pool.contains("mcp__files__list_project") && !pool.callable("mcp__files__list_project"));
    assert!(!pool.needs_search("mcp__files__list_project"));
    assert!(!pool.deferred_names().any(|n| n == "mcp__files__list_project"));
    let result = run(&executor, &pool, &off, "mcp__files__list_project", json!({}));
    assert_eq!(result.error, Some(toolwright::ErrorKind::Denied), "{}", result.output.text_content());

    // Other profiles and deny rules of the same session split on their own.
    let plan = registry.pool(&here, &Profile::plan(), &[]);
    assert!(!plan.contains("mcp__mail__send_email") && !plan.callable("mcp__mail__send_email"), "{plan:?}");
    let denied = registry.pool(&here, &Profile::main_agent(), &[toolwright::ToolPattern::new("mcp__mail")]);
    assert!(!denied.contains("mcp__mail__send_email") && !denied.needs_search("mcp__mail__send_email"));
    assert!(denied.contains("mcp__files__list_project"));

    // An unmounted tool leaves the pool, loaded or not.
    assert!(registry.unregister("mcp__mail__send_email"));
    let pool = registry.pool(&here, &Profile::main_agent(), &[]);
    assert!(!pool.contains("mcp__mail__send_email") && !pool.callable("mcp__mail__send_email"));
    let result = run(&executor, &pool, &here, "mcp__mail__send_email", json!({}));
    assert!(result.output.text_content().contains("unknown tool"), "{}", result.output.text_content());
    assert_eq!(pool.names().last(), Some("mcp__files__list_project"));
}

/// The built-ins describe themselves in the words a model searches with: each plain
/// request finds its tool first.
#[test]
fn the_builtins_are_found_by_what_a_model_asks_for() {
    let registry = toolwright::registry().unwrap();
    let docs = registry.tools().into_iter().map(|t| {
        toolwright::deferred::SearchDocument::new(
            t.spec().name.to_string(),
            t.spec().description.to_string(),
            t.input_schema(),
        )
    });
    let index = toolwright::deferred::SearchIndex::new(docs.collect::<Vec<_>>());
    for (need, tool) in [
        ("search the code for a string", "grep"),
        ("search files for a regular expression", "grep"),
        // With a language server, the precise answer.
        ("find where a function is used", "lsp"),
        ("go to the definition of a class", "lsp"),
        ("find files named like test_*.py", "glob"),
        ("list the files in a folder", "list_dir"),
        ("read the source of a file", "read_file"),
        ("change a line in a file", "edit_file"),
        ("run the tests", "shell"),
        ("fetch a web page", "web_fetch"),
        ("create a new file", "write_file"),
        ("keep a to-do list of steps", "todo_write"),
        ("keep track of my plan", "todo_write"),
        ("show me what is in the config file", "read_file"),
        ("find all python files", "glob"),
        ("stop a background command", "shell_output"),
    ] {
        let found = index.search(need, 3);
        assert_eq!(found.first().map(|m| m.name.as_str()), Some(tool), "{need}: {found:?}");
    }
}
