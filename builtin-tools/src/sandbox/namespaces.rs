//! The first layer: Linux namespaces, through bubblewrap (`bwrap`), as Claude Code's
//! sandbox and Flatpak use them. The command sees a mount namespace where the whole
//! filesystem is read-only but the writable roots, with the protected paths inside
//! them mounted read-only again and the read-denied paths covered by empty,
//! unreadable stand-ins; a minimal `/dev` (null, zero, full, random, urandom, tty and
//! its own ptys); a PID namespace with its own `/proc`, so it sees only its own
//! processes and the kernel ends all of them when the command's first process exits;
//! a user namespace with no capabilities in which no further user namespace can be
//! made (so no mount can be undone); its own session, so it cannot push keystrokes
//! into the agent's terminal.
//!
//! Why bubblewrap and not namespaces set up in-process: a user namespace can only be
//! entered by a single-threaded process, and the agent is a multi-threaded one, so a
//! fresh process has to do it between fork and exec, which takes `unsafe` code this
//! project does not have. bubblewrap is that process, small, audited and packaged
//! everywhere. Where it is missing or cannot make namespaces, the command still runs
//! under the second layer (Landlock and seccomp), and its result says what is then not
//! covered.
//!
//! Landlock's filesystem rules cannot be combined with it (a thread with them may not
//! mount), so under bubblewrap Landlock keeps the network (TCP ports) and the scopes
//! (signals, abstract Unix sockets), and seccomp the sockets and the kernel's
//! dangerous calls; the mounts are the filesystem's layer, and the put-back of the
//! guarded files (`protected.rs`) the last line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// bubblewrap as found and tried on this machine.
#[derive(Debug)]
pub(super) struct Bwrap {
    path: PathBuf,
    /// `--disable-userns` is understood (bubblewrap 0.8 and later).
    disable_userns: bool,
}

/// What the read-denied paths are covered with: an empty file and an empty
/// directory, neither readable, made once per command outside its writable roots.
pub(super) struct Stubs {
    pub(super) file: PathBuf,
    pub(super) dir: PathBuf,
}

impl Stubs {
    /// Makes the stand-ins in `dir` (a directory the command cannot write), when
    /// `needed` (a read-denied path exists); else only names them.
    pub(super) fn make(dir: &Path, needed: bool) -> std::io::Result<Stubs> {
        use std::os::unix::fs::PermissionsExt as _;
        let stubs = Stubs { file: dir.join("denied-file"), dir: dir.join("denied-dir") };
        if !needed {
            return Ok(stubs);
        }
        std::fs::write(&stubs.file, b"")?;
        std::fs::create_dir(&stubs.dir)?;
        std::fs::set_permissions(&stubs.file, std::fs::Permissions::from_mode(0o000))?;
        std::fs::set_permissions(&stubs.dir, std::fs::Permissions::from_mode(0o000))?;
        Ok(stubs)
    }
}

/// What the mount namespace is made of. Paths are absolute; those that do not exist
/// are left out.
pub(super) struct Mounts<'a> {
    /// Filesystem isolation on: everything but `writable` is read-only.
    pub(super) isolate: bool,
    pub(super) writable: &'a [PathBuf],
    pub(super) write_denied: &'a [PathBuf],
    /// Existing protected paths, each inside one of `writable`.
    pub(super) protected: &'a [PathBuf],
    pub(super) read_denied: &'a [PathBuf],
    pub(super) read_allowed: &'a [PathBuf],
    pub(super) stubs: &'a Stubs,
}

/// The environment variable that turns the namespaces off (`off`), to see how a
/// machine without them is served.
pub(super) const SWITCH: &str = "TOOLWRIGHT_SANDBOX_NAMESPACES";

static FOUND: OnceLock<Result<Bwrap, String>> = OnceLock::new();

/// bubblewrap, if it is installed and can make namespaces here; tried once per
/// process with `try_run`, which runs the arguments it is given confined as a real
/// command would be (the layers under it included) and says why it failed.
pub(super) fn bwrap(
    try_run: impl Fn(&Path, &[OsString]) -> Result<(), String>,
) -> Result<&'static Bwrap, &'static str> {
    FOUND
        .get_or_init(|| {
            if std::env::var_os(SWITCH).is_some_and(|v| v == "off") {
                return Err(format!("namespaces are turned off ({SWITCH}=off)"));
            }
            let path = find().ok_or_else(|| {
                "bubblewrap (`bwrap`) is not installed, so there are no mount or PID namespaces".to_owned()
            })?;
            let probe = |disable_userns: bool| {
                let bwrap = Bwrap { path: path.clone(), disable_userns };
                let mut args = bwrap.flags();
                args.extend(
                    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"].map(OsString::from),
                );
                try_run(&bwrap.path, &args).map(|()| bwrap)
            };
            probe(true)
                .or_else(|first| if first.contains("disable-userns") { probe(false) } else { Err(first) })
                .map_err(|why| format!("bubblewrap cannot make namespaces here ({})", why.trim()))
        })
        .as_ref()
        .map_err(String::as_str)
}

fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/bin")])
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
}

impl Bwrap {
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a command can make user namespaces of its own (older bubblewrap).
    pub(super) fn nested_userns(&self) -> bool {
        !self.disable_userns
    }

    /// The namespaces and the process's state, before any mount.
    fn flags(&self) -> Vec<OsString> {
        let mut flags: Vec<OsString> = [
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--new-session",
        ]
        .map(OsString::from)
        .into();
        if self.disable_userns {
            flags.push("--disable-userns".into());
        }
        flags
    }

