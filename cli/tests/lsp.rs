//! The LSP tool through the real binary, on pyright installed from npm: servers
//! from a plugin's `.lsp.json` (Claude Code's way) and from a trusted workspace's,
//! navigation across files, new diagnostics after an edit, the read rules, and no
//! server process left when the run ends.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::peers;
use common::scripted::{self, Reply};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The servers' configuration; each process they start carries `LSP_TEST_MARK` =
/// the project's path, by which the tests find them (pyright changes its working
/// directory, so that does not tell).
fn lsp_json(root: &Path) -> Value {
    json!({"pyright": {
        "command": peers::npm_bin("pyright-langserver"),
        "args": ["--stdio"],
        "extensionToLanguage": {".py": "python"},
        "env": {"LSP_TEST_MARK": root}
    }})
}

/// A project with two modules, and its home.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("util.py"), "def helper(x: int) -> int:\n    return x + 1\n").unwrap();
    std::fs::write(root.join("app.py"), "from util import helper\n\nprint(helper(1))\n").unwrap();
    (dir, root)
}

fn call(home: &Path, root: &Path, tool: &str, input: Value, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", tool, &input.to_string(), "--json", "--yes", "--cwd"])
        .arg(root)
        .args(extra)
        .env("HOME", home)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

/// `serve` over stdio in the trusted workspace `root`, with `HOME` at `home`.
fn serve_stdio(home: &Path, root: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["serve", "--trust-workspace", "--cwd"])
        .arg(root)
        .env("HOME", home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
}

/// The processes started for the project in `dir` (its servers and what they
/// started): those whose environment has `LSP_TEST_MARK` = the project's path.
fn processes_in(dir: &Path) -> Vec<String> {
    let root = dir.join("project");
    let mark = format!("LSP_TEST_MARK={}", root.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|v| v == mark.as_bytes()) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmdline).replace('\0', " "));
        }
    }
    found
}

#[test]
fn a_trusted_workspace_lsp_json_serves_navigation_and_edits_get_new_diagnostics() {
    let (home, root) = project();
    std::fs::write(root.join(".lsp.json"), lsp_json(&root).to_string()).unwrap();
    // Not trusted: the servers are not started, and the tool is not there.
    let untrusted = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "LSP", r#"{"operation":"hover","filePath":"app.py","line":3,"character":7}"#, "--json", "--cwd"])
        .arg(&root)
        .env("HOME", home.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&untrusted.stderr);
    assert!(stderr.contains("not trusted"), "{stderr}");
    assert!(!untrusted.status.success());

    let trusted = ["--trust-workspace"];
    let definition = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "goToDefinition", "filePath": "app.py", "line": 3, "character": 7}),
        &trusted,
    );
    assert_eq!(definition["is_error"], false, "{definition}");
    assert!(text(&definition).contains("util.py:1:5: def helper(x: int) -> int:"), "{definition}");

    // Claude Code's input checks: a position is needed, 1-based.
    let no_line = call(home.path(), &root, "LSP", json!({"operation": "hover", "filePath": "app.py"}), &trusted);
    assert!(no_line["is_error"] == true && text(&no_line).contains("`line`"), "{no_line}");
    let beyond = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "hover", "filePath": "app.py", "line": 40, "character": 1}),
        &trusted,
    );
    assert!(beyond["is_error"] == true && text(&beyond).contains("has 3 lines"), "{beyond}");
    let uncovered = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "documentSymbol", "filePath": ".lsp.json", "line": 1, "character": 1}),
        &trusted,
    );
    assert!(uncovered["is_error"] == true && text(&uncovered).contains("no language server"), "{uncovered}");

    // An edit that breaks a type: the edit's result carries the new error.
    let read = call(home.path(), &root, "Read", json!({"file_path": "app.py"}), &trusted);
    assert_eq!(read["is_error"], false, "{read}");
    let edit = call(
        home.path(),
        &root,
        "Edit",
        json!({"file_path": "app.py", "old_string": "helper(1)", "new_string": "helper(\"one\")"}),
        &trusted,
    );
    assert_eq!(edit["is_error"], false, "{edit}");
    let shown = text(&edit);
    assert!(shown.contains("<new-diagnostics>Found 1 new diagnostic issue in 1 file:"), "{shown}");
    assert!(shown.contains("app.py:\n  ✘ [Line 3:14]"), "{shown}");

    // Read rules govern it as they govern Read.
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), json!({"permissions": {"deny": ["Read(util.py)"]}}).to_string())
        .unwrap();
    let denied = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "documentSymbol", "filePath": "util.py", "line": 1, "character": 1}),
        &trusted,
    );
    assert_eq!(denied["is_error"], true, "{denied}");
    let hidden = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "goToDefinition", "filePath": "app.py", "line": 3, "character": 7}),
        &trusted,
    );
    assert!(!text(&hidden).contains("util.py:1"), "a denied file's lines are not shown: {hidden}");
    assert!(processes_in(home.path()).is_empty(), "{:?}", processes_in(home.path()));
}

