//! Command hooks from settings files (Claude Code's `hooks` schema), run as real
//! processes through toolwright's hook seams.
//!
//! ```json
//! { "hooks": { "PreToolUse": [
//!     { "matcher": "Bash|Edit", "hooks": [ { "type": "command", "command": "./check.sh", "timeout": 30 } ] }
//! ] } }
//! ```
//!
//! A hook gets JSON on stdin, every field Claude Code documents: `session_id` and
//! `transcript_path` (from the turn's [`SessionInfo`](toolwright_core::SessionInfo),
//! empty without one), `cwd`, `permission_mode` (the policy's, `default` without one),
//! `hook_event_name`, `tool_name` (Claude Code's name where there is one, such as
//! `Bash`), `toolwright_tool_name`, `tool_input` (with `file_path` added next to
//! `path`), `tool_use_id`, and `tool_response` after the call. Exit 0: stdout, if it is
//! a JSON object, is read; exit 2: the call is blocked, whatever the JSON says, and the
//! JSON's blocking reason or else stderr is the reason the model sees; any other exit
//! with a JSON object lets the JSON decide, and without one is a non-blocking error
//! that is logged. The input is written while the output is read, within the hook's
//! timeout; 1 MB of stdout and of stderr is kept (the rest is read and dropped), and
//! the model sees at most 10,000 characters of a hook's text, with a note saying how
//! much there was. A PreToolUse hook that times out fails open (logged), unless
//! the hooks are built with [`CommandHooks::fail_closed`]. A hook runs in a process
//! group of its own with a tag (see `toolwright_core::leftovers`): what it starts is
//! killed when it ends, escaped processes included.
//!
//! Events: `PreToolUse` and `PostToolUse` (for results that are not errors),
//! `PostToolUseFailure` (for error results and failed calls), `PermissionRequest` (through
//! [`CommandHooks::approver`]), and `SubagentStart` and `SubagentStop` (through
//! [`CommandHooks::subagent_start`] and [`CommandHooks::subagent_stop`], which the
//! subagent runtime calls). Inside a subagent every event's input also has `agent_id`
//! and `agent_type`.

use crate::hook_event::HookEvent;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use toolwright_core::hooks::{HookCall, HookPermission, PostToolHook, PostToolOutcome, PreToolHook, PreToolOutcome};
use toolwright_core::permission::{Approval, Approver, PermissionRequest};
use toolwright_core::{BoxFuture, ExecutorBuilder, ToolOutput};

/// A hook's timeout when the settings give none.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// `hooks.<Event>[]` in a settings file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookGroup {
    /// Which tools: an exact name, `A|B`, a regex; empty or `*` for all.
    #[serde(default)]
    pub matcher: String,
    /// The commands.
    pub hooks: Vec<HookCommand>,
}

/// One hook command.
#[derive(Debug, Clone, Deserialize)]
pub struct HookCommand {
    /// Only `command` is supported.
    #[serde(rename = "type")]
    pub kind: String,
    /// Run with `sh -c`.
    #[serde(default)]
    pub command: String,
    /// Seconds.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Claude Code's `if`: one permission rule (`Bash(git *)`, `Edit(*.ts)`); the hook
    /// runs only for the calls it matches.
    #[serde(default, rename = "if")]
    pub condition: Option<String>,
}

/// The `hooks` key of a settings file: event name to groups.
pub type HooksSettings = BTreeMap<String, Vec<HookGroup>>;

#[derive(Debug, Clone)]
enum Matcher {
    All,
    Names(Vec<String>),
    Regex(regex::Regex),
}

impl Matcher {
    fn parse(text: &str) -> Result<Matcher, String> {
        let text = text.trim();
        if text.is_empty() || text == "*" {
            return Ok(Matcher::All);
        }
        if text
            .split('|')
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return Ok(Matcher::Names(text.split('|').map(str::to_owned).collect()));
        }
        regex::Regex::new(&format!("^(?:{text})$")).map(Matcher::Regex).map_err(|e| format!("matcher `{text}`: {e}"))
    }

    /// Whether a call of `tool` (rule name `rule_name`: Claude Code's name) matches.
    fn matches(&self, tool: &str, rule_name: Option<&str>) -> bool {
        let names = std::iter::once(tool).chain(rule_name);
        match self {
            Matcher::All => true,
            Matcher::Names(names_listed) => names.into_iter().any(|n| names_listed.iter().any(|l| l == n)),
            Matcher::Regex(re) => names.into_iter().any(|n| re.is_match(n)),
        }
    }
}

