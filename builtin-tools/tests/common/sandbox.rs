//! A session whose commands run in the shell's OS sandbox, and a workspace with a
//! directory beside it that no command may touch.

use super::Session;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright_core::sandbox::Sandbox;

/// Allows everything and confines commands as `sandbox` says.
struct Confining(Arc<Sandbox>);

impl PermissionPolicy for Confining {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
    fn sandbox(&self, _cwd: &Path) -> Option<Arc<Sandbox>> {
        Some(Arc::clone(&self.0))
    }
}

/// Allows everything and runs commands unconfined.
pub struct Unconfined;

impl PermissionPolicy for Unconfined {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
    fn sandbox(&self, _cwd: &Path) -> Option<Arc<Sandbox>> {
        let mut off = Sandbox::default();
        off.mode = toolwright_core::sandbox::SandboxMode::Off;
        Some(Arc::new(off))
    }
}

pub fn session(dir: &Path, sandbox: Sandbox) -> Session {
    Session::with_policy(dir, Confining(Arc::new(sandbox)))
}

/// A workspace and, beside it, a directory outside it the command must not touch.
pub struct Place {
    pub _root: tempfile::TempDir,
    pub ws: PathBuf,
    pub outside: PathBuf,
}

pub fn place() -> Place {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("precious.txt"), "untouched\n").unwrap();
    Place { ws: ws.canonicalize().unwrap(), outside: outside.canonicalize().unwrap(), _root: root }
}

pub fn shell(session: &mut Session, command: &str) -> (bool, String) {
    let result = session.call("shell", json!({"command": command}));
    (result.error.is_none(), result.output.text_content())
}

/// Runs `test` of this binary again in a child with `env` set, so what the agent's
/// own environment holds is tested for real. Whether this run is such a child.
pub fn rerun_with(test: &str, env: &[(&str, &str)]) -> bool {
    if std::env::var_os("TOOLWRIGHT_RERUN").is_some() {
        return false;
    }
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    command.args(["--exact", test, "--nocapture", "--test-threads=1"]).env("TOOLWRIGHT_RERUN", "1");
    command.envs(env.iter().copied());
    let out = command.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
    true
}

/// [`rerun_with`] the sandbox's `layers` hidden (`LANDLOCK`, `NAMESPACES`: the
/// `TOOLWRIGHT_SANDBOX_*=off` switches), so a machine without them is served for real.
pub fn rerun_without(test: &str, layers: &[&str]) -> bool {
    let names: Vec<String> = layers.iter().map(|layer| format!("TOOLWRIGHT_SANDBOX_{layer}")).collect();
    let env: Vec<(&str, &str)> = names.iter().map(|name| (name.as_str(), "off")).collect();
    rerun_with(test, &env)
}
