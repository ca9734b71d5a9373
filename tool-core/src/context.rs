//! The context a tool call runs with.

use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// What a running call can see: its id, the name it was called by, the working
/// directory and a cancellation token.
#[derive(Debug, Clone)]
pub struct ToolContext {
    call_id: String,
    invoked_name: String,
    cwd: PathBuf,
    cancel: CancellationToken,
}

impl ToolContext {
    /// A context for a call in `cwd` with a fresh cancellation token.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        ToolContext {
            call_id: String::new(),
            invoked_name: String::new(),
            cwd: cwd.into(),
            cancel: CancellationToken::new(),
        }
    }

    /// Sets the provider's call id (`toolu_...`, `call_...`).
    pub fn with_call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = id.into();
        self
    }

    /// Sets the name the model used, which may be an alias.
    pub fn with_invoked_name(mut self, name: impl Into<String>) -> Self {
        self.invoked_name = name.into();
        self
    }

    /// Uses `token` (usually a child of the turn's token) for cancellation.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// The provider's call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The name the model called, which may be an alias of the tool.
    pub fn invoked_name(&self) -> &str {
        &self.invoked_name
    }

    /// The working directory; relative paths resolve against it.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The call's cancellation token; long-running tools should watch it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}