/// One command hook for one event.
#[derive(Debug, Clone)]
pub(crate) struct CommandHook {
    pub(crate) event: HookEvent,
    matcher: Matcher,
    /// The `if` rule, as a policy that denies what it matches.
    condition: Option<Arc<crate::RulePolicy>>,
    command: String,
    timeout: Duration,
    fail_closed: bool,
}

/// What a hook process did.
pub(crate) enum Ran {
    /// Exit 0, with stdout parsed if it was a JSON object; or another code (not 2)
    /// with a JSON object, which then decides alone (Claude Code ignores the code).
    Ok(Option<Value>),
    /// Exit 2: blocked, with the JSON's blocking reason, or else stderr.
    Blocked(String),
    /// Anything else, logged and ignored (or, for a timeout when failing closed, fatal).
    Failed(String),
    TimedOut,
}

impl CommandHook {
    /// Whether the hook's matcher takes `name` (an agent type, for the subagent events).
    pub(crate) fn matches_name(&self, name: &str) -> bool {
        self.matcher.matches(name, None)
    }

    /// The command line, for logs.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// Whether the hook's `if` rule (if any) matches the call.
    fn condition_holds(&self, call: &HookCall<'_>) -> bool {
        let Some(condition) = &self.condition else { return true };
        let undeclared = toolwright_core::access::Accesses::undeclared();
        let extensions = toolwright_core::Extensions::new();
        let request = PermissionRequest {
            tool: call.tool,
            rule_name: call.rule_name,
            access: call.access.unwrap_or(&undeclared),
            invoked_name: call.tool,
            call_id: call.call_id,
            input: call.input,
            flags: toolwright_core::Flags::NONE,
            cwd: call.cwd,
            own_summary: None,
            extensions: &extensions,
        };
        matches!(
            toolwright_core::permission::PermissionPolicy::check(condition.as_ref(), &request),
            toolwright_core::permission::PermissionDecision::Deny(_)
        )
    }

    fn payload(&self, call: &HookCall<'_>, response: Option<&ToolOutput>) -> Value {
        let mut input: Value = serde_json::from_str(call.input).unwrap_or(Value::Null);
        if let Some(path) = input.get("path").and_then(Value::as_str) {
            let absolute = crate::path::absolute(path, call.cwd, None);
            input["file_path"] = json!(absolute);
        }
        // Every field Claude Code documents, so its hook scripts run unchanged; a
        // session without a transcript gives an empty path.
        let mut payload = json!({
            "session_id": call.session.map_or("", |s| s.id.as_str()),
            "transcript_path": call.session.and_then(|s| s.transcript_path.as_deref()).map_or(String::new(), |p| p.display().to_string()),
            "cwd": call.cwd,
            "permission_mode": call.permission_mode.unwrap_or("default"),
            "hook_event_name": self.event.name(),
            "tool_name": call.rule_name.unwrap_or(call.tool),
            "toolwright_tool_name": call.tool,
            "tool_input": input,
            "tool_use_id": call.call_id,
        });
        if let Some(agent) = call.agent {
            payload["agent_id"] = json!(agent.id);
            payload["agent_type"] = json!(agent.agent_type);
        }
        // An authenticated caller (toolwright's own field; no secret, only who).
        if let Some(caller) = call.caller {
            payload["caller"] = json!({ "subject": caller.subject, "scopes": caller.scopes });
        }
        if let Some(output) = response {
            payload["tool_response"] = json!({ "content": output.text_content(), "is_error": output.is_error });
        }
        payload
    }

