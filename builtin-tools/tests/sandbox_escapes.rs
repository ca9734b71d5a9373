//! What Landlock alone cannot see, tried as an attacker would, each checked by its
//! effect on the machine: metadata, links, FIFOs and device nodes outside the
//! writable roots, protected paths inside them, a process that outlives its call to
//! rewrite settings, other processes' environments under `/proc`. The namespaces come
//! from bubblewrap, which `.ci/run` installs; on a machine without it these fail, as
//! they should (the commands are then not confined this way).
#![allow(missing_docs)]
#![cfg(target_os = "linux")]

mod common;

use common::sandbox::{place, rerun_with, session, shell};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::time::Duration;
use toolwright_core::sandbox::Sandbox;

#[test]
fn nothing_outside_changes_not_even_its_metadata() {
    let p = place();
    let precious = p.outside.join("precious.txt");
    let before = std::fs::metadata(&precious).unwrap();
    let mut s = session(&p.ws, Sandbox::default());
    let target = precious.display();
    let outside = p.outside.display();
    let attempts = [
        format!("chmod 4777 {target}"),
        format!("chown 1234:1234 {target}"),
        format!("touch -d 2001-01-01 {target}"),
        format!("python3 -c \"import os; os.setxattr('{target}', 'user.x', b'1')\""),
        format!("python3 -c \"import os; os.utime('{target}', (0, 0))\""),
        format!("ln {target} hard-link"),
        format!("ln -s /etc/passwd {outside}/sym"),
        format!("mkfifo {outside}/fifo"),
        format!("python3 -c \"import os; os.mknod('{outside}/node')\""),
        format!("mknod {outside}/null c 1 3"),
    ];
    for attempt in &attempts {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
        assert!(out.contains("Blocked by the sandbox"), "`{attempt}`: not reported as blocked: {out}");
    }
    let after = std::fs::metadata(&precious).unwrap();
    assert_eq!(after.permissions().mode(), before.permissions().mode());
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    let left: Vec<_> = std::fs::read_dir(&p.outside).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["precious.txt"], "nothing new outside");
    assert!(!p.ws.join("hard-link").exists());
}

#[test]
fn no_device_node_and_no_capability_inside() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    // /dev/kmsg's numbers: were this allowed, a write would reach the kernel's log.
    let (ok, out) = shell(&mut s, "mknod ./km c 1 11 && echo x > ./km");
    assert!(!ok, "made a device node: {out}");
    assert!(!p.ws.join("km").exists() || !std::fs::metadata(p.ws.join("km")).unwrap().file_type().is_file());
    let (ok, out) = shell(&mut s, "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status");
    assert!(ok, "{out}");
    for line in out.lines().filter(|l| l.starts_with("Cap")) {
        assert!(line.ends_with("0000000000000000"), "a capability is left: {out}");
    }
    // The devices a command needs are there.
    let (ok, out) = shell(&mut s, "echo x > /dev/null && head -c 4 /dev/urandom | wc -c && ls /dev");
    assert!(ok && out.contains('4'), "{out}");
    assert!(!out.contains("kmsg") && !out.contains("sda") && !out.contains("vda"), "the host's devices: {out}");
}