#[test]
fn an_agent_uses_a_plugins_language_server_and_leaves_no_process() {
    let (home, root) = project();
    let plugin = home.path().join("py-lsp");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(plugin.join(".claude-plugin/plugin.json"), r#"{"name": "pyright-lsp"}"#).unwrap();
    std::fs::write(plugin.join(".lsp.json"), lsp_json(&root).to_string()).unwrap();
    let (url, log) = scripted::serve(|logged| match logged.results().len() {
        0 => Reply::calls(vec![(
            "LSP",
            json!({"operation": "findReferences", "filePath": "util.py", "line": 1, "character": 5}),
        )]),
        _ => Reply::text("done"),
    });
    let extra = ["--json", "--plugin-dir", plugin.to_str().unwrap()];
    let bin = env!("CARGO_BIN_EXE_toolwright");
    let out: Output = scripted::run_agent(bin, &url, &root, home.path(), &extra, "Where is helper used?");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = log.lock().unwrap();
    assert!(logs[0].tool_names().contains(&"lsp".to_owned()), "{:?}", logs[0].tool_names());
    let (_, result, is_error) = logs[1].results()[0].clone();
    assert!(!is_error, "{result}");
    assert!(result.contains("app.py:3:7") && result.contains("util.py:1:5"), "{result}");
    assert!(processes_in(home.path()).is_empty(), "{:?}", processes_in(home.path()));
}

/// `serve` offers the tool over MCP on the trusted workspace's servers, and stops
/// them when serving ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_offers_the_lsp_tool_over_mcp() {
    use std::sync::Arc;
    use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
    use toolwright::rules::RulePolicy;
    use toolwright::{Executor, Registry, ToolCall, TurnContext};
    let (home, root) = project();
    std::fs::write(root.join(".lsp.json"), lsp_json(&root).to_string()).unwrap();
    let config = json!({"mcpServers": {"tw": {
        "command": env!("CARGO_BIN_EXE_toolwright"),
        "args": ["serve", "--trust-workspace", "--cwd", root],
        "env": {"HOME": home.path()}
    }}});
    let config = McpConfig::parse(&config.to_string(), "t.json".as_ref()).unwrap();
    let registry = Arc::new(Registry::builder().build().unwrap());
    let mounts = McpMounts::mount(Arc::clone(&registry), &config, MountOptions::default()).await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let executor = Executor::builder(Arc::clone(&registry)).policy(RulePolicy::new().allow("mcp__tw")).build();
    let input = json!({"operation": "goToDefinition", "filePath": "app.py", "line": 3, "character": 7}).to_string();
    let result = executor.execute(&ToolCall::new("1", "mcp__tw__lsp", input), &TurnContext::new(&root)).await;
    let shown = result.output.text_content();
    assert!(shown.contains("util.py:1:5: def helper(x: int) -> int:"), "{result:?}");
    mounts.shutdown().await;
    drop(registry);
    for _ in 0..50 {
        if processes_in(home.path()).is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(processes_in(home.path()).is_empty(), "{:?}", processes_in(home.path()));
}

/// A server outlives nothing: when `serve` is killed outright (SIGKILL, no chance
/// to stop it), its language server dies with it.
#[test]
fn a_killed_toolwright_takes_its_language_servers_with_it() {
    use std::io::{BufRead, BufReader, Write};
    let (home, root) = project();
    std::fs::write(root.join(".lsp.json"), lsp_json(&root).to_string()).unwrap();
    let mut serve = serve_stdio(home.path(), &root);
    let mut stdin = serve.stdin.take().unwrap();
    let mut stdout = BufReader::new(serve.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "lsp", "arguments":
        {"operation": "hover", "filePath": "app.py", "line": 3, "character": 7}}}));
    let mut answered = false;
    for line in (&mut stdout).lines() {
        let line = line.unwrap();
        if line.contains("\"id\":2") {
            assert!(line.contains("helper") && !line.contains("isError\":true"), "{line}");
            answered = true;
            break;
        }
    }
    assert!(answered);
    assert!(processes_in(home.path()).iter().any(|p| p.contains("pyright")), "{:?}", processes_in(home.path()));
    serve.kill().unwrap();
    serve.wait().unwrap();
    let mut left = processes_in(home.path());
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = processes_in(home.path());
    }
    assert!(left.is_empty(), "orphaned: {left:?}");
}