    pub(crate) async fn run(&self, payload: &Value, cwd: &Path) -> Ran {
        // Like a shell command: a group of its own and a tag, so that nothing the hook
        // starts outlives it (or us, on a stop signal).
        let tag = toolwright_core::leftovers::CallTag::new();
        let (tag_name, tag_value) = tag.env();
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .current_dir(cwd)
            .env(tag_name, tag_value)
            // Claude Code's hooks find the project by it.
            .env(
                "CLAUDE_PROJECT_DIR",
                std::env::var_os("CLAUDE_PROJECT_DIR").unwrap_or_else(|| cwd.as_os_str().to_owned()),
            )
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => return Ran::Failed(format!("cannot start: {e}")),
        };
        let _group = toolwright_core::leftovers::ProcessGroup::adopt(child.id());
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let input = payload.to_string();
        // The input is written while the output is read, all within the timeout: a
        // hook that reads nothing (or not yet) cannot hold the call past it. (The tasks
        // end when the pipes close: at the latest when the group is killed below.)
        tokio::spawn(async move {
            if let Some(mut stdin) = stdin {
                // A hook that does not read its input is fine.
                let _ = stdin.write_all(input.as_bytes()).await;
            }
        });
        let (stdout, stderr) = (tokio::spawn(read_bounded(stdout)), tokio::spawn(read_bounded(stderr)));
        let ran = async {
            let status = child.wait().await;
            (stdout.await.unwrap_or_default(), stderr.await.unwrap_or_default(), status)
        };
        let (stdout, stderr, status) = match tokio::time::timeout(self.timeout, ran).await {
            Ok((stdout, stderr, Ok(status))) => (stdout, stderr, status),
            Ok((_, _, Err(e))) => return Ran::Failed(format!("failed: {e}")),
            Err(_) => return Ran::TimedOut,
        };
        let stderr = capped(String::from_utf8_lossy(&stderr).trim());
        // Exit 2 blocks whatever the JSON says: its blocking reason, if it gives one, is
        // the message, else stderr.
        let blocked = |reason: Option<String>| {
            Ran::Blocked(
                reason.unwrap_or_else(|| if stderr.is_empty() { "blocked by a hook".into() } else { stderr.clone() }),
            )
        };
        if stdout.len() > MAX_PIPE_BYTES {
            // Cut JSON does not parse: the hook is a non-blocking error, but exit 2 still blocks.
            return match status.code() {
                Some(2) => blocked(None),
                _ => Ran::Failed(format!("printed more than {MAX_PIPE_BYTES} bytes on stdout")),
            };
        }
        let stdout = String::from_utf8_lossy(&stdout);
        // Stdout is JSON when it starts with `{` (leading whitespace aside) and parses.
        let text = stdout.trim();
        let json = text.starts_with('{').then(|| serde_json::from_str::<Value>(text));
        match (status.code(), json) {
            (Some(0), None) => Ran::Ok(None),
            (Some(0), Some(Ok(value))) => Ran::Ok(Some(value)),
            (Some(0), Some(Err(e))) => Ran::Failed(format!("printed malformed JSON ({e})")),
            (Some(2), json) => blocked(json.and_then(Result::ok).as_ref().and_then(blocking_reason)),
            (_, Some(Ok(value))) => Ran::Ok(Some(value)),
            (Some(code), _) => Ran::Failed(format!("exited with {code}: {stderr}")),
            (None, _) => Ran::Failed(format!("was killed by a signal: {stderr}")),
        }
    }

    fn log(&self, what: &str) {
        tracing::warn!(hook = %self.command, event = self.event.name(), "hook {what}");
    }
}

/// The reason a hook's JSON gives for blocking, when it blocks: a `deny` decision's
/// `permissionDecisionReason`, or `decision: "block"`'s `reason`.
pub(crate) fn blocking_reason(value: &Value) -> Option<String> {
    let out = specific(value);
    if out.get("permissionDecision").and_then(Value::as_str) == Some("deny") {
        return text(out, "permissionDecisionReason").or_else(|| text(value, "reason"));
    }
    (value.get("decision").and_then(Value::as_str) == Some("block")).then(|| text(value, "reason")).flatten()
}

pub(crate) fn specific(value: &Value) -> &Value {
    value.get("hookSpecificOutput").unwrap_or(&Value::Null)
}

pub(crate) fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(capped)
}

/// How much of a hook's stdout, and of its stderr, is kept (the rest is read and
/// dropped, so the hook is never blocked on a full pipe).
const MAX_PIPE_BYTES: usize = 1 << 20;

/// How many characters of a hook's text the model is shown (Claude Code's cap on
/// `additionalContext`, reasons and plain output).
const MAX_TEXT_CHARS: usize = 10_000;

