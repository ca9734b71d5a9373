//! The shell's OS sandbox with real processes, real Landlock and real seccomp: what
//! a confined command may not do (write outside the workspace by any path, read
//! denied paths, open sockets, look names up, undo its confinement), what it may
//! (work in the workspace and its temporary directory), and how a block is
//! reported. This machine's kernel has Landlock; on one without, the fail-closed
//! test is the one that matters and the escape tests fail loudly, never skip.
#![allow(missing_docs)]
#![cfg(target_os = "linux")]

mod common;

use common::sandbox::{place, rerun_without, session, shell};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use toolwright_core::sandbox::{Sandbox, SandboxMode};

#[test]
fn a_required_sandbox_fails_closed_without_landlock_or_namespaces() {
    if rerun_without("a_required_sandbox_fails_closed_without_landlock_or_namespaces", &["LANDLOCK", "NAMESPACES"]) {
        return;
    }
    let p = place();
    let target = p.ws.join("ran.txt");
    let mut required = Sandbox::default();
    required.mode = SandboxMode::Required;
    let mut s = session(&p.ws, required);
    let result = s.call("shell", json!({"command": format!("echo x > {}", target.display())}));
    let text = result.output.text_content();
    assert!(result.error.is_some(), "ran: {text}");
    assert!(text.contains("the sandbox is required") && text.contains("no Landlock"), "{text}");
    assert!(text.contains("no namespaces"), "{text}");
    assert!(text.contains("sandbox.enabled"), "says how to proceed: {text}");
    assert!(!target.exists(), "the command ran");
    // `auto` runs it, and says it was not confined.
    let mut s = session(&p.ws, Sandbox::default());
    let result = s.call("shell", json!({"command": format!("echo x > {}", target.display())}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert!(result.output.text_content().contains("not sandboxed"), "{}", result.output.text_content());
    assert!(target.exists());
}

#[test]
fn writes_outside_the_workspace_are_refused_whatever_the_path() {
    writes_outside_are_refused();
}

fn writes_outside_are_refused() {
    let p = place();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let marker = format!("toolwright-sandbox-probe-{}", std::process::id());
    // A symlink and a hard link placed beforehand.
    std::os::unix::fs::symlink(&p.outside, p.ws.join("link-out")).unwrap();
    let mut s = session(&p.ws, Sandbox::default());
    let attempts = [
        format!("echo x > {}/new.txt", p.outside.display()),
        format!("echo x >> {}/precious.txt", p.outside.display()),
        "echo x > ../outside/new2.txt".to_owned(),
        "echo x > link-out/via-symlink.txt".to_owned(),
        format!("echo x > /proc/self/root{}/via-proc.txt", p.outside.display()),
        format!("echo x > {home}/.{marker}"),
        format!("mkdir {}/dir", p.outside.display()),
        format!("rm {}/precious.txt", p.outside.display()),
        format!("mv {}/precious.txt here.txt", p.outside.display()),
        format!("ln -s /etc/passwd {}/sym", p.outside.display()),
        format!("python3 -c \"open('{}/py.txt', 'w').write('x')\"", p.outside.display()),
    ];
    for attempt in &attempts {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
        assert!(out.contains("Blocked by the sandbox"), "`{attempt}`: not reported as blocked: {out}");
    }
    // Under namespaces `/dev/shm` is the command's own; either way the machine's is
    // not reached.
    shell(&mut s, &format!("echo x > /dev/shm/{marker}"));
    assert_eq!(std::fs::read_to_string(p.outside.join("precious.txt")).unwrap(), "untouched\n");
    let left: Vec<_> = std::fs::read_dir(&p.outside).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["precious.txt"], "nothing new outside");
    assert!(!Path::new(&format!("/dev/shm/{marker}")).exists());
    assert!(!Path::new(&format!("{home}/.{marker}")).exists());
}

#[test]
fn work_inside_the_workspace_and_its_temporary_directory_goes_on() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    let (ok, out) = shell(
        &mut s,
        "mkdir -p src/a && echo hi > src/a/f.txt && echo more >> src/a/f.txt && mv src/a/f.txt g.txt && \
         ln -s g.txt h.txt && cat h.txt && t=$(mktemp) && echo tmp > \"$t\" && cat \"$t\" && \
         echo \"$TMPDIR\" && ls / > /dev/null && cat /etc/hostname > /dev/null && rm g.txt h.txt",
    );
    assert!(ok, "{out}");
    assert!(out.contains("hi\nmore\ntmp\n"), "{out}");
    let tmpdir = out.lines().find(|l| l.contains("toolwright-sandbox-")).unwrap_or_else(|| panic!("{out}"));
    // The command's temporary directory is its own, and goes with it.
    assert!(!Path::new(tmpdir.trim()).exists(), "{tmpdir} was left behind");
    // `cd` still carries over to the next command.
    assert!(shell(&mut s, "cd src").0);
    let (_, out) = shell(&mut s, "pwd");
    assert!(out.trim().ends_with("/ws/src"), "{out}");
}