/// `serve` declares `logging`: after `logging/setLevel`, a call's events reach the
/// client as `notifications/message` named by the tool (here the warning that a
/// language server could not give an edit's diagnostics).
#[test]
fn serve_sends_a_calls_log_to_the_client_that_set_a_level() {
    use std::io::{BufRead, BufReader, Write};
    let (home, root) = project();
    let missing = json!({"pylsp": {"command": "no-such-language-server", "extensionToLanguage": {".py": "python"}}});
    std::fs::write(root.join(".lsp.json"), missing.to_string()).unwrap();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(
        root.join(".claude/settings.json"),
        json!({"permissions": {"defaultMode": "acceptEdits"}}).to_string(),
    )
    .unwrap();
    let mut serve = serve_stdio(home.path(), &root);
    let mut stdin = serve.stdin.take().unwrap();
    let mut lines = BufReader::new(serve.stdout.take().unwrap()).lines();
    // Sends a request and reads up to its answer: the messages before it, and it.
    let mut ask = |message: Value| -> (Vec<Value>, Value) {
        writeln!(stdin, "{message}").unwrap();
        let mut before = Vec::new();
        if message.get("id").is_none() {
            return (before, Value::Null);
        }
        for line in lines.by_ref() {
            let got: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if got["id"] == message["id"] {
                return (before, got);
            }
            before.push(got);
        }
        panic!("serve ended before answering {message}");
    };
    let (_, initialized) = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let capabilities = Some(initialized["result"]["capabilities"].clone());
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (quiet, _) = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write_file",
        "arguments": {"path": "before.py", "content": "x = 1\n"}}}));
    assert!(quiet.is_empty(), "nothing is sent before the client sets a level: {quiet:?}");
    // (Requests are handled concurrently: the call goes once the level is set.)
    ask(json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "warning"}}));
    let (before, result) =
        ask(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "write_file",
        "arguments": {"path": "new.py", "content": "x = 1\n"}}}));
    assert_eq!(result["result"]["isError"], false, "{result}");
    let logged = before.iter().find(|m| m["method"] == "notifications/message").map(|m| m["params"].clone());
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(capabilities.is_some_and(|c| c.get("logging").is_some()), "logging is declared");
    let logged = logged.expect("a notifications/message before the result");
    assert_eq!(logged["level"], "warning");
    assert_eq!(logged["logger"], "write_file");
    assert!(logged["data"]["message"].as_str().unwrap().contains("no diagnostics after the edit"), "{logged}");
    assert!(logged["data"]["fields"]["error"].as_str().unwrap().contains("no-such-language-server"), "{logged}");
}