/// All of `pipe`, up to one byte past [`MAX_PIPE_BYTES`] (which says it was cut).
async fn read_bounded(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut kept = Vec::new();
    let Some(mut pipe) = pipe else { return kept };
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = (MAX_PIPE_BYTES + 1).saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
}

/// `text`, cut to [`MAX_TEXT_CHARS`] characters with a note saying how long it was.
fn capped(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => {
            let total = text.chars().count();
            format!("{}\n(hook output cut: {MAX_TEXT_CHARS} of {total} characters shown)", &text[..end])
        }
    }
}

impl PreToolHook for CommandHook {
    fn name(&self) -> &str {
        &self.command
    }

    fn matches(&self, tool: &str) -> bool {
        self.matcher.matches(tool, None)
    }

    fn matches_call(&self, tool: &str, rule_name: Option<&str>) -> bool {
        self.matcher.matches(tool, rule_name)
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>> {
        Box::pin(async move {
            if !self.condition_holds(call) {
                return Ok(PreToolOutcome::default());
            }
            let value = match self.run(&self.payload(call, None), call.cwd).await {
                Ran::Ok(value) => value,
                Ran::Blocked(reason) => return Ok(PreToolOutcome { deny: Some(reason), ..PreToolOutcome::default() }),
                Ran::TimedOut if self.fail_closed => return Err(format!("timed out after {:?}", self.timeout)),
                Ran::TimedOut => {
                    self.log("timed out; the call goes on (fail open)");
                    None
                }
                Ran::Failed(why) => {
                    self.log(&format!("{why}; the call goes on"));
                    None
                }
            };
            let Some(value) = value else { return Ok(PreToolOutcome::default()) };
            let out = specific(&value);
            let reason = text(out, "permissionDecisionReason").or_else(|| text(&value, "reason"));
            let mut outcome = PreToolOutcome {
                updated_input: out.get("updatedInput").cloned(),
                additional_context: text(out, "additionalContext"),
                ..PreToolOutcome::default()
            };
            match out
                .get("permissionDecision")
                .and_then(Value::as_str)
                .or(value.get("decision").and_then(Value::as_str))
            {
                Some("deny" | "block") => outcome.deny = Some(reason.unwrap_or_else(|| "denied by a hook".into())),
                Some("ask") => {
                    outcome.permission = Some(HookPermission::Ask(reason.unwrap_or_else(|| "a hook asks".into())))
                }
                Some("allow" | "approve") => outcome.permission = Some(HookPermission::Allow),
                _ => {}
            }
            if value.get("continue") == Some(&Value::Bool(false)) {
                outcome.deny = Some(text(&value, "stopReason").unwrap_or_else(|| "stopped by a hook".into()));
            }
            Ok(outcome)
        })
    }
}

impl PostToolHook for CommandHook {
    fn name(&self) -> &str {
        &self.command
    }

    fn matches(&self, tool: &str) -> bool {
        self.matcher.matches(tool, None)
    }

    fn matches_call(&self, tool: &str, rule_name: Option<&str>) -> bool {
        self.matcher.matches(tool, rule_name)
    }

    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        output: &'a ToolOutput,
    ) -> BoxFuture<'a, Result<PostToolOutcome, String>> {
        Box::pin(async move {
            // PostToolUse hooks see results that are not errors; PostToolUseFailure
            // hooks the errors.
            if output.is_error != (self.event == HookEvent::PostToolUseFailure) || !self.condition_holds(call) {
                return Ok(PostToolOutcome::default());
            }
            let value = match self.run(&self.payload(call, Some(output)), call.cwd).await {
                Ran::Ok(Some(value)) => value,
                Ran::Ok(None) => return Ok(PostToolOutcome::default()),
                Ran::Blocked(reason) => {
                    return Ok(PostToolOutcome { additional_context: Some(reason), ..PostToolOutcome::default() });
                }
                Ran::TimedOut | Ran::Failed(_) => {
                    self.log("failed after the call; the result is kept");
                    return Ok(PostToolOutcome::default());
                }
            };
            let out = specific(&value);
            let mut context: Vec<String> = Vec::new();
            if value.get("decision").and_then(Value::as_str) == Some("block") {
                context.extend(text(&value, "reason"));
            }
            context.extend(text(out, "additionalContext"));
            let updated_output = match out.get("updatedToolOutput") {
                Some(Value::String(s)) => Some(ToolOutput::text(s.clone())),
                Some(other) if !other.is_null() => Some(ToolOutput::text(other.to_string())),
                _ => None,
            };
            Ok(PostToolOutcome {
                updated_output,
                additional_context: (!context.is_empty()).then(|| context.join("\n")),
            })
        })
    }
}

