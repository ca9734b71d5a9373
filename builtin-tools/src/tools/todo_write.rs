//! `todo_write`: the session's task list, kept in the turn's context.

use std::fmt::Write as _;
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// The state of one task: not started, being worked on (one task at most), done.
/// (Described on the field: variant docs would turn the schema's `enum` into `anyOf`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(crate = "toolwright_core::__private::schemars")]
#[allow(missing_docs)]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// One task.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "toolwright_core::__private::schemars")]
pub struct TodoItem {
    /// A unique id; defaults to its place in the list.
    #[serde(default)]
    pub id: String,
    /// What to do, imperative ("Run the tests").
    pub content: String,
    /// `pending`, `in_progress` (at most one task at a time) or `completed`.
    pub status: TodoStatus,
    /// Shown while in progress ("Running the tests").
    #[serde(rename = "activeForm", default)]
    pub active_form: Option<String>,
}

/// The session's task list, as last written. Kept in the turn's extensions by the
/// context modifier todo_write returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TodoList(pub Vec<TodoItem>);

/// Write the task list (to-do list, plan of steps) that keeps track of the current
/// work and its progress, replacing the previous one.
///
/// Use it for work with several steps: list the steps, mark one `in_progress` when
/// you start it (at most one at a time), and `completed` as soon as it is done.
/// Send the whole list each time.
#[tool(title = "Write todo list", idempotent, pure, rule_name = "TodoWrite", aliases = ["TodoWrite"])]
pub struct TodoWrite {
    /// The complete list.
    pub todos: Vec<TodoItem>,
}

impl Tool for TodoWrite {
    type Output = ToolOutput;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        let mut seen = std::collections::HashSet::new();
        for (i, item) in self.todos.iter().enumerate() {
            if item.content.trim().is_empty() {
                return Err(ToolError::msg(format!("todos[{i}] (`{}`): `content` is empty", item.id)));
            }
            if !item.id.trim().is_empty() && !seen.insert(item.id.as_str()) {
                return Err(ToolError::msg(format!("todos[{i}]: the id `{}` is used twice; ids must be unique", item.id)));
            }
        }
        let active: Vec<&str> =
            self.todos.iter().filter(|t| t.status == TodoStatus::InProgress).map(|t| if t.id.trim().is_empty() { t.content.as_str() } else { t.id.as_str() })
            .collect();
        if active.len() > 1 {
            return Err(ToolError::msg(format!(
                "{} tasks are in_progress ({}); at most one may be in progress at a time",
                active.len(),
                active.join(", ")
            )));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let done = self.todos.iter().filter(|t| t.status == TodoStatus::Completed).count();
        Some(format!("todo list: {done}/{} done", self.todos.len()))
    }

    async fn call(mut self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        // Claude Code's items have no id: each gets its place in the list, unless
        // that is another item's id already.
        let given: std::collections::HashSet<String> = self.todos.iter().map(|t| t.id.clone()).collect();
        let mut next = 0;
        for item in self.todos.iter_mut().filter(|t| t.id.trim().is_empty()) {
            item.id = loop {
                next += 1;
                if !given.contains(&next.to_string()) {
                    break next.to_string();
                }
            };
        }
        let rendered = render_todos(&self.todos);
        let list = TodoList(self.todos);
        let modifier = ContextModifier::new(move |turn| turn.insert_extension(list.clone()));
        Ok(ToolOutput::text(rendered).with_modifier(modifier))
    }
}

/// The list as the model reads it back.
pub fn render_todos(todos: &[TodoItem]) -> String {
    if todos.is_empty() {
        return "The todo list is now empty.".to_owned();
    }
    let done = todos.iter().filter(|t| t.status == TodoStatus::Completed).count();
    let mut out = format!("Todo list ({done}/{} done):", todos.len());
    for item in todos {
        let mark = match item.status {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Completed => "[x]",
        };
        let _ = write!(out, "\n{mark} {} ({})", item.content, item.id);
        if let Some(doing) = item.active_form.as_deref().filter(|_| item.status == TodoStatus::InProgress) {
            let _ = write!(out, ": {doing}");
        }
    }
    out
}