#[test]
fn read_denied_paths_cannot_be_read_and_the_rest_can() {
    let p = place();
    std::fs::create_dir_all(p.outside.join("secrets")).unwrap();
    std::fs::write(p.outside.join("secrets/key"), "hunter2").unwrap();
    std::fs::create_dir_all(p.ws.join("private")).unwrap();
    std::fs::write(p.ws.join("private/token"), "t0k3n").unwrap();
    std::fs::write(p.ws.join("public.txt"), "hello").unwrap();
    let mut sandbox = Sandbox::default();
    sandbox.read_denied = vec![p.outside.join("secrets"), p.ws.join("private")];
    let mut s = session(&p.ws, sandbox);
    for attempt in [
        format!("cat {}/secrets/key", p.outside.display()),
        "cat private/token".to_owned(),
        format!("cat /proc/self/root{}/secrets/key", p.outside.display()),
        "cp private/token stolen.txt".to_owned(),
        "ln private/token hard.txt && cat hard.txt".to_owned(),
    ] {
        let (ok, out) = shell(&mut s, &attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
        assert!(!out.contains("hunter2") && !out.contains("t0k3n"), "`{attempt}` leaked: {out}");
    }
    let (ok, out) = shell(&mut s, &format!("cat public.txt {}/precious.txt", p.outside.display()));
    assert!(ok && out.contains("hello") && out.contains("untouched"), "{out}");
}

#[test]
fn no_sockets_no_lookups_no_connections() {
    let p = place();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let mut s = session(&p.ws, Sandbox::default());
    let attempts = [
        format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
        format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\""),
        "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 53))\""
            .to_owned(),
        "python3 -c \"import socket; socket.socket(socket.AF_INET6, socket.SOCK_STREAM)\"".to_owned(),
        "python3 -c \"import socket; socket.getaddrinfo('example.com', 80)\"".to_owned(),
        "python3 -c \"import socket; socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\"".to_owned(),
        "python3 -c \"import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\"".to_owned(),
        format!("curl -sS --max-time 5 http://127.0.0.1:{port}/"),
        format!("wget --tries=1 -T 5 -O- http://127.0.0.1:{port}/"),
        format!(
            "node -e \"require('net').connect({port}, '127.0.0.1').on('error', e => {{ console.error(e.message); process.exit(1) }})\""
        ),
    ];
    for attempt in &attempts {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
        assert!(out.contains("Blocked by the sandbox"), "`{attempt}`: not reported as blocked: {out}");
    }
    assert!(listener.accept().is_err(), "a connection reached the listener");
    // A socket pair inside the sandbox is no network.
    let (ok, out) =
        shell(&mut s, "python3 -c \"import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2))\"");
    assert!(ok, "{out}");
}