/// The command hooks of one or more settings files.
#[derive(Debug, Clone, Default)]
pub struct CommandHooks {
    pub(crate) hooks: Vec<CommandHook>,
    warnings: Vec<String>,
}

impl CommandHooks {
    /// Reads a settings file's `hooks`; unknown events, non-command hooks and bad
    /// matchers become warnings naming them.
    pub fn from_settings(settings: &HooksSettings) -> CommandHooks {
        let mut out = CommandHooks::default();
        for (event, groups) in settings {
            let event: HookEvent = match event.parse() {
                Ok(event) => event,
                Err(unknown) => {
                    out.warnings.push(format!("{unknown} and is ignored"));
                    continue;
                }
            };
            for group in groups {
                let matcher = match Matcher::parse(&group.matcher) {
                    Ok(m) => m,
                    Err(e) => {
                        out.warnings.push(format!("{event} hook {e}; ignored"));
                        continue;
                    }
                };
                for hook in &group.hooks {
                    if hook.kind != "command" || hook.command.trim().is_empty() {
                        out.warnings.push(format!("{event} hook of type `{}` without a command is ignored", hook.kind));
                        continue;
                    }
                    let timeout = hook.timeout.map_or(DEFAULT_HOOK_TIMEOUT, Duration::from_secs);
                    // The condition is one rule: a call it matches is one a deny rule of it
                    // would deny (a shell command when any of its parts matches).
                    let condition = match &hook.condition {
                        None => None,
                        Some(rule) => {
                            let mut policy = crate::RulePolicy::new();
                            if let Err(e) = policy.add(rule, crate::Effect::Deny, crate::Source::Session) {
                                out.warnings.push(format!("{event} hook `{}` is left out: its `if` {e}", hook.command));
                                continue;
                            }
                            Some(Arc::new(policy))
                        }
                    };
                    out.hooks.push(CommandHook {
                        event,
                        matcher: matcher.clone(),
                        condition,
                        command: hook.command.clone(),
                        timeout,
                        fail_closed: false,
                    });
                }
            }
        }
        out
    }

    /// A warning for [`warnings`](Self::warnings) (a file whose hooks are left out).
    pub(crate) fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// Appends `other`'s hooks (a plugin's), naming `file` in its warnings.
    pub fn extend(&mut self, other: CommandHooks, file: &Path) {
        self.hooks.extend(other.hooks);
        self.warnings.extend(other.warnings.into_iter().map(|w| format!("{}: {w}", file.display())));
    }

    /// A PreToolUse hook that times out blocks the call instead of letting it run.
    pub fn fail_closed(mut self) -> Self {
        for hook in &mut self.hooks {
            hook.fail_closed = true;
        }
        self
    }

    /// Hooks that were ignored, and why.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Adds the PreToolUse, PostToolUse and PostToolUseFailure hooks to an executor.
    pub fn install(&self, mut builder: ExecutorBuilder) -> ExecutorBuilder {
        for hook in &self.hooks {
            builder = match hook.event {
                HookEvent::PreToolUse => builder.pre_hook(hook.clone()),
                HookEvent::PostToolUse | HookEvent::PostToolUseFailure => builder.post_hook(hook.clone()),
                _ => builder,
            };
        }
        builder
    }

    /// The PreToolUse, PostToolUse and PostToolUseFailure hooks as hooks of one turn
    /// (a subagent's own, from its definition's `hooks`).
    pub fn turn_hooks(&self) -> toolwright_core::hooks::TurnHooks {
        let mut hooks = toolwright_core::hooks::TurnHooks::default();
        for hook in &self.hooks {
            match hook.event {
                HookEvent::PreToolUse => hooks.pre.push(Arc::new(hook.clone())),
                HookEvent::PostToolUse | HookEvent::PostToolUseFailure => hooks.post.push(Arc::new(hook.clone())),
                _ => {}
            }
        }
        hooks
    }

