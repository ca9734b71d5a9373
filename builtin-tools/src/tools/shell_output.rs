//! `shell_output`: what a background shell command printed since the last look.

use crate::tools::BackgroundShells;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// Read the new output of a command started with `shell` and `run_in_background`,
/// and whether it is still running. Each call returns only what is new since the
/// last call. With `kill`, the command and everything it started are stopped first.
#[tool(title = "Background command output", pure, rule_name = "BashOutput", aliases = ["BashOutput"])]
pub struct ShellOutput {
    /// The handle `shell` returned, such as `shell_1`.
    pub id: String,
    /// Stop the command first. Defaults to false.
    #[serde(default)]
    pub kill: bool,
    /// Only new lines matching this regex; the rest are dropped.
    pub filter: Option<String>,
}

impl Tool for ShellOutput {
    type Output = ToolOutput;

    /// Claude Code's BashOutput names the handle `bash_id`.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] = &[("bash_id", "id")];

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        self.filter().map(drop)
    }

    fn is_read_only(&self) -> bool {
        !self.kill
    }

    fn summary(&self) -> Option<String> {
        Some(if self.kill { format!("kill {}", self.id) } else { format!("output of {}", self.id) })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let shells = cx
            .extension::<BackgroundShells>()
            .ok_or_else(|| ToolError::msg("this session has no background commands"))?;
        shells.read(&self.id, self.kill, self.filter()?.as_ref())
    }
}

impl ShellOutput {
    fn filter(&self) -> Result<Option<grep_regex::RegexMatcher>, ToolError> {
        self.filter
            .as_deref()
            .map(|pattern| {
                grep_regex::RegexMatcher::new_line_matcher(pattern)
                    .map_err(|e| ToolError::msg(format!("`filter` is not a valid regular expression:\n{e}")))
            })
            .transpose()
    }
}
