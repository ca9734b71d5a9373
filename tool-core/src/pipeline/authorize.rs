//! The permission step of a call: plan mode, the policy, hooks' verdicts and the
//! approver, with the developer told once when nothing can approve a tool.

use super::{Asked, Executor, Failure, Learned, Stopped, guarded, panic_message, telemetry};
use crate::access::Accesses;
use crate::hooks::HookPermission;
use crate::permission::{Approval, PermissionDecision, PermissionRequest};
use crate::registry::ToolPool;
use crate::{ErrorKind, Flags, ToolContext, ToolSpec};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::PoisonError;
use tracing::Instrument;

impl Executor {
    /// Tells the developer, once per tool, why its calls are denied when nothing can
    /// approve them, and the three ways out.
    pub(super) fn warn_unapproved(&self, tool: &str) {
        let first = self.unapproved_warned.lock().unwrap_or_else(PoisonError::into_inner).insert(tool.to_owned());
        if first {
            tracing::warn!(
                tool,
                "calls of `{tool}` need approval and this executor has no approver, so every one is denied. \
                 Mark the tool `pure` if it touches nothing outside the process, declare what it touches \
                 (`#[access(read)]` on a path field, or `PreparedCall::access`) so the policy can allow it, \
                 or give the executor a policy that allows it or an approver (`ExecutorBuilder::policy`, \
                 `ExecutorBuilder::approver`)"
            );
        }
    }

    /// The permission step: plan mode, the policy, and the approver for asks; says
    /// whether someone was asked (the call then waited).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn authorize(
        &self,
        cx: &ToolContext,
        spec: &ToolSpec,
        input: &str,
        flags: Flags,
        access: &Accesses,
        pool: Option<&ToolPool>,
        progress: &Learned,
        hook: Option<HookPermission>,
    ) -> Result<Asked, Failure> {
        let name = cx.tool_name();
        if pool.is_some_and(ToolPool::read_only_only) && !flags.read_only {
            return Err(Failure::new(
                ErrorKind::Denied,
                format!("{name}: plan mode allows only read-only calls, and this call could change things"),
            ));
        }
        let request = PermissionRequest {
            tool: name,
            rule_name: spec.rule_name.as_deref(),
            access,
            invoked_name: cx.invoked_name(),
            call_id: cx.call_id(),
            input,
            flags,
            cwd: cx.cwd(),
            own_summary: progress.summary.as_deref(),
            extensions: cx.extensions(),
        };
        let decision = catch_unwind(AssertUnwindSafe(|| self.policy.check(&request))).map_err(|p| {
            Failure::new(ErrorKind::Denied, format!("{name}: the permission policy failed: {}", panic_message(&p)))
        })?;
        // A hook's allow skips the mode's question, never a deny nor an ask rule's
        // question; a hook's ask asks.
        let (question, forced) = match (decision, hook) {
            (PermissionDecision::Deny(reason), _) => {
                return Err(Failure::new(ErrorKind::Denied, format!("{name}: permission denied: {reason}")));
            }
            (PermissionDecision::AskRule(question), _) => (question, true),
            (_, Some(HookPermission::Ask(why))) => (why, false),
            (PermissionDecision::Allow, _) | (PermissionDecision::Ask(_), Some(HookPermission::Allow)) => {
                return Ok(Asked::No);
            }
            (PermissionDecision::Ask(question), None) => (question, false),
        };
        if !forced && self.always_allowed.lock().unwrap_or_else(PoisonError::into_inner).contains(name) {
            return Ok(Asked::No);
        }
        if let Some(crate::permission::NoQuestions(why)) = cx.extensions().get::<crate::permission::NoQuestions>() {
            return Err(Failure::new(
                ErrorKind::Denied,
                format!("{name}: this call needs approval ({question}), and it is not asked for: {why}"),
            ));
        }
        let Some(approver) = &self.approver else {
            self.warn_unapproved(name);
            return Err(Failure::new(
                ErrorKind::Denied,
                format!("{name}: this call needs approval ({question}), and no one is there to approve it"),
            ));
        };
        let span = telemetry::approval_span(name);
        let approval =
            guarded(cx, approver.approve(&request, &question), None, self.grace, true).instrument(span.clone()).await;
        telemetry::answered(
            &span,
            match &approval {
                Ok(Approval::AllowOnce) => "allow once",
                Ok(Approval::AlwaysAllow) => "always allow",
                Ok(Approval::Deny(_)) => "deny",
                Ok(Approval::Unanswered(_)) => "unanswered",
                Err(_) => "stopped",
            },
        );
        let approval = approval.map_err(|stop| match stop {
            Stopped::Panicked(p) => Failure::new(ErrorKind::Denied, format!("{name}: the approver failed: {p}")),
            _ => Failure::new(ErrorKind::Cancelled, format!("{name}: cancelled while waiting for approval")),
        })?;
        if matches!(approval, Approval::AllowOnce | Approval::AlwaysAllow) {
            cx.set_approval(approval.clone());
        }
        match approval {
            Approval::AllowOnce => Ok(Asked::Yes),
            Approval::AlwaysAllow => {
                if !self.policy.remember(&request) {
                    self.always_allowed.lock().unwrap_or_else(PoisonError::into_inner).insert(name.to_owned());
                }
                Ok(Asked::Yes)
            }
            Approval::Unanswered(why) => Err(Failure::new(
                ErrorKind::Denied,
                format!("{name}: this call needs approval ({question}), and no one could be asked: {why}"),
            )),
            Approval::Deny(reason) => {
                let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
                Err(Failure::new(ErrorKind::Denied, format!("{name}: the user denied this call{why}")))
            }
        }
    }
}
