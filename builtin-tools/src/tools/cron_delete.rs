//! `cron_delete` (Claude Code's `CronDelete`): cancels a scheduled prompt.

use serde_json::json;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, TurnContext, tool};

/// Cancel a prompt scheduled with cron_create, by its id.
#[tool(title = "Cancel a scheduled prompt", pure, idempotent, rule_name = "CronDelete", aliases = ["CronDelete"])]
pub struct CronDelete {
    /// The id cron_create gave.
    pub id: String,
}

impl Tool for CronDelete {
    type Output = ToolOutput;

    fn is_enabled(turn: &TurnContext) -> bool {
        super::cron_create::enabled(turn)
    }

    fn summary(&self) -> Option<String> {
        Some(format!("cancel scheduled {}", self.id.trim()))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let schedules = super::cron_create::schedules(cx)?;
        let Some(job) = schedules.delete(&self.id) else {
            let ids: Vec<String> = schedules.list().into_iter().map(|j| j.id).collect();
            let known = if ids.is_empty() { "there are none".to_owned() } else { ids.join(", ") };
            return Err(ToolError::msg(format!("no scheduled prompt `{}`; the ids are: {known}", self.id.trim())));
        };
        if job.durable {
            let _ = schedules.save_durable(cx.cwd());
        }
        let mut output = ToolOutput::text(format!("Cancelled {} ({}).", job.id, job.human_schedule()));
        output.structured = Some(json!({ "id": job.id }));
        Ok(output)
    }
}
