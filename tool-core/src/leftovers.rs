//! What tools start or create and must not outlive them: process groups, the
//! processes a command starts that leave its group, and temporary files. Each is
//! registered while it lives, so that [`clean_up`] can remove them all when the
//! process is told to stop (a signal, a second one, an exit), even where the
//! futures that own them are never dropped.
//!
//! Escaped processes are found by a tag in their environment: a command's
//! processes inherit [`CallTag`]'s variable, so one that left the process group
//! (`setsid`, a daemon's double fork) still carries it and is found in `/proc`. A
//! process that clears its own environment is not found this way; a cgroup would
//! find it, but creating one needs privileges an agent rarely has.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

/// The environment variable that tags a command's processes.
pub const TAG_VARIABLE: &str = "TOOLWRIGHT_CALL_TAG";

#[derive(Default)]
struct Live {
    groups: HashSet<i32>,
    tags: HashSet<String>,
    temps: HashSet<PathBuf>,
}

static LIVE: LazyLock<Mutex<Live>> = LazyLock::new(Mutex::default);

fn live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A process group a tool started: killed (`SIGKILL` to the whole group) by
/// [`kill`](Self::kill), on drop, or by [`clean_up`].
#[derive(Debug)]
pub struct ProcessGroup(Option<i32>);

impl ProcessGroup {
    /// Takes charge of the group `pgid` (a child started with `process_group(0)`
    /// leads the group of its own pid). `None` (a child already gone) is a group
    /// with nothing to kill.
    pub fn adopt(pgid: Option<u32>) -> ProcessGroup {
        let pgid = pgid.and_then(|id| i32::try_from(id).ok()).filter(|&id| id > 1);
        if let Some(id) = pgid {
            live().groups.insert(id);
        }
        ProcessGroup(pgid)
    }

    /// Kills every process still in the group. Idempotent.
    pub fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            kill_group(pgid);
            live().groups.remove(&pgid);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kill_group(pgid: i32) {
    #[cfg(unix)]
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// A tag for one command's processes: put [`env`](Self::env) in the command's
/// environment; [`kill_tagged`](Self::kill_tagged) then kills every process that
/// still carries it, wherever it moved to. Dropping it kills them too.
#[derive(Debug)]
pub struct CallTag(String);

impl CallTag {
    /// A tag unique in this machine's processes: our pid and a counter.
    pub fn new() -> CallTag {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tag = format!("{}.{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        live().tags.insert(tag.clone());
        CallTag(tag)
    }

    /// The variable and value to set in the command's environment.
    pub fn env(&self) -> (&'static str, &str) {
        (TAG_VARIABLE, &self.0)
    }

    /// Kills every process carrying the tag; returns how many there were.
    pub fn kill_tagged(&self) -> usize {
        kill_tagged(|value| value == self.0.as_bytes())
    }
}

impl Default for CallTag {
    fn default() -> CallTag {
        CallTag::new()
    }
}

impl Drop for CallTag {
    fn drop(&mut self) {
        self.kill_tagged();
        live().tags.remove(&self.0);
    }
}

/// Kills the processes whose tag `matches`, until a look finds none (a process
/// forking while it is killed leaves a tagged child for the next look).
fn kill_tagged(matches: impl Fn(&[u8]) -> bool) -> usize {
    let mut killed = HashSet::new();
    for round in 0..8 {
        let found = tagged_processes(&matches);
        if found.is_empty() {
            break;
        }
        if round > 0 {
            // A killed process takes a moment to die; give it one before looking again.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        for pid in found {
            #[cfg(unix)]
            if let Some(id) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(id, rustix::process::Signal::KILL);
            }
            killed.insert(pid);
        }
    }
    killed.len()
}

/// The live processes (not zombies, not us) whose tag `matches`.
fn tagged_processes(matches: &impl Fn(&[u8]) -> bool) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let me = std::process::id();
    let prefix = format!("{TAG_VARIABLE}=");
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid as u32 != me)
        .filter(|pid| {
            // A zombie's environment reads empty; an exited process's not at all.
            let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { return false };
            environ.split(|&b| b == 0).any(|var| var.strip_prefix(prefix.as_bytes()).is_some_and(matches))
        })
        .collect()
}

/// A temporary file being written, or a scratch directory: removed by
/// [`clean_up`] (a directory with what it holds) if the process stops while it is
/// registered. Drop it once the file is renamed or removed.
#[derive(Debug)]
pub struct PendingTemp(PathBuf);

impl PendingTemp {
    /// Registers `path`.
    pub fn new(path: impl Into<PathBuf>) -> PendingTemp {
        let path = path.into();
        live().temps.insert(path.clone());
        PendingTemp(path)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PendingTemp {
    fn drop(&mut self) {
        live().temps.remove(&self.0);
    }
}

/// Kills every live process group and tagged process of this process's tools and
/// removes their unfinished temporary files. For a process about to exit: call it
/// after a stop signal, before `exit`. Safe to call more than once.
pub fn clean_up() {
    let (groups, temps) = {
        let mut live = live();
        (live.groups.drain().collect::<Vec<_>>(), live.temps.drain().collect::<Vec<_>>())
    };
    for pgid in groups {
        kill_group(pgid);
    }
    // Every tag of this process, live or not: ours start with our pid.
    let ours = format!("{}.", std::process::id());
    kill_tagged(|value| value.starts_with(ours.as_bytes()));
    for temp in temps {
        // (Not following a symlink: only what was registered goes.)
        let _ = match std::fs::symlink_metadata(&temp) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&temp),
            _ => std::fs::remove_file(&temp),
        };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            // The state follows the command's closing parenthesis.
            stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
    }

    #[test]
    fn tagged_processes_groups_and_temps_are_cleaned_up() {
        let tag = CallTag::new();
        let (name, value) = tag.env();
        // `setsid` puts the sleep in a session of its own, out of any group we know.
        let mut child = Command::new("setsid")
            .args(["sleep", "300"])
            .env(name, value)
            .stdout(Stdio::null())
            .spawn()
            .expect("setsid");
        let pid = child.id();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(alive(pid));
        assert_eq!(tag.kill_tagged(), 1);
        let _ = child.wait();
        assert!(!alive(pid));
        assert_eq!(tag.kill_tagged(), 0);

        // (One test: `clean_up` kills every tagged process of the test binary.)
        let mut child = Command::new("sleep").arg("300").process_group(0).spawn().unwrap();
        let group = ProcessGroup::adopt(Some(child.id()));
        let dir = std::env::temp_dir().join(format!("leftovers-{}", std::process::id()));
        std::fs::write(&dir, b"partial").unwrap();
        let pending = PendingTemp::new(&dir);
        clean_up();
        assert!(!pending.path().exists());
        assert!(!child.wait().unwrap().success(), "killed");
        drop(group);
    }
}
