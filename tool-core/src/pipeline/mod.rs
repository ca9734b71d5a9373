//! The execution pipeline: every call routed, checked, run and answered exactly once.
//!
//! ```text
//! resolve -> parse (once) -> validate -> permission -> pre-hooks -> call -> post-hooks -> limit
//! ```
//!
//! Each failure becomes an error result the model can act on, naming the tool and,
//! where it applies, the field. Panics in tools, hooks and policies are caught; a call
//! that outlives its timeout or is cancelled is dropped. Every call gets a `tracing`
//! span in the OpenTelemetry GenAI conventions (`execute_tool {tool}`, see
//! [`telemetry`]), with its hooks, permission decision and approval wait as children.

use crate::access::{Access, Accesses};
use crate::hooks::{HookCall, HookPermission, PostToolHook, PreToolHook, PreToolOutcome};
use crate::permission::{Approver, DefaultPolicy, PermissionPolicy};
use crate::registry::{Registry, Resolved, ToolPool};
use crate::truncate::{Spill, limit_output, needs_limit};
use crate::{BoxFuture, DynTool, PreparedCall};
use crate::{Content, ToolOutput};
use crate::{ErrorKind, ToolCall, ToolResult};
use crate::{Flags, OutputLimit};
use crate::{ToolContext, TurnContext};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio_util::sync::WaitForCancellationFuture;
use tracing::Instrument;

mod authorize;
mod builder;
pub mod telemetry;
pub use builder::ExecutorBuilder;

/// How long a call may run when neither the tool nor the executor says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// How much output reaches the model when neither the tool nor the executor says
/// otherwise: about 25,000 tokens.
pub const DEFAULT_OUTPUT_LIMIT: OutputLimit = OutputLimit::Tokens(25_000);
/// How long a cancelled or timed-out call may take to stop before it is dropped.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(500);

/// Runs tool calls through the pipeline. Cheap to share (`Arc<Executor>`); holds no
/// lock while a tool runs.
pub struct Executor {
    registry: Arc<Registry>,
    policy: Arc<dyn PermissionPolicy>,
    approver: Option<Arc<dyn Approver>>,
    pre_hooks: Vec<Arc<dyn PreToolHook>>,
    post_hooks: Vec<Arc<dyn PostToolHook>>,
    default_timeout: Duration,
    timeouts: HashMap<String, Duration>,
    default_limit: OutputLimit,
    limits: HashMap<String, OutputLimit>,
    spill_dir: Option<PathBuf>,
    grace: Duration,
    always_allowed: Mutex<HashSet<String>>,
    /// Tools already warned about being denied for want of an approver.
    unapproved_warned: Mutex<HashSet<String>>,
    /// Whether spans record calls' arguments and results (opt-in).
    capture_content: bool,
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("tools", &self.registry.len())
            .field("pre_hooks", &self.pre_hooks.len())
            .field("post_hooks", &self.post_hooks.len())
            .field("default_timeout", &self.default_timeout)
            .field("default_limit", &self.default_limit)
            .finish_non_exhaustive()
    }
}

/// Why an attempt stopped, before it becomes a result.
struct Failure {
    kind: ErrorKind,
    message: String,
}

impl Failure {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Failure { kind, message: message.into() }
    }
}

impl telemetry::HasKind for Failure {
    fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// What the attempt learned that the result needs.
struct Learned {
    tool: Option<Arc<str>>,
    call_id: Option<Arc<str>>,
    summary: Option<String>,
    limit: OutputLimit,
    notes: Vec<String>,
}

impl Executor {
    /// An executor over `registry` with the default policy, no approver and no hooks.
    pub fn new(registry: Arc<Registry>) -> Executor {
        Executor::builder(registry).build()
    }

    /// A builder over `registry`.
    pub fn builder(registry: Arc<Registry>) -> ExecutorBuilder {
        ExecutorBuilder {
            executor: Executor {
                registry,
                policy: Arc::new(DefaultPolicy),
                approver: None,
                pre_hooks: Vec::new(),
                post_hooks: Vec::new(),
                default_timeout: DEFAULT_TIMEOUT,
                timeouts: HashMap::new(),
                default_limit: DEFAULT_OUTPUT_LIMIT,
                limits: HashMap::new(),
                spill_dir: None,
                grace: DEFAULT_GRACE,
                always_allowed: Mutex::new(HashSet::new()),
                unapproved_warned: Mutex::new(HashSet::new()),
                capture_content: telemetry::capture_from_env(),
            },
        }
    }

