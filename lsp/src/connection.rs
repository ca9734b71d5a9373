//! One running language server: its process (a group of its own, tagged, so that
//! nothing it starts outlives it), JSON-RPC over its stdio, the requests it makes
//! of us, and the diagnostics it publishes.

use crate::config::ServerConfig;
use crate::error::LspError;
use crate::framing::{read_message, write_message};
use lsp_types::notification::Notification;
use lsp_types::request::Request;
use lsp_types::{Diagnostic, PublishDiagnosticsParams, ServerCapabilities, Url, WorkspaceFolder};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStdin;
use tokio::sync::{oneshot, watch};
use toolwright_core::leftovers::{CallTag, ProcessGroup};

/// How long one write to the server may block (a server that stopped reading).
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Lines of its stderr kept to explain a crash.
const STDERR_LINES: usize = 20;

type Reply = Result<Value, (i64, String)>;

/// The diagnostics a server last published for one document.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    /// The document version they are for, when the server says.
    pub version: Option<i32>,
    /// The publication's number: later ones are higher.
    pub seq: u64,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Default)]
struct State {
    pending: HashMap<i64, oneshot::Sender<Reply>>,
    /// Why it stopped, once it has.
    stopped: Option<String>,
    diagnostics: HashMap<Url, Published>,
    /// The last publication's number.
    seq: u64,
    /// Work it has begun and not ended (`$/progress`): loading a project, indexing.
    progress: std::collections::HashSet<String>,
    /// When it last began or ended work, or was given a document.
    last_activity: Option<std::time::Instant>,
    /// Whether it has ever reported work (`window/workDoneProgress/create`,
    /// `$/progress`): one that never does is not waited for after an open.
    reports_progress: bool,
    stderr: VecDeque<String>,
}

struct Shared {
    server: String,
    state: Mutex<State>,
    writer: tokio::sync::Mutex<ChildStdin>,
    /// Bumped on every publication (and when it stops), for those who wait.
    published: watch::Sender<u64>,
    settings: Option<Value>,
    folders: Vec<WorkspaceFolder>,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stop(&self, reason: String) {
        let mut state = self.state();
        if state.stopped.is_none() {
            let tail: Vec<String> = state.stderr.iter().cloned().collect();
            let reason =
                if tail.is_empty() { reason } else { format!("{reason}; its stderr ended with: {}", tail.join(" | ")) };
            state.stopped = Some(reason);
        }
        // Dropping the senders wakes every waiting request.
        state.pending.clear();
        drop(state);
        self.published.send_modify(|n| *n += 1);
    }

    async fn send(&self, message: &Value) -> Result<(), String> {
        let mut writer = self.writer.lock().await;
        match tokio::time::timeout(WRITE_TIMEOUT, write_message(&mut *writer, message)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("writing to it: {e}")),
            Err(_) => Err(format!("it read nothing for {} s", WRITE_TIMEOUT.as_secs())),
        }
    }
}

/// A started, initialised server.
pub(crate) struct Connection {
    shared: Arc<Shared>,
    next_id: AtomicI64,
    pub capabilities: ServerCapabilities,
    exited: watch::Receiver<bool>,
    /// Whether a request has waited for its first quiet.
    warm: std::sync::atomic::AtomicBool,
    /// Holds the thread that started the server: its parent-death signal follows
    /// that thread, which ends when this is dropped.
    _tether: std::sync::mpsc::Sender<()>,
    group: Mutex<ProcessGroup>,
    tag: CallTag,
}

