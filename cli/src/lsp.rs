//! The session's language servers, for the `lsp` tool and the edits' diagnostics
//! (and `toolwright lsp`, which lists them):
//! `lspServers` in the user's settings, then the workspace's (`.claude/settings.json`,
//! `.claude/settings.local.json`, `.lsp.json` at its root) once it is trusted, then
//! the plugins' (`.lsp.json` or the manifest's `lspServers`, Claude Code's way). The
//! first server that claims an extension covers it.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use toolwright::builtin::lsp::config::{Variables, parse};
use toolwright::builtin::lsp::{LspServers, ServerConfig};
use toolwright::subagents::plugins::Plugins;

/// The servers for a session in `workspace`, each problem passed to `warn`; none
/// gets the variables `denied` names (the sandbox's `credentials.envVars`).
pub fn load(workspace: &Path, trusted: bool, plugins: &Plugins, denied: &[String], warn: impl Fn(&str)) -> LspServers {
    let vars = Variables { project_dir: Some(workspace.to_path_buf()) };
    let mut servers: Vec<ServerConfig> = Vec::new();
    let mut problems = Vec::new();
    let mut add = |map: &Map<String, Value>, source: &Path, prefix: Option<&str>| {
        let (found, bad) = parse(map, &source.display().to_string(), prefix, &vars);
        servers.extend(found);
        problems.extend(bad);
    };
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    if let Some(home) = &home {
        files.push((home.join(".claude/settings.json"), true));
    }
    let workspace_files = [
        (workspace.join(".claude/settings.json"), true),
        (workspace.join(".claude/settings.local.json"), true),
        (workspace.join(".lsp.json"), false),
    ];
    for (file, settings) in workspace_files {
        if trusted {
            files.push((file, settings));
        } else if matches!(lsp_map(&file, settings), Ok(Some(_))) {
            warn(&format!(
                "{}: its language servers are not started: the workspace is not trusted (--trust-workspace)",
                file.display()
            ));
        }
    }
    for (file, settings) in files {
        match lsp_map(&file, settings) {
            Ok(Some(map)) => add(&map, &file, None),
            Ok(None) => {}
            Err(e) => warn(&format!("{}: {e}; its language servers are left out", file.display())),
        }
    }
    for plugin in plugins.plugins() {
        if let Some(map) = &plugin.lsp_servers {
            add(map, &plugin.root.join(".lsp.json"), Some(&plugin.name));
        }
    }
    for problem in &problems {
        warn(&format!("{problem}; left out"));
    }
    LspServers::new(servers).with_problems(problems).without_env(denied)
}

/// The servers map in `file`: its `lspServers` key (a settings file), or the
/// whole file (`.lsp.json`); `None` when there is none.
fn lsp_map(file: &Path, settings: bool) -> Result<Option<Map<String, Value>>, String> {
    let Ok(text) = std::fs::read_to_string(file) else { return Ok(None) };
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("is not JSON ({e})"))?;
    let map = match (settings, value) {
        (true, value) => match value.get("lspServers") {
            None => return Ok(None),
            Some(map) => map.clone(),
        },
        (false, value) => value,
    };
    match map {
        Value::Object(map) => Ok(Some(map)),
        other => Err(format!("`lspServers` maps server names to their settings, not {other}")),
    }
}

/// The built-ins' session state with `lsp` in it (when a server is configured).
pub fn session(lsp: &LspServers) -> toolwright::Extensions {
    let mut session = toolwright::builtin::session();
    if !lsp.is_empty() {
        session.insert(lsp.clone());
    }
    session
}

/// The environment variables the settings' sandbox denies commands.
pub fn denied_env(settings: &toolwright::WorkspaceSettings, workspace: &Path) -> Vec<String> {
    settings.policy().sandbox_for(workspace).map(|sandbox| sandbox.env_denied).unwrap_or_default()
}

/// List the language servers for the workspace, and every problem with them.
///
/// Reads `lspServers` in the settings and `.lsp.json` (the workspace's once it is
/// trusted) and the plugins' `.lsp.json`, in that order of precedence. Exits with 1
/// when an entry cannot be used or a server's program is not installed.
#[derive(clap::Args)]
pub struct LspArgs {
    /// The workspace (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Print JSON: {"servers": [...], "problems": [...]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trust: crate::turn::TrustArgs,
    #[command(flatten)]
    plugins: crate::plugins::PluginArgs,
}

/// The listing, and whether every server can start.
pub fn run(args: LspArgs) -> Result<(String, bool), String> {
    let cwd = crate::turn::workspace_dir(args.cwd.as_deref())?;
    let trusted = args.trust.trust(&cwd).is_trusted();
    let warnings = std::cell::RefCell::new(Vec::new());
    let plugins = args.plugins.load(&cwd, trusted, |w| warnings.borrow_mut().push(w.to_owned()));
    let servers = load(&cwd, trusted, &plugins, &[], |w| warnings.borrow_mut().push(w.to_owned()));
    let mut ok = servers.problems().is_empty();
    let mut entries = Vec::new();
    let mut text =
        format!("{} language server{}\n", servers.configs().len(), if servers.configs().len() == 1 { "" } else { "s" });
    for config in servers.configs() {
        let program = config.program(config.workspace_folder.as_deref().unwrap_or(&cwd));
        ok &= program.is_some();
        let covers: Vec<String> = config.extension_to_language.iter().map(|(e, l)| format!("{e} → {l}")).collect();
        text.push_str(&format!("  {} ({})\n    from {}\n", config.name, covers.join(", "), config.source));
        let command = std::iter::once(config.command.as_str())
            .chain(config.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        match &program {
            Some(path) => text.push_str(&format!("    runs {command} ({})\n", path.display())),
            None => {
                text.push_str(&format!("    runs {command}: not installed (`{}` is not on PATH)\n", config.command))
            }
        }
        entries.push(serde_json::json!({
            "name": config.name, "command": config.command, "args": config.args, "source": config.source,
            "extensionToLanguage": config.extension_to_language, "installed": program.is_some(),
            "diagnostics": config.diagnostics,
        }));
    }
    let warnings = warnings.into_inner();
    if !warnings.is_empty() {
        text.push_str("problems:\n");
        for warning in &warnings {
            text.push_str(&format!("  {warning}\n"));
        }
    }
    if args.json {
        text = serde_json::json!({"servers": entries, "problems": warnings}).to_string();
    }
    Ok((text.trim_end().to_owned(), ok))
}