    /// The registry calls are routed through.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The permission policy calls are checked against.
    pub fn permission_policy(&self) -> &Arc<dyn PermissionPolicy> {
        &self.policy
    }

    /// Runs one call. Always returns exactly one result; never panics.
    ///
    /// Needs a Tokio runtime with the time driver (`enable_time` or `enable_all`).
    pub async fn execute(&self, call: &ToolCall, turn: &TurnContext) -> ToolResult {
        self.run(call, turn, None).await
    }

    /// Runs one call, refusing tools that `pool` does not offer (a denied tool, one
    /// outside the profile) and, in plan mode, calls that are not read-only.
    pub async fn execute_in(&self, pool: &ToolPool, call: &ToolCall, turn: &TurnContext) -> ToolResult {
        self.run(call, turn, Some(pool)).await
    }

    async fn run(&self, call: &ToolCall, turn: &TurnContext, pool: Option<&ToolPool>) -> ToolResult {
        let staged = self.stage(call, turn, pool);
        // Staging just looked at the turn's token, with nothing awaited since.
        self.finish_checked(staged, false).await
    }

    /// Resolves, parses (once) and validates a call, and learns its flags for this
    /// input, without running it. Synchronous: the orchestrator stages a call to decide
    /// how to schedule it.
    pub(crate) fn stage<'a>(
        &'a self,
        call: &'a ToolCall,
        turn: &TurnContext,
        pool: Option<&'a ToolPool>,
    ) -> Staged<'a> {
        let start = Instant::now();
        let span = telemetry::tool_span(call);
        let mut progress =
            Learned { tool: None, call_id: None, summary: None, limit: self.default_limit, notes: Vec::new() };
        let ready = self.stage_inner(call, turn, pool, &mut progress);
        match &ready {
            Ok(ready) => {
                let spec = ready.resolved.tool().spec();
                telemetry::resolved(&span, spec, &ready.access, &ready.input, self.capture_content);
            }
            Err(_) => telemetry::unresolved(&span, &call.input, self.capture_content),
        }
        Staged { call, start, span, progress, ready }
    }

    fn stage_inner<'a>(
        &'a self,
        call: &'a ToolCall,
        turn: &TurnContext,
        pool: Option<&'a ToolPool>,
        progress: &mut Learned,
    ) -> Result<Ready<'a>, Failure> {
        if turn.cancellation().is_cancelled() {
            return Err(Failure::new(ErrorKind::Cancelled, format!("{}: cancelled before it started", call.name)));
        }
        let resolved =
            self.registry.resolve(&call.name).map_err(|e| Failure::new(ErrorKind::UnknownTool, e.to_string()))?;
        let name = resolved.name();
        let spec = resolved.tool().spec();
        progress.limit = self.limits.get(name).copied().or(spec.output_limit).unwrap_or(self.default_limit);
        let not_loaded = || {
            Failure::new(
                ErrorKind::UnknownTool,
                format!(
                    "{name}: this tool is not loaded yet. Call `{}` with `select:{name}` (or a description of the \
                     task) to load it, then call it again.",
                    crate::deferred::TOOL_SEARCH
                ),
            )
        };
        match pool {
            Some(pool) if !pool.callable(name) => {
                return Err(if pool.needs_search(name) {
                    not_loaded()
                } else {
                    Failure::new(ErrorKind::Denied, pool.refusal(name))
                });
            }
            None if turn.extensions().get::<crate::deferred::ToolSession>().is_some_and(|s| s.needs_search(name)) => {
                return Err(not_loaded());
            }
            _ => {}
        }
        let tool_name = resolved.shared_name();
        progress.tool = Some(Arc::clone(&tool_name));
        let invoked = resolved.invoked_name();
        let invoked = (invoked != name).then(|| Arc::from(invoked));
        progress.call_id = Some(Arc::clone(&call.id));
        let cx = turn.call_shared(Arc::clone(&call.id), tool_name, invoked);
        // Back from the shapes a strict rendering adapted (nothing for most tools).
        let plan = resolved.plan();
        let input: Cow<'a, str> = if plan.is_empty() {
            Cow::Borrowed(&call.input)
        } else {
            plan.apply(&call.input, turn.provider().map(crate::Provider::dialect))
                .map_err(|e| Failure::new(ErrorKind::InvalidInput, format!("{name}: invalid input: {e}")))?
        };
        let prepared = prepare(resolved.tool(), &input, &cx, progress)?;
        let flags = flags_of(&cx, prepared.as_ref())?;
        let access = access_of(&cx, prepared.as_ref())?;
        Ok(Ready { resolved, cx, input, prepared, flags, access, pool })
    }

    /// Runs a staged call to its one result: permission, hooks, the call, post-hooks
    /// and the output limit.
    pub(crate) async fn finish(&self, staged: Staged<'_>) -> ToolResult {
        self.finish_checked(staged, true).await
    }

    /// [`finish`](Self::finish); `recheck` says whether the turn may have been
    /// cancelled since the call was staged.
    async fn finish_checked(&self, staged: Staged<'_>, recheck: bool) -> ToolResult {
        let Staged { call, start, span, mut progress, ready } = staged;
        let attempt = match ready {
            Err(failure) => Err(failure),
            // Wrapping the (large) attempt future costs a copy of it; only pay when a
            // subscriber is listening.
            Ok(ready) if span.is_disabled() => self.attempt(ready, &mut progress, recheck, false).await,
            Ok(ready) => self.attempt(ready, &mut progress, recheck, true).instrument(span.clone()).await,
        };
        self.result(call, start, &span, progress, attempt).await
    }

    /// The result of a staged call that never ran (cancelled while queued, or stopped
    /// by a sibling's failure).
    pub(crate) async fn finish_unstarted(&self, staged: Staged<'_>, kind: ErrorKind, why: &str) -> ToolResult {
        let Staged { call, start, span, progress, ready } = staged;
        let failure = match ready {
            Err(failure) => failure,
            Ok(ready) => Failure::new(kind, format!("{}: {why}", ready.resolved.name())),
        };
        self.result(call, start, &span, progress, Err(failure)).await
    }

    async fn result(
        &self,
        call: &ToolCall,
        start: Instant,
        span: &tracing::Span,
        mut progress: Learned,
        attempt: Result<ToolOutput, Failure>,
    ) -> ToolResult {
        let (mut output, error) = match attempt {
            Ok(output) => {
                let failed = output.is_error.then_some(ErrorKind::Failed);
                (output, failed)
            }
            Err(failure) => (ToolOutput::error(failure.message), Some(failure.kind)),
        };
        let tool = progress.tool.take().unwrap_or_else(|| Arc::from(call.name.as_str()));
        let call_id = progress.call_id.take().unwrap_or_else(|| Arc::clone(&call.id));
        let spill = self.spill_dir.as_deref().map(|dir| Spill { dir, tool: &tool, call_id: &call.id });
        let truncated = needs_limit(&output, progress.limit.bytes())
            && limit_output(&mut output, progress.limit.bytes(), spill).await;
        output.content.extend(progress.notes.drain(..).map(Content::Text));
        let duration = start.elapsed();
        // The metric names the tool as the span does: as the model called it.
        telemetry::finished(span, &call.name, duration, error, || output.text_content(), self.capture_content);
        ToolResult { call_id, tool, output, error, summary: progress.summary, truncated, duration }
    }

    /// `traced`: the call's span is listened to (its steps then get spans too).
    async fn attempt(
        &self,
        ready: Ready<'_>,
        progress: &mut Learned,
        recheck: bool,
        traced: bool,
    ) -> Result<ToolOutput, Failure> {
        let Ready { resolved, cx, mut input, mut prepared, mut flags, mut access, pool } = ready;
        let tool = resolved.tool();
        let spec = tool.spec();
        let name = resolved.name();
        let call_id = cx.call_id();
        if recheck && cx.turn_cancellation().is_cancelled() {
            return Err(Failure::new(ErrorKind::Cancelled, format!("{name}: cancelled before it started")));
        }
        // Pre-tool hooks run together, before the permission check; their outcomes
        // merge in registration order, whatever order they finish in.
        let own = cx.extension::<crate::hooks::TurnHooks>().map_or(&[][..], |h| &h.pre[..]);
        let hooks: Vec<&Arc<dyn PreToolHook>> =
            self.pre_hooks.iter().chain(own).filter(|h| h.matches_call(name, spec.rule_name.as_deref())).collect();
        let mut hook_permission = None;
        if !hooks.is_empty() {
            let shown = prepared.hook_input(&cx);
            let hook_call = self.hook_call(name, spec, call_id, shown.as_deref().unwrap_or(&input), &access, &cx);
            let runs = hooks.iter().map(|hook| {
                let span = telemetry::hook_span("PreToolUse", hook.name());
                guarded(&cx, hook.before(&hook_call), None, self.grace, true).instrument(span)
            });
            let outcomes = join_all(runs).await;
            let mut merged: Vec<(&str, PreToolOutcome)> = Vec::new();
            for (hook, outcome) in hooks.iter().zip(outcomes) {
                let outcome = outcome.map_err(|e| e.in_hook(name, hook.name()))?.map_err(|e| {
                    Failure::new(ErrorKind::HookFailed, format!("{name}: hook `{}` failed: {e}", hook.name()))
                })?;
                merged.push((hook.name(), outcome));
            }
            if let Some((hook, reason)) = merged.iter().find_map(|(h, o)| o.deny.as_ref().map(|r| (h, r))) {
                return Err(Failure::new(ErrorKind::HookDenied, format!("{name}: blocked by hook `{hook}`: {reason}")));
            }
            hook_permission = merged
                .iter()
                .find_map(|(_, o)| match &o.permission {
                    Some(HookPermission::Ask(why)) => Some(HookPermission::Ask(why.clone())),
                    _ => None,
                })
                .or_else(|| {
                    merged
                        .iter()
                        .any(|(_, o)| o.permission == Some(HookPermission::Allow))
                        .then_some(HookPermission::Allow)
                });
            let mut rewrites = merged.iter().filter_map(|(h, o)| o.updated_input.as_ref().map(|u| (h, u)));
            if let Some((_, updated)) = rewrites.next() {
                for (ignored, _) in rewrites {
                    progress
                        .notes
                        .push(format!("(hook `{ignored}`'s input rewrite was ignored: an earlier hook's applies)"));
                }
                input = Cow::Owned(updated.to_string());
                prepared = prepare(tool, &input, &cx, progress)?;
                flags = flags_of(&cx, prepared.as_ref())?;
                access = access_of(&cx, prepared.as_ref())?;
            }
            progress.notes.extend(merged.into_iter().filter_map(|(_, o)| o.additional_context));
        }
        // Wrapping the future costs a copy of it: only when a subscriber listens.
        let asked = if !traced {
            self.authorize(&cx, spec, &input, flags, &access, pool, progress, hook_permission).await?
        } else {
            let span = telemetry::permission_span(name);
            let asked = self
                .authorize(&cx, spec, &input, flags, &access, pool, progress, hook_permission)
                .instrument(span.clone())
                .await;
            telemetry::decided(&span, &asked);
            asked?
        };
        // The token was looked at before the hooks (here or when staged); look again
        // only if the call waited since.
        let waited = !hooks.is_empty() || asked == Asked::Yes;
        // The tools of an allowed call skip what the policy denies reading (a tool that
        // declares nothing may walk directories too; one that touches nothing needs no filter).
        if !access.is_none() && !access.iter().all(|fact| matches!(fact, Access::Fetch(_) | Access::Mcp { .. })) {
            let filter = catch_unwind(AssertUnwindSafe(|| self.policy.read_filter(cx.cwd()))).map_err(|p| {
                Failure::new(ErrorKind::Denied, format!("{name}: the permission policy failed: {}", panic_message(&p)))
            })?;
            if let Some(filter) = filter {
                cx.set_read_filter(filter);
            }
        }
        // A call that fetches, or declares nothing (a web search), leaves out what
        // the policy denies fetching.
        if !access.is_declared() || access.iter().any(|fact| matches!(fact, Access::Fetch(_))) {
            let filter = catch_unwind(AssertUnwindSafe(|| self.policy.fetch_filter())).map_err(|p| {
                Failure::new(ErrorKind::Denied, format!("{name}: the permission policy failed: {}", panic_message(&p)))
            })?;
            if let Some(filter) = filter {
                cx.set_fetch_filter(filter);
            }
        }
        // A call that runs commands gets the policy's sandbox.
        if access.iter().any(|fact| matches!(fact, Access::Command(_))) {
            let sandbox = catch_unwind(AssertUnwindSafe(|| self.policy.sandbox(cx.cwd()))).map_err(|p| {
                Failure::new(ErrorKind::Denied, format!("{name}: the permission policy failed: {}", panic_message(&p)))
            })?;
            if let Some(sandbox) = sandbox {
                cx.set_sandbox(sandbox);
            }
        }

        let timeout = self.timeouts.get(name).copied().or(spec.timeout).unwrap_or(self.default_timeout);
        let failure = match guarded(&cx, prepared.call(&cx), Some(timeout), self.grace, waited).await {
            // Without post-tool hooks there is nothing to show the output to.
            Ok(Ok(output)) if !self.has_post_hooks(&cx) => return Ok(output),
            Ok(Ok(output)) => {
                let hook_call = self.hook_call(name, spec, call_id, &input, &access, &cx);
                return self.post_hooks(&cx, &hook_call, output, progress).await;
            }
            Err(Stopped::TimedOut) => {
                Failure::new(ErrorKind::TimedOut, format!("{name}: timed out after {}", human(timeout)))
            }
            Err(stopped) => stopped.in_tool(name),
            Ok(Err(crate::ToolError::Cancelled)) => {
                return Err(Failure::new(ErrorKind::Cancelled, format!("{name}: cancelled while running")));
            }
            Ok(Err(crate::ToolError::TimedOut { after })) => {
                Failure::new(ErrorKind::TimedOut, format!("{name}: timed out after {}", human(after)))
            }
            Ok(Err(e)) => Failure::new(ErrorKind::Failed, format!("{name}: {e}")),
        };
        // A call that failed (returned an error, panicked, timed out) still goes past
        // the post-tool hooks, as an error output: failure hooks see it. The result
        // keeps the failure's kind, with the hooks' changes to its text.
        if !self.has_post_hooks(&cx) {
            return Err(failure);
        }
        let hook_call = self.hook_call(name, spec, call_id, &input, &access, &cx);
        let seen = self.post_hooks(&cx, &hook_call, ToolOutput::error(failure.message), progress).await?;
        Err(Failure::new(failure.kind, seen.text_content()))
    }

    /// Whether any post-tool hook may see this call's output: the executor's, or the
    /// turn's own ([`crate::hooks::TurnHooks`]).
    fn has_post_hooks(&self, cx: &ToolContext) -> bool {
        !self.post_hooks.is_empty() || cx.extension::<crate::hooks::TurnHooks>().is_some_and(|h| !h.post.is_empty())
    }

    /// What hooks see of a call: the call, the session, the permission mode.
    fn hook_call<'c>(
        &'c self,
        tool: &'c str,
        spec: &'c crate::ToolSpec,
        call_id: &'c str,
        input: &'c str,
        access: &'c Accesses,
        cx: &'c ToolContext,
    ) -> HookCall<'c> {
        HookCall::new(tool, spec.rule_name.as_deref(), call_id, input, cx.cwd())
            .with_session(cx.extension::<crate::SessionInfo>())
            .with_permission_mode(self.policy.mode_name_in(cx.extensions()))
            .with_agent(cx.extension::<crate::AgentScope>())
            .with_caller(cx.extension::<toolwright_contracts::Caller>())
            .with_access(access)
    }

    /// Runs the matching post-tool hooks in order over `output`: each may replace it
    /// or add context for the model.
    async fn post_hooks(
        &self,
        cx: &ToolContext,
        hook_call: &HookCall<'_>,
        mut output: ToolOutput,
        progress: &mut Learned,
    ) -> Result<ToolOutput, Failure> {
        let name = hook_call.tool;
        let own = cx.extension::<crate::hooks::TurnHooks>().map_or(&[][..], |h| &h.post[..]);
        for hook in self.post_hooks.iter().chain(own).filter(|h| h.matches_call(name, hook_call.rule_name)) {
            let span = telemetry::hook_span("PostToolUse", hook.name());
            let outcome = guarded(cx, hook.after(hook_call, &output), None, self.grace, true)
                .instrument(span)
                .await
                .map_err(|e| e.in_hook(name, hook.name()))?
                .map_err(|e| {
                    Failure::new(ErrorKind::HookFailed, format!("{name}: hook `{}` failed: {e}", hook.name()))
                })?;
            if let Some(updated) = outcome.updated_output {
                output = updated;
            }
            if let Some(context) = outcome.additional_context {
                progress.notes.push(context);
            }
        }
        Ok(output)
    }
}