impl Connection {
    /// Starts `config`'s program in `root`, and runs `initialize` within its startup timeout.
    pub async fn start(config: &ServerConfig, root: &Path) -> Result<Connection, LspError> {
        let server = config.name.clone();
        let start_error = |reason: String| LspError::Start { server: server.clone(), reason };
        let tag = CallTag::new();
        let (tag_name, tag_value) = tag.env();
        let not_installed = || LspError::NotInstalled { server: server.clone(), command: config.command.clone() };
        let program = find_program(&config.command, root, config.env.get("PATH").map(String::as_str))
            .ok_or_else(not_installed)?;
        // Killed if this process dies, by any signal (SIGKILL included): `setpriv`
        // sets the parent-death signal, which the server keeps across its exec.
        let mut command = match setpriv() {
            Some(setpriv) => {
                let mut command = tokio::process::Command::new(setpriv);
                command.args(["--pdeathsig", "KILL", "--"]).arg(&program);
                command
            }
            None => tokio::process::Command::new(&program),
        };
        for name in &config.env_removed {
            command.env_remove(name);
        }
        command
            .args(&config.args)
            .envs(&config.env)
            .env(tag_name, tag_value)
            .current_dir(root)
            // A group of its own: stopping it stops what it started (tsserver, node workers).
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let (spawned, tether) = spawn_tethered(command).await;
        let mut child = spawned.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => not_installed(),
            _ => start_error(format!("starting `{}`: {e}", config.command)),
        })?;
        let group = ProcessGroup::adopt(child.id());
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(start_error("its standard streams are not pipes".to_owned()));
        };
        let root_url = Url::from_directory_path(root)
            .map_err(|()| start_error(format!("`{}` is not a folder path", root.display())))?;
        let folder_name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "/".to_owned());
        let shared = Arc::new(Shared {
            server: server.clone(),
            state: Mutex::new(State::default()),
            writer: tokio::sync::Mutex::new(stdin),
            published: watch::channel(0).0,
            settings: config.settings.clone(),
            folders: vec![WorkspaceFolder { uri: root_url.clone(), name: folder_name }],
        });
        let (exit_tx, exited) = watch::channel(false);
        tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                let status = child.wait().await;
                let _ = exit_tx.send(true);
                // The reader sees the end of its output; this says why.
                let why = match status {
                    Ok(status) => format!("it exited ({status})"),
                    Err(e) => format!("waiting for it: {e}"),
                };
                tokio::time::sleep(Duration::from_millis(50)).await;
                shared.stop(why);
            }
        });
        tokio::spawn(keep_stderr(Arc::clone(&shared), stderr));
        tokio::spawn(read_loop(Arc::clone(&shared), BufReader::new(stdout)));
        let mut connection = Connection {
            shared,
            next_id: AtomicI64::new(1),
            capabilities: ServerCapabilities::default(),
            exited,
            warm: std::sync::atomic::AtomicBool::new(false),
            _tether: tether,
            group: Mutex::new(group),
            tag,
        };
        let params = initialize_params(root_url, &connection.shared.folders, config);
        let result = connection
            .request::<lsp_types::request::Initialize>(params, config.startup_timeout)
            .await
            .map_err(|e| match e {
                LspError::Timeout { seconds, .. } => {
                    start_error(format!("it did not answer `initialize` within {seconds} s (`startupTimeout`)"))
                }
                LspError::Crashed { reason, .. } => start_error(reason),
                other => other,
            })?;
        connection.capabilities = result.capabilities;
        connection.notify::<lsp_types::notification::Initialized>(lsp_types::InitializedParams {}).await?;
        if let Some(settings) = &config.settings {
            let params = lsp_types::DidChangeConfigurationParams { settings: settings.clone() };
            connection.notify::<lsp_types::notification::DidChangeConfiguration>(params).await?;
        }
        Ok(connection)
    }

    /// Why it stopped, if it has.
    pub fn stopped(&self) -> Option<String> {
        self.shared.state().stopped.clone()
    }

    fn crashed(&self) -> LspError {
        let reason = self.stopped().unwrap_or_else(|| "it stopped".to_owned());
        LspError::Crashed { server: self.shared.server.clone(), reason }
    }

    /// Sends request `R` and waits at most `timeout` for its answer.
    pub async fn request<R: Request>(&self, params: R::Params, timeout: Duration) -> Result<R::Result, LspError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.shared.state();
            if state.stopped.is_some() {
                drop(state);
                return Err(self.crashed());
            }
            state.pending.insert(id, tx);
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": R::METHOD, "params": params});
        if let Err(reason) = self.shared.send(&message).await {
            self.shared.stop(reason);
            return Err(self.crashed());
        }
        let reply = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => return Err(self.crashed()),
            Err(_) => {
                self.shared.state().pending.remove(&id);
                let cancel = json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": id}});
                let _ = self.shared.send(&cancel).await;
                return Err(LspError::Timeout {
                    server: self.shared.server.clone(),
                    method: R::METHOD.to_owned(),
                    seconds: timeout.as_secs().max(1),
                });
            }
        };
        let value = reply.map_err(|(code, message)| LspError::Refused {
            server: self.shared.server.clone(),
            method: R::METHOD.to_owned(),
            message: format!("{message} (code {code})"),
        })?;
        serde_json::from_value(value).map_err(|e| LspError::BadReply {
            server: self.shared.server.clone(),
            method: R::METHOD.to_owned(),
            detail: e.to_string(),
        })
    }

    /// Sends notification `N`.
    pub async fn notify<N: Notification>(&self, params: N::Params) -> Result<(), LspError> {
        if self.stopped().is_some() {
            return Err(self.crashed());
        }
        let message = json!({"jsonrpc": "2.0", "method": N::METHOD, "params": params});
        if let Err(reason) = self.shared.send(&message).await {
            self.shared.stop(reason);
            return Err(self.crashed());
        }
        Ok(())
    }

    /// Notes that it was just given a document (work may begin on it).
    pub fn touched(&self) {
        self.shared.state().last_activity = Some(std::time::Instant::now());
    }

    /// Whether it has ever reported work in progress.
    pub fn reports_progress(&self) -> bool {
        self.shared.state().reports_progress
    }

    /// Whether this is the first wait for quiet since it started (it loads its
    /// project then, and takes longer to begin).
    pub fn first_quiet(&self) -> bool {
        !self.warm.swap(true, Ordering::Relaxed)
    }

    /// Waits until it has no work in progress and said nothing for `grace`, for at
    /// most `limit`: a server still loading its project answers from part of it.
    pub async fn quiet(&self, grace: Duration, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        let mut events = self.shared.published.subscribe();
        loop {
            let (busy, since) = {
                let state = self.shared.state();
                if state.stopped.is_some() {
                    return;
                }
                (!state.progress.is_empty(), state.last_activity.map(|t| t.elapsed()))
            };
            let until = if busy {
                deadline
            } else {
                match since {
                    Some(since) if since < grace => (tokio::time::Instant::now() + (grace - since)).min(deadline),
                    _ => return,
                }
            };
            if tokio::time::timeout_at(until, events.changed()).await.is_err() && until >= deadline {
                return;
            }
        }
    }

    /// The last diagnostics published for `uri`.
    pub fn published(&self, uri: &Url) -> Option<Published> {
        self.shared.state().diagnostics.get(uri).cloned()
    }

    /// Every document's last published diagnostics.
    pub fn diagnostics(&self) -> HashMap<Url, Published> {
        self.shared.state().diagnostics.clone()
    }

    /// The number of the last publication.
    pub fn last_publication(&self) -> u64 {
        self.shared.state().seq
    }

    /// The publication counter, to wait on.
    pub fn publications(&self) -> watch::Receiver<u64> {
        self.shared.published.subscribe()
    }

    /// `shutdown` and `exit`, then the process group killed if it is still there
    /// after `timeout`.
    pub async fn shutdown(&self, timeout: Duration) {
        let deadline = tokio::time::Instant::now() + timeout;
        if self.stopped().is_none() {
            let _ = self.request::<lsp_types::request::Shutdown>((), timeout).await;
            let _ = self.notify::<lsp_types::notification::Exit>(()).await;
            let mut exited = self.exited.clone();
            let _ = tokio::time::timeout_at(deadline, exited.wait_for(|e| *e)).await;
        }
        self.kill();
    }

    /// Kills the process group and everything carrying its tag.
    pub fn kill(&self) {
        self.group.lock().unwrap_or_else(PoisonError::into_inner).kill();
        self.tag.kill_tagged();
        self.shared.stop("it was stopped".to_owned());
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `command` as a path to run: found on `PATH` (the server's own, else ours) when
/// it is a bare name, else relative to the workspace `root`; `None` when there is
/// no such executable file.
pub(crate) fn find_program(command: &str, root: &Path, path: Option<&str>) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if command.contains('/') {
        let candidate = root.join(command);
        return runnable(&candidate).then_some(candidate);
    }
    let search = path.map(std::ffi::OsString::from).or_else(|| std::env::var_os("PATH"))?;
    std::env::split_paths(&search).map(|dir| dir.join(command)).find(|p| runnable(p))
}

/// Spawns `command` on a thread of its own that lives until the returned sender is
/// dropped: the parent-death signal fires when the thread that forked the server
/// ends, and a runtime's threads come and go.
async fn spawn_tethered(
    mut command: tokio::process::Command,
) -> (std::io::Result<tokio::process::Child>, std::sync::mpsc::Sender<()>) {
    let runtime = tokio::runtime::Handle::current();
    let (spawned_tx, spawned_rx) = oneshot::channel();
    let (tether, held) = std::sync::mpsc::channel::<()>();
    let thread = std::thread::Builder::new().name("toolwright-lsp".into()).spawn(move || {
        // The child is registered with the runtime's process driver.
        let spawned = {
            let _runtime = runtime.enter();
            command.spawn()
        };
        let _ = spawned_tx.send(spawned);
        // Until the connection drops its end.
        let _ = held.recv();
    });
    if let Err(e) = thread {
        return (Err(e), tether);
    }
    let spawned = spawned_rx.await.unwrap_or_else(|_| Err(std::io::Error::other("the spawning thread ended")));
    (spawned, tether)
}

/// util-linux's `setpriv`, if this system has it.
fn setpriv() -> Option<&'static Path> {
    static SETPRIV: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    SETPRIV.get_or_init(|| find_program("setpriv", Path::new("/"), None)).as_deref()
}