    /// bubblewrap's arguments for `mounts`, up to the `--` before the command.
    pub(super) fn args(&self, mounts: &Mounts<'_>) -> Vec<OsString> {
        let mut args = self.flags();
        let mut push = |how: &str, from: &Path, to: &Path| {
            args.push(how.into());
            args.push(from.into());
            args.push(to.into());
        };
        push(if mounts.isolate { "--ro-bind" } else { "--bind" }, Path::new("/"), Path::new("/"));
        // Later mounts cover earlier ones: the roots, then what is read-only inside
        // them, then what is hidden, then what is shown again inside a hidden place.
        let mut writable: Vec<&PathBuf> = mounts.writable.iter().filter(|p| exists(p)).collect();
        writable.sort_by_key(|p| p.components().count());
        writable.dedup();
        if mounts.isolate {
            for path in &writable {
                push("--bind-try", path, path);
            }
            for path in mounts.write_denied.iter().filter(|p| under_any(p, &writable)) {
                push("--ro-bind-try", path, path);
            }
        }
        let mut pinned: Vec<PathBuf> = Vec::new();
        for path in mounts.protected {
            // Each configuration directory between the root and the protected path
            // (`.git`, `.claude`) becomes a mount point of its own, which cannot be
            // renamed away to make a fresh copy. Ordinary directories (a nested
            // project's `packages/lib`) stay movable; the put-back covers them.
            let Some(root) = writable.iter().find(|w| path.starts_with(w)) else { continue };
            let mut ancestors: Vec<&Path> = path
                .ancestors()
                .skip(1)
                .take_while(|a| a != &root.as_path())
                .filter(|a| a.file_name().is_some_and(|n| n.as_encoded_bytes().starts_with(b".")))
                .collect();
            ancestors.reverse();
            for dir in ancestors {
                if !pinned.iter().any(|p| p == dir) && is_real_dir(dir) {
                    push("--bind-try", dir, dir);
                    pinned.push(dir.to_owned());
                }
            }
            push("--ro-bind-try", path, path);
        }
        for path in mounts.read_denied {
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_dir() => push("--ro-bind", &mounts.stubs.dir, path),
                Ok(_) => push("--ro-bind", &mounts.stubs.file, path),
                Err(_) => {}
            }
        }
        for path in mounts.read_allowed.iter().filter(|p| mounts.read_denied.iter().any(|d| p.starts_with(d))) {
            let how = if mounts.isolate && under_any(path, &writable) { "--bind-try" } else { "--ro-bind-try" };
            push(how, path, path);
        }
        args.extend(["--dev", "/dev", "--proc", "/proc"].map(OsString::from));
        // The kernel's settings under the fresh `/proc` stay read-only. bubblewrap
        // covers them only when it finds them writable, and a command of a root agent
        // runs as the machine's root uid in its namespace: `access` says no to the
        // directory while `/proc/sys/kernel/core_pattern` opens for writing. The host's
        // entries, bound read-only, answer for the reader's namespaces all the same.
        for entry in PROC_READ_ONLY {
            let path = Path::new("/proc").join(entry);
            args.extend(["--ro-bind-try".into(), path.clone().into_os_string(), path.into_os_string()]);
        }
        // bubblewrap's own process is PID 1 here while it sets up (and then reaps):
        // its memory and environment are covered, so no command opens them, not even
        // to write (ptrace and process_vm_* are refused by seccomp besides).
        for entry in PID1_COVERED {
            let path = Path::new("/proc/1").join(entry);
            args.extend(["--ro-bind".into(), "/dev/null".into(), path.into_os_string()]);
        }
        args
    }
}

/// What stays read-only under `/proc`: bubblewrap's list (`sys`, `sysrq-trigger`,
/// `irq`, `bus`) and the rest of the container runtimes' (`fs`, `acpi`, `scsi`).
const PROC_READ_ONLY: &[&str] = &["sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "scsi"];

/// What of PID 1 (bubblewrap) is covered: its memory and its environment.
const PID1_COVERED: &[&str] = &["mem", "environ"];

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

fn under_any(path: &Path, roots: &[&PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(args: &[OsString]) -> String {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn protected_paths_are_read_only_with_their_parents_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join("secret")).unwrap();
        let stubs = Stubs::make(dir.path(), true).unwrap();
        let bwrap = Bwrap { path: "/usr/bin/bwrap".into(), disable_userns: true };
        let writable = [ws.clone(), dir.path().join("missing")];
        let protected = [ws.join(".git/hooks")];
        let denied = [ws.join("secret")];
        let args = text(&bwrap.args(&Mounts {
            isolate: true,
            writable: &writable,
            write_denied: &[],
            protected: &protected,
            read_denied: &denied,
            read_allowed: &[],
            stubs: &stubs,
        }));
        let ws = ws.display();
        assert!(args.starts_with("--unshare-user"), "{args}");
        assert!(args.contains("--disable-userns") && args.contains("--cap-drop ALL"), "{args}");
        let order = [
            "--ro-bind / /".to_owned(),
            format!("--bind-try {ws} {ws}"),
            format!("--bind-try {ws}/.git {ws}/.git"),
            format!("--ro-bind-try {ws}/.git/hooks {ws}/.git/hooks"),
            format!("--ro-bind {} {ws}/secret", stubs.dir.display()),
            "--dev /dev --proc /proc".to_owned(),
        ];
        let at: Vec<usize> = order.iter().map(|part| args.find(part.as_str()).expect(part)).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{args}");
        assert!(!args.contains("missing"), "a root that does not exist is left out: {args}");
    }
}