/// A call that resolved, parsed and validated, ready to be scheduled and run.
pub(crate) struct Ready<'a> {
    resolved: Resolved<'a>,
    cx: ToolContext,
    input: Cow<'a, str>,
    prepared: Box<dyn PreparedCall>,
    flags: Flags,
    access: Accesses,
    pool: Option<&'a ToolPool>,
}

/// A call after [`Executor::stage`]: ready to run, or already failed.
pub(crate) struct Staged<'a> {
    call: &'a ToolCall,
    start: Instant,
    span: tracing::Span,
    progress: Learned,
    ready: Result<Ready<'a>, Failure>,
}

impl<'a> Staged<'a> {
    /// The flags for this input; `None` if the call already failed (it then runs
    /// alone, and only to report its error).
    pub(crate) fn flags(&self) -> Option<Flags> {
        self.ready.as_ref().ok().map(|r| r.flags)
    }

    /// The call staged.
    pub(crate) fn call(&self) -> &'a ToolCall {
        self.call
    }
}

/// The tool's flags for this input, catching panics in tool code.
fn flags_of(cx: &ToolContext, prepared: &dyn PreparedCall) -> Result<Flags, Failure> {
    catch_unwind(AssertUnwindSafe(|| prepared.flags())).map_err(|p| {
        Failure::new(ErrorKind::Panicked, format!("{}: the tool panicked: {}", cx.tool_name(), panic_message(&p)))
    })
}

