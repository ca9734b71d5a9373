//! The permission seam: a policy decides allow / deny / ask, an approver answers asks.
//!
//! The rule engine (Claude Code settings) plugs in here as a [`PermissionPolicy`].

use crate::spec::Flags;
use crate::tool::BoxFuture;
use std::path::Path;

/// What the policy says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// Run it.
    Allow,
    /// Do not run it; the reason is shown to the model.
    Deny(String),
    /// Ask the approver; the text says what is being asked. A hook's allow, or an
    /// earlier "always allow" for the tool, answers it without asking.
    Ask(String),
    /// Ask the approver, whatever hooks say: an explicit ask rule matched, or the call
    /// could not be checked against the rules. Only the approver answers it.
    AskRule(String),
}

/// One call, as the policy and approver see it.
#[derive(Debug, Clone, Copy)]
pub struct PermissionRequest<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// The name the model used (maybe an alias).
    pub invoked_name: &'a str,
    /// The provider's call id.
    pub call_id: &'a str,
    /// The arguments as JSON text.
    pub input: &'a str,
    /// The flags for this input.
    pub flags: Flags,
    /// The working directory.
    pub cwd: &'a Path,
    /// The tool's own one-line summary of the call, if it gives one.
    pub own_summary: Option<&'a str>,
    /// The turn's extensions: what the host put there for approvers (an MCP server
    /// puts the client's peer, so that an ask can become an elicitation).
    pub extensions: &'a crate::Extensions,
}

impl<'a> PermissionRequest<'a> {
    /// One line saying what the call does: the tool's own summary, or the name and
    /// input.
    pub fn summary(&self) -> std::borrow::Cow<'a, str> {
        match self.own_summary {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(crate::call::default_summary(self.tool, self.input)),
        }
    }
}

/// Decides whether a call may run.
pub trait PermissionPolicy: Send + Sync {
    /// The decision for `request`.
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision;

    /// The user answered "always allow" for `request`: remember it in the policy's
    /// own terms (a rule keyed on what the call does) and return true. The default
    /// returns false, and the executor then stops asking about the whole tool.
    fn remember(&self, request: &PermissionRequest<'_>) -> bool {
        let _ = request;
        false
    }
}

/// The default: read-only calls run, everything else asks.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultPolicy;

impl PermissionPolicy for DefaultPolicy {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        if request.flags.read_only {
            PermissionDecision::Allow
        } else {
            PermissionDecision::Ask(format!("Allow {}?", request.summary()))
        }
    }
}

/// Allows every call (trusted sandboxes, tests, benchmarks).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

impl<F: Fn(&PermissionRequest<'_>) -> PermissionDecision + Send + Sync> PermissionPolicy for F {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        self(request)
    }
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call, and do not ask again for this tool in this executor.
    AlwaysAllow,
    /// Do not run it, with an optional reason for the model.
    Deny(Option<String>),
}

/// Answers the policy's asks: a prompt on a TTY, a UI dialog, an MCP elicitation.
pub trait Approver: Send + Sync {
    /// The answer for `request`; `question` is the policy's text.
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval>;
}
