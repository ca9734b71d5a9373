//! The contexts a turn and a call run with: working directory, cancellation, typed
//! shared state (extensions) and progress.

use crate::progress::{Progress, ProgressEvent, ProgressSink};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

pub use crate::extensions::Extensions;

/// What every call of one model turn shares: working directory, the turn's
/// cancellation token, extensions and the progress sink. Cloning is one reference
/// count.
#[derive(Debug, Clone)]
pub struct TurnContext {
    shared: Arc<TurnShared>,
}

#[derive(Debug, Clone)]
struct TurnShared {
    cwd: PathBuf,
    cancel: CancellationToken,
    extensions: Extensions,
    progress: Option<ProgressSink>,
    provider: Option<crate::provider_id::Provider>,
}

impl TurnContext {
    /// A turn in `cwd`, with a fresh cancellation token and no extensions.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        TurnContext {
            shared: Arc::new(TurnShared {
                cwd: cwd.into(),
                cancel: CancellationToken::new(),
                extensions: Extensions::new(),
                progress: None,
                provider: None,
            }),
        }
    }

    /// A turn from all of its parts at once (the MCP server makes one per call; going
    /// through [`new`](Self::new) would make a cancellation token only to replace it).
    #[doc(hidden)]
    pub fn from_parts(
        cwd: PathBuf,
        cancel: CancellationToken,
        extensions: Extensions,
        progress: Option<ProgressSink>,
        provider: Option<crate::provider_id::Provider>,
    ) -> Self {
        TurnContext { shared: Arc::new(TurnShared { cwd, cancel, extensions, progress, provider }) }
    }

    fn edit(mut self, f: impl FnOnce(&mut TurnShared)) -> Self {
        f(Arc::make_mut(&mut self.shared));
        self
    }

    /// Uses `token` as the turn's cancellation token; each call gets a child of it.
    pub fn with_cancellation(self, token: CancellationToken) -> Self {
        self.edit(|s| s.cancel = token)
    }

    /// Works in `cwd` instead (a child agent in a worktree of its own).
    pub fn with_cwd(self, cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        self.edit(|s| s.cwd = cwd)
    }

    /// Shares `extensions` with every call.
    pub fn with_extensions(self, extensions: Extensions) -> Self {
        self.edit(|s| s.extensions = extensions)
    }

    /// Sends every call's progress to `sink`.
    pub fn with_progress(self, sink: ProgressSink) -> Self {
        self.edit(|s| s.progress = Some(sink))
    }

    /// The provider whose rendering of the tools the model was shown. Calls then
    /// come back from the shapes that rendering adapted (a free JSON value sent as
    /// JSON text is parsed back); tuples and maps come back whatever is set.
    pub fn with_provider(self, provider: crate::provider_id::Provider) -> Self {
        self.edit(|s| s.provider = Some(provider))
    }

    /// The provider set by [`with_provider`](Self::with_provider).
    pub fn provider(&self) -> Option<crate::provider_id::Provider> {
        self.shared.provider
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.shared.cwd
    }

    /// The turn's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.shared.cancel
    }

    /// The shared extensions.
    pub fn extensions(&self) -> &Extensions {
        &self.shared.extensions
    }

    /// The context of one call in this turn.
    pub fn call(&self, call_id: &str, tool: &str, invoked_name: &str) -> ToolContext {
        let invoked = (invoked_name != tool).then(|| Arc::from(invoked_name));
        self.call_shared(Arc::from(call_id), Arc::from(tool), invoked)
    }

    /// Like [`call`](Self::call), sharing names the caller already holds; `invoked_name`
    /// is `None` when the call used the tool's own name.
    #[doc(hidden)]
    pub fn call_shared(&self, call_id: Arc<str>, tool: Arc<str>, invoked_name: Option<Arc<str>>) -> ToolContext {
        ToolContext {
            call_id,
            tool,
            invoked_name,
            turn: Arc::clone(&self.shared),
            own_cancel: OnceLock::new(),
            read_filter: OnceLock::new(),
            fetch_filter: OnceLock::new(),
            sandbox: OnceLock::new(),
            approval: OnceLock::new(),
        }
    }
}