#[test]
fn protected_paths_in_the_workspace_cannot_be_written() {
    let p = place();
    for dir in [".git/hooks", ".claude/commands", ".claude/agents", ".vscode", ".toolwright"] {
        std::fs::create_dir_all(p.ws.join(dir)).unwrap();
    }
    let files = [
        (".git/config", "[core]\n"),
        (".git/hooks/pre-commit", "#!/bin/sh\n"),
        (".claude/settings.json", "{}"),
        (".claude/commands/deploy.md", "deploy"),
        (".vscode/tasks.json", "{}"),
        (".bashrc", "# rc\n"),
        (".mcp.json", "{}"),
        (".toolwright/settings.json", "{}"),
    ];
    for (name, text) in files {
        std::fs::write(p.ws.join(name), text).unwrap();
    }
    let mut s = session(&p.ws, Sandbox::default());
    for (name, _) in files {
        for attempt in [
            format!("python3 -c \"open('{name}', 'w').write('pwned')\""),
            format!("rm -f {name} && echo pwned > {name}"),
            format!("chmod 777 {name}"),
        ] {
            let (ok, out) = shell(&mut s, &attempt);
            assert!(!ok, "`{attempt}` succeeded: {out}");
            assert!(out.contains("Blocked by the sandbox"), "`{attempt}`: {out}");
        }
    }
    // New files in protected directories, and moving a parent out of the way.
    for attempt in [
        "echo evil > .git/hooks/post-checkout",
        "echo evil > .claude/commands/new.md",
        "mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit",
        "mv .claude .c && mkdir .claude && echo '{\"sandbox\":{\"enabled\":false}}' > .claude/settings.json",
    ] {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
    }
    for (name, text) in files {
        assert_eq!(std::fs::read_to_string(p.ws.join(name)).unwrap(), text, "{name} changed");
    }
    assert!(!p.ws.join(".git/hooks/post-checkout").exists());
    assert!(!p.ws.join(".claude/commands/new.md").exists());
    // The rest of the workspace, and of .git, is the command's.
    let (ok, out) = shell(&mut s, "echo ok > notes.txt && echo x > .git/description && cat notes.txt");
    assert!(ok && out.contains("ok"), "{out}");
}

#[test]
fn a_protected_file_made_where_there_was_none_is_removed() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    let (ok, out) = shell(
        &mut s,
        "mkdir -p .claude/agents && echo '---\nname: x\n---' > .claude/agents/x.md && echo '{}' > .mcp.json",
    );
    assert!(!ok && out.contains("was undone"), "{out}");
    assert!(!p.ws.join(".claude/agents").exists() && !p.ws.join(".mcp.json").exists());
}