#[test]
fn children_and_background_jobs_stay_confined_and_confinement_cannot_be_undone() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::default());
    let target = p.outside.join("late.txt");
    // A detached grandchild that writes after the command returned.
    let (ok, out) =
        shell(&mut s, &format!("(setsid sh -c 'sleep 0.3; echo x > {}' &) ; echo started", target.display()));
    assert!(ok, "{out}");
    // A background command.
    let bg = s.ok(
        "shell",
        json!({"command": format!("sleep 0.2; echo x > {}/bg.txt", p.outside.display()), "run_in_background": true}),
    );
    assert!(bg.contains("shell_"), "{bg}");
    // Undoing it: a new user namespace, a nested sandbox, a set-uid program.
    for attempt in [
        format!("unshare -r sh -c 'echo x > {}/ns.txt'", p.outside.display()),
        format!(
            "unshare -rm sh -c 'mount -t tmpfs none {} && echo x > {}/m.txt'",
            p.outside.display(),
            p.outside.display()
        ),
        format!("sudo -n sh -c 'echo x > {}/sudo.txt'", p.outside.display()),
    ] {
        let (ok, out) = shell(&mut s, &attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    let left: Vec<_> = std::fs::read_dir(&p.outside).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(left, ["precious.txt"], "something escaped");
}

#[test]
fn allowed_writes_and_excluded_commands_follow_the_settings() {
    let p = place();
    let extra = p.outside.join("build");
    std::fs::create_dir_all(&extra).unwrap();
    let mut sandbox = Sandbox::default();
    sandbox.writable = vec![extra.clone()];
    sandbox.write_denied = vec![p.ws.join("locked")];
    sandbox.excluded_commands = vec!["touch".into()];
    std::fs::create_dir_all(p.ws.join("locked")).unwrap();
    let mut s = session(&p.ws, sandbox);
    assert!(shell(&mut s, &format!("echo x > {}/out.o", extra.display())).0);
    let (ok, out) = shell(&mut s, "echo x > locked/f");
    assert!(!ok && out.contains("Blocked by the sandbox"), "{out}");
    // An excluded command runs unconfined (the rules decide whether it may).
    let (ok, out) = shell(&mut s, &format!("touch {}/excluded.txt", p.outside.display()));
    assert!(ok, "{out}");
    assert!(p.outside.join("excluded.txt").exists());
}

#[test]
fn asking_to_run_unsandboxed_works_only_where_the_settings_allow_it() {
    let p = place();
    let target = p.outside.join("unsandboxed.txt");
    let command = format!("echo x > {}", target.display());
    let mut no_escape = Sandbox::default();
    no_escape.allow_unsandboxed = false;
    let mut strict = session(&p.ws, no_escape);
    let result = strict.call("shell", json!({"command": command, "dangerously_disable_sandbox": true}));
    assert!(result.error.is_some(), "ran unsandboxed against the settings");
    assert!(result.output.text_content().contains("allowUnsandboxedCommands"), "{}", result.output.text_content());
    assert!(!target.exists());
    let mut open = session(&p.ws, Sandbox::default());
    let result = open.call("shell", json!({"command": command, "dangerously_disable_sandbox": true}));
    assert!(result.error.is_none(), "{}", result.output.text_content());
    assert!(target.exists());
}

#[test]
fn environment_variables_the_settings_deny_are_gone() {
    let p = place();
    // Cargo sets CARGO_PKG_NAME for the test process; commands inherit it.
    let mut plain = session(&p.ws, Sandbox::default());
    assert!(plain.ok("shell", json!({"command": "echo ${CARGO_PKG_NAME:-unset}"})).contains("toolwright-builtin"));
    let mut sandbox = Sandbox::default();
    sandbox.env_denied = vec!["CARGO_PKG_NAME".into()];
    let mut s = session(&p.ws, sandbox);
    let out = s.ok("shell", json!({"command": "echo ${CARGO_PKG_NAME:-unset}"}));
    assert!(out.contains("unset"), "{out}");
}

#[test]
fn off_means_unconfined() {
    let p = place();
    let mut s = session(&p.ws, Sandbox::off());
    let target = p.outside.join("free.txt");
    assert!(shell(&mut s, &format!("echo x > {}", target.display())).0);
    assert!(target.exists());
}

#[test]
fn settings_a_command_writes_to_widen_its_own_confinement_are_put_back() {
    settings_are_put_back();
}

#[test]
fn without_namespaces_landlock_alone_still_holds_writes_and_puts_settings_back() {
    if rerun_without("without_namespaces_landlock_alone_still_holds_writes_and_puts_settings_back", &["NAMESPACES"]) {
        return;
    }
    // Every result says what is then not covered.
    let p = place();
    let (ok, out) = shell(&mut session(&p.ws, Sandbox::default()), "echo hi");
    assert!(ok && out.starts_with("(sandboxed without namespaces: namespaces are turned off"), "{out}");
    assert!(out.contains("metadata outside the workspace") && out.ends_with("hi"), "{out}");
    writes_outside_are_refused();
    settings_are_put_back();
}

fn settings_are_put_back() {
    let p = place();
    std::fs::create_dir_all(p.ws.join(".claude")).unwrap();
    std::fs::write(p.ws.join(".claude/settings.json"), "{\"permissions\": {}}").unwrap();
    let mut s = session(&p.ws, Sandbox::default());
    let (ok, out) = shell(
        &mut s,
        "echo '{\"sandbox\": {\"enabled\": false}}' > .claude/settings.local.json && \
         echo '{\"permissions\": {\"allow\": [\"Bash\"]}}' > .claude/settings.json && \
         echo '{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}' > .mcp.json && echo written",
    );
    assert!(!ok, "reported as a failure: {out}");
    assert!(out.contains("Blocked by the sandbox") && out.contains("was undone"), "{out}");
    assert_eq!(std::fs::read_to_string(p.ws.join(".claude/settings.json")).unwrap(), "{\"permissions\": {}}");
    assert!(!p.ws.join(".claude/settings.local.json").exists());
    assert!(!p.ws.join(".mcp.json").exists());
    // Swapping the directory for a symlink does not help either.
    std::fs::create_dir_all(p.ws.join("elsewhere")).unwrap();
    let (_, out) =
        shell(&mut s, "mv .claude .claude-old && ln -s elsewhere .claude && echo '{}' > elsewhere/settings.json");
    assert!(out.contains("Blocked by the sandbox"), "{out}");
    assert_eq!(std::fs::read_to_string(p.ws.join(".claude/settings.json")).unwrap(), "{\"permissions\": {}}");
    // Other files in the workspace are the command's to change, and a new repository
    // keeps the config `git init` made.
    assert!(shell(&mut s, "echo ok > notes.txt").0);
    let (ok, out) = shell(&mut s, "git init -q && git status --short > /dev/null");
    assert!(ok, "{out}");
    assert!(p.ws.join(".git/config").exists());
    // Changing it afterwards is undone.
    let (_, out) = shell(&mut s, "git config core.fsmonitor 'touch /tmp/pwned'");
    assert!(out.contains("Blocked by the sandbox"), "{out}");
    assert!(!std::fs::read_to_string(p.ws.join(".git/config")).unwrap().contains("fsmonitor"));
}

#[test]
fn a_confined_command_cannot_signal_or_trace_the_agent() {
    let p = place();
    let me = std::process::id();
    let mut s = session(&p.ws, Sandbox::default());
    // Were these allowed, this test process would stop or be attached.
    let (ok, out) = shell(&mut s, &format!("kill -STOP {me}"));
    assert!(!ok, "signalled the agent: {out}");
    let attach = format!(
        "python3 -c \"import ctypes, sys; r = ctypes.CDLL(None, use_errno=True).ptrace(16, {me}, 0, 0); \
         sys.exit(0 if r == 0 else 1)\""
    );
    let (ok, out) = shell(&mut s, &attach);
    assert!(!ok, "attached to the agent: {out}");
    // Its own children it may signal.
    let (ok, out) = shell(&mut s, "sleep 30 & kill $! && wait $!; echo done");
    assert!(ok && out.contains("done"), "{out}");
}

/// A plain HTTP server on 127.0.0.1 that answers every request with `hello` and
/// counts the connections that reached it.
fn hello_server() -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let reached = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&reached);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
        }
    });
    (port, reached)
}