/// What a running call can see: its id, the name it was called by, the working
/// directory, a cancellation token, extensions and a progress channel.
#[derive(Debug)]
pub struct ToolContext {
    call_id: Arc<str>,
    tool: Arc<str>,
    /// `None` when it is the tool's own name (most calls: one reference count less).
    invoked_name: Option<Arc<str>>,
    turn: Arc<TurnShared>,
    /// The call's own token, a child of the turn's, made when first asked for (most
    /// calls never ask); cloning the context makes it, so every clone shares it.
    own_cancel: OnceLock<CancellationToken>,
    /// What the permission policy denies reading, for tools that walk directories.
    read_filter: OnceLock<Arc<dyn crate::permission::ReadFilter>>,
    /// What the permission policy denies fetching, for tools that list URLs.
    fetch_filter: OnceLock<Arc<dyn crate::permission::FetchFilter>>,
    /// How the policy confines the call's commands.
    sandbox: OnceLock<Arc<crate::sandbox::Sandbox>>,
    /// What the person answered when the call was put to the approver.
    approval: OnceLock<crate::permission::Approval>,
}

impl Clone for ToolContext {
    fn clone(&self) -> Self {
        ToolContext {
            call_id: Arc::clone(&self.call_id),
            tool: Arc::clone(&self.tool),
            invoked_name: self.invoked_name.clone(),
            turn: Arc::clone(&self.turn),
            // Made now so that a timeout, which cancels the original's token, reaches
            // the clone (a background task, say) too.
            own_cancel: OnceLock::from(self.cancellation().clone()),
            read_filter: self.read_filter.clone(),
            fetch_filter: self.fetch_filter.clone(),
            sandbox: self.sandbox.clone(),
            approval: self.approval.clone(),
        }
    }
}

