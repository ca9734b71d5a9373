//! `task_update` (Claude Code's `TaskUpdate`): changes a task of the shared list:
//! its status (`deleted` removes it), fields, owner, dependencies and metadata.

use crate::tasks::{TaskFile, TaskStatus, TaskStore};
use serde_json::{Map, Value, json};
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// A status to set: Claude Code's three, or `deleted` to remove the task.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum TaskUpdateStatus {
    Pending,
    InProgress,
    Completed,
    Deleted,
}

/// Change a task of the task list: mark it `in_progress` when you start it and
/// `completed` as soon as it is done (only when it is fully done), `deleted` to
/// remove it; claim it with `owner`; add dependencies with `addBlocks` (tasks that
/// wait for this one) and `addBlockedBy` (tasks this one waits for); set `metadata`
/// keys (a key set to null is removed). Give only what changes.
#[tool(title = "Update a task", pure, rule_name = "TaskUpdate", aliases = ["TaskUpdate"])]
pub struct TaskUpdate {
    /// The task's id.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `pending`, `in_progress`, `completed`, or `deleted` (removes the task).
    #[serde(default)]
    pub status: Option<TaskUpdateStatus>,
    /// A new subject.
    #[serde(default)]
    pub subject: Option<String>,
    /// A new description.
    #[serde(default)]
    pub description: Option<String>,
    /// A new in-progress form ("Running the tests").
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
    /// Ids of tasks that cannot start until this one is done.
    #[serde(rename = "addBlocks", default)]
    pub add_blocks: Option<Vec<String>>,
    /// Ids of tasks this one waits for.
    #[serde(rename = "addBlockedBy", default)]
    pub add_blocked_by: Option<Vec<String>>,
    /// Who works on it (an agent's name); empty to release it.
    #[serde(default)]
    pub owner: Option<String>,
    /// Keys to merge into its metadata; a key set to null is removed.
    #[serde(default)]
    pub metadata: Option<Map<String, Value>>,
}

impl Tool for TaskUpdate {
    type Output = ToolOutput;

    fn summary(&self) -> Option<String> {
        let id = self.task_id.trim().trim_start_matches('#');
        Some(match self.status {
            Some(status) => format!("task update #{id}: {}", status_name(status)),
            None => format!("task update #{id}"),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = self.task_id.trim().trim_start_matches('#').to_owned();
        let store = TaskStore::for_call(cx.extensions());
        let outcome = store.update(|list| Ok(apply(list, &id, self)))?;
        let mut output = match &outcome {
            Ok(change) => ToolOutput::text(change.text(&id)),
            Err(why) => ToolOutput::error(why.clone()),
        };
        output.structured = Some(match outcome {
            Ok(change) => {
                let mut value = json!({"success": true, "taskId": id, "updatedFields": change.fields});
                if let Some((from, to)) = change.status {
                    value["statusChange"] = json!({"from": from, "to": to});
                }
                value
            }
            Err(why) => json!({"success": false, "taskId": id, "updatedFields": [], "error": why}),
        });
        Ok(output)
    }
}

fn status_name(status: TaskUpdateStatus) -> &'static str {
    match status {
        TaskUpdateStatus::Pending => "pending",
        TaskUpdateStatus::InProgress => "in_progress",
        TaskUpdateStatus::Completed => "completed",
        TaskUpdateStatus::Deleted => "deleted",
    }
}

/// What an update changed.
struct Change {
    fields: Vec<&'static str>,
    status: Option<(&'static str, &'static str)>,
}

impl Change {
    fn text(&self, id: &str) -> String {
        if self.status.is_some_and(|(_, to)| to == "deleted") {
            return format!("Task #{id} deleted");
        }
        if self.fields.is_empty() {
            return format!("Task #{id}: nothing to change");
        }
        format!("Updated task #{id} {}", self.fields.join(", "))
    }
}

/// Applies `update` to task `id` in `list`; the change, or why it cannot be made (the
/// list is then left as it was).
fn apply(list: &mut TaskFile, id: &str, update: TaskUpdate) -> Result<Change, String> {
    let Some(index) = list.tasks.iter().position(|t| t.id == id) else {
        return Err(format!("Task #{id} not found"));
    };
    let normalise = |ids: Option<Vec<String>>| -> Vec<String> {
        ids.unwrap_or_default().iter().map(|i| i.trim().trim_start_matches('#').to_owned()).collect()
    };
    let (blocks, blocked_by) = (normalise(update.add_blocks), normalise(update.add_blocked_by));
    for other in blocks.iter().chain(&blocked_by) {
        if other == id {
            return Err(format!("Task #{id} cannot block or wait for itself"));
        }
        if list.get(other).is_none() {
            return Err(format!("Task #{other} not found (in addBlocks or addBlockedBy)"));
        }
    }
    let old = list.tasks[index].status;
    if update.status == Some(TaskUpdateStatus::Deleted) {
        list.tasks.remove(index);
        for task in &mut list.tasks {
            task.blocks.retain(|b| b != id);
            task.blocked_by.retain(|b| b != id);
        }
        return Ok(Change { fields: vec!["status"], status: Some((old.name(), "deleted")) });
    }
    let mut fields = Vec::new();
    let mut status = None;
    let task = &mut list.tasks[index];
    if let Some(new) = update.status {
        let new = match new {
            TaskUpdateStatus::Pending => TaskStatus::Pending,
            TaskUpdateStatus::InProgress => TaskStatus::InProgress,
            _ => TaskStatus::Completed,
        };
        if new != old {
            task.status = new;
            fields.push("status");
            status = Some((old.name(), new.name()));
        }
    }
    if let Some(subject) = update.subject.filter(|s| !s.trim().is_empty()) {
        task.subject = subject.trim().to_owned();
        fields.push("subject");
    }
    if let Some(description) = update.description {
        task.description = description.trim().to_owned();
        fields.push("description");
    }
    if let Some(active) = update.active_form {
        task.active_form = Some(active).filter(|a| !a.trim().is_empty());
        fields.push("activeForm");
    }
    if let Some(owner) = update.owner {
        task.owner = Some(owner.trim().to_owned()).filter(|o| !o.is_empty());
        fields.push("owner");
    }
    if let Some(metadata) = update.metadata {
        for (key, value) in metadata {
            if value.is_null() {
                task.metadata.remove(&key);
            } else {
                task.metadata.insert(key, value);
            }
        }
        fields.push("metadata");
    }
    let edge = |list: &mut TaskFile, from: &str, to: &str| {
        for task in &mut list.tasks {
            if task.id == from && !task.blocks.iter().any(|b| b == to) {
                task.blocks.push(to.to_owned());
            }
            if task.id == to && !task.blocked_by.iter().any(|b| b == from) {
                task.blocked_by.push(from.to_owned());
            }
        }
    };
    if !blocks.is_empty() {
        for other in &blocks {
            edge(list, id, other);
        }
        fields.push("blocks");
    }
    if !blocked_by.is_empty() {
        for other in &blocked_by {
            edge(list, other, id);
        }
        fields.push("blockedBy");
    }
    Ok(Change { fields, status })
}