#[allow(deprecated)] // `root_uri` and `root_path`: older servers still read them.
fn initialize_params(root: Url, folders: &[WorkspaceFolder], config: &ServerConfig) -> lsp_types::InitializeParams {
    let capabilities: lsp_types::ClientCapabilities = serde_json::from_value(json!({
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": false},
            "symbol": {"dynamicRegistration": false},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": false, "didSave": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "definition": {"linkSupport": true},
            "implementation": {"linkSupport": true},
            "references": {},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "callHierarchy": {},
            "publishDiagnostics": {"relatedInformation": false, "versionSupport": true},
        },
        "window": {"workDoneProgress": true},
        "general": {"positionEncodings": ["utf-16"]},
    }))
    .unwrap_or_default();
    lsp_types::InitializeParams {
        process_id: Some(std::process::id()),
        root_path: root.to_file_path().ok().map(|p| p.display().to_string()),
        root_uri: Some(root),
        initialization_options: config.initialization_options.clone(),
        capabilities,
        workspace_folders: Some(folders.to_vec()),
        client_info: Some(lsp_types::ClientInfo {
            name: "toolwright".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
        ..Default::default()
    }
}

async fn keep_stderr(shared: Arc<Shared>, stderr: tokio::process::ChildStderr) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line: String = line.chars().take(300).collect();
        let mut state = shared.state();
        state.stderr.push_back(line);
        if state.stderr.len() > STDERR_LINES {
            state.stderr.pop_front();
        }
    }
}

