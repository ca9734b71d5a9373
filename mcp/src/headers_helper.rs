//! Running a server's `headersHelper`: a command that prints a JSON object of header
//! names to values (a fresh token, say), run on each connection to that server.

use crate::config::HeadersHelper;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

/// How long a helper may take (Claude Code's limit).
const HELPER_TIMEOUT: Duration = Duration::from_secs(10);
/// The most output read from a helper.
const HELPER_MAX_OUTPUT: usize = 64 * 1024;

/// The headers `helper` prints for the server `name` at `url`, or why there are none
/// (the connection then fails with that reason: sending none would be refused).
pub(crate) async fn run(helper: &HeadersHelper, name: &str, url: &str) -> Result<BTreeMap<String, String>, String> {
    let what = |why: String| format!("headersHelper `{}`: {why}", helper.command);
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&helper.command)
        .current_dir(&helper.cwd)
        .env("CLAUDE_CODE_MCP_SERVER_NAME", name)
        .env("CLAUDE_CODE_MCP_SERVER_URL", url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().map_err(|e| what(format!("cannot start: {e}")))?;
    let out = tokio::time::timeout(HELPER_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| what(format!("no answer in {} s", HELPER_TIMEOUT.as_secs())))?
        .map_err(|e| what(e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or("").trim();
        return Err(what(format!(
            "exited with {}{}",
            out.status,
            if last.is_empty() { String::new() } else { format!(": {last}") }
        )));
    }
    if out.stdout.len() > HELPER_MAX_OUTPUT {
        return Err(what(format!("printed more than {HELPER_MAX_OUTPUT} bytes")));
    }
    let value: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| what(format!("did not print a JSON object: {e}")))?;
    let Some(object) = value.as_object() else {
        return Err(what("did not print a JSON object of header names to values".into()));
    };
    object
        .iter()
        .map(|(key, value)| match value.as_str() {
            Some(text) => Ok((key.clone(), text.to_owned())),
            None => Err(what(format!("header `{key}` is {value}, not a string"))),
        })
        .collect()
}
