//! Scheduled prompts (Claude Code's `CronCreate`, `CronDelete`, `CronList`): the
//! session's jobs, when each fires next, and the durable ones kept in the workspace.
//! The host's agent loop fires them between turns ([`Schedules::take_due`]).

use chrono::{DateTime, Local, TimeZone as _};
use serde::{Deserialize, Serialize};
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::sync::{Arc, Mutex, PoisonError};
use toolwright_core::ToolError;

/// The most jobs a session holds.
pub const MAX_JOBS: usize = 50;
/// A recurring job's life: it fires once more after this, then ends.
pub const RECURRING_LIFETIME_SECS: i64 = 7 * 24 * 3600;
/// Where durable jobs are kept, under the workspace.
pub const DURABLE_FILE: &str = ".claude/scheduled_tasks.json";

/// One scheduled prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// 8 characters.
    pub id: String,
    /// The five-field cron expression, in local time.
    pub cron: String,
    /// What is sent to the model when it fires.
    pub prompt: String,
    /// Fires on every match (until it expires), or once.
    pub recurring: bool,
    /// Kept in the workspace's `.claude/scheduled_tasks.json`.
    pub durable: bool,
    /// When it was made (Unix seconds).
    pub created: i64,
    /// When it fires next (Unix seconds, jitter included).
    pub next: i64,
}

impl Job {
    /// The schedule in words.
    pub fn human_schedule(&self) -> String {
        human(&self.cron)
    }
}

/// A job that is due: its prompt, for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fire {
    /// The job's id.
    pub id: String,
    /// The prompt.
    pub prompt: String,
    /// Whether this was its last fire.
    pub last: bool,
}

/// The session's scheduled prompts; clones share them. Put it in the turn's
/// extensions where a loop fires them (the CLI's `agent` does); the cron tools are
/// offered only there, and not when `CLAUDE_CODE_DISABLE_CRON=1`.
#[derive(Debug, Clone, Default)]
pub struct Schedules(Arc<Mutex<Vec<Job>>>);

impl Schedules {
    /// No jobs.
    pub fn new() -> Schedules {
        Schedules::default()
    }

    /// With the durable jobs saved in `workspace` that have not expired (a one-shot
    /// whose time passed while no session ran is dropped: no catch-up).
    pub fn with_durable(workspace: &Path, now: i64) -> Schedules {
        let schedules = Schedules::new();
        let Ok(bytes) = toolwright_core::state_file::read(workspace, DURABLE_FILE) else { return schedules };
        let Ok(saved) = serde_json::from_slice::<Vec<Job>>(&bytes) else { return schedules };
        let mut jobs = schedules.lock();
        for mut job in saved.into_iter().filter(|j| j.durable).take(MAX_JOBS) {
            if job.next < now {
                if !job.recurring || now - job.created > RECURRING_LIFETIME_SECS {
                    continue;
                }
                match next_fire(&job.cron, &job.id, now, true) {
                    Ok(next) => job.next = next,
                    Err(_) => continue,
                }
            }
            jobs.push(job);
        }
        drop(jobs);
        schedules
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Job>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a job; its id and first fire, or why not.
    pub fn create(&self, cron: &str, prompt: &str, recurring: bool, durable: bool, now: i64) -> Result<Job, ToolError> {
        check(cron)?;
        let mut jobs = self.lock();
        if jobs.len() >= MAX_JOBS {
            return Err(ToolError::msg(format!(
                "this session has {MAX_JOBS} scheduled prompts, the most it may; delete one with CronDelete first"
            )));
        }
        let id = new_id(cron, prompt, now, jobs.len());
        let next = next_fire(cron, &id, now, recurring)?;
        let job =
            Job { id, cron: cron.trim().to_owned(), prompt: prompt.to_owned(), recurring, durable, created: now, next };
        jobs.push(job.clone());
        Ok(job)
    }

    /// Removes the job `id`; whether there was one.
    pub fn delete(&self, id: &str) -> Option<Job> {
        let mut jobs = self.lock();
        let at = jobs.iter().position(|j| j.id == id.trim())?;
        Some(jobs.remove(at))
    }

    /// Every job, by next fire.
    pub fn list(&self) -> Vec<Job> {
        let mut jobs = self.lock().clone();
        jobs.sort_by_key(|j| j.next);
        jobs
    }

    /// When the next job is due (Unix seconds).
    pub fn next_due(&self) -> Option<i64> {
        self.lock().iter().map(|j| j.next).min()
    }

    /// The jobs due at `now`, each once (missed fires are not caught up): one-shots
    /// and expired recurring jobs leave; the others get their next time after `now`.
    pub fn take_due(&self, now: i64) -> Vec<Fire> {
        let mut jobs = self.lock();
        let mut fires = Vec::new();
        jobs.retain_mut(|job| {
            if job.next > now {
                return true;
            }
            let expired = job.recurring && now - job.created >= RECURRING_LIFETIME_SECS;
            let last = !job.recurring || expired;
            fires.push(Fire { id: job.id.clone(), prompt: job.prompt.clone(), last });
            if last {
                return false;
            }
            match next_fire(&job.cron, &job.id, now, true) {
                Ok(next) => {
                    job.next = next;
                    true
                }
                Err(_) => false,
            }
        });
        fires
    }

    /// Saves the durable jobs in `workspace` (atomically; none: the file is emptied).
    pub fn save_durable(&self, workspace: &Path) -> std::io::Result<PathBuf> {
        let durable: Vec<Job> = self.lock().iter().filter(|j| j.durable).cloned().collect();
        let bytes = serde_json::to_vec_pretty(&durable).map_err(std::io::Error::other)?;
        toolwright_core::state_file::write(workspace, DURABLE_FILE, &bytes)?;
        Ok(workspace.join(DURABLE_FILE))
    }
}

/// Claude Code's cron: five fields of `*`, numbers, `*/n`, ranges and lists; no
/// names, `L`, `W`, `?` or `#`, no `@daily`.
pub fn check(cron: &str) -> Result<(), ToolError> {
    let fields: Vec<&str> = cron.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(ToolError::msg(format!(
            "`{cron}` has {} fields; a cron expression has five: minute hour day-of-month month day-of-week \
             (`*/5 * * * *` is every five minutes), in local time",
            fields.len()
        )));
    }
    if let Some(bad) =
        fields.iter().find(|f| !f.chars().all(|c| c.is_ascii_digit() || matches!(c, '*' | '/' | '-' | ',')))
    {
        return Err(ToolError::msg(format!(
            "`{bad}` in `{cron}`: only `*`, numbers, `*/n`, ranges (`1-5`) and lists (`1,15`) are understood \
             (no names, `L`, `W`, `?` or `#`)"
        )));
    }
    croner::Cron::from_str(cron).map_err(|e| ToolError::msg(format!("`{cron}` is not a cron expression: {e}")))?;
    Ok(())
}

