//! Configuring an executor: policy, approver, hooks, time and output limits.

use super::Executor;
use crate::OutputLimit;
use crate::hooks::{PostToolHook, PreToolHook};
use crate::permission::{Approver, PermissionPolicy};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Configures an [`Executor`].
pub struct ExecutorBuilder {
    pub(super) executor: Executor,
}

impl ExecutorBuilder {
    /// The permission policy (default: [`DefaultPolicy`](crate::permission::DefaultPolicy), read-only allowed, the rest asks).
    pub fn policy(mut self, policy: impl PermissionPolicy + 'static) -> Self {
        self.executor.policy = Arc::new(policy);
        self
    }

    /// Who answers the policy's asks. Without one, an ask is a denial that says so.
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.executor.approver = Some(Arc::new(approver));
        self
    }

    /// Adds a pre-tool hook; matching hooks run together, and their outcomes merge
    /// in the order added (see [`PreToolOutcome`](crate::hooks::PreToolOutcome)).
    pub fn pre_hook(mut self, hook: impl PreToolHook + 'static) -> Self {
        self.executor.pre_hooks.push(Arc::new(hook));
        self
    }

    /// Adds a post-tool hook; hooks run in the order added.
    pub fn post_hook(mut self, hook: impl PostToolHook + 'static) -> Self {
        self.executor.post_hooks.push(Arc::new(hook));
        self
    }

    /// The timeout of tools that set none (default [`DEFAULT_TIMEOUT`](crate::DEFAULT_TIMEOUT)).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.executor.default_timeout = timeout;
        self
    }

    /// The timeout of one tool, over its own.
    pub fn timeout_for(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.executor.timeouts.insert(tool.into(), timeout);
        self
    }

    /// The output limit of tools that set none (default [`DEFAULT_OUTPUT_LIMIT`](crate::DEFAULT_OUTPUT_LIMIT)).
    pub fn output_limit(mut self, limit: OutputLimit) -> Self {
        self.executor.default_limit = limit;
        self
    }

    /// The output limit of one tool, over its own.
    pub fn output_limit_for(mut self, tool: impl Into<String>, limit: OutputLimit) -> Self {
        self.executor.limits.insert(tool.into(), limit);
        self
    }

    /// Saves the full text of every cut output in `dir`, and names the file in the
    /// result.
    pub fn spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.executor.spill_dir = Some(dir.into());
        self
    }

    /// How long a cancelled or timed-out call may take to stop before it is dropped
    /// (default [`DEFAULT_GRACE`](crate::DEFAULT_GRACE)).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.executor.grace = grace;
        self
    }

    /// Whether calls' spans record their arguments and results
    /// (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`; at most 8 KiB
    /// each). Off unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`:
    /// they may hold what users would not send to a tracing backend.
    pub fn capture_content(mut self, yes: bool) -> Self {
        self.executor.capture_content = yes;
        self
    }

    /// The executor.
    pub fn build(self) -> Executor {
        self.executor
    }
}
