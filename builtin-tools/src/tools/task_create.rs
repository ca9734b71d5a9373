//! `task_create` (Claude Code's `TaskCreate`): adds a task to the session's shared
//! task list.

use crate::tasks::{Task, TaskStatus, TaskStore};
use serde_json::{Map, Value, json};
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// Add a task to the task list (the work plan shared with your subagents): a short
/// imperative subject and what is to be done. It starts as `pending`; the result
/// gives its id.
///
/// Use the task tools for work of three steps or more, or when the user lists several
/// things to do: create the tasks first, then mark each `in_progress` when you start
/// it and `completed` as soon as it is done (task_update).
#[tool(title = "Create a task", pure, rule_name = "TaskCreate", aliases = ["TaskCreate"])]
pub struct TaskCreate {
    /// A short title, imperative ("Run the tests").
    pub subject: String,
    /// What is to be done, with enough detail for another agent to do it.
    pub description: String,
    /// Shown while it is in progress ("Running the tests").
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// Free-form data kept with the task.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

impl Tool for TaskCreate {
    type Output = ToolOutput;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.subject.trim().is_empty() {
            return Err(ToolError::msg("`subject` is empty: give the task a short title"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some(format!("task create: {}", self.subject.trim()))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let store = TaskStore::for_call(cx.extensions());
        let task = store.update(|list| {
            let id = list.next_id.max(1).to_string();
            list.next_id = list.next_id.max(1) + 1;
            let task = Task {
                id,
                subject: self.subject.trim().to_owned(),
                description: self.description.trim().to_owned(),
                active_form: self.active_form.filter(|a| !a.trim().is_empty()),
                status: TaskStatus::Pending,
                owner: None,
                blocks: Vec::new(),
                blocked_by: Vec::new(),
                metadata: self.metadata.unwrap_or_default().into_iter().filter(|(_, v)| !v.is_null()).collect(),
            };
            list.tasks.push(task.clone());
            Ok(task)
        })?;
        let mut output = ToolOutput::text(format!("Task #{} created successfully: {}", task.id, task.subject));
        output.structured = Some(json!({"task": {"id": task.id, "subject": task.subject}}));
        Ok(output)
    }
}
