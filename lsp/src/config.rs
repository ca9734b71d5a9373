//! Language servers as Claude Code's `.lsp.json` describes them: `{ "<name>": {
//! "command", "extensionToLanguage", ... } }`, checked key by key. An invalid entry
//! is left out with a problem naming it and its key, and claims no extension.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a server may take to answer `initialize` unless `startupTimeout` says.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server may take to stop after `shutdown`/`exit` before it is killed.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(3);
/// Restarts after crashes unless `maxRestarts` says.
pub const DEFAULT_MAX_RESTARTS: u32 = 3;

/// One language server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// Its name (the key in `.lsp.json`; a plugin's are `plugin:name`).
    pub name: String,
    /// The program (looked up on `PATH`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to its environment.
    pub env: BTreeMap<String, String>,
    /// Variables taken out of the environment it inherits (the sandbox's denied
    /// credentials: what a command may not see, a language server does not get).
    pub env_removed: Vec<String>,
    /// File extensions (`.py`, with the dot) and the LSP `languageId` of each.
    pub extension_to_language: BTreeMap<String, String>,
    /// Sent in `initialize`.
    pub initialization_options: Option<Value>,
    /// Sent in `workspace/didChangeConfiguration`, and answered from for
    /// `workspace/configuration`.
    pub settings: Option<Value>,
    /// The workspace folder to give it, instead of the session's.
    pub workspace_folder: Option<PathBuf>,
    /// How long `initialize` may take.
    pub startup_timeout: Duration,
    /// How long it may take to stop before it is killed.
    pub shutdown_timeout: Duration,
    /// Whether a crashed server is started again on the next request.
    pub restart_on_crash: bool,
    /// How many times it is started again at most.
    pub max_restarts: u32,
    /// Whether its diagnostics are added to edits' results.
    pub diagnostics: bool,
    /// Where it was configured (a file, or "code").
    pub source: String,
}

impl ServerConfig {
    /// A server running `command` for the files whose extension is in `extensions`
    /// (`(".py", "python")`), with every other key at its default.
    ///
    /// ```
    /// let pyright = toolwright_lsp::ServerConfig::new("pyright", "pyright-langserver", [(".py", "python")])
    ///     .with_args(["--stdio"]);
    /// assert_eq!(pyright.language_of(std::path::Path::new("a/b.py")), Some("python"));
    /// ```
    pub fn new<'a>(
        name: impl Into<String>,
        command: impl Into<String>,
        extensions: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            env_removed: Vec::new(),
            extension_to_language: extensions.into_iter().map(|(e, l)| (e.to_owned(), l.to_owned())).collect(),
            initialization_options: None,
            settings: None,
            workspace_folder: None,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            restart_on_crash: true,
            max_restarts: DEFAULT_MAX_RESTARTS,
            diagnostics: true,
            source: "code".to_owned(),
        }
    }

    /// The same server with these arguments.
    pub fn with_args<'a>(mut self, args: impl IntoIterator<Item = &'a str>) -> ServerConfig {
        self.args = args.into_iter().map(str::to_owned).collect();
        self
    }

    /// The same server with its startup timeout.
    pub fn with_startup_timeout(mut self, timeout: Duration) -> ServerConfig {
        self.startup_timeout = timeout;
        self
    }

    /// The same server, restarted after a crash at most `max` times (0: never).
    pub fn with_max_restarts(mut self, max: u32) -> ServerConfig {
        self.max_restarts = max;
        self.restart_on_crash = max > 0;
        self
    }

    /// Its program as it would run in the workspace `root`: found on `PATH` (its own
    /// `env`'s, else ours) or relative to `root`; `None` when it is not installed.
    pub fn program(&self, root: &Path) -> Option<PathBuf> {
        crate::connection::find_program(&self.command, root, self.env.get("PATH").map(String::as_str))
    }

    /// The `languageId` of `path` if this server covers its extension.
    pub fn language_of(&self, path: &Path) -> Option<&str> {
        let name = path.file_name()?.to_str()?;
        // The longest extension that matches (`.d.ts` before `.ts`).
        self.extension_to_language
            .iter()
            .filter(|(ext, _)| name.len() > ext.len() && name.ends_with(ext.as_str()))
            .max_by_key(|(ext, _)| ext.len())
            .map(|(_, language)| language.as_str())
    }
}