async fn read_loop(shared: Arc<Shared>, mut reader: BufReader<tokio::process::ChildStdout>) {
    loop {
        let message = match read_message(&mut reader).await {
            Ok(message) => message,
            Err(e) => {
                // Anything but protocol on stdout disconnects it: a crash.
                shared.stop(e.to_string());
                return;
            }
        };
        // Any message is activity: a server about to load a project asks first.
        shared.state().last_activity = Some(std::time::Instant::now());
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null()).cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let result = answer(&shared, method, message.get("params"));
                let reply = match result {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(message) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": message}}),
                };
                // Answered on a task of its own: the reader never waits on the writer.
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    if let Err(reason) = shared.send(&reply).await {
                        shared.stop(reason);
                    }
                });
            }
            (Some(method), None) => notification(&shared, method, message.get("params")),
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { continue };
                let reply = match message.get("error") {
                    Some(error) => Err((
                        error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        error.get("message").and_then(Value::as_str).unwrap_or("no message").to_owned(),
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                if let Some(waiter) = shared.state().pending.remove(&id) {
                    let _ = waiter.send(reply);
                }
            }
            (None, None) => {}
        }
    }
}

/// Answers what a server asks of the client: its settings, the folders; progress
/// and registrations are acknowledged; edits it proposes are never applied.
fn answer(shared: &Shared, method: &str, params: Option<&Value>) -> Result<Value, String> {
    if method == "window/workDoneProgress/create" {
        shared.state().reports_progress = true;
    }
    match method {
        "workspace/configuration" => {
            let items = params.and_then(|p| p.get("items")).and_then(Value::as_array).cloned().unwrap_or_default();
            Ok(Value::Array(
                items
                    .iter()
                    .map(|item| section(shared.settings.as_ref(), item.get("section").and_then(Value::as_str)))
                    .collect(),
            ))
        }
        "workspace/workspaceFolders" => Ok(serde_json::to_value(&shared.folders).unwrap_or(Value::Null)),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/diagnostic/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => Ok(Value::Null),
        "workspace/applyEdit" => Ok(json!({"applied": false, "failureReason": "this client does not apply edits"})),
        other => Err(format!("`{other}` is not supported by this client")),
    }
}

