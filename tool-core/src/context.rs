//! The contexts a turn and a call run with: working directory, cancellation, typed
//! shared state (extensions) and progress.

use serde_json::Value;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Typed shared state, one value per type: a todo list, a file-read cache, an HTTP
/// client. Values are shared between calls; put a `Mutex` inside for mutable state.
#[derive(Default, Clone)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// An empty set.
    pub fn new() -> Self {
        Extensions::default()
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref::<T>())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Extensions({} values)", self.map.len())
    }
}

/// One progress report from a running call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    /// What is happening, for a human.
    pub message: String,
    /// Work done so far, in the unit of `total`.
    pub progress: Option<f64>,
    /// Total work, if known.
    pub total: Option<f64>,
    /// Tool-specific detail.
    pub data: Option<Value>,
}

impl Progress {
    /// A progress message.
    pub fn message(message: impl Into<String>) -> Self {
        Progress { message: message.into(), ..Progress::default() }
    }

    /// `done` of `total`, with a message.
    pub fn fraction(message: impl Into<String>, done: f64, total: f64) -> Self {
        Progress { message: message.into(), progress: Some(done), total: Some(total), data: None }
    }
}

impl From<&str> for Progress {
    fn from(message: &str) -> Self {
        Progress::message(message)
    }
}

impl From<String> for Progress {
    fn from(message: String) -> Self {
        Progress::message(message)
    }
}

/// A progress report tagged with the call it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressEvent {
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The report.
    pub progress: Progress,
}

/// Where progress goes: a bounded channel that never blocks a tool. When the
/// subscriber falls behind, reports are dropped and counted.
#[derive(Debug, Clone)]
pub struct ProgressSink {
    sender: mpsc::Sender<ProgressEvent>,
    dropped: Arc<AtomicU64>,
}

impl ProgressSink {
    /// A sink and its subscriber end, holding up to `capacity` undelivered reports.
    pub fn channel(capacity: usize) -> (ProgressSink, mpsc::Receiver<ProgressEvent>) {
        let (sender, receiver) = mpsc::channel(capacity.max(1));
        (ProgressSink { sender, dropped: Arc::new(AtomicU64::new(0)) }, receiver)
    }

    fn send(&self, event: ProgressEvent) {
        if self.sender.try_send(event).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many reports were dropped because the subscriber was full or gone.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// What every call of one model turn shares: working directory, the turn's
/// cancellation token, extensions and the progress sink.
#[derive(Debug, Clone)]
pub struct TurnContext {
    cwd: Arc<Path>,
    cancel: CancellationToken,
    extensions: Arc<Extensions>,
    progress: Option<ProgressSink>,
}

impl TurnContext {
    /// A turn in `cwd`, with a fresh cancellation token and no extensions.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        TurnContext {
            cwd: Arc::from(cwd.into()),
            cancel: CancellationToken::new(),
            extensions: Arc::new(Extensions::new()),
            progress: None,
        }
    }

    /// Uses `token` as the turn's cancellation token; each call gets a child of it.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Shares `extensions` with every call.
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = Arc::new(extensions);
        self
    }

    /// Sends every call's progress to `sink`.
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The turn's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// The shared extensions.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The context of one call in this turn.
    pub fn call(&self, call_id: &str, tool: &str, invoked_name: &str) -> ToolContext {
        ToolContext {
            call_id: call_id.to_owned(),
            tool: tool.to_owned(),
            invoked_name: invoked_name.to_owned(),
            cwd: Arc::clone(&self.cwd),
            cancel: self.cancel.child_token(),
            extensions: Arc::clone(&self.extensions),
            progress: self.progress.clone(),
        }
    }
}

/// What a running call can see: its id, the name it was called by, the working
/// directory, a cancellation token, extensions and a progress channel.
#[derive(Debug, Clone)]
pub struct ToolContext {
    call_id: String,
    tool: String,
    invoked_name: String,
    cwd: Arc<Path>,
    cancel: CancellationToken,
    extensions: Arc<Extensions>,
    progress: Option<ProgressSink>,
}

impl ToolContext {
    /// A context for a call in `cwd` with a fresh cancellation token (tests, direct
    /// calls). The executor builds contexts from a [`TurnContext`].
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        TurnContext::new(cwd).call("", "", "")
    }

    /// Sets the provider's call id.
    pub fn with_call_id(mut self, id: impl Into<String>) -> Self {
        self.call_id = id.into();
        self
    }

    /// Sets the name the model used, which may be an alias.
    pub fn with_invoked_name(mut self, name: impl Into<String>) -> Self {
        self.invoked_name = name.into();
        self
    }

    /// Uses `token` for cancellation.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// The provider's call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's own name.
    pub fn tool_name(&self) -> &str {
        &self.tool
    }

    /// The name the model called, which may be an alias of the tool.
    pub fn invoked_name(&self) -> &str {
        &self.invoked_name
    }

    /// The working directory; relative paths resolve against it.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The call's cancellation token (a child of the turn's); long-running tools
    /// should watch it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The shared value of type `T`, if the host provided one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }

    /// Reports progress. Never blocks: with no subscriber, or a full one, the report
    /// is dropped.
    pub fn progress(&self, progress: impl Into<Progress>) {
        if let Some(sink) = &self.progress {
            sink.send(ProgressEvent {
                call_id: self.call_id.clone(),
                tool: self.tool.clone(),
                progress: progress.into(),
            });
        }
    }
}