/// What the sandbox denies commands (`credentials.envVars`), a language server does
/// not get either.
#[test]
fn a_language_server_does_not_get_the_variables_the_sandbox_denies() {
    let (home, root) = project();
    let log = home.path().join("server.log");
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lsp/tests/fake_lsp.py");
    let config =
        json!({"fake": {"command": "python3", "args": [fake, log], "extensionToLanguage": {".txt": "plaintext"}}});
    std::fs::write(root.join(".lsp.json"), config.to_string()).unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    let settings = json!({"sandbox": {"credentials": {"envVars": [{"name": "LSP_TEST_SECRET", "mode": "deny"}]}}});
    std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "LSP", r#"{"operation": "documentSymbol", "filePath": "notes.txt"}"#, "--json", "--yes"])
        .args(["--trust-workspace", "--cwd"])
        .arg(&root)
        .env("HOME", home.path())
        .env("LSP_TEST_SECRET", "hunter2")
        .env("LSP_TEST_OPEN", "visible")
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["is_error"], false, "{result}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("env LSP_TEST_OPEN=visible"), "{logged}");
    assert!(!logged.contains("hunter2"), "{logged}");
}

/// `call` (like `agent` and `serve`) takes `--plugin-dir`: a plugin's language
/// servers answer without the workspace being trusted (the folder is the user's choice).
#[test]
fn call_uses_a_plugins_language_server() {
    let (home, root) = project();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let plugin = home.path().join("fake-lsp");
    std::fs::create_dir_all(&plugin).unwrap();
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lsp/tests/fake_lsp.py");
    let log = home.path().join("server.log");
    let config =
        json!({"fake": {"command": "python3", "args": [fake, log], "extensionToLanguage": {".txt": "plaintext"}}});
    std::fs::write(plugin.join(".lsp.json"), config.to_string()).unwrap();
    let result = call(
        home.path(),
        &root,
        "LSP",
        json!({"operation": "documentSymbol", "filePath": "notes.txt"}),
        &["--plugin-dir", plugin.to_str().unwrap()],
    );
    assert_eq!(result["is_error"], false, "{result}");
    assert!(text(&result).contains("No symbols found in notes.txt"), "{result}");
    assert!(std::fs::read_to_string(&log).unwrap().contains("textDocument/didOpen"));
}

/// `toolwright lsp` lists the servers, where each came from and whether its program
/// is installed, and every problem; 1 when one cannot start.
#[test]
fn the_lsp_command_lists_servers_and_their_problems() {
    let (home, root) = project();
    let mut config = lsp_json(&root);
    config["missing"] = json!({"command": "no-such-language-server", "extensionToLanguage": {".go": "go"}});
    config["broken"] = json!({"extensionToLanguage": {".rs": "rust"}});
    std::fs::write(root.join(".lsp.json"), config.to_string()).unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["lsp", "--trust-workspace", "--cwd"])
            .arg(&root)
            .args(extra)
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.starts_with("2 language servers"), "{shown}");
    assert!(
        shown.contains("pyright (.py → python)")
            && shown.contains("runs ")
            && shown.contains("pyright-langserver --stdio ("),
        "{shown}"
    );
    assert!(shown.contains("missing (.go → go)") && shown.contains("not installed"), "{shown}");
    assert!(shown.contains("language server `broken`, `command`: is missing"), "{shown}");
    let json: Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    assert_eq!(json["servers"][0]["installed"], true);
    assert_eq!(json["servers"][1]["installed"], false);
    assert_eq!(json["problems"].as_array().unwrap().len(), 1, "{json}");
}

/// Results in gitignored files are left out, and the answer says how many.
#[test]
fn references_in_gitignored_files_are_left_out() {
    let (home, root) = project();
    std::fs::write(root.join(".lsp.json"), lsp_json(&root).to_string()).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/copy.py"), "from util import helper\n\nhelper(3)\n").unwrap();
    let input = json!({"operation": "findReferences", "filePath": "util.py", "line": 1, "character": 5});
    let result = call(home.path(), &root, "LSP", input, &["--trust-workspace"]);
    assert_eq!(result["is_error"], false, "{result}");
    let shown = text(&result);
    assert!(shown.contains("app.py:3:7") && shown.contains("util.py:1:5"), "{shown}");
    assert!(!shown.contains("build"), "a gitignored file's references are shown: {shown}");
    assert!(shown.contains("gitignored or unreadable files are left out"), "{shown}");
}
