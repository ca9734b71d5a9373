//! `cron_list` (Claude Code's `CronList`): the session's scheduled prompts.

use serde_json::json;
use std::fmt::Write as _;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, TurnContext, tool};

/// List the prompts scheduled in this session: id, schedule, prompt, next time.
#[tool(title = "List scheduled prompts", read_only, concurrency_safe, idempotent, pure, rule_name = "CronList", aliases = ["CronList"])]
pub struct CronList {}

impl Tool for CronList {
    type Output = ToolOutput;

    fn is_enabled(turn: &TurnContext) -> bool {
        super::cron_create::enabled(turn)
    }

    fn summary(&self) -> Option<String> {
        Some("list scheduled prompts".to_owned())
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let jobs = super::cron_create::schedules(cx)?.list();
        let mut text = String::new();
        if jobs.is_empty() {
            text.push_str("No scheduled prompts.");
        }
        for job in &jobs {
            let next = chrono::DateTime::from_timestamp(job.next, 0)
                .map(|t| t.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "{} `{}` ({}{}{}), next {next}: {}",
                job.id,
                job.cron,
                job.human_schedule(),
                if job.recurring { ", recurring" } else { ", once" },
                if job.durable { ", durable" } else { "" },
                job.prompt
            );
        }
        let items: Vec<_> = jobs
            .iter()
            .map(|j| {
                json!({"id": j.id, "cron": j.cron, "humanSchedule": j.human_schedule(), "prompt": j.prompt,
                       "recurring": j.recurring, "durable": j.durable})
            })
            .collect();
        let mut output = ToolOutput::text(text.trim_end().to_owned());
        output.structured = Some(json!({ "jobs": items }));
        Ok(output)
    }
}