fn allowing(hosts: &[String]) -> Sandbox {
    let mut sandbox = Sandbox::default();
    for host in hosts {
        let parsed = toolwright_core::sandbox::HostPattern::parse(host, toolwright_core::sandbox::ListKind::Allow);
        sandbox.allowed_domains.extend(parsed.unwrap().patterns);
    }
    sandbox
}

#[test]
fn allowed_hosts_are_reached_through_the_proxy_and_nothing_else_is() {
    let p = place();
    let (port, reached) = hello_server();
    let (other, other_reached) = hello_server();
    let mut s = session(&p.ws, allowing(&[format!("localhost:{port}")]));
    let fetches = [
        format!("curl -fsS --max-time 10 http://localhost:{port}/"),
        format!("curl -fsS --max-time 10 --proxytunnel http://localhost:{port}/"),
        format!("curl -fsS --max-time 10 --proxy \"$ALL_PROXY\" http://localhost:{port}/"),
        format!(
            "python3 -c \"import urllib.request; print(urllib.request.urlopen('http://localhost:{port}/').read())\""
        ),
    ];
    for fetch in &fetches {
        let (ok, out) = shell(&mut s, fetch);
        assert!(ok && out.contains("hello"), "`{fetch}` did not get through: {out}");
    }
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), fetches.len());
    let refused = [
        // Through the proxy, to hosts or ports the list does not name.
        format!("curl -fsS --max-time 10 http://127.0.0.1:{port}/"),
        format!("curl -fsS --max-time 10 http://localhost:{other}/"),
        format!("curl -fsS --max-time 10 --proxy \"$ALL_PROXY\" http://127.0.0.1:{port}/"),
        // Around it.
        format!("curl -fsS --max-time 10 --noproxy '*' http://127.0.0.1:{port}/"),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
        format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {other}))\""),
        "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', 53))\""
            .to_owned(),
        "python3 -c \"import socket; socket.getaddrinfo('example.com', 80)\"".to_owned(),
        "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132)\"".to_owned(),
        "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 6)\"".to_owned(),
        // Fast Open connects from sendto, past connect's check.
        format!(
            "python3 -c \"import socket; socket.socket().sendto(b'GET / HTTP/1.0\\r\\n\\r\\n', 0x20000000, ('127.0.0.1', {other}))\""
        ),
        // A listener, bound or not, would let the network in.
        "python3 -c \"import socket; socket.socket().bind(('127.0.0.1', 0))\"".to_owned(),
        "python3 -c \"import socket; socket.socket().listen()\"".to_owned(),
    ];
    for attempt in &refused {
        let (ok, out) = shell(&mut s, attempt);
        assert!(!ok, "`{attempt}` succeeded: {out}");
        assert!(out.contains("Blocked by the sandbox"), "`{attempt}`: not reported as blocked: {out}");
    }
    let (_, out) = shell(&mut s, &format!("curl -fsS --max-time 10 http://127.0.0.1:{port}/"));
    assert!(out.contains(&format!("proxy refused 127.0.0.1:{port}")), "the refusal names the host: {out}");
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), fetches.len(), "a refused request arrived");
    assert_eq!(other_reached.load(std::sync::atomic::Ordering::SeqCst), 0, "a refused request arrived");
}

