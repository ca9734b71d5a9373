//! Orchestration: safe calls run together, unsafe ones alone, results in call order,
//! context changes applied in order, cancellation answers every call.
#![allow(missing_docs)]

use proptest::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{CallEvent, ContextModifier, ErrorKind, Executor, Extensions, Orchestrator, ToolCall, TurnContext};

/// Wait at a barrier shared by the turn.
#[tool(read_only, pure, concurrency_safe)]
pub struct Meet {}
pub struct Gate(tokio::sync::Barrier);
impl Tool for Meet {
    type Output = &'static str;
    async fn call(self, cx: &ToolContext) -> Result<&'static str, ToolError> {
        cx.extension::<Gate>().ok_or_else(|| ToolError::msg("no gate"))?.0.wait().await;
        Ok("met")
    }
}

/// Work that is concurrency-safe or not, by input, tracking overlap.
#[tool]
pub struct Work {
    pub safe: bool,
    pub yields: u8,
}
#[derive(Default)]
pub struct Tracker {
    active: AtomicUsize,
    max_active: AtomicUsize,
    exclusive: AtomicBool,
    violations: AtomicUsize,
}
impl Tool for Work {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let t = cx.extension::<Tracker>().ok_or_else(|| ToolError::msg("no tracker"))?;
        let now = t.active.fetch_add(1, Ordering::SeqCst) + 1;
        t.max_active.fetch_max(now, Ordering::SeqCst);
        if t.exclusive.load(Ordering::SeqCst) || (!self.safe && now > 1) {
            t.violations.fetch_add(1, Ordering::SeqCst);
        }
        if !self.safe {
            t.exclusive.store(true, Ordering::SeqCst);
        }
        for _ in 0..self.yields {
            tokio::task::yield_now().await;
        }
        if !self.safe {
            t.exclusive.store(false, Ordering::SeqCst);
        }
        t.active.fetch_sub(1, Ordering::SeqCst);
        Ok(format!("safe={}", self.safe))
    }
    fn is_concurrency_safe(&self) -> bool {
        self.safe
    }
}

/// Sleep, then append to the turn's log through a context modifier.
#[tool(read_only, pure, concurrency_safe)]
pub struct Append {
    pub item: String,
    pub ms: u64,
}
#[derive(Clone, Default)]
pub struct Log(Vec<String>);
impl Tool for Append {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        let item = self.item.clone();
        Ok(ToolOutput::text(format!("appended {}", self.item)).with_modifier(ContextModifier::new(move |turn| {
            let mut log = turn.extension::<Log>().cloned().unwrap_or_default();
            log.0.push(item.clone());
            turn.insert_extension(log);
        })))
    }
}

/// Change directory (not concurrency-safe).
#[tool]
pub struct Cd {
    pub dir: String,
}
impl Tool for Cd {
    type Output = ToolOutput;
    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok").with_modifier(ContextModifier::set_cwd(cx.cwd().join(&self.dir))))
    }
}

/// Print the working directory.
#[tool(read_only, pure, concurrency_safe)]
pub struct Pwd {}
impl Tool for Pwd {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        Ok(cx.cwd().display().to_string())
    }
}

/// Sleep, watching for cancellation or not.
#[tool(read_only, pure, concurrency_safe)]
pub struct Sleepy {
    pub ms: u64,
    pub stubborn: bool,
}
impl Tool for Sleepy {
    type Output = &'static str;
    async fn call(self, cx: &ToolContext) -> Result<&'static str, ToolError> {
        if self.stubborn {
            tokio::time::sleep(Duration::from_millis(self.ms)).await;
            return Ok("slept");
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(self.ms)) => Ok("slept"),
            () = cx.cancellation().cancelled() => Err(ToolError::Cancelled),
        }
    }
}

/// A shell stand-in: `ls…` is concurrency-safe (the real shell is never, until the
/// read-only classifier lands); `fail` makes it fail.
#[tool(name = "fake_shell")]
pub struct FakeShell {
    pub command: String,
}
impl Tool for FakeShell {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        tokio::task::yield_now().await;
        if self.command.contains("fail") { Err(ToolError::msg("exit status 2")) } else { Ok(self.command) }
    }
    fn is_concurrency_safe(&self) -> bool {
        self.command.starts_with("ls")
    }
}

fn orchestrator() -> Orchestrator {
    let executor = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    Orchestrator::new(Arc::new(executor))
}