/// The processes whose command line has `marker`.
fn running_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&cmdline).contains(marker)
        {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

#[test]
fn nothing_outlives_its_call_to_rewrite_the_settings() {
    let p = place();
    std::fs::create_dir_all(p.ws.join(".claude")).unwrap();
    std::fs::write(p.ws.join(".claude/settings.json"), "{}").unwrap();
    let marker = format!("survivor{}", std::process::id());
    let mut s = session(&p.ws, Sandbox::default());
    let rewrite = format!(
        "sleep 2; echo '{{\"sandbox\":{{\"enabled\":false}}}}' > {}/.claude/settings.json; touch {}/{marker}",
        p.ws.display(),
        p.ws.display()
    );
    let tries = [
        format!("env -i setsid sh -c \"{rewrite}\" {marker} > /dev/null 2>&1 &"),
        format!("nohup sh -c \"{rewrite}\" {marker} > /dev/null 2>&1 & disown"),
        format!("(setsid sh -c \"{rewrite}\" {marker} &) ; exit 0"),
    ];
    for attempt in &tries {
        let (ok, out) = shell(&mut s, attempt);
        assert!(ok, "{out}");
    }
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(running_with(&marker), Vec::<String>::new(), "a process outlived its call");
    assert!(!p.ws.join(&marker).exists(), "a survivor wrote in the workspace");
    assert_eq!(std::fs::read_to_string(p.ws.join(".claude/settings.json")).unwrap(), "{}");
}

#[test]
fn other_processes_and_removed_secrets_are_out_of_sight() {
    // The agent's own environment has the secret; the command must not find it.
    let test = "other_processes_and_removed_secrets_are_out_of_sight";
    if rerun_with(test, &[("TOOLWRIGHT_TEST_SECRET", "SECRET_VALUE_X")]) {
        return;
    }
    let p = place();
    let mut sandbox = Sandbox::default();
    sandbox.env_denied = vec!["TOOLWRIGHT_TEST_SECRET".to_owned()];
    let mut s = session(&p.ws, sandbox);
    let me = std::process::id();
    let (ok, out) = shell(
        &mut s,
        &format!(
            "echo PPID=$PPID; cat /proc/$PPID/environ /proc/1/environ 2>&1 | tr '\\0' '\\n' | grep -c SECRET_VALUE_X; \
             ls /proc | grep -E '^[0-9]+$' | wc -l; test -e /proc/{me} && echo SEES_AGENT; true"
        ),
    );
    assert!(ok, "{out}");
    assert!(!out.contains("SEES_AGENT"), "the agent's process is visible: {out}");
    assert!(out.lines().nth(1).is_some_and(|l| l.trim() == "0"), "the secret was read back: {out}");
    let pids: usize = out.lines().rev().find_map(|l| l.trim().parse().ok()).unwrap();
    assert!(pids < 10, "sees {pids} processes: {out}");
}

/// Kernel interfaces that reach past namespaces or belong to the administrator, tried
/// by number (x86_64): each must fail with EACCES (the seccomp filter) or EPERM,
/// with namespaces and without them (where a command running as root keeps its
/// capabilities).
#[cfg(target_arch = "x86_64")]
#[test]
fn kernel_interfaces_past_the_namespaces_are_refused() {
    kernel_interfaces_are_refused();
}

#[cfg(target_arch = "x86_64")]
#[test]
fn kernel_interfaces_are_refused_without_namespaces_too() {
    if common::sandbox::rerun_without("kernel_interfaces_are_refused_without_namespaces_too", &["NAMESPACES"]) {
        return;
    }
    kernel_interfaces_are_refused();
}

#[cfg(target_arch = "x86_64")]
fn kernel_interfaces_are_refused() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    // (name, number, arguments): harmless forms, so nothing happens if one got through.
    let calls = [
        ("keyctl get the session keyring", 250, "0, -3, 0"),
        ("add_key", 248, "b'user', b'x', b'v', 1, -3"),
        ("bpf", 321, "0, 0, 0"),
        ("perf_event_open", 298, "0, 0, -1, -1, 0"),
        ("syslog read", 103, "3, 0, 0"),
        ("open_by_handle_at", 304, "-100, 0, 0"),
        ("acct off", 163, "0"),
        ("userfaultfd", 323, "0"),
    ];
    for (name, number, args) in calls {
        let script = format!(
            "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); \
             r = libc.syscall({number}, {args}); e = ctypes.get_errno(); print(r, e); \
             sys.exit(0 if r == -1 and e in (1, 13) else 1)"
        );
        let (ok, out) = shell(&mut s, &format!("python3 -c \"{script}\""));
        assert!(ok, "{name} was not refused: {out}");
    }
    let before = std::time::SystemTime::now();
    let (ok, out) = shell(&mut s, "date -s '2001-01-01 00:00:00'");
    assert!(!ok, "the clock was set: {out}");
    assert!(std::time::SystemTime::now() >= before, "the machine's clock moved back");
}

#[test]
fn the_users_settings_stay_protected_under_a_writable_config_directory() {
    let test = "the_users_settings_stay_protected_under_a_writable_config_directory";
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().canonicalize().unwrap();
    if rerun_with(test, &[("HOME", home_path.to_str().unwrap())]) {
        return;
    }
    // In the child: HOME is this run's own.
    let home = std::path::PathBuf::from(std::env::var("HOME").unwrap());
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), "{}").unwrap();
    let p = place();
    let mut sandbox = Sandbox::default();
    // `allowWrite: ["~/.claude"]`: the directory is writable, its settings are not.
    sandbox.writable = vec![home.join(".claude")];
    let mut s = session(&p.ws, sandbox);
    let settings = home.join(".claude/settings.json");
    let (ok, out) = shell(&mut s, &format!("echo '{{\"sandbox\":{{\"enabled\":false}}}}' > {}", settings.display()));
    assert!(!ok && out.contains("Blocked by the sandbox"), "{out}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}");
    let (ok, out) = shell(&mut s, &format!("echo note > {}", home.join(".claude/notes.txt").display()));
    assert!(ok, "the rest of the directory is writable: {out}");
}

