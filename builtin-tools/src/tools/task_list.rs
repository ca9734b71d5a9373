//! `task_list` (Claude Code's `TaskList`): the shared task list, by id.

use crate::tasks::TaskStore;
use serde_json::json;
use std::fmt::Write as _;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// List the tasks of the task list (shared with your subagents and teammates): id,
/// subject, status, owner and what each still waits for. Take the lowest-numbered
/// pending task with nothing blocking it and no owner.
#[tool(title = "List the tasks", read_only, concurrency_safe, idempotent, pure, rule_name = "TaskList", aliases = ["TaskList"])]
pub struct TaskList {}

impl Tool for TaskList {
    type Output = ToolOutput;

    fn summary(&self) -> Option<String> {
        Some("task list".to_owned())
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = TaskStore::for_call(cx.extensions()).read()?;
        let tasks = list.sorted();
        if tasks.is_empty() {
            let mut output = ToolOutput::text("No tasks found");
            output.structured = Some(json!({"tasks": []}));
            return Ok(output);
        }
        let mut text = String::new();
        let mut items = Vec::new();
        for task in tasks {
            let open = list.open_of(&task.blocked_by);
            let _ = write!(text, "#{} [{}] {}", task.id, task.status.name(), task.subject);
            if let Some(owner) = &task.owner {
                let _ = write!(text, " (owner: {owner})");
            }
            if !open.is_empty() {
                let _ = write!(text, " [blocked by {}]", super::task_get::hashes(&open));
            }
            text.push('\n');
            items.push(json!({
                "id": task.id, "subject": task.subject, "status": task.status.name(),
                "owner": task.owner, "blockedBy": open,
            }));
        }
        let mut output = ToolOutput::text(text.trim_end().to_owned());
        output.structured = Some(json!({ "tasks": items }));
        Ok(output)
    }
}
