//! Every example runs and does what it says. `cargo test` builds the examples; this
//! runs the binaries it built.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn example(name: &str) -> PathBuf {
    // target/<profile>/deps/examples-<hash> -> target/<profile>/examples/<name>
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().parent().unwrap().join("examples").join(name);
    assert!(path.exists(), "{} is not built (cargo test builds examples)", path.display());
    path
}

fn run(name: &str) -> String {
    let out = Command::new(example(name)).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{name} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn quickstart() {
    let out = run("quickstart");
    assert!(out.contains(r#""name":"add""#) && out.contains(r#""strict":true"#), "{out}");
    assert!(out.contains("add(2, 40) = 42"), "{out}");
    assert!(out.contains("bad call: add: invalid input: a: expected a number, got a string \"two\""), "{out}");
}

#[test]
fn custom_permissions() {
    let out = run("custom_permissions");
    for expected in [
        "write_file {\"path\": \"scratch/notes.txt\", \"content\": \"hi\"} -> ok",
        "writes go under scratch/, not src/main.rs",
        "shell {\"command\": \"touch x\"} -> denied",
        "echo allowed by a rule && echo twice\"} -> ok",
        "denied by the rule `Bash(rm -rf *)`",
        "denied by the rule `Read(./scratch/secret*)` (Session settings) (the command names `scratch/secret.txt`)",
    ] {
        assert!(out.contains(expected), "missing {expected:?}:\n{out}");
    }
}

#[test]
fn hooks() {
    let out = run("hooks");
    assert!(out.contains("(showing files 1-5 of 20"), "{out}");
    assert!(out.contains("(the guard hook limited grep to 5 results)"), "{out}");
    assert!(out.contains("blocked by hook `guard`: pushing is for humans"), "{out}");
    assert!(out.contains("hooks ran\n[1 lines]"), "{out}");
}

#[test]
fn streaming() {
    let out = run("streaming");
    let started = out.lines().filter(|l| l.contains("started")).count();
    assert_eq!(started, 3, "{out}");
    // Call 0 starts before call 2's input has arrived.
    let first_start = out.find("call 0 (").unwrap();
    let last_input = out.find("call 2 input complete").unwrap();
    assert!(first_start < last_input, "{out}");
    assert!(out.contains("shell done"), "{out}");
}

#[test]
fn agent_loop() {
    let out = run("agent_loop");
    assert!(out.contains("todo.txt now: - [x] write the example"), "{out}");
    assert!(out.contains("assistant: Done: the item is ticked."), "{out}");
}

#[test]
fn mcp_server() {
    let mut child = Command::new(example("mcp_server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""serverInfo":{"name":"toolwright""#), "{line}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let list: serde_json::Value = serde_json::from_str(&line).unwrap();
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"read_file") && names.contains(&"shell"), "{names:?}");
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_dir","arguments":{"path":"."}}}"#);
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("Cargo.toml"), "{line}");
    drop(stdin);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the example did not end after stdin closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "the example ends when stdin closes");
}
