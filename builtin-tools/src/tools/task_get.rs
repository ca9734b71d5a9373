//! `task_get` (Claude Code's `TaskGet`): one task of the shared list, whole.

use crate::tasks::TaskStore;
use serde_json::json;
use std::fmt::Write as _;
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// Read one task of the task list by its id: subject, description, status, owner,
/// and the tasks it blocks and waits for. Read it before starting a task.
#[tool(title = "Read a task", read_only, concurrency_safe, idempotent, pure, rule_name = "TaskGet", aliases = ["TaskGet"])]
pub struct TaskGet {
    /// The task's id.
    #[serde(rename = "taskId")]
    pub task_id: String,
}

impl Tool for TaskGet {
    type Output = ToolOutput;

    fn summary(&self) -> Option<String> {
        Some(format!("task get #{}", self.task_id.trim().trim_start_matches('#')))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list = TaskStore::for_call(cx.extensions()).read()?;
        let Some(task) = list.get(&self.task_id) else {
            let mut output = ToolOutput::error(format!("Task #{} not found", self.task_id.trim()));
            output.structured = Some(json!({"task": null}));
            return Ok(output);
        };
        let mut text = format!("Task #{}: {}\nStatus: {}", task.id, task.subject, task.status.name());
        if let Some(owner) = &task.owner {
            let _ = write!(text, "\nOwner: {owner}");
        }
        let _ = write!(text, "\nDescription: {}", task.description);
        let open = list.open_of(&task.blocked_by);
        if !open.is_empty() {
            let _ = write!(text, "\nBlocked by: {}", hashes(&open));
        }
        if !task.blocks.is_empty() {
            let _ = write!(text, "\nBlocks: {}", hashes(&task.blocks));
        }
        let mut output = ToolOutput::text(text);
        output.structured = Some(json!({"task": {
            "id": task.id,
            "subject": task.subject,
            "description": task.description,
            "status": task.status.name(),
            "owner": task.owner,
            "blocks": task.blocks,
            "blockedBy": task.blocked_by,
            "metadata": task.metadata,
        }}));
        Ok(output)
    }
}

/// `#1, #2`.
pub(crate) fn hashes(ids: &[String]) -> String {
    ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>().join(", ")
}
