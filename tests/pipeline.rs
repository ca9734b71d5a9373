//! The execution pipeline: one result per call, whatever happens.
#![allow(missing_docs)]

use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolwright::hooks::{HookCall, HookPermission, PostToolHook, PostToolOutcome, PreToolHook, PreToolOutcome};
use toolwright::permission::{AllowAll, Approval, Approver, PermissionDecision, PermissionRequest};
use toolwright::prelude::*;
use toolwright::{
    BoxFuture, ErrorKind, Executor, Extensions, OutputLimit, Profile, ProgressSink, ToolCall, ToolPattern, ToolResult,
    TurnContext,
};

/// Echo text back, with the name it was called by.
#[tool(read_only, pure, concurrency_safe, aliases = ["say"])]
pub struct Echo {
    /// The text.
    pub text: String,
}
impl Tool for Echo {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{} (called as {})", self.text, cx.invoked_name()))
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.text == "forbidden" { Err(ToolError::msg("`text` may not be `forbidden`")) } else { Ok(()) }
    }
    fn summary(&self) -> Option<String> {
        Some(format!("echo {:?}", self.text))
    }
}

/// Write a note (not read-only, so the default policy asks).
#[tool]
pub struct WriteNote {
    /// The note.
    pub note: String,
}
impl Tool for WriteNote {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("wrote {}", self.note))
    }
}

/// Sleep, ignoring cancellation.
#[tool(read_only, pure, timeout_secs = 1)]
pub struct Nap {
    /// Milliseconds.
    pub ms: u64,
}
impl Tool for Nap {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        Ok("rested".into())
    }
}

/// Misbehave on purpose.
#[tool(read_only, pure)]
pub struct Misbehave {
    /// `panic`, `panic_early`, `panic_validate`, `fail`, `error_output` or `big`.
    pub how: String,
}
impl Tool for Misbehave {
    type Output = ToolOutput;
    // A plain `fn` returning a future, as the trait allows: what runs before the
    // future is built is the tool's code too.
    fn call(self, _cx: &ToolContext) -> impl std::future::Future<Output = Result<ToolOutput, ToolError>> + Send {
        if self.how == "panic_early" {
            panic!("boom before the future");
        }
        async move {
            match self.how.as_str() {
                "panic" => panic!("boom at call"),
                "fail" => Err(ToolError::msg("the disk is full")),
                "error_output" => Ok(ToolOutput::error("reported failure")),
                "big" => Ok(ToolOutput::text((0..20_000).map(|i| format!("line {i}\n")).collect::<String>())),
                _ => Ok(ToolOutput::text("fine")),
            }
        }
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.how == "panic_validate" {
            panic!("boom at validate");
        }
        Ok(())
    }
}

/// Count calls in a shared counter, reporting progress.
#[tool(read_only, pure)]
pub struct Count {}
pub struct Counter(AtomicUsize);
impl Tool for Count {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let counter = cx.extension::<Counter>().ok_or_else(|| ToolError::msg("no counter"))?;
        let n = counter.0.fetch_add(1, Ordering::SeqCst) + 1;
        cx.progress(toolwright::Progress::fraction("counting", 1.0, 2.0));
        cx.progress("done");
        Ok(n.to_string())
    }
}

/// Wait until cancelled.
#[tool(read_only, pure)]
pub struct Wait {}
impl Tool for Wait {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        cx.cancellation().cancelled().await;
        Err(ToolError::Cancelled)
    }
}

/// A name that merely contains the MCP prefix.
#[tool(name = "not_mcp__really", read_only, pure)]
pub struct NotMcp {}
impl Tool for NotMcp {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("built-in")
    }
}

fn registry() -> Arc<Registry> {
    Arc::new(toolwright::registry().unwrap())
}

fn turn() -> TurnContext {
    TurnContext::new(std::env::temp_dir())
}

async fn run(executor: &Executor, name: &str, input: &str) -> ToolResult {
    executor.execute(&ToolCall::new("call_1", name, input), &turn()).await
}

fn error_of(result: &ToolResult) -> (ErrorKind, String) {
    assert!(result.output.is_error, "expected an error result: {result:?}");
    (result.error.expect("error kind"), result.output.text_content())
}