/// A problem with one server's entry: it is left out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: language server `{server}`{}: {message}", key.as_ref().map(|k| format!(", `{k}`")).unwrap_or_default())]
#[non_exhaustive]
pub struct ConfigProblem {
    /// Where the entry is.
    pub file: String,
    /// The server's name.
    pub server: String,
    /// The key at fault.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// The substitutions made in `command`, `args`, `env` and `workspaceFolder`:
/// `${CLAUDE_PROJECT_DIR}`, and for a plugin's servers `${CLAUDE_PLUGIN_ROOT}` and
/// `${CLAUDE_PLUGIN_DATA}` (done when the plugin was read).
#[derive(Debug, Clone, Default)]
pub struct Variables {
    /// `${CLAUDE_PROJECT_DIR}`.
    pub project_dir: Option<PathBuf>,
}

impl Variables {
    fn apply(&self, text: &str) -> String {
        match &self.project_dir {
            Some(dir) => text.replace("${CLAUDE_PROJECT_DIR}", &dir.display().to_string()),
            None => text.to_owned(),
        }
    }
}

/// Reads `.lsp.json`'s map (or a plugin's `lspServers`): the valid servers in
/// the file's order, and a problem for each entry left out. `source` names where it
/// came from in problems; `prefix` (a plugin's name) namespaces the servers as
/// `prefix:name`.
///
/// ```
/// let map = serde_json::json!({
///     "pyright": {"command": "pyright-langserver", "args": ["--stdio"], "extensionToLanguage": {".py": "python"}},
///     "broken": {"extensionToLanguage": {".go": "go"}}
/// });
/// let (servers, problems) = toolwright_lsp::config::parse(map.as_object().unwrap(), ".lsp.json", None, &Default::default());
/// assert_eq!(servers.len(), 1);
/// assert!(problems[0].to_string().contains("`broken`, `command`"));
/// ```
pub fn parse(
    map: &Map<String, Value>,
    source: &str,
    prefix: Option<&str>,
    vars: &Variables,
) -> (Vec<ServerConfig>, Vec<ConfigProblem>) {
    let mut servers = Vec::new();
    let mut problems = Vec::new();
    for (name, entry) in map {
        let name = match prefix {
            Some(prefix) => format!("{prefix}:{name}"),
            None => name.clone(),
        };
        let problem = |key: Option<&str>, message: String| ConfigProblem {
            file: source.to_owned(),
            server: name.clone(),
            key: key.map(str::to_owned),
            message,
        };
        match parse_one(&name, entry, source, vars) {
            Ok(server) => servers.push(server),
            Err((key, message)) => problems.push(problem(key, message)),
        }
    }
    (servers, problems)
}

type Fault = (Option<&'static str>, String);

fn parse_one(name: &str, entry: &Value, source: &str, vars: &Variables) -> Result<ServerConfig, Fault> {
    let Value::Object(entry) = entry else {
        return Err((None, format!("is an object with `command` and `extensionToLanguage`, not {entry}")));
    };
    let command = match entry.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => vars.apply(c.trim()),
        Some(other) => return Err((Some("command"), format!("is the server's program, not {other}"))),
        None => return Err((Some("command"), "is missing: name the server's program".to_owned())),
    };
    let extensions = extension_map(entry.get("extensionToLanguage"))?;
    let mut server = ServerConfig::new(name, command, []);
    server.extension_to_language = extensions;
    server.source = source.to_owned();
    server.args = strings(entry.get("args"), "args")?.into_iter().map(|a| vars.apply(&a)).collect();
    server.env = string_map(entry.get("env"), "env")?.into_iter().map(|(k, v)| (k, vars.apply(&v))).collect();
    server.initialization_options = entry.get("initializationOptions").cloned().filter(|v| !v.is_null());
    server.settings = entry.get("settings").cloned().filter(|v| !v.is_null());
    server.workspace_folder = match entry.get("workspaceFolder") {
        None | Some(Value::Null) => None,
        Some(Value::String(dir)) => Some(PathBuf::from(vars.apply(dir))),
        Some(other) => return Err((Some("workspaceFolder"), format!("is a folder's path, not {other}"))),
    };
    match entry.get("transport") {
        None | Some(Value::Null) => {}
        // Claude Code accepts `socket` and runs it over stdio all the same.
        Some(Value::String(t)) if t == "stdio" || t == "socket" => {}
        Some(other) => return Err((Some("transport"), format!("is `stdio` (or `socket`), not {other}"))),
    }
    if let Some(ms) = millis(entry.get("startupTimeout"), "startupTimeout")? {
        server.startup_timeout = ms;
    }
    if let Some(ms) = millis(entry.get("shutdownTimeout"), "shutdownTimeout")? {
        server.shutdown_timeout = ms;
    }
    server.restart_on_crash = boolean(entry.get("restartOnCrash"), "restartOnCrash")?.unwrap_or(true);
    server.diagnostics = boolean(entry.get("diagnostics"), "diagnostics")?.unwrap_or(true);
    match entry.get("maxRestarts") {
        None | Some(Value::Null) => {}
        Some(n) => match n.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) => server.max_restarts = n,
            None => return Err((Some("maxRestarts"), format!("is a count (0 or more), not {n}"))),
        },
    }
    Ok(server)
}

