//! The developer commands on this crate's own registry, as its binary offers them.

use std::process::Command;

fn own(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_own-cli")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tools_check_schema_and_call_see_the_crates_own_tools() {
    let (ok, tools, _) = own(&["tools"]);
    assert!(ok && tools.contains("greet") && tools.contains("add_up") && tools.ends_with("2 tools\n"), "{tools}");
    assert!(!tools.contains("read_file"), "only this crate's registry: {tools}");
    let (ok, report, err) = own(&["check"]);
    assert!(ok, "{report}{err}");
    let (ok, schema, _) = own(&["schema", "--provider", "openai-chat", "--strict"]);
    assert!(ok && schema.contains("\"name\":\"greet\"") && schema.contains("1 to 40 characters"), "{schema}");
    let (ok, answer, _) = own(&["call", "greet", r#"{"name": "Ada", "tone": "formal"}"#]);
    assert!(ok && answer.contains("Good day, Ada!"), "{answer}");
    // A bad call is the model's error, named.
    let (ok, answer, _) = own(&["call", "add_up", r#"{"numbers": []}"#]);
    assert!(!ok && answer.contains("numbers"), "{answer}");
    // Its messages name it too.
    let (ok, _, err) = own(&["call", "greet", "not json"]);
    assert!(!ok && err.starts_with("own-cli: ") && !err.contains("toolwright:"), "{err}");
    // The help names this binary, not toolwright.
    let (_, help, _) = own(&["--help"]);
    assert!(help.contains("Usage: own-cli"), "{help}");
}

/// `serve` introduces itself by the binary's name.
#[test]
fn serve_reports_the_binarys_name() {
    use std::io::{BufRead, BufReader, Write};
    let mut serve = Command::new(env!("CARGO_BIN_EXE_own-cli"))
        .arg("serve")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = serve.stdin.take().unwrap();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    writeln!(stdin, "{initialize}").unwrap();
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap()).read_line(&mut line).unwrap();
    drop(stdin);
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(line.contains(r#""serverInfo":{"name":"own-cli""#), "{line}");
}
