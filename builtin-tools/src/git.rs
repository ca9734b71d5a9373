//! Running git for the tools that need it (worktrees): no terminal, no prompt, and
//! its error in words.

use std::path::Path;
use std::time::Duration;

/// How long one git command may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// `git -C dir args...`: its trimmed output, or why it failed.
#[doc(hidden)]
pub async fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let run = tokio::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(GIT_TIMEOUT, run).await {
        Ok(out) => out.map_err(|e| format!("git could not be started: {e}"))?,
        Err(_) => return Err(format!("`git {}` took over {} s", args.join(" "), GIT_TIMEOUT.as_secs())),
    };
    if !out.status.success() {
        return Err(format!("`git {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
