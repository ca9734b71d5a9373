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
pub struct CallTag {
    tag: String,
    /// When the tag was made, in clock ticks since boot: no process older than
    /// this can carry it.
    since: u64,
}

impl CallTag {
    /// A tag unique in this machine's processes: our pid and a counter.
    pub fn new() -> CallTag {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tag = format!("{}.{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        live().tags.insert(tag.clone());
        CallTag { tag, since: ticks_since_boot().unwrap_or(0) }
    }

    /// The variable and value to set in the command's environment.
    pub fn env(&self) -> (&'static str, &str) {
        (TAG_VARIABLE, &self.tag)
    }

    /// Kills every process carrying the tag; returns how many there were.
    pub fn kill_tagged(&self) -> usize {
        kill_tagged(|value| value == self.tag.as_bytes(), self.since)
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
        live().tags.remove(&self.tag);
    }
}

/// Kills the processes whose tag `matches`, until a look finds none (a process
/// forking while it is killed leaves a tagged child for the next look).
///
/// A process between two programs (inside `execve`) reads as having no
/// environment, a part of one, or an error; one started since `since` that reads
/// so is looked at again, for at most [`EXEC_WINDOW`], rather than passed over: a
/// hook's `setsid sleep &` is often caught there.
fn kill_tagged(matches: impl Fn(&[u8]) -> bool, since: u64) -> usize {
    let mut killed = HashSet::new();
    let deadline = std::time::Instant::now() + EXEC_WINDOW;
    for round in 0.. {
        let look = look(&matches, since);
        if look.tagged.is_empty() && (look.unsure == 0 || std::time::Instant::now() > deadline) {
            break;
        }
        if round > 0 {
            // A killed process takes a moment to die, an exec a moment to finish.
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        for pid in look.tagged {
            #[cfg(unix)]
            if let Some(id) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(id, rustix::process::Signal::KILL);
            }
            killed.insert(pid);
        }
    }
    killed.len()
}

/// How long a young process with no environment is waited for: an exec takes
/// microseconds, but a loaded machine can hold one for milliseconds.
const EXEC_WINDOW: std::time::Duration = std::time::Duration::from_millis(100);

/// What one look through `/proc` found.
struct Look {
    /// The live processes (not zombies, not us) whose tag matches.
    tagged: Vec<i32>,
    /// Live processes started since the tag was made whose environment could not
    /// be read whole.
    unsure: usize,
}

fn look(matches: &impl Fn(&[u8]) -> bool, since: u64) -> Look {
    let mut found = Look { tagged: Vec::new(), unsure: 0 };
    let Ok(entries) = std::fs::read_dir("/proc") else { return found };
    let me = std::process::id();
    let prefix = format!("{TAG_VARIABLE}=");
    for pid in entries.flatten().filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok()) {
        if pid as u32 == me {
            continue;
        }
        let path = format!("/proc/{pid}/environ");
        let tagged = |environ: &[u8]| {
            environ.split(|&b| b == 0).any(|var| var.strip_prefix(prefix.as_bytes()).is_some_and(matches))
        };
        match std::fs::read(&path) {
            Ok(environ) if tagged(&environ) => found.tagged.push(pid),
            // An exited process's environment does not read at all.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            // A process caught inside `execve` reads as no environment, a part of
            // one, or an error; a whole one ends with its NUL and reads the same
            // twice. (A zombie or a kernel thread reads empty, but is not young
            // and alive.)
            read if young_and_alive(pid, since) => {
                let settled = read.as_ref().is_ok_and(|environ| {
                    environ.ends_with(b"\0") && std::fs::read(&path).is_ok_and(|again| again == *environ)
                });
                if !settled {
                    found.unsure += 1;
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether `pid` is not a zombie, not a kernel thread, and started at or after
/// `since` (clock ticks since boot).
fn young_and_alive(pid: i32, since: u64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // The fields after the command's closing parenthesis: state is the first,
    // the parent the second, the start time the twentieth.
    let Some((_, rest)) = stat.rsplit_once(')') else { return false };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let started = fields.get(19).and_then(|t| t.parse::<u64>().ok());
    fields.first().is_some_and(|&state| state != "Z" && state != "X")
        && fields.get(1).is_some_and(|&parent| parent != "2" && parent != "0")
        && started.is_some_and(|started| started + 1 >= since)
}

/// Now, in the clock ticks `/proc/<pid>/stat` counts start times in (`USER_HZ`,
/// 100 on every Linux ABI).
fn ticks_since_boot() -> Option<u64> {
    let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
    let seconds: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    Some((seconds * 100.0) as u64)
}

/// When this process started, in the same ticks.
fn our_start() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| stat.rsplit_once(')')?.1.split_whitespace().nth(19)?.parse().ok())
        .unwrap_or(0)
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
    kill_tagged(|value| value.starts_with(ours.as_bytes()), our_start());
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

    #[test]
    fn a_process_caught_between_two_programs_is_still_found() {
        let mut survivors: Vec<u32> = Vec::new();
        for _ in 0..300 {
            let tag = CallTag::new();
            let (name, value) = tag.env();
            // Each `exec` replaces the program; the tag is killed while one is under way.
            let mut child = Command::new("setsid")
                .args(["sh", "-c", "exec env sh -c 'exec sleep 300'"])
                .env(name, value)
                .stdout(Stdio::null())
                .spawn()
                .expect("setsid");
            tag.kill_tagged();
            let pid = child.id();
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
            while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            if child.try_wait().unwrap().is_none() {
                survivors.push(pid);
                let _ = child.kill();
            }
            let _ = child.wait();
        }
        assert!(survivors.is_empty(), "{} survived: {survivors:?}", survivors.len());
    }
}
