//! The client against real language servers installed from npm (pyright and
//! typescript-language-server, by tests/peers/install.sh): navigation across files,
//! the call hierarchy, diagnostics after an edit, a crash, and no process left.

#[path = "../../tests/common/peers.rs"]
#[allow(dead_code)]
mod peers;

use std::path::Path;
use std::time::Duration;
use toolwright_lsp::{LspError, LspServers, Operation, Query, ServerConfig};

/// Every process a test's servers start carries `LSP_TEST_MARK` = the project's
/// path (pyright changes its working directory, so that does not tell).
fn marked(mut config: ServerConfig, root: &Path) -> ServerConfig {
    config.env.insert("LSP_TEST_MARK".into(), root.display().to_string());
    config
}

fn pyright(root: &Path) -> ServerConfig {
    let bin = peers::npm_bin("pyright-langserver");
    marked(ServerConfig::new("pyright", bin.to_str().unwrap(), [(".py", "python")]).with_args(["--stdio"]), root)
}

fn typescript(root: &Path) -> ServerConfig {
    let bin = peers::npm_bin("typescript-language-server");
    let config = ServerConfig::new("typescript", bin.to_str().unwrap(), [(".ts", "typescript"), (".js", "javascript")])
        .with_args(["--stdio"]);
    marked(config, root)
}

fn python_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("util.py"),
        "def helper(x: int) -> int:\n    return x + 1\n\n\ndef twice(x: int) -> int:\n    return helper(helper(x))\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("app.py"),
        "from util import helper, twice\n\n\ndef main() -> None:\n    print(helper(1))\n    print(twice(2))\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(dir.path().join("build")).unwrap();
    std::fs::write(dir.path().join("build/copy.py"), "from util import helper\n\nhelper(3)\n").unwrap();
    dir
}

fn show(root: &Path) -> impl Fn(&Path) -> Option<String> + Send + Sync + '_ {
    move |path: &Path| {
        let relative = path.strip_prefix(root).ok()?;
        // What the tool leaves out: gitignored folders (here, `build/`).
        if relative.starts_with("build") {
            return None;
        }
        Some(relative.display().to_string())
    }
}

async fn ask(
    servers: &LspServers,
    root: &Path,
    file: &str,
    op: Operation,
    at: Option<(u32, u32)>,
) -> Result<String, LspError> {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut query = Query::new(op, &path, file, &text, root);
    if let Some((line, character)) = at {
        query = query.at(line, character);
    }
    servers.query(query, &show(root)).await
}