fn call(i: usize, name: &str, input: serde_json::Value) -> ToolCall {
    ToolCall::new(format!("c{i}"), name, input.to_string())
}

fn turn_with(ext: Extensions) -> TurnContext {
    TurnContext::new(std::env::temp_dir()).with_extensions(ext)
}

#[tokio::test]
async fn safe_calls_really_run_together() {
    let mut ext = Extensions::new();
    ext.insert(Gate(tokio::sync::Barrier::new(6)));
    let mut turn = turn_with(ext);
    let calls: Vec<_> = (0..6).map(|i| call(i, "meet", serde_json::json!({}))).collect();
    let results = tokio::time::timeout(Duration::from_secs(10), orchestrator().run(&calls, &mut turn))
        .await
        .expect("a barrier of 6 needs all 6 calls running at once");
    assert!(results.iter().all(|r| r.output.text_content() == "met"));
}

#[tokio::test]
async fn results_come_in_call_order_and_events_as_they_complete() {
    let calls: Vec<_> = [30u64, 1, 15]
        .iter()
        .enumerate()
        .map(|(i, ms)| call(i, "append", serde_json::json!({"item": format!("a{i}"), "ms": ms})))
        .collect();
    let mut turn = turn_with(Extensions::new());
    let mut finished = Vec::new();
    let mut batches = Vec::new();
    let results = orchestrator()
        .run_observed(&calls, &mut turn, None, |e| match e {
            CallEvent::Finished { index, .. } => finished.push(index),
            CallEvent::Batch { calls } => batches.push(calls.to_vec()),
            _ => {}
        })
        .await;
    assert_eq!(results.iter().map(|r| &*r.call_id).collect::<Vec<_>>(), ["c0", "c1", "c2"]);
    assert_eq!(batches, [vec![0, 1, 2]], "three safe calls, one batch");
    assert_eq!(finished, [1, 2, 0], "completion order");
    // Modifiers were applied in call order, not completion order.
    assert_eq!(turn.extensions().get::<Log>().unwrap().0, ["a0", "a1", "a2"]);
}

#[tokio::test]
async fn context_changes_reach_later_calls() {
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir(base.path().join("sub")).unwrap();
    let mut turn = TurnContext::new(base.path());
    let calls = vec![
        call(0, "pwd", serde_json::json!({})),
        call(1, "cd", serde_json::json!({"dir": "sub"})),
        call(2, "pwd", serde_json::json!({})),
    ];
    let results = orchestrator().run(&calls, &mut turn).await;
    assert_eq!(PathBuf::from(results[0].output.text_content()), base.path());
    assert_eq!(PathBuf::from(results[2].output.text_content()), base.path().join("sub"));
    assert_eq!(turn.cwd(), base.path().join("sub"), "the change outlives the turn's calls");
    assert!(results[1].output.modifier.is_none(), "applied modifiers are taken out of the results");
}

#[tokio::test]
async fn failed_calls_answer_in_place_and_break_batches() {
    let calls = vec![
        call(0, "pwd", serde_json::json!({})),
        call(1, "nope", serde_json::json!({})),
        call(2, "pwd", serde_json::json!({"extra": 1})),
        call(3, "pwd", serde_json::json!({})),
    ];
    let mut batches = Vec::new();
    let results = orchestrator()
        .run_observed(&calls, &mut turn_with(Extensions::new()), None, |e| {
            if let CallEvent::Batch { calls } = e {
                batches.push(calls.to_vec())
            }
        })
        .await;
    assert_eq!(
        results.iter().map(|r| r.error).collect::<Vec<_>>(),
        [None, Some(ErrorKind::UnknownTool), Some(ErrorKind::InvalidInput), None]
    );
    assert_eq!(batches, [vec![0], vec![1], vec![2], vec![3]]);
}