#[test]
fn a_nested_repositorys_hooks_are_protected_too() {
    let p = place();
    std::fs::create_dir_all(p.ws.join("packages/lib/.git/hooks")).unwrap();
    std::fs::write(p.ws.join("packages/lib/.git/config"), "[core]\n").unwrap();
    std::fs::create_dir_all(p.ws.join("packages/lib/.vscode")).unwrap();
    std::fs::write(p.ws.join("packages/lib/.vscode/tasks.json"), "{}").unwrap();
    let mut s = session(&p.ws, Sandbox::default());
    for attempt in [
        "echo evil > packages/lib/.git/hooks/pre-commit",
        "echo '[core] hooksPath = /tmp' >> packages/lib/.git/config",
        "echo '{\"tasks\": []}' > packages/lib/.vscode/tasks.json",
    ] {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok && out.contains("Blocked by the sandbox"), "`{attempt}`: {out}");
    }
    assert!(!p.ws.join("packages/lib/.git/hooks/pre-commit").exists());
    assert_eq!(std::fs::read_to_string(p.ws.join("packages/lib/.git/config")).unwrap(), "[core]\n");
    assert_eq!(std::fs::read_to_string(p.ws.join("packages/lib/.vscode/tasks.json")).unwrap(), "{}");
    // The package's own files stay writable, and the package can be moved.
    let (ok, out) = shell(&mut s, "echo ok > packages/lib/notes.txt && cat packages/lib/notes.txt");
    assert!(ok && out.contains("ok"), "{out}");
    let (ok, out) = shell(&mut s, "mv packages/lib packages/lib2 && mv packages/lib2 packages/lib && echo moved");
    assert!(ok && out.contains("moved"), "{out}");
    // Moving it to plant fresh hooks where the old ones were is undone.
    let (_, out) = shell(
        &mut s,
        "mv packages/lib packages/old && mkdir -p packages/lib/.git/hooks && echo evil > packages/lib/.git/hooks/pre-commit",
    );
    assert!(out.contains("Blocked by the sandbox"), "{out}");
    assert!(!p.ws.join("packages/lib/.git/hooks/pre-commit").exists(), "{out}");
}

/// In a git worktree `.git` is a file naming the git directory: an ordinary command
/// changes nothing, the file and the git directory it names stay whole (`git status`
/// works after), and a command that rewrites the file has it put back.
#[test]
fn a_worktree_s_git_file_is_protected_not_removed() {
    let p = place();
    let repo = p.outside.join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = |dir: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let tree = p.ws.join("tree");
    git(&repo, &["worktree", "add", "--detach", "-q", tree.to_str().unwrap()]);
    let dot_git = std::fs::read_to_string(tree.join(".git")).unwrap();
    let mut s = session(&tree, Sandbox::default());
    for command in ["pwd", "ls -a", "git status --short"] {
        let (ok, out) = shell(&mut s, command);
        assert!(ok, "`{command}`: {out}");
        assert!(!out.contains("Blocked by the sandbox"), "`{command}`: {out}");
        assert_eq!(std::fs::read_to_string(tree.join(".git")).unwrap(), dot_git, "after `{command}`");
    }
    assert_eq!(git(&tree, &["status", "--porcelain"]), "");
    let (_, out) = shell(&mut s, "echo 'gitdir: /tmp/elsewhere' > .git");
    assert!(out.contains("Blocked by the sandbox"), "{out}");
    assert_eq!(std::fs::read_to_string(tree.join(".git")).unwrap(), dot_git);
    // The git directory it names is outside the writable roots: its config and hooks
    // are not the command's to change.
    let (ok, out) = shell(&mut s, "git config core.hooksPath /tmp/hooks");
    assert!(!ok, "{out}");
    assert!(!git(&repo, &["config", "--list"]).contains("hookspath"));
    git(&repo, &["worktree", "remove", tree.to_str().unwrap()]);
    assert!(git(&repo, &["worktree", "list"]).lines().count() == 1);
}