    /// Hooks in Claude Code's settings schema given as JSON (a plugin's
    /// `hooks/hooks.json`, a skill's `hooks`): its problems are in
    /// [`warnings`](Self::warnings).
    pub fn from_value(hooks: &Value) -> CommandHooks {
        match serde_json::from_value::<HooksSettings>(hooks.clone()) {
            Ok(settings) => CommandHooks::from_settings(&settings),
            Err(e) => {
                let mut out = CommandHooks::default();
                out.warn(format!("its `hooks` are not Claude Code's hooks schema ({e}); none of them run"));
                out
            }
        }
    }

    /// A definition's frontmatter `hooks` (Claude Code's settings schema), where a
    /// `Stop` hook is a `SubagentStop` hook: its problems are in
    /// [`warnings`](Self::warnings).
    pub fn from_definition(hooks: &Value) -> CommandHooks {
        let mut hooks = hooks.clone();
        if let Some(map) = hooks.as_object_mut()
            && let Some(stop) = map.remove("Stop")
        {
            match map.get_mut(HookEvent::SubagentStop.name()).and_then(Value::as_array_mut) {
                Some(groups) => groups.extend(stop.as_array().cloned().unwrap_or_default()),
                None => {
                    map.insert(HookEvent::SubagentStop.name().into(), stop);
                }
            }
        }
        match serde_json::from_value::<HooksSettings>(hooks) {
            Ok(settings) => CommandHooks::from_settings(&settings),
            Err(e) => {
                let mut out = CommandHooks::default();
                out.warn(format!("its `hooks` are not Claude Code's hooks schema ({e}); none of them run"));
                out
            }
        }
    }

    /// An approver that runs the PermissionRequest hooks first (a hook's
    /// `{"hookSpecificOutput": {"decision": {"behavior": "allow"|"deny", "message": ..}}}`
    /// answers), and asks `inner` when none answers.
    pub fn approver<A: Approver + 'static>(&self, inner: A) -> HookApprover<A> {
        let hooks = self.hooks.iter().filter(|h| h.event == HookEvent::PermissionRequest).cloned().collect();
        HookApprover { hooks: Arc::new(hooks), inner, mode: None }
    }
}

/// See [`CommandHooks::approver`].
pub struct HookApprover<A> {
    hooks: Arc<Vec<CommandHook>>,
    inner: A,
    mode: Option<&'static str>,
}

impl<A> HookApprover<A> {
    /// Tells `PermissionRequest` hooks the permission mode (`permission_mode` in their
    /// input; `default` without it), as Claude Code spells it.
    pub fn with_permission_mode(mut self, mode: &'static str) -> Self {
        self.mode = Some(mode);
        self
    }
}

impl<A: Approver> Approver for HookApprover<A> {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            let call = HookCall::new(request.tool, request.rule_name, request.call_id, request.input, request.cwd)
                .with_session(request.extensions.get::<toolwright_core::SessionInfo>())
                .with_permission_mode(request.extensions.get::<crate::ModeOverride>().map(|m| m.0.name()).or(self.mode))
                .with_agent(request.extensions.get::<toolwright_core::AgentScope>())
                .with_access(request.access);
            let matching = self.hooks.iter().filter(|h| h.matcher.matches(request.tool, request.rule_name));
            for hook in matching.filter(|h| h.condition_holds(&call)) {
                match hook.run(&hook.payload(&call, None), request.cwd).await {
                    Ran::Ok(Some(value)) => {
                        let decision = specific(&value).get("decision").unwrap_or(&Value::Null);
                        match decision.get("behavior").and_then(Value::as_str) {
                            Some("allow") => return Approval::AllowOnce,
                            Some("deny") => {
                                let why = text(decision, "message").map(|m| format!(": {m}")).unwrap_or_default();
                                return Approval::Unanswered(format!(
                                    "a PermissionRequest hook answered for the user and said no{why}"
                                ));
                            }
                            _ => {}
                        }
                    }
                    Ran::Blocked(reason) => {
                        return Approval::Unanswered(format!("a PermissionRequest hook blocked it: {reason}"));
                    }
                    _ => {}
                }
            }
            self.inner.approve(request, question).await
        })
    }
}
