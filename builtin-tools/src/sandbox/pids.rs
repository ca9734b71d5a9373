//! A bound on how many processes a confined command may have, so that a fork bomb
//! stops at it instead of filling the machine's process table.
//!
//! Where the kernel lets us: a cgroup of the version 1 `pids` controller, made beside
//! the agent's own, with `pids.max` set. Version 1 moves single threads (`tasks`
//! takes a thread id), so the short-lived thread that spawns the command enters the
//! cgroup first and everything the command starts is born in it: nothing runs
//! outside the bound, even for a moment. Elsewhere, for an agent that is not root,
//! `RLIMIT_NPROC` on the command's first process (the kernel ignores it for root).
//! Otherwise the result says that no bound could be set.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The most processes (and threads: the controller counts both) a command may have:
/// far above what a build on a few cores starts, far below a machine's table.
pub(crate) const MAX_PROCESSES: u64 = 2048;

/// How a command's processes are bounded.
pub(super) enum Bound {
    /// A `pids` cgroup of its own, entered by the spawning thread.
    Cgroup(Cgroup),
    /// `RLIMIT_NPROC` set on the first process after it starts.
    Rlimit,
    /// None could be set; why, for the result.
    None(String),
}

impl Bound {
    /// The best bound this machine allows.
    pub(super) fn make() -> Bound {
        let cgroup_failure = match Cgroup::make() {
            Ok(cgroup) => return Bound::Cgroup(cgroup),
            Err(why) => why,
        };
        if !rustix::process::geteuid().is_root() {
            return Bound::Rlimit;
        }
        Bound::None(format!(
            "the number of processes is not bounded ({cgroup_failure}, and RLIMIT_NPROC does not bind root)"
        ))
    }

    /// What the spawning thread enters before it spawns the command: the cgroup's
    /// `tasks` file.
    pub(super) fn tasks(&self) -> Option<PathBuf> {
        match self {
            Bound::Cgroup(cgroup) => Some(cgroup.dir.join("tasks")),
            Bound::Rlimit | Bound::None(_) => None,
        }
    }

    /// Applies the bound to the command's first process, `pid`, once it runs.
    pub(super) fn started(&self, pid: Option<u32>) {
        if let (Bound::Rlimit, Some(pid)) = (self, pid.and_then(|p| rustix::process::Pid::from_raw(p as i32))) {
            let limit = rustix::process::Rlimit { current: Some(MAX_PROCESSES), maximum: Some(MAX_PROCESSES) };
            let _ = rustix::process::prlimit(Some(pid), rustix::process::Resource::Nproc, limit);
        }
    }

    /// Whether the command was refused a process because it had reached the bound
    /// (the cgroup's `pids.events`).
    pub(super) fn reached(&self) -> bool {
        let Bound::Cgroup(cgroup) = self else { return false };
        std::fs::read_to_string(cgroup.dir.join("pids.events")).is_ok_and(|events| {
            events.lines().any(|l| l.strip_prefix("max ").is_some_and(|n| n.trim().parse::<u64>().is_ok_and(|n| n > 0)))
        })
    }

    /// Why there is no bound, for the result.
    pub(super) fn missing(&self) -> Option<&str> {
        match self {
            Bound::None(why) => Some(why),
            _ => None,
        }
    }
}

/// A `pids` cgroup made for one command; removed (once empty) when dropped.
pub(super) struct Cgroup {
    dir: PathBuf,
}

static MADE: AtomicU64 = AtomicU64::new(0);

impl Cgroup {
    fn make() -> Result<Cgroup, String> {
        let parent = own_pids_cgroup().ok_or("no cgroup of the `pids` controller (version 1) is mounted")?;
        if MADE.load(Ordering::Relaxed) == 0 {
            sweep(&parent);
        }
        let name = format!("toolwright-{}-{}", std::process::id(), MADE.fetch_add(1, Ordering::Relaxed));
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make a `pids` cgroup in {}: {e}", parent.display()))?;
        let cgroup = Cgroup { dir };
        std::fs::write(cgroup.dir.join("pids.max"), MAX_PROCESSES.to_string())
            .map_err(|e| format!("cannot set `pids.max` in {}: {e}", cgroup.dir.display()))?;
        Ok(cgroup)
    }
}

/// Moves the calling thread into the cgroup whose `tasks` file is `tasks`.
pub(super) fn enter(tasks: &Path) -> Result<(), String> {
    let tid = rustix::thread::gettid().as_raw_nonzero().get();
    std::fs::write(tasks, tid.to_string()).map_err(|e| format!("cannot enter the command's `pids` cgroup: {e}"))
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The command's processes were killed and the spawning thread told to end;
        // the last of them may take a moment to go. A short wait here, then a thread
        // of its own (and the next command's sweep, if the process ends first).
        let dir = std::mem::take(&mut self.dir);
        for _ in 0..10 {
            if !busy(&dir) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let _ = std::thread::Builder::new().name("toolwright-cgroup".into()).spawn(move || {
            for _ in 0..250 {
                if !busy(&dir) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
    }
}

/// Tries to remove the cgroup `dir`: whether it still has tasks.
fn busy(dir: &Path) -> bool {
    std::fs::remove_dir(dir).is_err_and(|e| e.raw_os_error() == Some(libc::EBUSY))
}

/// Removes the cgroups that processes which have ended left behind.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("toolwright-")).and_then(|n| n.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_ok_and(|pid| pid != std::process::id()) && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// The agent's own cgroup in the version 1 `pids` hierarchy, from `/proc/self/cgroup`
/// and where that hierarchy is mounted (`/proc/self/mountinfo`).
fn own_pids_cgroup() -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers.split(',').any(|c| c == "pids").then(|| path.to_owned())
    })?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut fields = before.split(' ');
        let root = fields.nth(3)?;
        let mount_point = fields.next()?;
        let mut after = after.split(' ');
        let (kind, _, options) = (after.next()?, after.next()?, after.next()?);
        if kind != "cgroup" || !options.split(',').any(|o| o == "pids") {
            return None;
        }
        let inside = Path::new(&own).strip_prefix(root).ok()?;
        let dir = Path::new(mount_point).join(inside);
        dir.is_dir().then_some(dir)
    })
}
