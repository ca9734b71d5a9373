//! In-process hooks around a call. Command hooks (Claude Code settings) implement the
//! same traits.

use crate::future::BoxFuture;
use crate::output::ToolOutput;
use serde_json::Value;
use std::path::Path;

/// What a hook sees of a call.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HookCall<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// The tool's rule name (Claude Code's name for it: `Bash`, `Read`, ...), if it
    /// declares one.
    pub rule_name: Option<&'a str>,
    /// The provider's call id.
    pub call_id: &'a str,
    /// The arguments as JSON text (after earlier hooks' rewrites).
    pub input: &'a str,
    /// The working directory.
    pub cwd: &'a Path,
    /// The session, when the turn's extensions hold a [`SessionInfo`](crate::SessionInfo).
    pub session: Option<&'a crate::context::SessionInfo>,
    /// The permission mode, as the policy names it (`acceptEdits`).
    pub permission_mode: Option<&'a str>,
    /// What the call touches, as its tool states it (hooks with a condition on the
    /// call, Claude Code's `if`, match on it as permission rules do).
    pub access: Option<&'a crate::access::Accesses>,
    /// The subagent making the call, if a subagent makes it (Claude Code's
    /// `agent_id` and `agent_type`).
    pub agent: Option<&'a crate::context::AgentScope>,
    /// Who made the call, when a server authenticated it.
    pub caller: Option<&'a crate::context::Caller>,
}

impl<'a> HookCall<'a> {
    /// A call as hooks see it, without a session or a permission mode.
    pub fn new(tool: &'a str, rule_name: Option<&'a str>, call_id: &'a str, input: &'a str, cwd: &'a Path) -> Self {
        HookCall {
            tool,
            rule_name,
            call_id,
            input,
            cwd,
            session: None,
            permission_mode: None,
            access: None,
            agent: None,
            caller: None,
        }
    }

    /// With the session the call belongs to.
    pub fn with_session(mut self, session: Option<&'a crate::context::SessionInfo>) -> Self {
        self.session = session;
        self
    }

    /// With the permission mode, as the policy names it.
    pub fn with_permission_mode(mut self, mode: Option<&'a str>) -> Self {
        self.permission_mode = mode;
        self
    }

    /// With the subagent making the call, if any.
    pub fn with_agent(mut self, agent: Option<&'a crate::context::AgentScope>) -> Self {
        self.agent = agent;
        self
    }

    /// With who made the call, if a server authenticated it.
    pub fn with_caller(mut self, caller: Option<&'a crate::context::Caller>) -> Self {
        self.caller = caller;
        self
    }

    /// With what the call touches.
    pub fn with_access(mut self, access: &'a crate::access::Accesses) -> Self {
        self.access = Some(access);
        self
    }
}

/// A hook's say in the permission decision. A hook's allow skips the approver's
/// question but never overrides a deny from the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookPermission {
    /// Run without asking (unless the policy denies).
    Allow,
    /// Ask the approver even if the policy allows; the text says why.
    Ask(String),
}

/// What a pre-tool hook decided. The default continues unchanged.
///
/// All matching hooks run concurrently; their outcomes merge deterministically: any
/// deny wins, then any ask, then any allow; of several `updated_input`s the hook
/// registered first wins (the others are reported in the result's notes); additional
/// context is joined in registration order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolOutcome {
    /// Block the call; the reason is shown to the model.
    pub deny: Option<String>,
    /// Allow without asking, or ask.
    pub permission: Option<HookPermission>,
    /// Replace the arguments; the new input is parsed, validated and checked by the
    /// permission policy again.
    pub updated_input: Option<Value>,
    /// Text added to the result for the model.
    pub additional_context: Option<String>,
}

/// What a post-tool hook decided. The default leaves the output as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostToolOutcome {
    /// Replace the output.
    pub updated_output: Option<ToolOutput>,
    /// Text added to the result for the model.
    pub additional_context: Option<String>,
}

/// Runs before a call, before the permission check (so it can rewrite the input and
/// take part in the decision).
pub trait PreToolHook: Send + Sync {
    /// A name for error messages.
    fn name(&self) -> &str;

    /// Whether the hook applies to `tool`. Defaults to every tool.
    fn matches(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// Whether the hook applies to a call of `tool`, whose rule name (Claude Code's
    /// name for it) is `rule_name`. Defaults to [`matches`](Self::matches) of the
    /// tool's own name; hooks configured with Claude Code's names override this.
    fn matches_call(&self, tool: &str, rule_name: Option<&str>) -> bool {
        let _ = rule_name;
        self.matches(tool)
    }

    /// Decides about the call. An `Err` is a failed hook: the call is not run.
    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>>;
}

/// Runs after a call (successful or not), before truncation.
pub trait PostToolHook: Send + Sync {
    /// A name for error messages.
    fn name(&self) -> &str;

    /// Whether the hook applies to `tool`. Defaults to every tool.
    fn matches(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// Whether the hook applies to a call of `tool`, whose rule name (Claude Code's
    /// name for it) is `rule_name`. Defaults to [`matches`](Self::matches) of the
    /// tool's own name; hooks configured with Claude Code's names override this.
    fn matches_call(&self, tool: &str, rule_name: Option<&str>) -> bool {
        let _ = rule_name;
        self.matches(tool)
    }

    /// Looks at (and may replace) the output. An `Err` is a failed hook: the result
    /// becomes an error that says so.
    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        output: &'a ToolOutput,
    ) -> BoxFuture<'a, Result<PostToolOutcome, String>>;
}

/// Hooks for the calls of one turn only, put in its extensions: a subagent's own (its
/// definition's `hooks`). They run after the executor's own hooks, the same way.
#[derive(Clone, Default)]
pub struct TurnHooks {
    /// Run before each matching call, after the executor's pre-tool hooks.
    pub pre: Vec<std::sync::Arc<dyn PreToolHook>>,
    /// Run after each matching call, after the executor's post-tool hooks.
    pub post: Vec<std::sync::Arc<dyn PostToolHook>>,
}

impl std::fmt::Debug for TurnHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnHooks").field("pre", &self.pre.len()).field("post", &self.post.len()).finish()
    }
}