/// The part of the settings under a dotted `section` (all of them without one).
fn section(settings: Option<&Value>, section: Option<&str>) -> Value {
    let Some(mut value) = settings else { return Value::Null };
    for key in section.into_iter().flat_map(|s| s.split('.')).filter(|k| !k.is_empty()) {
        match value.get(key) {
            Some(inner) => value = inner,
            None => return Value::Null,
        }
    }
    value.clone()
}

fn notification(shared: &Shared, method: &str, params: Option<&Value>) {
    if method == "$/progress" {
        progress(shared, params);
        return;
    }
    if method != <lsp_types::notification::PublishDiagnostics as Notification>::METHOD {
        return;
    }
    let Some(Ok(params)) = params.map(|p| serde_json::from_value::<PublishDiagnosticsParams>(p.clone())) else {
        return;
    };
    let mut state = shared.state();
    state.seq += 1;
    let published = Published { version: params.version, seq: state.seq, diagnostics: params.diagnostics };
    state.diagnostics.insert(params.uri, published);
    drop(state);
    // Wake the waiters once the store holds it.
    shared.published.send_modify(|n| *n += 1);
}

/// Work begun and ended: a server loading its project answers from what it has so
/// far, so requests wait for the work to end (see [`Connection::quiet`]).
fn progress(shared: &Shared, params: Option<&Value>) {
    let Some(params) = params else { return };
    let token = match params.get("token") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return,
    };
    let kind = params.get("value").and_then(|v| v.get("kind")).and_then(Value::as_str);
    let mut state = shared.state();
    state.reports_progress = true;
    match kind {
        Some("begin") => {
            state.progress.insert(token);
        }
        Some("end") => {
            state.progress.remove(&token);
        }
        _ => return,
    }
    state.last_activity = Some(std::time::Instant::now());
    drop(state);
    shared.published.send_modify(|n| *n += 1);
}

#[cfg(test)]
mod tests {
    use super::section;
    use serde_json::json;

    #[test]
    fn configuration_sections_are_looked_up_by_their_dotted_path() {
        let settings = json!({"python": {"analysis": {"typeCheckingMode": "strict"}}});
        assert_eq!(section(Some(&settings), Some("python.analysis")), json!({"typeCheckingMode": "strict"}));
        assert_eq!(section(Some(&settings), None), settings);
        assert_eq!(section(Some(&settings), Some("rust")), serde_json::Value::Null);
        assert_eq!(section(None, Some("python")), serde_json::Value::Null);
    }
}