#[tokio::test]
async fn a_failing_shell_call_cancels_its_queued_siblings() {
    let calls = vec![
        call(0, "fake_shell", serde_json::json!({"command": "ls fail"})),
        call(1, "fake_shell", serde_json::json!({"command": "ls a"})),
        call(2, "pwd", serde_json::json!({})),
    ];
    let results = orchestrator()
        .max_concurrency(1)
        .abort_siblings_on_failure_of(["fake_shell"])
        .run(&calls, &mut turn_with(Extensions::new()))
        .await;
    assert_eq!(results[0].error, Some(ErrorKind::Failed));
    for r in &results[1..] {
        assert_eq!(r.error, Some(ErrorKind::Cancelled));
        assert!(
            r.output
                .text_content()
                .ends_with("cancelled before it started, because a `fake_shell` call in the same batch failed"),
            "{}",
            r.output.text_content()
        );
    }
    let results = orchestrator()
        .max_concurrency(1)
        .abort_siblings_on_failure_of(Vec::<String>::new())
        .run(&calls, &mut turn_with(Extensions::new()))
        .await;
    assert!(results[1].is_ok() && results[2].is_ok());
}

#[test]
fn cancellation_answers_every_call_and_leaves_no_task() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let calls = vec![
        call(0, "sleepy", serde_json::json!({"ms": 60_000, "stubborn": false})),
        call(1, "sleepy", serde_json::json!({"ms": 60_000, "stubborn": true})),
        call(2, "sleepy", serde_json::json!({"ms": 60_000, "stubborn": false})),
        call(3, "cd", serde_json::json!({"dir": "x"})),
    ];
    let results = rt.block_on(async {
        let mut turn = turn_with(Extensions::new());
        let token = turn.cancellation().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            token.cancel();
        });
        let orchestrator = orchestrator().max_concurrency(2);
        tokio::time::timeout(Duration::from_secs(10), orchestrator.run(&calls, &mut turn)).await.expect("no hang")
    });
    let kinds: Vec<_> = results.iter().map(|r| r.error).collect();
    assert_eq!(kinds, vec![Some(ErrorKind::Cancelled); 4]);
    assert_eq!(results[0].output.text_content(), "sleepy: cancelled while running");
    assert_eq!(results[1].output.text_content(), "sleepy: cancelled while running", "dropped after the grace period");
    assert_eq!(results[2].output.text_content(), "sleepy: cancelled before it started");
    assert_eq!(results[3].output.text_content(), "cd: cancelled before it started");
    rt.block_on(async { tokio::time::sleep(Duration::from_millis(20)).await });
    assert_eq!(rt.metrics().num_alive_tasks(), 0, "no task left running");
}

#[test]
fn the_concurrency_bound_comes_from_the_environment() {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["--exact", "concurrency_bound_helper", "--test-threads", "1"])
        .env("TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY", "3")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("1 passed"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
}

/// Run alone (above) with the variable set; in the main run, checks the default.
#[test]
fn concurrency_bound_helper() {
    let expected = std::env::var("TOOLWRIGHT_MAX_TOOL_USE_CONCURRENCY").map_or(10, |v| v.parse().unwrap());
    assert_eq!(orchestrator().concurrency(), expected);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn unsafe_calls_never_overlap(mix in prop::collection::vec((any::<bool>(), 0u8..4), 1..50), cap in 1usize..12) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut ext = Extensions::new();
        ext.insert(Tracker::default());
        let mut turn = turn_with(ext);
        let calls: Vec<_> = mix.iter().enumerate().map(|(i, (safe, yields))| call(i, "work", serde_json::json!({"safe": safe, "yields": yields}))).collect();
        let results = rt.block_on(orchestrator().max_concurrency(cap).run(&calls, &mut turn));
        let tracker = turn.extensions().get::<Tracker>().unwrap();
        prop_assert_eq!(tracker.violations.load(Ordering::SeqCst), 0);
        prop_assert!(tracker.max_active.load(Ordering::SeqCst) <= cap);
        prop_assert_eq!(results.len(), calls.len());
        for (r, (safe, _)) in results.iter().zip(&mix) {
            prop_assert_eq!(r.output.text_content(), format!("safe={safe}"));
        }
    }
}

/// Guard against an accidentally vacuous overlap check: with the tracker shared by
/// unsafe calls forced to run together, it does report violations.
#[tokio::test]
async fn the_overlap_tracker_can_see_overlap() {
    let mut ext = Extensions::new();
    ext.insert(Tracker::default());
    let turn = turn_with(ext);
    let executor = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    let a = call(0, "work", serde_json::json!({"safe": false, "yields": 3}));
    let b = call(1, "work", serde_json::json!({"safe": false, "yields": 3}));
    let _ = tokio::join!(executor.execute(&a, &turn), executor.execute(&b, &turn));
    assert!(turn.extensions().get::<Tracker>().unwrap().violations.load(Ordering::SeqCst) > 0);
}