/// What the call touches, catching panics in tool code.
fn access_of(cx: &ToolContext, prepared: &dyn PreparedCall) -> Result<Accesses, Failure> {
    catch_unwind(AssertUnwindSafe(|| prepared.access())).map_err(|p| {
        Failure::new(ErrorKind::Panicked, format!("{}: the tool panicked: {}", cx.tool_name(), panic_message(&p)))
    })
}

/// Parses once and validates, catching panics in tool code.
fn prepare(
    tool: &Arc<dyn DynTool>,
    input: &str,
    cx: &ToolContext,
    progress: &mut Learned,
) -> Result<Box<dyn PreparedCall>, Failure> {
    let name = cx.tool_name();
    let panicked = |p: Box<dyn std::any::Any + Send>| {
        Failure::new(ErrorKind::Panicked, format!("{name}: the tool panicked: {}", panic_message(&p)))
    };
    let prepared = catch_unwind(AssertUnwindSafe(|| tool.prepare(input.as_bytes())))
        .map_err(panicked)?
        .map_err(|e| Failure::new(ErrorKind::InvalidInput, format!("{name}: invalid input: {e}")))?;
    progress.summary = catch_unwind(AssertUnwindSafe(|| prepared.summary())).map_err(panicked)?;
    catch_unwind(AssertUnwindSafe(|| prepared.validate(cx)))
        .map_err(panicked)?
        .map_err(|e| Failure::new(ErrorKind::Rejected, format!("{name}: {e}")))?;
    Ok(prepared)
}

