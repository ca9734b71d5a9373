//! Finding a test's processes by a marker in their command line, in this machine's
//! `/proc`: a sandboxed command runs in a PID namespace of its own, where `$!` and `$$`
//! are not this machine's pids. The marker is a unique number of seconds for `sleep`.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A duration of about `seconds` that no other test uses, for `sleep` to carry.
pub fn marker(seconds: u32) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("{seconds}.{}{:04}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether process `pid` is gone (a zombie waiting for its reaper counts as gone).
pub fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// The live processes with `marker` as one of their arguments.
pub fn marked(marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline.split(|b| *b == 0).any(|arg| arg == marker.as_bytes()) && !is_dead(pid) {
            pids.push(pid);
        }
    }
    pids
}

/// The marked processes once there are `n` of them, or after `wait`.
pub fn wait_for_marked(marker: &str, n: usize, wait: Duration) -> Vec<u32> {
    let deadline = Instant::now() + wait;
    loop {
        let pids = marked(marker);
        if pids.len() >= n || Instant::now() > deadline {
            return pids;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether every marked process is gone within 5 s.
pub fn marked_gone_soon(marker: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if marked(marker).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
