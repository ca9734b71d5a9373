//! `cron_create` (Claude Code's `CronCreate`): a prompt scheduled for later, in this
//! session, fired between turns.

use crate::schedules::{Schedules, unix_now};
use serde_json::json;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, TurnContext, tool};

/// Schedule a prompt to be sent to you later in this session, once or on a
/// recurring schedule: a five-field cron expression in local time (`*/10 * * * *`
/// every ten minutes, `30 14 * * *` at 14:30, `0 9 * * 1-5` at nine on weekdays). It
/// fires only between turns, never while you are working; recurring prompts end
/// after seven days. At most 50 per session.
#[tool(title = "Schedule a prompt", pure, rule_name = "CronCreate", aliases = ["CronCreate"])]
pub struct CronCreate {
    /// Five fields (minute hour day-of-month month day-of-week), local time.
    pub cron: String,
    /// What to send when it fires.
    pub prompt: String,
    /// Fire on every match (the default), or once.
    #[serde(default)]
    pub recurring: Option<bool>,
    /// Keep it in the workspace (`.claude/scheduled_tasks.json`) for later sessions.
    #[serde(default)]
    pub durable: Option<bool>,
}

impl Tool for CronCreate {
    type Output = ToolOutput;

    fn is_enabled(turn: &TurnContext) -> bool {
        enabled(turn)
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.prompt.trim().is_empty() {
            return Err(ToolError::msg("`prompt` is empty: say what to do when it fires"));
        }
        crate::schedules::check(&self.cron)
    }

    fn summary(&self) -> Option<String> {
        Some(format!("schedule `{}`: {}", self.cron.trim(), self.prompt.trim()))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let schedules = schedules(cx)?;
        let (recurring, durable) = (self.recurring.unwrap_or(true), self.durable.unwrap_or(false));
        let job = schedules.create(&self.cron, self.prompt.trim(), recurring, durable, unix_now())?;
        let mut kept = None;
        if durable {
            kept = Some(schedules.save_durable(cx.cwd()).map_err(|e| e.to_string()));
        }
        let when = chrono::DateTime::from_timestamp(job.next, 0)
            .map(|t| t.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S %Z").to_string())
            .unwrap_or_default();
        let mut text = format!(
            "Scheduled {} ({}, {}): next at {when}.",
            job.id,
            job.human_schedule(),
            if recurring { "recurring, for seven days" } else { "once" }
        );
        match &kept {
            Some(Ok(path)) => text.push_str(&format!(" Kept in {} for later sessions.", path.display())),
            Some(Err(e)) => text.push_str(&format!(" It could not be kept for later sessions ({e}): it lasts this session.")),
            None => {}
        }
        let mut output = ToolOutput::text(text);
        let mut structured = json!({"id": job.id, "humanSchedule": job.human_schedule(), "recurring": recurring});
        if durable {
            structured["durable"] = json!(matches!(kept, Some(Ok(_))));
        }
        output.structured = Some(structured);
        Ok(output)
    }
}

/// Offered where a loop fires them, unless `CLAUDE_CODE_DISABLE_CRON=1`.
pub(crate) fn enabled(turn: &TurnContext) -> bool {
    turn.extensions().get::<Schedules>().is_some()
        && std::env::var("CLAUDE_CODE_DISABLE_CRON").map_or(true, |v| v.trim() != "1")
}

pub(crate) fn schedules(cx: &ToolContext) -> Result<&Schedules, ToolError> {
    cx.extension::<Schedules>()
        .ok_or_else(|| ToolError::msg("scheduled prompts need a loop that fires them, and this session has none"))
}