/// The processes started for the project in `dir`: those whose environment has
/// `LSP_TEST_MARK` = its path.
fn processes_in(dir: &Path) -> Vec<u32> {
    let mark = format!("LSP_TEST_MARK={}", dir.display());
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|v| v == mark.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

async fn gone(dir: &Path) -> Vec<u32> {
    for _ in 0..50 {
        if processes_in(dir).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    processes_in(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_navigates_across_files_and_reports_new_errors_after_an_edit() {
    let dir = python_project();
    let root = dir.path().canonicalize().unwrap();
    let servers = LspServers::new(vec![pyright(&root)]);

    // `helper` used on line 5 of app.py is defined on line 1 of util.py.
    let definition = ask(&servers, &root, "app.py", Operation::GoToDefinition, Some((5, 11))).await.unwrap();
    assert!(definition.contains("util.py:1:5: def helper(x: int) -> int:"), "{definition}");

    let references = ask(&servers, &root, "util.py", Operation::FindReferences, Some((1, 5))).await.unwrap();
    assert!(references.contains("app.py:5:11"), "{references}");
    assert!(references.contains("util.py:6:12") && references.contains("util.py:6:19"), "{references}");
    // The gitignored copy is left out, and said to be.
    assert!(!references.contains("build"), "{references}");
    assert!(references.contains("gitignored"), "{references}");

    let hover = ask(&servers, &root, "app.py", Operation::Hover, Some((5, 11))).await.unwrap();
    assert!(hover.contains("helper") && hover.contains("int"), "{hover}");

    let symbols = ask(&servers, &root, "util.py", Operation::DocumentSymbol, None).await.unwrap();
    assert!(symbols.contains("helper (Function)") && symbols.contains("twice (Function)"), "{symbols}");

    let path = root.join("util.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let query = Query::new(Operation::WorkspaceSymbol, &path, "util.py", &text, &root).with_query("twice");
    let found = servers.query(query, &show(&root)).await.unwrap();
    assert!(found.contains("twice (Function) - util.py:5:5"), "{found}");

    let incoming = ask(&servers, &root, "util.py", Operation::IncomingCalls, Some((1, 5))).await.unwrap();
    assert!(incoming.contains("twice (Function)") && incoming.contains("main (Function)"), "{incoming}");
    let outgoing = ask(&servers, &root, "util.py", Operation::OutgoingCalls, Some((5, 5))).await.unwrap();
    assert!(outgoing.contains("helper (Function)") && outgoing.contains("called at line 6"), "{outgoing}");

    // An edit that breaks a type: the new error comes back, and only it.
    let before = std::fs::read_to_string(root.join("app.py")).unwrap();
    let after = before.replace("print(helper(1))", "print(helper(\"one\"))");
    std::fs::write(root.join("app.py"), &after).unwrap();
    let show = show(&root);
    let new = servers.after_edit(&root.join("app.py"), &root, Some(&before), &after, &show).await;
    let new = new.expect("a new diagnostic");
    assert!(new.starts_with("<new-diagnostics>Found 1 new diagnostic issue in 1 file:"), "{new}");
    assert!(new.contains("app.py:\n  ✘ [Line 5:18]") && new.contains("Literal['one']"), "{new}");
    // A harmless edit brings nothing new (the old error is not repeated).
    let calmer = after.replace("def main() -> None:", "def main() -> None:  # entry");
    std::fs::write(root.join("app.py"), &calmer).unwrap();
    assert_eq!(servers.after_edit(&root.join("app.py"), &root, Some(&after), &calmer, &show).await, None);

    assert_eq!(servers.running().await.len(), 1);
    assert!(!processes_in(&root).is_empty(), "the server runs, and the test sees it");
    servers.shutdown().await;
    assert_eq!(gone(&root).await, Vec::<u32>::new(), "processes left after the shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_finds_definitions_references_and_type_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(
        root.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs"}}"#,
    )
    .unwrap();
    std::fs::write(root.join("math.ts"), "export function add(a: number, b: number): number {\n  return a + b;\n}\n")
        .unwrap();
    std::fs::write(
        root.join("main.ts"),
        "import { add } from \"./math\";\n\nconst total: number = add(1, 2);\nconsole.log(total);\n",
    )
    .unwrap();
    let servers = LspServers::new(vec![typescript(&root)]);

    let definition = ask(&servers, &root, "main.ts", Operation::GoToDefinition, Some((3, 23))).await.unwrap();
    assert!(definition.contains("math.ts:1:17"), "{definition}");
    let references = ask(&servers, &root, "math.ts", Operation::FindReferences, Some((1, 17))).await.unwrap();
    assert!(references.contains("main.ts:3:23") && references.contains("main.ts:1:10"), "{references}");

    let before = std::fs::read_to_string(root.join("main.ts")).unwrap();
    let after = before.replace("add(1, 2)", "add(1, \"two\")");
    std::fs::write(root.join("main.ts"), &after).unwrap();
    let show = show(&root);
    let new = servers.after_edit(&root.join("main.ts"), &root, Some(&before), &after, &show).await;
    let new = new.expect("a new diagnostic");
    assert!(new.contains("main.ts:") && new.contains("not assignable to parameter of type 'number'"), "{new}");

    servers.shutdown().await;
    assert_eq!(gone(&root).await, Vec::<u32>::new(), "processes left after the shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_is_started_again_on_the_next_request() {
    let dir = python_project();
    let root = dir.path().canonicalize().unwrap();
    let servers = LspServers::new(vec![pyright(&root)]);
    ask(&servers, &root, "app.py", Operation::Hover, Some((5, 11))).await.unwrap();
    assert!(!processes_in(&root).is_empty(), "the server runs, and the test sees it");
    for pid in processes_in(&root) {
        let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    // The next request meets the dead server, starts it again and is answered.
    let answer = ask(&servers, &root, "app.py", Operation::GoToDefinition, Some((5, 11))).await;
    assert!(answer.unwrap().contains("util.py:1:5"));
    assert!(!processes_in(&root).is_empty(), "a new server runs");
    drop(servers);
    assert_eq!(gone(&root).await, Vec::<u32>::new(), "dropping the servers leaves no process");
}

#[tokio::test]
async fn a_missing_or_broken_server_is_a_clear_error_never_a_hang() {
    let dir = python_project();
    let root = dir.path().canonicalize().unwrap();
    let missing = LspServers::new(vec![ServerConfig::new("pylsp", "no-such-language-server", [(".py", "python")])]);
    let error = ask(&missing, &root, "app.py", Operation::Hover, Some((1, 1))).await.unwrap_err().to_string();
    assert!(error.contains("`pylsp` could not start: `no-such-language-server` is not installed"), "{error}");

    // A program that writes something other than the protocol: a crash, said.
    let chatty = ServerConfig::new("chatty", "sh", [(".py", "python")])
        .with_args(["-c", "echo hello; sleep 30"])
        .with_max_restarts(0);
    let chatty = marked(chatty, &root);
    let servers = LspServers::new(vec![chatty]);
    let started = std::time::Instant::now();
    let error = ask(&servers, &root, "app.py", Operation::Hover, Some((1, 1))).await.unwrap_err().to_string();
    assert!(error.contains("`chatty` could not start") && error.contains("not a protocol message"), "{error}");
    let again = ask(&servers, &root, "app.py", Operation::Hover, Some((1, 1))).await.unwrap_err().to_string();
    assert!(again.contains("not started again"), "{again}");
    // One that never answers: its startup timeout.
    let silent = ServerConfig::new("silent", "sleep", [(".py", "python")])
        .with_args(["30"])
        .with_startup_timeout(Duration::from_millis(500));
    let silent = marked(silent, &root);
    let servers = LspServers::new(vec![silent]);
    let error = ask(&servers, &root, "app.py", Operation::Hover, Some((1, 1))).await.unwrap_err().to_string();
    assert!(error.contains("(`startupTimeout`)"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10));
    drop(servers);
    assert_eq!(gone(&root).await, Vec::<u32>::new());

    let none = LspServers::new(vec![pyright(&root)]);
    let error = ask(&none, &root, ".gitignore", Operation::Hover, Some((1, 1))).await.unwrap_err().to_string();
    assert!(error.contains("no language server is configured") && error.contains(".py"), "{error}");
}