impl ToolContext {
    /// A context for a call in `cwd` with a fresh cancellation token (tests, direct
    /// calls). The executor builds contexts from a [`TurnContext`].
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        TurnContext::new(cwd).call("", "", "")
    }

    /// What the permission policy denies reading: tools that walk directories or open
    /// files skip what it denies. The executor sets it from the policy
    /// ([`PermissionPolicy::read_filter`](crate::permission::PermissionPolicy::read_filter)).
    pub fn read_filter(&self) -> Option<&Arc<dyn crate::permission::ReadFilter>> {
        self.read_filter.get()
    }

    /// Sets the read filter (the executor does this; tests and direct calls may too).
    /// A filter once set stays: a second one is ignored.
    pub fn with_read_filter(self, filter: Arc<dyn crate::permission::ReadFilter>) -> Self {
        self.set_read_filter(filter);
        self
    }

    #[doc(hidden)]
    pub fn set_read_filter(&self, filter: Arc<dyn crate::permission::ReadFilter>) {
        let _ = self.read_filter.set(filter);
    }

    /// What the permission policy denies fetching: a tool that lists URLs (a web
    /// search) leaves those out. The executor sets it from the policy
    /// ([`PermissionPolicy::fetch_filter`](crate::permission::PermissionPolicy::fetch_filter)).
    pub fn fetch_filter(&self) -> Option<&Arc<dyn crate::permission::FetchFilter>> {
        self.fetch_filter.get()
    }

    #[doc(hidden)]
    pub fn set_fetch_filter(&self, filter: Arc<dyn crate::permission::FetchFilter>) {
        let _ = self.fetch_filter.set(filter);
    }

    /// How the policy confines this call's commands, if it said
    /// ([`PermissionPolicy::sandbox`](crate::permission::PermissionPolicy::sandbox)).
    pub fn sandbox(&self) -> Option<&Arc<crate::sandbox::Sandbox>> {
        self.sandbox.get()
    }

    /// With a sandbox (tests, direct calls; the executor sets the policy's).
    pub fn with_sandbox(self, sandbox: Arc<crate::sandbox::Sandbox>) -> Self {
        self.set_sandbox(sandbox);
        self
    }

    #[doc(hidden)]
    pub fn set_sandbox(&self, sandbox: Arc<crate::sandbox::Sandbox>) {
        let _ = self.sandbox.set(sandbox);
    }

    /// What the person answered when this call was put to the approver: `AllowOnce`
    /// or `AlwaysAllow` (a call that was not asked about has none). A tool whose
    /// question offers a choice reads it (ExitPlanMode: `always` accepts edits).
    pub fn approval(&self) -> Option<&crate::permission::Approval> {
        self.approval.get()
    }

    #[doc(hidden)]
    pub fn set_approval(&self, approval: crate::permission::Approval) {
        let _ = self.approval.set(approval);
    }

    /// Sets the provider's call id.
    pub fn with_call_id(mut self, id: &str) -> Self {
        self.call_id = Arc::from(id);
        self
    }

    /// Sets the name the model used, which may be an alias.
    pub fn with_invoked_name(mut self, name: &str) -> Self {
        self.invoked_name = Some(Arc::from(name));
        self
    }

    /// Uses `token` for cancellation.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        Arc::make_mut(&mut self.turn).cancel = token.clone();
        self.own_cancel = OnceLock::from(token);
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
        self.invoked_name.as_deref().unwrap_or(&self.tool)
    }

    /// The working directory; relative paths resolve against it.
    pub fn cwd(&self) -> &Path {
        &self.turn.cwd
    }

    /// The call's cancellation token (a child of the turn's, cancelled also when the
    /// call times out); long-running tools should watch it.
    pub fn cancellation(&self) -> &CancellationToken {
        self.own_cancel.get_or_init(|| self.turn.cancel.child_token())
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.turn.cancel.is_cancelled() || self.own_cancel.get().is_some_and(CancellationToken::is_cancelled)
    }

    /// The turn's token, which the pipeline watches without making the call's own.
    #[doc(hidden)]
    pub fn turn_cancellation(&self) -> &CancellationToken {
        &self.turn.cancel
    }

    /// Cancels the call alone (on timeout), if anything is watching it.
    #[doc(hidden)]
    pub fn cancel_call(&self) {
        if let Some(token) = self.own_cancel.get() {
            token.cancel();
        }
    }

    /// The shared value of type `T`, if the host provided one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.turn.extensions.get::<T>()
    }

    /// The turn's extensions.
    pub fn extensions(&self) -> &Extensions {
        &self.turn.extensions
    }

    /// The turn this call belongs to (one reference count): what a tool that runs
    /// an agent of its own starts from (same directory, progress and provider).
    pub fn turn(&self) -> TurnContext {
        TurnContext { shared: Arc::clone(&self.turn) }
    }

    /// Reports progress. Never blocks: with no subscriber, or a full one, the report
    /// is dropped.
    pub fn progress(&self, progress: impl Into<Progress>) {
        if let Some(sink) = &self.turn.progress {
            sink.send(ProgressEvent {
                call_id: self.call_id.to_string(),
                tool: self.tool.to_string(),
                progress: progress.into(),
            });
        }
    }
}

/// A change to the turn's context that a call asks for: a new working directory, an
/// updated todo list, a file-read cache. The orchestrator applies modifiers in call
/// order after each batch, so concurrent calls never race on the context.
#[derive(Clone)]
pub struct ContextModifier(Arc<dyn Fn(&mut TurnEdit<'_>) + Send + Sync>);

impl ContextModifier {
    /// A modifier that runs `edit` on the turn.
    pub fn new(edit: impl Fn(&mut TurnEdit<'_>) + Send + Sync + 'static) -> Self {
        ContextModifier(Arc::new(edit))
    }

    /// A modifier that changes the working directory.
    pub fn set_cwd(cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        ContextModifier::new(move |turn| turn.set_cwd(cwd.clone()))
    }
}

impl fmt::Debug for ContextModifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ContextModifier")
    }
}

impl PartialEq for ContextModifier {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The parts of a turn a [`ContextModifier`] may change.
pub struct TurnEdit<'a> {
    shared: &'a mut TurnShared,
}

impl TurnEdit<'_> {
    /// Changes the working directory for later calls.
    pub fn set_cwd(&mut self, cwd: PathBuf) {
        self.shared.cwd = cwd;
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.shared.cwd
    }

    /// Adds or replaces a shared value for later calls.
    pub fn insert_extension<T: Send + Sync + 'static>(&mut self, value: T) {
        self.shared.extensions.insert(value);
    }

    /// A shared value, to build the replacement from.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.shared.extensions.get::<T>()
    }
}

