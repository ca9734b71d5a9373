//! Stop signals to the `toolwright` binary: running commands are killed with their
//! process groups and whatever escaped them, mounted MCP servers are stopped,
//! temporary files removed, and the exit status says which signal it was.
#![cfg(target_os = "linux")]

#[path = "../../tests/common/procs.rs"]
mod procs;

use procs::{marked, marked_gone_soon, marker, wait_for_marked};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill").args(["-s", name, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

fn all_dead_soon(pids: &[u32]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if pids.iter().all(|&p| procs::is_dead(p)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The exit status within 10 s, or a panic (the process is killed first).
fn exits_soon(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("toolwright did not exit within 10 s of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A workspace whose settings allow the commands the tests run, a private HOME and
/// a private TMPDIR (to see what temporary files are left).
struct Setup {
    ws: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Setup {
    /// With the commands of [`two_sleepers`]`(marker)` allowed.
    fn new(marker: &str) -> Setup {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join(".claude")).unwrap();
        // (An exec wrapper such as `setsid` needs a rule naming the whole command.)
        let allow = json!({"permissions": {
            "allow": ["Bash", format!("Bash(setsid sleep {marker})")], "defaultMode": "acceptEdits"}});
        std::fs::write(ws.path().join(".claude/settings.json"), allow.to_string()).unwrap();
        Setup { ws, tmp: tempfile::tempdir().unwrap() }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command.args(args).current_dir(self.ws.path()).env("HOME", self.ws.path()).env("TMPDIR", self.tmp.path());
        command
    }

    fn leftover_temps(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp.path()).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into()).collect()
    }
}

/// A command with a child in its group and one in a session of its own, both sleeping
/// for `marker` seconds.
fn two_sleepers(marker: &str) -> String {
    format!("sleep {marker} & setsid sleep {marker} & wait")
}

#[test]
fn sigterm_to_call_kills_the_command_and_what_escaped_it() {
    for name in ["TERM", "INT", "HUP"] {
        let m = marker(300);
        let setup = Setup::new(&m);
        let input = json!({"command": two_sleepers(&m)}).to_string();
        let mut child = setup
            .command(&["call", "shell", &input, "--yes"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        assert_eq!(wait_for_marked(&m, 2, Duration::from_secs(20)).len(), 2, "the command started");
        signal(&child, name);
        let status = exits_soon(&mut child);
        let code = match name {
            "TERM" => 143,
            "INT" => 130,
            _ => 129,
        };
        assert_eq!(status.code(), Some(code), "SIG{name}");
        assert!(marked_gone_soon(&m), "SIG{name}: survivors {:?}", marked(&m));
        assert_eq!(setup.leftover_temps(), Vec::<String>::new(), "SIG{name}");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert!(stderr.contains(&format!("SIG{name}: stopping")), "{stderr}");
    }
}

#[test]
fn a_second_signal_exits_at_once_and_still_cleans_up() {
    let m = marker(300);
    let setup = Setup::new(&m);
    let input = json!({"command": two_sleepers(&m)}).to_string();
    let mut child = setup.command(&["call", "shell", &input, "--yes"]).stderr(Stdio::null()).spawn().unwrap();
    assert_eq!(wait_for_marked(&m, 2, Duration::from_secs(20)).len(), 2, "the command started");
    signal(&child, "INT");
    signal(&child, "INT");
    let status = exits_soon(&mut child);
    assert!(matches!(status.code(), Some(130)), "{status:?}");
    assert!(marked_gone_soon(&m), "survivors {:?}", marked(&m));
    assert_eq!(setup.leftover_temps(), Vec::<String>::new());
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                let fields: Vec<&str> =
                    stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("").split_whitespace().collect();
                fields.get(1) == Some(&pid.to_string().as_str())
            })
        })
        .collect()
}

#[test]
fn sigterm_to_serve_stops_calls_and_mounted_servers() {
    let m = marker(300);
    let setup = Setup::new(&m);
    let inner = setup.ws.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    let config = setup.ws.path().join("mcp.json");
    let bin = env!("CARGO_BIN_EXE_toolwright");
    std::fs::write(
        &config,
        json!({"mcpServers": {"inner": {"command": bin, "args": ["serve", "--cwd", inner]}}}).to_string(),
    )
    .unwrap();
    let mut child = setup
        .command(&["serve", "--mcp-config", config.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: serde_json::Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("serverInfo"), "{line}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "shell", "arguments": {"command": two_sleepers(&m)}}}));
    assert_eq!(wait_for_marked(&m, 2, Duration::from_secs(20)).len(), 2, "the command started");
    let servers: Vec<u32> = children_of(child.id())
        .into_iter()
        .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with(bin.as_bytes())))
        .collect();
    assert_eq!(servers.len(), 1, "the mounted server runs");
    signal(&child, "TERM");
    let status = exits_soon(&mut child);
    assert_eq!(status.code(), Some(143));
    assert!(marked_gone_soon(&m), "survivors {:?}", marked(&m));
    assert!(all_dead_soon(&servers), "the mounted server survived: {servers:?}");
    assert_eq!(setup.leftover_temps(), Vec::<String>::new());
}

#[test]
fn replay_stops_between_or_during_calls_and_leaves_no_scratch_copy() {
    for signals in [1, 2] {
        let setup = Setup::new("300");
        let mut child =
            setup.command(&["replay", "--pace", "200"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        // Wait for the replay to be under way: its first lines.
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        std::thread::sleep(Duration::from_millis(700));
        for _ in 0..signals {
            signal(&child, "INT");
        }
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let status = exits_soon(&mut child);
        assert_eq!(status.code(), Some(130), "{signals} signal(s)");
        assert_eq!(setup.leftover_temps(), Vec::<String>::new(), "{signals} signal(s)");
    }
}

#[test]
fn serve_stops_on_sigterm_even_when_no_one_reads_its_stderr() {
    // The reader of its stderr has gone (a supervisor that died, `2>&1 | head`):
    // the line announcing the stop cannot be written, and the stop must not need it.
    let setup = Setup::new("1");
    let mut child = setup
        .command(&["serve", "--http", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("serving MCP at") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "serve ended before serving");
    }
    drop(stderr);
    signal(&child, "TERM");
    let status = exits_soon(&mut child);
    assert_eq!(status.code(), Some(143));
}