#[test]
fn denied_domains_win_and_the_list_holds_with_filesystem_isolation_off() {
    let p = place();
    let (port, reached) = hello_server();
    let mut sandbox = allowing(&["localhost".to_owned()]);
    sandbox.filesystem = false;
    let denied = toolwright_core::sandbox::HostPattern::parse(
        &format!("localhost:{port}"),
        toolwright_core::sandbox::ListKind::Deny,
    );
    sandbox.denied_domains = denied.unwrap().patterns;
    let mut s = session(&p.ws, sandbox);
    let (ok, out) = shell(&mut s, &format!("curl -fsS --max-time 10 http://localhost:{port}/"));
    assert!(!ok && out.contains("proxy refused localhost:"), "{out}");
    let (ok, out) = shell(&mut s, &format!("curl -fsS --max-time 10 --noproxy '*' http://127.0.0.1:{port}/"));
    assert!(!ok && out.contains("Blocked by the sandbox"), "{out}");
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Filesystem isolation off: writes outside the workspace go through.
    let (ok, out) = shell(&mut s, &format!("echo x > {}/free.txt", p.outside.display()));
    assert!(ok, "{out}");
}

#[test]
fn a_proxy_port_of_the_users_own_is_the_one_way_out() {
    let p = place();
    // The user's proxy: here a server that answers every request itself.
    let (proxy, through) = hello_server();
    let (other, reached) = hello_server();
    let mut sandbox = Sandbox::default();
    sandbox.http_proxy_port = Some(proxy);
    let mut s = session(&p.ws, sandbox);
    let (ok, out) = shell(&mut s, "curl -fsS --max-time 10 http://anywhere.example/");
    assert!(ok && out.contains("hello"), "the request went to the user's proxy: {out}");
    assert_eq!(through.load(std::sync::atomic::Ordering::SeqCst), 1);
    let (ok, out) = shell(&mut s, &format!("curl -fsS --max-time 10 --noproxy '*' http://127.0.0.1:{other}/"));
    assert!(!ok && out.contains("Blocked by the sandbox"), "{out}");
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), 0);
}
