//! The sandbox is Linux-only (Landlock and seccomp): elsewhere a command runs
//! unconfined with a note, or is refused when the sandbox is required.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_core::ToolError;
use toolwright_core::sandbox::{Sandbox, SandboxMode};

pub(crate) enum Decision {
    Confine(Box<Confinement>),
    Unconfined { note: Option<String> },
}

/// Never made on this platform.
pub(crate) struct Confinement {
    pub(crate) summary: String,
    pub(crate) degraded: Option<String>,
    pub(crate) guard: Guard,
}

/// Nothing to put back where nothing runs confined.
pub(crate) struct Guard;

impl Guard {
    pub(crate) fn restore(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

impl Confinement {
    pub(crate) fn command(&self, program: &str) -> tokio::process::Command {
        tokio::process::Command::new(program)
    }

    pub(crate) fn refused_note(&self) -> Option<String> {
        None
    }

    pub(crate) fn process_bound_note(&self) -> Option<String> {
        None
    }
}

pub(crate) fn decide(
    sandbox: &Arc<Sandbox>,
    command: &str,
    unsandboxed: bool,
    _roots: &[PathBuf],
    _writable_files: &[&Path],
) -> Result<Decision, ToolError> {
    if !sandbox.confines(command, unsandboxed) {
        return Ok(Decision::Unconfined { note: None });
    }
    let why = "the sandbox needs Linux (Landlock and seccomp)";
    match sandbox.mode {
        SandboxMode::Required => Err(ToolError::msg(format!(
            "the sandbox is required (`sandbox.failIfUnavailable`) and cannot be applied: {why}. Set `sandbox.enabled` to false to run commands unconfined"
        ))),
        _ => Ok(Decision::Unconfined { note: Some(format!("not sandboxed: {why}")) }),
    }
}

pub(crate) fn spawn(
    _command: tokio::process::Command,
    _confinement: &mut Confinement,
) -> Result<tokio::process::Child, ToolError> {
    Err(ToolError::msg("the sandbox needs Linux"))
}

pub(crate) fn blocked_note(_output: &str, _summary: &str, _allow_unsandboxed: bool) -> Option<String> {
    None
}

pub(crate) fn for_call(cx: &toolwright_core::ToolContext) -> Arc<Sandbox> {
    cx.sandbox().cloned().unwrap_or_default()
}