fn extension_map(value: Option<&Value>) -> Result<BTreeMap<String, String>, Fault> {
    const KEY: &str = "extensionToLanguage";
    let Some(Value::Object(map)) = value else {
        return Err((
            Some(KEY),
            match value {
                None => "is missing: map each file extension to its language (`{\".py\": \"python\"}`)".to_owned(),
                Some(other) => format!("maps extensions to languages (`{{\".py\": \"python\"}}`), not {other}"),
            },
        ));
    };
    if map.is_empty() {
        return Err((Some(KEY), "is empty: the server would cover no file".to_owned()));
    }
    let mut out = BTreeMap::new();
    for (ext, language) in map {
        if !ext.starts_with('.') || ext.len() < 2 || ext.contains(['/', '\\']) {
            return Err((Some(KEY), format!("`{ext}` is not an extension: give it with its dot (`.py`)")));
        }
        let Some(language) = language.as_str().filter(|l| !l.trim().is_empty()) else {
            return Err((Some(KEY), format!("`{ext}` maps to a languageId (`python`), not {language}")));
        };
        out.insert(ext.clone(), language.to_owned());
    }
    Ok(out)
}

fn strings(value: Option<&Value>, key: &'static str) -> Result<Vec<String>, Fault> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or((Some(key), format!("holds text only, not {v}"))))
            .collect(),
        Some(other) => Err((Some(key), format!("is a list of text, not {other}"))),
    }
}

fn string_map(value: Option<&Value>, key: &'static str) -> Result<BTreeMap<String, String>, Fault> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err((Some(key), format!("`{k}` is text, not {other}"))),
            })
            .collect(),
        Some(other) => Err((Some(key), format!("maps names to text, not {other}"))),
    }
}

fn millis(value: Option<&Value>, key: &'static str) -> Result<Option<Duration>, Fault> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
            _ => Err((Some(key), format!("is a time in milliseconds (above 0), not {v}"))),
        },
    }
}

fn boolean(value: Option<&Value>, key: &'static str) -> Result<Option<bool>, Fault> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err((Some(key), format!("is true or false, not {other}"))),
    }
}