impl TurnContext {
    /// Applies a modifier: later calls of this turn (and clones made after this) see
    /// the change.
    pub fn apply(&mut self, modifier: &ContextModifier) {
        (modifier.0)(&mut TurnEdit { shared: Arc::make_mut(&mut self.shared) });
    }
}

/// Which subagent a turn belongs to: put in a child's turn extensions by the subagent
/// runtime. Hooks get `agent_id` and `agent_type` from it, approvers label their
/// questions with it, and the agent tool finds its depth in it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentScope {
    /// The agent's id, unique in the process.
    pub id: String,
    /// Its type: the definition's name (`Explore`, `reviewer`).
    pub agent_type: String,
    /// 1 for a child of the main agent, 2 for a grandchild, ...
    pub depth: usize,
    /// The id of the agent that started it; `None` for a child of the main agent.
    pub parent_id: Option<String>,
    /// Its own transcript, if it keeps one.
    pub transcript_path: Option<PathBuf>,
    /// Whether it runs in the background.
    pub background: bool,
}

impl AgentScope {
    /// A child of `parent` (`None`: of the main agent), one level deeper.
    pub fn new(id: impl Into<String>, agent_type: impl Into<String>, parent: Option<&AgentScope>) -> AgentScope {
        AgentScope {
            id: id.into(),
            agent_type: agent_type.into(),
            depth: parent.map_or(1, |p| p.depth + 1),
            parent_id: parent.map(|p| p.id.clone()),
            transcript_path: None,
            background: false,
        }
    }

    /// One line naming the agent, for a person: `reviewer a3f2 (depth 2)`.
    pub fn label(&self) -> String {
        format!("{} {} (depth {})", self.agent_type, self.id, self.depth)
    }
}

/// Who made a call, when a server authenticated it: the subject of its token (a
/// static token's name, or a JWT's `sub`) and the scopes it was granted. The MCP
/// server puts one in the turn's extensions; hooks see it as `caller` on stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The token's subject.
    pub subject: String,
    /// The scopes the token grants (empty for a static token).
    pub scopes: Vec<String>,
}

/// Which session a turn belongs to, as hooks see it: Claude Code's `session_id` and
/// `transcript_path`. Put one in the turn's extensions and keep it for the session
/// (`toolwright_builtin::session()` does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// A unique id, UUID-shaped.
    pub id: String,
    /// Where the session's transcript is kept, if anywhere.
    pub transcript_path: Option<PathBuf>,
}

impl SessionInfo {
    /// A session with a fresh random id and no transcript.
    pub fn new() -> SessionInfo {
        use std::hash::{BuildHasher, Hasher};
        // Randomly seeded hashers: two random words without a crate for it.
        let word = || {
            let mut hasher = std::hash::RandomState::new().build_hasher();
            hasher.write_u128(
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()),
            );
            hasher.finish()
        };
        let (a, b) = (word(), word());
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        );
        SessionInfo { id, transcript_path: None }
    }

    /// With the transcript kept at `path`.
    pub fn with_transcript(mut self, path: impl Into<PathBuf>) -> SessionInfo {
        self.transcript_path = Some(path.into());
        self
    }
}

impl Default for SessionInfo {
    fn default() -> SessionInfo {
        SessionInfo::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Extensions;

    #[test]
    fn an_extension_is_replaced_by_one_of_its_type_and_others_stay() {
        let mut extensions = Extensions::new();
        extensions.insert(1u32);
        extensions.insert("text");
        extensions.insert(2u32);
        assert_eq!(extensions.get::<u32>(), Some(&2));
        assert_eq!(extensions.get::<&str>(), Some(&"text"));
        assert_eq!(extensions.get::<u64>(), None);
        assert_eq!(format!("{extensions:?}"), "Extensions(2 values)");
    }
}