/// Whether the permission step asked someone (and so waited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    No,
    Yes,
}

/// Why a guarded future did not finish.
enum Stopped {
    Cancelled,
    Panicked(String),
    TimedOut,
}

impl Stopped {
    fn in_tool(self, name: &str) -> Failure {
        match self {
            Stopped::Panicked(p) => Failure::new(ErrorKind::Panicked, format!("{name}: the tool panicked: {p}")),
            _ => Failure::new(ErrorKind::Cancelled, format!("{name}: cancelled while running")),
        }
    }

    fn in_hook(self, name: &str, hook: &str) -> Failure {
        match self {
            Stopped::Panicked(p) => Failure::new(ErrorKind::HookFailed, format!("{name}: hook `{hook}` panicked: {p}")),
            _ => Failure::new(ErrorKind::Cancelled, format!("{name}: cancelled while hook `{hook}` ran")),
        }
    }
}

/// What a pending call waits on besides itself: the turn's cancellation and the timer.
type Waiters<'a> = (Pin<Box<WaitForCancellationFuture<'a>>>, Option<Pin<Box<tokio::time::Sleep>>>);

/// Runs `future` until it finishes, panics, times out, or the turn is cancelled.
///
/// On cancellation or timeout the call's own token is cancelled (so what the tool
/// started can stop) and the future gets `grace` more time to finish; then it is
/// dropped. A call that finishes within the grace period after a cancellation keeps
/// its result; after a timeout the result is the timeout.
///
/// The future is polled first; the timer and the cancellation waiter are set up only
/// if it does not finish at once, so a call that completes on its first poll pays for
/// neither. The timeout clock starts at that first wait. A turn already cancelled
/// stops it before it starts when `check_first` (the caller passes `false` only when
/// it looked at the token itself, with nothing awaited since: the look takes a lock).
async fn guarded<T>(
    cx: &ToolContext,
    future: BoxFuture<'_, T>,
    timeout: Option<Duration>,
    grace: Duration,
    check_first: bool,
) -> Result<T, Stopped> {
    let token = cx.turn_cancellation();
    if check_first && token.is_cancelled() {
        return Err(Stopped::Cancelled);
    }
    let mut future = CatchUnwind(future);
    let mut waiters: Option<Waiters<'_>> = None;
    let mut stopping: Option<(Stopped, Pin<Box<tokio::time::Sleep>>)> = None;
    std::future::poll_fn(move |task| {
        loop {
            if let Poll::Ready(result) = Pin::new(&mut future).poll(task) {
                return Poll::Ready(match stopping.take() {
                    Some((Stopped::TimedOut, _)) => Err(Stopped::TimedOut),
                    _ => result.map_err(Stopped::Panicked),
                });
            }
            if let Some((_, grace_over)) = &mut stopping {
                if grace_over.as_mut().poll(task).is_ready() {
                    let (why, _) = stopping.take().expect("stopping");
                    return Poll::Ready(Err(why));
                }
                return Poll::Pending;
            }
            let (cancelled, sleep) = waiters
                .get_or_insert_with(|| (Box::pin(token.cancelled()), timeout.map(|t| Box::pin(tokio::time::sleep(t)))));
            let why = if cancelled.as_mut().poll(task).is_ready() {
                Stopped::Cancelled
            } else if let Some(sleep) = sleep
                && sleep.as_mut().poll(task).is_ready()
            {
                Stopped::TimedOut
            } else {
                return Poll::Pending;
            };
            // Tell the call (and anything it started) to stop, then give it the grace
            // period: poll it once more at once, in case it stops straight away.
            cx.cancel_call();
            stopping = Some((why, Box::pin(tokio::time::sleep(grace))));
        }
    })
    .await
}

/// A future that turns a panic while polling into an `Err` with the panic message.
struct CatchUnwind<'a, T>(BoxFuture<'a, T>);

impl<T> Future for CatchUnwind<'_, T> {
    type Output = Result<T, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(&payload))),
        }
    }
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

fn human(d: Duration) -> String {
    if d.as_secs() >= 1 && d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Runs `futures` concurrently on this task; the outputs come back in their order.
async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut running: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = running.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, slot) in running.iter_mut().zip(done.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *slot = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
    done.into_iter().flatten().collect()
}