/// The next fire after `now` (Unix seconds), jitter included: a recurring job up to
/// 30 minutes late (half its interval when that is shorter), a one-shot at :00 or
/// :30 up to 90 seconds early; the offset comes from the id, so it is stable.
pub fn next_fire(cron: &str, id: &str, now: i64, recurring: bool) -> Result<i64, ToolError> {
    let pattern = croner::Cron::from_str(cron).map_err(|e| ToolError::msg(format!("`{cron}`: {e}")))?;
    let start: DateTime<Local> =
        Local.timestamp_opt(now, 0).single().ok_or_else(|| ToolError::msg("the clock is out of range"))?;
    let next = pattern
        .find_next_occurrence(&start, false)
        .map_err(|e| ToolError::msg(format!("`{cron}` never matches: {e}")))?;
    let at = next.timestamp();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut hasher);
    let seed = hasher.finish();
    if recurring {
        let after = pattern.find_next_occurrence(&next, false).map(|n| n.timestamp()).unwrap_or(at + 3600);
        let window = ((after - at) / 2).clamp(0, 30 * 60);
        return Ok(at + if window > 0 { (seed % window as u64) as i64 } else { 0 });
    }
    let minute = chrono::Timelike::minute(&next);
    let early = if minute == 0 || minute == 30 { (seed % 91) as i64 } else { 0 };
    Ok((at - early).max(now + 1))
}

/// The schedule in words (croner's description).
pub fn human(cron: &str) -> String {
    croner::Cron::from_str(cron).map(|c| c.describe()).unwrap_or_else(|_| cron.to_owned())
}

fn new_id(cron: &str, prompt: &str, now: i64, n: usize) -> String {
    use std::hash::BuildHasher;
    let hash = std::collections::hash_map::RandomState::new().hash_one((cron, prompt, now, n));
    format!("{:08x}", hash as u32)
}

/// Now, in Unix seconds.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_claude_codes_cron_syntax_is_taken() {
        assert!(check("*/5 * * * *").is_ok());
        assert!(check("0 9 1-5,15 * 1-5").is_ok());
        for bad in ["* * * *", "0 9 * * MON", "0 0 L * *", "@daily", "0 9 ? * *", "61 * * * *"] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn due_jobs_fire_once_and_one_shots_leave() {
        let schedules = Schedules::new();
        let now = 1_800_000_000;
        let once = schedules.create("* * * * *", "ping", false, false, now).unwrap();
        let every = schedules.create("* * * * *", "tick", true, false, now).unwrap();
        assert!(once.next > now && once.next <= now + 60);
        // Jitter keeps a recurring fire within half its interval.
        assert!(every.next > now && every.next <= now + 60 + 30, "{}", every.next - now);
        assert!(schedules.take_due(now).is_empty());
        // An hour late: each fires once, no catch-up.
        let fires = schedules.take_due(now + 3600);
        assert_eq!(fires.len(), 2);
        assert_eq!(schedules.list().len(), 1);
        assert!(schedules.list()[0].next > now + 3600);
        // After seven days the recurring job fires one last time.
        let fires = schedules.take_due(now + RECURRING_LIFETIME_SECS + 10);
        assert!(fires[0].last && schedules.list().is_empty());
    }

    #[test]
    fn at_most_fifty_jobs() {
        let schedules = Schedules::new();
        for _ in 0..MAX_JOBS {
            schedules.create("0 * * * *", "x", true, false, 1_800_000_000).unwrap();
        }
        assert!(schedules.create("0 * * * *", "x", true, false, 1_800_000_000).is_err());
    }
}