/// bubblewrap's own process is PID 1 of the command's namespace: whatever route a
/// command takes to it (its environment, `ptrace`, its memory through `/proc` or
/// `process_vm_readv`), it finds nothing the command may not see, and the routes
/// into another process's memory are refused.
#[test]
fn the_namespace_s_first_process_holds_no_secret() {
    let test = "the_namespace_s_first_process_holds_no_secret";
    if rerun_with(test, &[("TOOLWRIGHT_TEST_SECRET", "SECRET_VALUE_PID1")]) {
        return;
    }
    let p = place();
    let mut sandbox = Sandbox::default();
    sandbox.env_denied = vec!["TOOLWRIGHT_TEST_SECRET".to_owned()];
    let mut s = session(&p.ws, sandbox);
    let script = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
try:
    env = open('/proc/1/environ', 'rb').read()
    print('environ', b'SECRET_VALUE_PID1' in env)
except OSError as e:
    print('environ refused', e.errno)
print('self', b'SECRET_VALUE_PID1' in open('/proc/self/environ', 'rb').read())
for name, request in (('attach', 16), ('seize', 0x4206)):
    r = libc.ptrace(request, 1, 0, 0)
    print(name, r, ctypes.get_errno())
class iovec(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
buf = ctypes.create_string_buffer(16)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 16)
remote = iovec(0x400000, 16)
r = libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print('vm_readv', r, ctypes.get_errno())
for mode in ('rb', 'r+b', 'wb'):
    try:
        open('/proc/1/mem', mode)
        print('mem', mode, 'OPENED')
    except OSError as e:
        print('mem', mode, 'refused', e.errno)
"#;
    std::fs::write(p.ws.join("probe.py"), script).unwrap();
    let (ok, out) = shell(&mut s, "python3 probe.py");
    assert!(ok, "{out}");
    assert!(out.contains("environ refused") || out.contains("environ False"), "PID 1's environment: {out}");
    assert!(!out.contains("environ True"), "PID 1's environment holds the secret: {out}");
    assert!(!out.contains("OPENED"), "PID 1's memory opened: {out}");
    assert!(out.contains("self False"), "{out}");
    for name in ["attach", "seize", "vm_readv"] {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap_or_default();
        assert_eq!(line, format!("{name} -1 {}", libc_eacces()), "{out}");
    }
}

fn libc_eacces() -> i32 {
    13
}

/// The kernel's settings under `/proc` cannot be opened for writing, even by a
/// command whose agent runs as root (mapped to the machine's root uid).
#[test]
fn kernel_settings_under_proc_are_read_only() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    let mut targets = vec!["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sys/vm/drop_caches"];
    if std::path::Path::new("/proc/sysrq-trigger").exists() {
        targets.push("/proc/sysrq-trigger");
    }
    for target in targets {
        let (_, out) = shell(&mut s, &format!("python3 -c \"open('{target}', 'w'); print('OPENED')\""));
        assert!(!out.contains("OPENED"), "{target} opened for writing: {out}");
        assert!(out.contains("Read-only file system") || out.contains("Permission denied"), "{target}: {out}");
    }
    // Reading stays possible: tools read their limits there.
    let (ok, out) = shell(&mut s, "cat /proc/sys/kernel/pid_max");
    assert!(ok && out.trim().parse::<u64>().is_ok(), "{out}");
}

/// A fork bomb stops at the sandbox's bound instead of filling the process table,
/// and the result says so; where no bound can be set, the result says that.
#[test]
fn a_fork_bomb_stops_at_the_bound() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    let before = processes();
    // Python, not a bash loop: bash retries a refused fork for half a minute.
    let bomb = "import os, time\nfor i in range(3000):\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)\nprint('spawned')\n";
    std::fs::write(p.ws.join("bomb.py"), bomb).unwrap();
    let (ok, out) = shell(&mut s, "python3 bomb.py");
    assert!(!ok, "3000 processes were started: {out}");
    let bounded = out.contains("reached its bound of 2048 processes");
    assert!(bounded || out.contains("number of processes is not bounded"), "{out}");
    if bounded {
        assert!(processes() < before + 100, "the command's processes outlived it");
    }
}

fn processes() -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .count()
}
