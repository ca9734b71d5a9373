//! The task list the `task_*` tools share: one JSON file per list, changed under an
//! exclusive lock and replaced atomically, so a crash mid-update leaves the previous
//! list whole and two writers (agents of one tree, or two processes) never lose an
//! update.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use toolwright_core::ToolError;

/// A task's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TaskStatus {
    /// As Claude Code spells it.
    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Completed => "completed",
        }
    }
}

/// One task, with Claude Code's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// Its id: `1`, `2`, ... in order of creation, never reused.
    pub id: String,
    /// A short title, imperative.
    pub subject: String,
    /// What is to be done.
    pub description: String,
    /// Shown while in progress ("Running the tests").
    #[serde(rename = "activeForm", default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    /// Its state.
    pub status: TaskStatus,
    /// Who claimed it (an agent's name or id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The tasks that wait for this one.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// The tasks this one waits for.
    #[serde(rename = "blockedBy", default)]
    pub blocked_by: Vec<String>,
    /// Free-form data.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// The whole list as stored.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TaskFile {
    /// The next id to give.
    #[serde(default = "one")]
    pub next_id: u64,
    /// The tasks, by id.
    #[serde(default)]
    pub tasks: Vec<Task>,
}

fn one() -> u64 {
    1
}

/// Where a session's task list is kept: put one in the turn's extensions to choose;
/// without one, the list is `~/.toolwright/tasks/<id>.json` with the id from
/// `CLAUDE_CODE_TASK_LIST_ID` (a list shared across sessions) or the session's.
/// Subagents share their session's id, so a tree shares one list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStore {
    path: PathBuf,
}

impl TaskStore {
    /// The list in `path`.
    pub fn at(path: impl Into<PathBuf>) -> TaskStore {
        TaskStore { path: path.into() }
    }

    /// The store for a call: the turn's, else the default for its session.
    pub fn for_call(extensions: &toolwright_core::Extensions) -> TaskStore {
        if let Some(store) = extensions.get::<TaskStore>() {
            return store.clone();
        }
        let id = std::env::var("CLAUDE_CODE_TASK_LIST_ID")
            .ok()
            .map(|id| id.trim().to_owned())
            .filter(|id| {
                !id.is_empty()
                    && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    && !id.starts_with('.')
            })
            .or_else(|| extensions.get::<toolwright_core::SessionInfo>().map(|s| s.id.clone()))
            .unwrap_or_else(|| "default".to_owned());
        let base =
            std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        TaskStore::at(base.join(".toolwright/tasks").join(format!("{id}.json")))
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The list as it is now (an empty one when there is no file yet).
    pub fn read(&self) -> Result<TaskFile, ToolError> {
        let _lock = self.lock()?;
        self.load()
    }

    /// Changes the list under the lock: `change` sees the current list, and what it
    /// leaves is written back atomically (unless it fails).
    pub fn update<T>(&self, change: impl FnOnce(&mut TaskFile) -> Result<T, ToolError>) -> Result<T, ToolError> {
        let _lock = self.lock()?;
        let mut file = self.load()?;
        let out = change(&mut file)?;
        self.save(&file)?;
        Ok(out)
    }

    fn load(&self) -> Result<TaskFile, ToolError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| ToolError::msg(format!("the task list {} is not a task list: {e}", self.path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TaskFile { next_id: 1, tasks: Vec::new() }),
            Err(e) => Err(ToolError::msg(format!("the task list {} cannot be read: {e}", self.path.display()))),
        }
    }

    fn save(&self, file: &TaskFile) -> Result<(), ToolError> {
        let fail =
            |e: std::io::Error| ToolError::msg(format!("the task list {} cannot be written: {e}", self.path.display()));
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
        let bytes = serde_json::to_vec_pretty(file).map_err(|e| fail(std::io::Error::other(e)))?;
        temp.write_all(&bytes).map_err(fail)?;
        temp.as_file().sync_all().map_err(fail)?;
        temp.persist(&self.path).map_err(|e| fail(e.error))?;
        Ok(())
    }

    /// An exclusive lock on the list's lock file, held until dropped.
    fn lock(&self) -> Result<std::fs::File, ToolError> {
        let fail =
            |e: std::io::Error| ToolError::msg(format!("the task list {} cannot be locked: {e}", self.path.display()));
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let mut name = self.path.clone().into_os_string();
        name.push(".lock");
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(name).map_err(fail)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).map_err(|e| fail(e.into()))?;
        Ok(file)
    }
}

impl TaskFile {
    /// The task with `id` (a leading `#` is ignored).
    pub fn get(&self, id: &str) -> Option<&Task> {
        let id = id.trim().trim_start_matches('#');
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Its ids not completed among `ids`.
    pub fn open_of(&self, ids: &[String]) -> Vec<String> {
        ids.iter().filter(|id| self.get(id).is_some_and(|t| t.status != TaskStatus::Completed)).cloned().collect()
    }

    /// Ids sorted by number (then as text).
    pub fn sorted(&self) -> Vec<&Task> {
        let mut tasks: Vec<&Task> = self.tasks.iter().collect();
        tasks.sort_by_key(|t| (t.id.parse::<u64>().unwrap_or(u64::MAX), t.id.clone()));
        tasks
    }
}