#[tokio::test]
async fn success_routes_aliases_and_quirky_names() {
    let ex = Executor::new(registry());
    let r = run(&ex, "echo", r#"{"text":"hi"}"#).await;
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(r.output.text_content(), "hi (called as echo)");
    let call = ToolCall::new("call_1", "echo", r#"{"text":"hi"}"#);
    assert_eq!((&*r.tool, r.summary_line(&call).as_str(), &*r.call_id), ("echo", "echo \"hi\"", "call_1"));
    assert_eq!(r.result_line(), "hi (called as echo)");
    let r = run(&ex, " functions.say\n", r#"{"text":"hi"}"#).await;
    assert_eq!((&*r.tool, r.output.text_content().as_str()), ("echo", "hi (called as say)"));
    let r = run(&ex, "default_api.echo", r#"{"text":"x"}"#).await;
    assert!(r.is_ok());
    let r = run(&ex, "not_mcp__really", "{}").await;
    assert_eq!(r.output.text_content(), "built-in");
}

#[tokio::test]
async fn a_call_that_fails_before_it_runs_names_the_tool_it_resolved_to() {
    let ex = Executor::new(registry());
    // Bad input through an alias: the result names the tool, not the alias.
    let r = ex.execute(&ToolCall::new("call_7", "say", r#"{"text": 1}"#), &turn()).await;
    assert_eq!((&*r.tool, &*r.call_id, r.error), ("echo", "call_7", Some(ErrorKind::InvalidInput)));
    // Rejected by the tool's own check.
    let r = ex.execute(&ToolCall::new("call_8", "say", r#"{"text": "forbidden"}"#), &turn()).await;
    assert_eq!((&*r.tool, &*r.call_id, r.error), ("echo", "call_8", Some(ErrorKind::Rejected)));
    // Never resolved: the name as called.
    let r = ex.execute(&ToolCall::new("call_9", "nope", "{}"), &turn()).await;
    assert_eq!((&*r.tool, &*r.call_id, r.error), ("nope", "call_9", Some(ErrorKind::UnknownTool)));
}

/// Cancels the turn while it runs, and lets the call through.
struct CancelsTheTurn(tokio_util::sync::CancellationToken);
impl PreToolHook for CancelsTheTurn {
    fn name(&self) -> &str {
        "cancels"
    }
    fn before<'a>(&'a self, _call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>> {
        Box::pin(async {
            // While it runs: the hook itself finishes.
            self.0.cancel();
            Ok(PreToolOutcome::default())
        })
    }
}

/// Cancels the turn while the user is asked, then answers yes.
struct CancelsThenAllows(tokio_util::sync::CancellationToken);
impl Approver for CancelsThenAllows {
    fn approve<'a>(&'a self, _request: &'a PermissionRequest<'a>, _question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async {
            self.0.cancel();
            Approval::AllowOnce
        })
    }
}

#[tokio::test]
async fn a_turn_cancelled_while_a_hook_or_the_approver_waits_never_runs_the_call() {
    // A pre-tool hook cancels the turn, then allows: the tool does not run.
    let turn = turn();
    let ex = Executor::builder(registry()).pre_hook(CancelsTheTurn(turn.cancellation().clone())).build();
    let r = ex.execute(&ToolCall::new("c", "echo", r#"{"text":"x"}"#), &turn).await;
    assert_eq!(error_of(&r), (ErrorKind::Cancelled, "echo: cancelled while running".to_owned()));
    // The user is asked, the turn is cancelled meanwhile, then the answer is yes.
    let turn = self::turn();
    let ex = Executor::builder(registry()).approver(CancelsThenAllows(turn.cancellation().clone())).build();
    let r = ex.execute(&ToolCall::new("c", "write_note", r#"{"note":"n"}"#), &turn).await;
    assert_eq!(error_of(&r), (ErrorKind::Cancelled, "write_note: cancelled while running".to_owned()));
    // Asked and allowed in a turn that goes on: it runs.
    let ex = Executor::builder(registry()).approver(|_: &PermissionRequest<'_>, _: &str| Approval::AllowOnce).build();
    let r = ex.execute(&ToolCall::new("c", "write_note", r#"{"note":"n"}"#), &self::turn()).await;
    assert_eq!(r.output.text_content(), "wrote n");
}

#[tokio::test]
async fn each_bad_input_gets_one_clear_error() {
    let ex = Executor::new(registry());
    let cases: [(&str, &str, ErrorKind, &str); 7] = [
        ("ecoh", r#"{"text":"x"}"#, ErrorKind::UnknownTool, "unknown tool `ecoh`; did you mean `echo`?"),
        (
            "echo",
            r#"{"text": "x""#,
            ErrorKind::InvalidInput,
            "echo: invalid input: invalid JSON at `text`: EOF while parsing an object, after `{\"text\": \"x\"` (line 1, column 12)",
        ),
        (
            "echo",
            r#"{"text": 5}"#,
            ErrorKind::InvalidInput,
            "echo: invalid input: text: expected a string, got an integer 5. Send it as a string, in quotes",
        ),
        (
            "echo",
            r#"{}"#,
            ErrorKind::InvalidInput,
            "echo: invalid input: missing field `text`: expected an object with field `text`, got {}",
        ),
        (
            "echo",
            r#"{"text":"x","loud":1}"#,
            ErrorKind::InvalidInput,
            "echo: invalid input: unknown field `loud`: expected an object with field `text`, got {\"text\":\"x\",\"loud\":1}",
        ),
        ("echo", r#"{"text":"forbidden"}"#, ErrorKind::Rejected, "echo: `text` may not be `forbidden`"),
        ("misbehave", r#"{"how":"fail"}"#, ErrorKind::Failed, "misbehave: the disk is full"),
    ];
    for (name, input, kind, message) in cases {
        let r = run(&ex, name, input).await;
        assert_eq!(error_of(&r), (kind, message.to_owned()), "{name} {input}");
    }
    let r = run(&ex, "xyzzy_plugh", "{}").await;
    assert_eq!(error_of(&r).1, "unknown tool `xyzzy_plugh`", "no suggestions, and never the whole catalogue");
    let r = run(&ex, "misbehave", r#"{"how":"error_output"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Failed, "reported failure".to_owned()));
}

#[tokio::test]
async fn panics_become_results_and_the_registry_stays_usable() {
    let ex = Executor::new(registry());
    let r = run(&ex, "misbehave", r#"{"how":"panic"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Panicked, "misbehave: the tool panicked: boom at call".to_owned()));
    let r = run(&ex, "misbehave", r#"{"how":"panic_early"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Panicked, "misbehave: the tool panicked: boom before the future".to_owned()));
    // Cancelled before it started: not even the code before its future runs.
    let turn = turn();
    turn.cancellation().cancel();
    let r = ex.execute(&ToolCall::new("c", "misbehave", r#"{"how":"panic_early"}"#), &turn).await;
    assert_eq!(error_of(&r), (ErrorKind::Cancelled, "misbehave: cancelled before it started".to_owned()));
    let r = run(&ex, "misbehave", r#"{"how":"panic_validate"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Panicked, "misbehave: the tool panicked: boom at validate".to_owned()));
    assert!(run(&ex, "echo", r#"{"text":"still here"}"#).await.is_ok());
}

#[tokio::test]
async fn timeouts_and_cancellation() {
    let ex = Executor::builder(registry()).timeout_for("echo", Duration::from_secs(5)).build();
    let r = run(&ex, "nap", r#"{"ms": 5000}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::TimedOut, "nap: timed out after 1s".to_owned()));
    assert!(r.duration < Duration::from_secs(3), "{:?}", r.duration);

    let ex = Executor::builder(registry()).timeout_for("nap", Duration::from_millis(50)).build();
    let r = run(&ex, "nap", r#"{"ms": 5000}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::TimedOut, "nap: timed out after 50ms".to_owned()));

    let turn = turn();
    turn.cancellation().cancel();
    let r = ex.execute(&ToolCall::new("c", "echo", r#"{"text":"x"}"#), &turn).await;
    assert_eq!(error_of(&r), (ErrorKind::Cancelled, "echo: cancelled before it started".to_owned()));

    for tool in ["wait", "nap"] {
        let turn = self::turn();
        let token = turn.cancellation().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            token.cancel();
        });
        let input = if tool == "nap" { r#"{"ms": 100000}"# } else { "{}" };
        let ex = Executor::new(registry());
        let r = ex.execute(&ToolCall::new("c", tool, input), &turn).await;
        assert_eq!(error_of(&r), (ErrorKind::Cancelled, format!("{tool}: cancelled while running")));
    }
}

struct Scripted {
    answers: std::sync::Mutex<Vec<Approval>>,
    asked: AtomicUsize,
}
impl Approver for Scripted {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        assert_eq!(question, format!("Allow {}?", request.summary()));
        self.asked.fetch_add(1, Ordering::SeqCst);
        let answer = self.answers.lock().unwrap().remove(0);
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn permissions_allow_deny_ask_and_remember() {
    let ex = Executor::new(registry());
    let r = run(&ex, "write_note", r#"{"note":"n"}"#).await;
    let (kind, text) = error_of(&r);
    assert_eq!(kind, ErrorKind::Denied);
    assert!(text.starts_with("write_note: this call needs approval (Allow write_note {\"note\":\"n\"}?)"), "{text}");
    assert!(run(&ex, "echo", r#"{"text":"x"}"#).await.is_ok(), "read-only runs without asking");

    let approver = Scripted {
        answers: std::sync::Mutex::new(vec![
            Approval::AllowOnce,
            Approval::Deny(Some("not now".into())),
            Approval::AlwaysAllow,
        ]),
        asked: AtomicUsize::new(0),
    };
    let ex = Executor::builder(registry()).approver(approver).build();
    assert!(run(&ex, "write_note", r#"{"note":"1"}"#).await.is_ok());
    let r = run(&ex, "write_note", r#"{"note":"2"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Denied, "write_note: the user denied this call: not now".to_owned()));
    assert!(run(&ex, "write_note", r#"{"note":"3"}"#).await.is_ok());
    assert!(run(&ex, "write_note", r#"{"note":"4"}"#).await.is_ok(), "always-allow is remembered");

    // A closure answers at once; `Unattended` never has anyone to ask.
    let only_short = |req: &PermissionRequest<'_>, _question: &str| {
        if req.input.len() < 14 { Approval::AllowOnce } else { Approval::Deny(Some("too long".into())) }
    };
    let ex = Executor::builder(registry()).approver(only_short).build();
    assert!(run(&ex, "write_note", r#"{"note":"1"}"#).await.is_ok());
    let r = run(&ex, "write_note", r#"{"note":"a longer one"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::Denied, "write_note: the user denied this call: too long".to_owned()));
    let ex = Executor::builder(registry()).approver(std::sync::Arc::new(toolwright::permission::Unattended)).build();
    let r = run(&ex, "write_note", r#"{"note":"1"}"#).await;
    let (kind, text) = error_of(&r);
    assert_eq!(kind, ErrorKind::Denied);
    assert!(text.contains("no one is there to answer"), "{text}");

    let deny_writes = |req: &PermissionRequest<'_>| {
        if req.tool == "write_note" {
            PermissionDecision::Deny("notes are read-only today".into())
        } else {
            PermissionDecision::Allow
        }
    };
    let ex = Executor::builder(registry()).policy(deny_writes).build();
    let r = run(&ex, "write_note", r#"{"note":"n"}"#).await;
    assert_eq!(
        error_of(&r),
        (ErrorKind::Denied, "write_note: permission denied: notes are read-only today".to_owned())
    );
}

struct Guard;
impl PreToolHook for Guard {
    fn name(&self) -> &str {
        "guard"
    }
    fn matches(&self, tool: &str) -> bool {
        tool == "echo"
    }
    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>> {
        Box::pin(async move {
            let input: serde_json::Value = serde_json::from_str(call.input).unwrap();
            Ok(match input["text"].as_str() {
                Some("secret") => PreToolOutcome { deny: Some("no secrets".into()), ..Default::default() },
                Some("shout") => PreToolOutcome { updated_input: Some(json!({"text": "SHOUT"})), ..Default::default() },
                Some("sneak") => {
                    PreToolOutcome { updated_input: Some(json!({"text": "forbidden"})), ..Default::default() }
                }
                Some("crash") => return Err("the hook's database is down".into()),
                Some("bad_rewrite") => PreToolOutcome { updated_input: Some(json!({"text": 7})), ..Default::default() },
                _ => PreToolOutcome { additional_context: Some("note: echo is logged".into()), ..Default::default() },
            })
        })
    }
}

struct Redact;
impl PostToolHook for Redact {
    fn name(&self) -> &str {
        "redact"
    }
    fn after<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        output: &'a ToolOutput,
    ) -> BoxFuture<'a, Result<PostToolOutcome, String>> {
        Box::pin(async move {
            let text = output.text_content();
            Ok(PostToolOutcome {
                updated_output: text.contains("SHOUT").then(|| ToolOutput::text(text.replace("SHOUT", "[redacted]"))),
                additional_context: None,
            })
        })
    }
}

#[tokio::test]
async fn hooks_deny_rewrite_add_context_and_fail_cleanly() {
    let ex = Executor::builder(registry()).pre_hook(Guard).post_hook(Redact).build();
    let r = run(&ex, "echo", r#"{"text":"hello"}"#).await;
    assert_eq!(
        r.output.content,
        vec![Content::Text("hello (called as echo)".into()), Content::Text("note: echo is logged".into())]
    );
    let r = run(&ex, "echo", r#"{"text":"shout"}"#).await;
    assert_eq!(r.output.text_content(), "[redacted] (called as echo)", "rewritten, then post-processed");
    let r = run(&ex, "echo", r#"{"text":"secret"}"#).await;
    assert_eq!(error_of(&r), (ErrorKind::HookDenied, "echo: blocked by hook `guard`: no secrets".to_owned()));
    let r = run(&ex, "echo", r#"{"text":"crash"}"#).await;
    assert_eq!(
        error_of(&r),
        (ErrorKind::HookFailed, "echo: hook `guard` failed: the hook's database is down".to_owned())
    );
    let r = run(&ex, "echo", r#"{"text":"sneak"}"#).await;
    assert_eq!(
        error_of(&r),
        (ErrorKind::Rejected, "echo: `text` may not be `forbidden`".to_owned()),
        "rewrites are validated again"
    );
    let r = run(&ex, "echo", r#"{"text":"bad_rewrite"}"#).await;
    assert_eq!(error_of(&r).0, ErrorKind::InvalidInput);
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_can_spill() {
    let spill = tempfile::tempdir().unwrap();
    let ex = Executor::builder(registry()).output_limit(OutputLimit::Bytes(2_000)).spill_dir(spill.path()).build();
    let r = run(&ex, "misbehave", r#"{"how":"big"}"#).await;
    assert!(r.is_ok() && r.truncated);
    let text = r.output.text_content();
    assert!(text.len() <= 2_000, "{}", text.len());
    assert!(text.starts_with("line 0\nline 1\n") && text.ends_with("line 19999\n"), "{text}");
    let path = spill.path().join("misbehave-call_1.txt");
    assert!(text.contains(&format!("cut from the middle; the full output is in `{}`", path.display())), "{text}");
    let full = std::fs::read_to_string(&path).unwrap();
    assert_eq!(full.lines().count(), 20_000);
    let marker = text.lines().find(|l| l.starts_with("[…")).unwrap();
    let cut: usize = marker.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(text.len() - marker.len() - 2 + cut, full.len(), "head + tail + cut = the whole");

    let ex = Executor::builder(registry()).output_limit_for("misbehave", OutputLimit::Tokens(100)).build();
    let r = run(&ex, "misbehave", r#"{"how":"big"}"#).await;
    assert!(r.output.text_content().len() <= 400 && r.output.text_content().contains("narrow the request"));
}

#[tokio::test]
async fn progress_and_extensions_reach_the_tool_and_the_host() {
    let mut ext = Extensions::new();
    ext.insert(Counter(AtomicUsize::new(41)));
    let (sink, mut events) = ProgressSink::channel(8);
    let turn = TurnContext::new(".").with_extensions(ext).with_progress(sink.clone());
    let ex = Executor::new(registry());
    let r = ex.execute(&ToolCall::new("c7", "count", "{}"), &turn).await;
    assert_eq!(r.output.text_content(), "42");
    let first = events.recv().await.unwrap();
    assert_eq!((first.call_id.as_str(), first.tool.as_str(), first.progress.progress), ("c7", "count", Some(1.0)));
    assert_eq!(events.recv().await.unwrap().progress.message, "done");
    // A full subscriber never blocks the tool: reports are dropped and counted.
    let (sink, _events) = ProgressSink::channel(1);
    let mut ext = Extensions::new();
    ext.insert(Counter(AtomicUsize::new(0)));
    let turn = TurnContext::new(".").with_extensions(ext).with_progress(sink.clone());
    assert!(ex.execute(&ToolCall::new("c8", "count", "{}"), &turn).await.is_ok());
    assert_eq!(sink.dropped(), 1);
}

#[tokio::test]
async fn pools_filter_by_deny_profile_and_plan_mode() {
    let registry = registry();
    let t = turn();
    let main = registry.pool(&t, &Profile::main_agent(), &[ToolPattern::new("misbehave")]);
    assert!(main.contains("echo") && main.contains("write_note") && !main.contains("misbehave"));
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let r = ex.execute_in(&main, &ToolCall::new("c", "misbehave", r#"{"how":"x"}"#), &t).await;
    let (kind, message) = error_of(&r);
    assert_eq!(kind, ErrorKind::Denied);
    assert!(message.starts_with("misbehave: this tool is not available to this agent (profile `main`)"), "{message}");
    assert!(message.contains("the tools it has are: ") && message.contains("echo"), "{message}");
    let plan = registry.pool(&t, &Profile::plan(), &[]);
    assert!(plan.contains("echo") && !plan.contains("write_note"));
    let only = registry.pool(&t, &Profile::new("custom").allow(["echo", "glob"]), &[]);
    assert_eq!(only.names().collect::<Vec<_>>(), ["echo", "glob"]);
    // The same pool renders the same bytes, from the cache.
    let again = registry.pool(&t, &Profile::main_agent(), &[ToolPattern::new("misbehave")]);
    let a = main.definitions(Provider::ANTHROPIC).unwrap();
    let b = again.definitions(Provider::ANTHROPIC).unwrap();
    assert_eq!(a.as_str().as_ptr(), b.as_str().as_ptr());
    assert!(!a.as_str().contains("\"misbehave\""));
}

struct AllowEverything;
impl PreToolHook for AllowEverything {
    fn name(&self) -> &str {
        "allow-everything"
    }
    fn before<'a>(&'a self, _call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>> {
        Box::pin(async { Ok(PreToolOutcome { permission: Some(HookPermission::Allow), ..Default::default() }) })
    }
}

struct CountingYes(AtomicUsize);
impl Approver for CountingYes {
    fn approve<'a>(&'a self, _request: &'a PermissionRequest<'a>, _question: &'a str) -> BoxFuture<'a, Approval> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Approval::AlwaysAllow })
    }
}

#[tokio::test]
async fn a_hooks_allow_answers_the_modes_question_but_never_an_ask_rules() {
    let mode_asks = |_: &PermissionRequest<'_>| PermissionDecision::Ask("mode question".into());
    let ex = Executor::builder(registry()).policy(mode_asks).pre_hook(AllowEverything).build();
    assert!(run(&ex, "write_note", r#"{"note":"n"}"#).await.is_ok(), "the hook's allow skips the mode's question");

    let rule_asks = |_: &PermissionRequest<'_>| PermissionDecision::AskRule("an ask rule matched".into());
    let ex = Executor::builder(registry()).policy(rule_asks).pre_hook(AllowEverything).build();
    let r = run(&ex, "write_note", r#"{"note":"n"}"#).await;
    let (kind, text) = error_of(&r);
    assert_eq!(kind, ErrorKind::Denied);
    assert!(text.contains("an ask rule matched") && text.contains("no one is there to approve it"), "{text}");

    // With an approver, each call is asked: "always allow" does not silence an ask rule.
    let approver = Arc::new(CountingYes(AtomicUsize::new(0)));
    struct Shared(Arc<CountingYes>);
    impl Approver for Shared {
        fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
            self.0.approve(request, question)
        }
    }
    let ex = Executor::builder(registry())
        .policy(rule_asks)
        .pre_hook(AllowEverything)
        .approver(Shared(Arc::clone(&approver)))
        .build();
    assert!(run(&ex, "write_note", r#"{"note":"1"}"#).await.is_ok());
    assert!(run(&ex, "write_note", r#"{"note":"2"}"#).await.is_ok());
    assert_eq!(approver.0.load(Ordering::SeqCst), 2);
}

struct NobodyHere;
impl Approver for NobodyHere {
    fn approve<'a>(&'a self, _request: &'a PermissionRequest<'a>, _question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async { Approval::Unanswered("there is no terminal to ask on".into()) })
    }
}

#[tokio::test]
async fn a_result_says_the_user_denied_only_when_a_user_was_asked() {
    let ex = Executor::builder(registry()).approver(NobodyHere).build();
    let (kind, text) = error_of(&run(&ex, "write_note", r#"{"note":"n"}"#).await);
    assert_eq!(kind, ErrorKind::Denied);
    assert!(text.contains("no one could be asked: there is no terminal to ask on"), "{text}");
    assert!(!text.contains("user denied"), "{text}");
}
