//! The `toolwright` command's own input handling, `call` and `check`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn toolwright(args: &[&str], cwd: &std::path::Path, stdin: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
    command.args(args);
    run(command, cwd, stdin.unwrap_or_default())
}

/// Runs `command` in `cwd` (also its HOME), `stdin` typed in, the output captured.
fn run(mut command: Command, cwd: &std::path::Path, stdin: &str) -> Output {
    let mut child = command
        .current_dir(cwd)
        .env("HOME", cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.as_bytes()).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn call_runs_one_call_from_an_argument_a_file_or_stdin() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "first\nsecond\n").unwrap();
    std::fs::write(dir.path().join("input.json"), r#"{"path": "notes.txt", "offset": 2}"#).unwrap();

    let out = toolwright(&["call", "read_file", r#"{"path":"notes.txt"}"#], dir.path(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("first") && text(&out.stdout).contains("second"));

    let out = toolwright(&["call", "read_file", "@input.json"], dir.path(), None);
    assert!(text(&out.stdout).contains("second") && !text(&out.stdout).contains("first"), "{}", text(&out.stdout));

    // Progress goes to stderr while the command runs; the result to stdout.
    let out = toolwright(
        &["call", "shell", "-", "--yes"],
        dir.path(),
        Some(r#"{"command": "echo one; sleep 1.2; echo two"}"#),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "one\ntwo");
    assert!(text(&out.stderr).contains("… shell: running for"), "{}", text(&out.stderr));

    let out = toolwright(&["call", "read_file", r#"{"path":"notes.txt"}"#, "--json"], dir.path(), None);
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["is_error"], false);
    assert_eq!(result["tool"], "read_file");
}

#[test]
fn call_reports_error_results_with_a_failing_exit() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(&["call", "read_file", r#"{"path": 5}"#], dir.path(), None);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("path: expected a string, got an integer 5"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("(invalid_input)"));

    let out = toolwright(&["call", "reed_file", "{}"], dir.path(), None);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("did you mean `read_file`"), "{}", text(&out.stdout));

    // Not read-only, no terminal, no --yes: denied, and nothing ran.
    let out = toolwright(&["call", "write_file", r#"{"path": "x.txt", "content": "x"}"#], dir.path(), None);
    assert!(!out.status.success());
    assert!(!dir.path().join("x.txt").exists());
    assert!(text(&out.stderr).contains("not a terminal"), "{}", text(&out.stderr));
}

#[test]
fn bad_cli_input_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file.txt"), "not a directory").unwrap();
    for (args, expected) in [
        (vec!["call", "read_file", "{\"path\":"], "the input is not JSON: EOF while parsing"),
        (vec!["call", "read_file", "@missing.json"], "missing.json: No such file or directory"),
        (vec!["schema", "--provider", "nope"], "nope"),
        (vec!["call", "read_file", "{}", "--yes", "--deny"], "cannot be used with"),
        (vec!["call", "read_file", "{}", "--cwd", "file.txt"], "--cwd file.txt: not a directory"),
    ] {
        let out = toolwright(&args, dir.path(), None);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        if !args.contains(&"--provider") && !args.contains(&"--deny") {
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        }
    }
}

#[test]
fn call_input_over_its_limits_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.json"), format!(r#"{{"path": "{}"}}"#, "a".repeat(3000))).unwrap();
    let deep = format!(r#"{{"path": {}1{}}}"#, "[".repeat(200), "]".repeat(200));
    for (args, expected) in [
        (vec!["call", "read_file", "@big.json", "--max-input-bytes", "1000"], "over the limit of 1000 bytes"),
        // An endless file: read up to the limit, not for ever.
        (vec!["call", "read_file", "@/dev/zero", "--max-input-bytes", "100000"], "over the limit of 100000 bytes"),
    ] {
        let out = toolwright(&args, dir.path(), None);
        let stderr = text(&out.stderr);
        assert!(!out.status.success() && stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    // Too deep for any tool: an error result that names the limit.
    let out = toolwright(&["call", "read_file", &deep], dir.path(), None);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("nested deeper than 127 levels"), "{}", text(&out.stdout));
}

#[test]
fn schema_renders_anthropic_strict_and_refuses_strict_where_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(&["schema", "--provider", "anthropic", "--strict", "--cache-control"], dir.path(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tools = list.as_array().unwrap();
    assert!(tools.iter().any(|t| t["strict"] == true), "{list}");
    assert!(tools.iter().all(|t| t["input_schema"]["additionalProperties"] == false));
    assert_eq!(tools.last().unwrap()["cache_control"], serde_json::json!({"type": "ephemeral"}));
    let out = toolwright(&["schema", "--provider", "gemini", "--strict"], dir.path(), None);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--strict applies to anthropic, openai-chat and openai-responses"));
}

#[test]
fn schema_shows_claude_codes_names_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(&["schema", "--provider", "openai-chat", "--strict", "--claude-code"], dir.path(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let read = list.as_array().unwrap().iter().find(|t| t["function"]["name"] == "Read").expect("Read");
    assert_eq!(
        read["function"]["parameters"]["required"],
        serde_json::json!(["file_path", "offset", "limit", "pages"])
    );
}

#[test]
fn check_validates_every_provider_and_sizes_the_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(&["check"], dir.path(), None);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("every provider renders"), "{stdout}");
    let registry = toolwright::registry().unwrap();
    let anthropic = registry.definitions(toolwright::Provider::ANTHROPIC).unwrap();
    let whole = stdout.lines().find(|l| l.starts_with("whole list")).unwrap();
    assert!(whole.contains(&anthropic.as_str().len().to_string()), "{whole}");
    for name in registry.names() {
        assert!(stdout.lines().any(|l| l.starts_with(&format!("{name} "))), "{name} missing:\n{stdout}");
    }
    // Every tool that Anthropic's strict limits leave without `strict`, and why; the
    // count agrees with the rendering.
    let strict = registry.definitions(toolwright::Provider::Anthropic { strict: true, cache_control: false }).unwrap();
    let unmarked: Vec<String> = strict
        .to_value()
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["strict"] != true)
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    for name in &unmarked {
        let line = format!("  {name}: not strict: ");
        assert!(stdout.lines().any(|l| l.starts_with(&line) && l.contains("at most")), "{name} not named:\n{stdout}");
    }
    assert_eq!(stdout.matches(": not strict: ").count(), unmarked.len(), "{stdout}");
    // The deferral report: every provider, what is sent and what is held back.
    let deferral: Vec<&str> = stdout.lines().skip_while(|l| !l.starts_with("deferral")).skip(1).collect();
    assert_eq!(deferral.len(), 7, "{stdout}");
    assert!(deferral.iter().all(|l| l.contains("loaded") && l.contains("deferred 0 tools")), "{stdout}");
}

#[test]
fn call_skips_what_the_workspace_settings_deny_reading_with_no_wiring() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::write(root.join(".claude/settings.json"), r#"{"permissions": {"deny": ["Read(./secrets/**)"]}}"#).unwrap();
    std::fs::create_dir(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key.txt"), "TOKEN=abc").unwrap();
    std::fs::write(root.join("app.txt"), "TOKEN=placeholder").unwrap();
    // A search of the whole workspace runs, and skips the denied directory.
    let out = toolwright(&["call", "grep", r#"{"pattern": "TOKEN", "output_mode": "files_with_matches"}"#], root, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "app.txt");
    let out = toolwright(&["call", "glob", r#"{"pattern": "**/*.txt"}"#], root, None);
    assert_eq!(text(&out.stdout).trim(), "app.txt");
    // Reading it directly is denied by the rule.
    let out = toolwright(&["call", "read_file", r#"{"path": "secrets/key.txt"}"#], root, None);
    assert!(!out.status.success());
    assert!(
        text(&out.stdout).contains("Read(./secrets/**)") && !text(&out.stdout).contains("abc"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_workspace_grants_only_when_trusted() {
    // The repository's settings allow edits; nothing trusts the workspace yet. (The
    // workspace is below HOME: as HOME itself its file would be the user's too.)
    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("ws");
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(ws.join(".claude/settings.json"), r#"{"permissions": {"allow": ["Edit"]}}"#).unwrap();
    let write = r#"{"path": "made.txt", "content": "x"}"#;
    let args = |trust: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command.args(["call", "write_file", write, "--deny", "--cwd"]).arg(&ws);
        if trust {
            command.arg("--trust-workspace");
        }
        command
    };
    let out = run(args(false), home.path(), "");
    assert!(!out.status.success() && !ws.join("made.txt").exists(), "{}", text(&out.stdout));
    let warning = text(&out.stderr);
    assert!(warning.contains("not used until this workspace is trusted: 1 allow rule"), "{warning}");
    let out = run(args(true), home.path(), "");
    assert!(out.status.success() && ws.join("made.txt").exists(), "{}{}", text(&out.stdout), text(&out.stderr));
}

#[test]
fn call_runs_the_workspace_hooks_as_serve_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    let hooks = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat > /dev/null; echo 'blocked by the workspace hook' >&2; exit 2"}
    ]}]}});
    std::fs::write(dir.path().join(".claude/settings.json"), hooks.to_string()).unwrap();
    let out = toolwright(&["call", "shell", r#"{"command": "touch made"}"#, "--yes"], dir.path(), None);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("blocked by the workspace hook"), "{}", text(&out.stdout));
    assert!(!dir.path().join("made").exists());
}

/// Runs `toolwright <args>` on a pseudo-terminal (util-linux `script`), typing `keys`.
fn on_a_terminal(args: &str, cwd: &std::path::Path, keys: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_toolwright");
    let mut script = Command::new("script");
    script.args(["-qec", &format!("{bin} {args}"), "/dev/null"]);
    text(&run(script, cwd, keys).stdout)
}

#[test]
fn the_prompt_allows_once_always_or_not_and_always_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let out = on_a_terminal(r#"call shell '{"command": "touch made"}'"#, dir.path(), "a\n");
    assert!(out.contains("[y]es once / [a]lways / [N]o"), "{out}");
    assert!(dir.path().join("made").exists(), "{out}");
    let saved = std::fs::read_to_string(dir.path().join(".toolwright/settings.local.json")).unwrap();
    assert!(saved.contains("Bash(touch made)"), "{saved}");
    // Remembered: the same call runs with no one to ask.
    std::fs::remove_file(dir.path().join("made")).unwrap();
    let out = toolwright(&["call", "shell", r#"{"command": "touch made"}"#], dir.path(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.path().join("made").exists());
    // No (the default) runs nothing.
    let out = on_a_terminal(r#"call shell '{"command": "touch other"}'"#, dir.path(), "\n");
    assert!(out.contains("the user denied this call"), "{out}");
    assert!(!dir.path().join("other").exists());
}

#[test]
fn calls_share_a_session_so_a_read_then_an_edit_works() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "draft\n").unwrap();
    let edit = r#"{"path": "notes.txt", "old_string": "draft", "new_string": "final"}"#;
    // Unread: refused, as in any session.
    let out = toolwright(&["call", "edit_file", edit, "--yes"], dir.path(), None);
    assert!(text(&out.stdout).contains("has not been read"), "{}", text(&out.stdout));
    // Read in one call, edited in the next.
    assert!(toolwright(&["call", "read_file", r#"{"path": "notes.txt"}"#], dir.path(), None).status.success());
    let out = toolwright(&["call", "edit_file", edit, "--yes"], dir.path(), None);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "final\n");
    // Changed behind the session's back: refused until read again.
    std::fs::write(dir.path().join("notes.txt"), "someone else's\n").unwrap();
    let again = r#"{"path": "notes.txt", "old_string": "someone", "new_string": "no one"}"#;
    let out = toolwright(&["call", "edit_file", again, "--yes"], dir.path(), None);
    assert!(text(&out.stdout).contains("has changed since it was last read"), "{}", text(&out.stdout));
}

#[test]
fn the_session_file_is_never_written_through_a_planted_link() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("notes.txt"), "draft\n").unwrap();
    // What a command could have left: `.toolwright` a link out of the workspace.
    std::os::unix::fs::symlink(&outside, ws.join(".toolwright")).unwrap();
    let out = toolwright(&["call", "read_file", r#"{"path": "notes.txt"}"#], &ws, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not followed"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "written outside the workspace");
    // A link at the file itself is not followed either.
    std::fs::remove_file(ws.join(".toolwright")).unwrap();
    std::fs::create_dir(ws.join(".toolwright")).unwrap();
    std::os::unix::fs::symlink(outside.join("stolen.json"), ws.join(".toolwright/call-session.json")).unwrap();
    let out = toolwright(&["call", "read_file", r#"{"path": "notes.txt"}"#], &ws, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!outside.join("stolen.json").exists(), "written through the link");
}

#[test]
fn a_start_clears_what_a_killed_write_left_anywhere_in_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x\n").unwrap();
    // A writer that is gone (as after kill -9), its temporary file fresh; and one
    // whose writer lives (this test), which may be a write in progress.
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let left = deep.join(format!(".toolwright-{}-7-0.tmp", gone.id()));
    let live = deep.join(format!(".toolwright-{}-8-0.tmp", std::process::id()));
    std::fs::write(&left, vec![b'x'; 1 << 20]).unwrap();
    std::fs::write(&live, "half").unwrap();
    let out = toolwright(&["call", "read_file", r#"{"path": "notes.txt"}"#], dir.path(), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!left.exists(), "a killed write's temporary file is still there");
    assert!(live.exists(), "a live writer's file was removed");
}

#[test]
fn agents_lists_the_definitions_and_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = (dir.path().join("ws"), dir.path().join("home"));
    std::fs::create_dir_all(&home).unwrap();
    // A home of its own, so the workspace's agents are the project's.
    let agents_cmd = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolwright")).args(args).current_dir(&ws).env("HOME", &home).output().unwrap()
    };
    let agents = ws.join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("explorer.md"),
        "---\nname: explorer\ndescription: Reads\ntools: Read, Grep\n---\nYou read.\n",
    )
    .unwrap();
    std::fs::write(agents.join("bad.md"), "---\nname: explorer two\ndescription: x\n---\n").unwrap();
    // Not trusted: the workspace's agents wait, each said, and nothing failed.
    let out = agents_cmd(&["agents"]);
    let listing = text(&out.stdout);
    assert!(out.status.success(), "{listing}{}", text(&out.stderr));
    assert!(
        listing.starts_with("3 agents") && listing.matches("until the workspace is trusted").count() == 2,
        "{listing}"
    );
    // The built-in types are there without a file, and say so.
    for name in ["Explore", "Plan", "general-purpose"] {
        assert!(listing.contains(&format!("  {name}  (built-in)")), "{name} is not listed: {listing}");
    }
    // Trusted: the good one is listed, the bad one is an error with its path and key,
    // and the exit status says so.
    let out = agents_cmd(&["agents", "--trust-workspace"]);
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{listing}");
    assert!(listing.contains("explorer  (project:") && listing.contains("tools: Read, Grep"), "{listing}");
    assert!(
        listing.contains(&format!("error: {}: `name`: `explorer two`", agents.join("bad.md").display())),
        "{listing}"
    );
    // Given on the command line, as JSON, beside the files.
    std::fs::remove_file(agents.join("bad.md")).unwrap();
    let given = r#"{"helper": {"description": "Helps", "prompt": "You help."}}"#;
    let out = agents_cmd(&["agents", "--trust-workspace", "--json", "--agents", given]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = json["agents"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Explore", "Plan", "explorer", "general-purpose", "helper"]);
    assert_eq!(json["agents"][4]["source"], "given");
    assert_eq!(json["agents"][0]["source"], "built-in");
    let out = agents_cmd(&["agents", "--agents", "{not json"]);
    assert!(!out.status.success() && text(&out.stderr).contains("--agents: not JSON"), "{}", text(&out.stderr));
}

#[test]
fn a_permission_request_hook_is_told_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".claude")).unwrap();
    // Records the mode it is told, and allows.
    let hook = r#"python3 -c "import json,sys; d=json.load(sys.stdin); open('mode','w').write(d['permission_mode']); print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest', 'decision': {'behavior': 'allow'}}}))""#;
    let settings = serde_json::json!({
        "permissions": {"defaultMode": "acceptEdits"},
        "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]},
    });
    std::fs::write(dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
    // Not a filesystem command: acceptEdits still asks, and the hook answers.
    let out = toolwright(&["call", "shell", r#"{"command": "git init -q"}"#], dir.path(), None);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("mode")).unwrap(), "acceptEdits");
    assert!(dir.path().join(".git").is_dir(), "the hook's allow ran it");
}

#[test]
fn the_cli_prints_the_same_bytes_on_every_run() {
    let registry = toolwright::registry().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright")).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    for (args, provider) in [
        (&["schema", "--provider", "anthropic"][..], toolwright::Provider::ANTHROPIC),
        (&["schema", "--provider", "openai-chat", "--strict"][..], toolwright::Provider::OpenAiChat { strict: true }),
        (&["schema", "--provider", "openai-responses"][..], toolwright::Provider::OpenAiResponses { strict: false }),
        (&["schema", "--provider", "gemini"][..], toolwright::Provider::Gemini),
        (&["schema", "--provider", "mcp"][..], toolwright::Provider::Mcp),
    ] {
        let first = run(args);
        assert_eq!(first, run(args), "{args:?} differs between runs");
        // This test binary links what the binary links: the built-ins.
        let in_process = registry.definitions(provider).unwrap().to_value();
        let cli: serde_json::Value = serde_json::from_str(&first).unwrap();
        assert_eq!(cli, in_process, "{args:?}");
    }
}

#[test]
fn the_cli_rejects_bad_flags_with_one_clear_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["schema", "--provider", "gemini", "--strict"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolwright: --strict applies to anthropic, openai-chat and openai-responses, not gemini\n"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["schema", "--provider", "bard"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown provider `bard`"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright")).arg("tools").output().unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.starts_with("NAME") && table.contains("read_file") && table.contains("read_only,concurrency_safe"),
        "{table}"
    );
}

#[test]
fn search_ranks_the_tools_of_saved_lists_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let tracker = serde_json::json!({"tools": [
        {"name": "create_ticket", "description": "Open a new ticket in a project. Needs a title.", "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}}},
        {"name": "list_tickets", "description": "List the tickets of a project", "inputSchema": {"type": "object"}},
        {"name": "tk_x9", "title": "Archive Ticket", "description": "Moves it away.", "inputSchema": {"type": "object"}}
    ]});
    std::fs::write(dir.path().join("tracker.json"), tracker.to_string()).unwrap();
    // The whole JSON-RPC response, under a server name of our choosing.
    let response = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "post_message", "description": "Send a message to a chat channel"}
    ]}});
    std::fs::write(dir.path().join("saved.json"), response.to_string()).unwrap();

    let args = ["search", "make a new ticket", "--tools", "tracker.json", "--tools", "chat=saved.json", "--no-mcp"];
    let out = toolwright(
        &[&args[..], &["--limit", "2", "--explain", "--why", "mcp__chat__post_message"]].concat(),
        dir.path(),
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(first.starts_with(" 1. mcp__tracker__create_ticket (server tracker)"), "{stdout}");
    assert!(stdout.contains("    Open a new ticket in a project."), "the first sentence: {stdout}");
    assert!(stdout.contains("why: mcp__tracker__create_ticket ranks 1 with"), "{stdout}");
    assert!(stdout.contains("mcp__chat__post_message does not match"), "{stdout}");

    // JSON lines; an exact name is first and says so.
    let out =
        toolwright(&["search", "list_tickets", "--tools", "tracker.json", "--json", "--no-mcp"], dir.path(), None);
    let first: serde_json::Value = serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["name"], "mcp__tracker__list_tickets");
    assert_eq!(first["server"], "tracker");
    assert_eq!(first["score"], "exact name");

    // A tool's `title` is searched as its words are.
    let out = toolwright(
        &["search", "archive the ticket", "--tools", "tracker.json", "--explain", "--limit", "1", "--no-mcp"],
        dir.path(),
        None,
    );
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(" 1. mcp__tracker__tk_x9"), "{stdout}");
    assert!(stdout.contains("`archiv` in title"), "{stdout}");

    // Bad input: one line naming what and where.
    std::fs::write(dir.path().join("bad.json"), r#"{"tools": [{"description": "no name"}]}"#).unwrap();
    for (args, says) in [
        (vec!["search", "x", "--tools", "bad.json"], "--tools bad.json: tool 0 has no `name` string"),
        (vec!["search", "x", "--tools", "missing.json"], "--tools missing.json:"),
        (vec!["search", "  "], "the query is empty"),
        (vec!["search", "(", "--regex"], "is not a regular expression"),
        (vec!["search", "x", "--why", "nope", "--no-mcp"], "--why nope: no tool of that name"),
        (vec!["search", "x", "--limit", "0"], "--limit"),
    ] {
        let out = toolwright(&args, dir.path(), None);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
