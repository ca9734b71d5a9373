//! The runtime: the tree of agents, its limits, and what the tools ask of it.

use super::handle::{AgentReport, AgentStatus, Handle};
use super::limits::Limits;
use super::models::{ChildModels, ChildRequest, SameModel};
use super::observer::SubagentObserver;
use super::tools::{AgentTool, DefinitionTool, SendMessageTool, TaskOutputTool, TaskStopTool};
use super::{report, run};
use crate::agent::{Model, RetryPolicy};
use crate::provider::Usage;
use crate::rules::hooks::CommandHooks;
use crate::{AgentScope, CancellationToken, Extensions, Profile, Provider, ToolContext, ToolError, ToolOutput};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use toolwright_agents::{AgentDefinition, Catalog};
use toolwright_permissions::Mode;

/// Who owns the agent tools in the registry.
const OWNER: &str = "toolwright subagents";
/// Who owns the per-definition tools (Cline's style).
const DEFINITION_OWNER: &str = "toolwright subagents (per definition)";

type CatalogFn = dyn Fn(&Path) -> Catalog + Send + Sync;
type SessionFn = dyn Fn() -> Extensions + Send + Sync;

pub(crate) struct Inner {
    pub(crate) orchestrator: Arc<crate::orchestrate::Orchestrator>,
    pub(crate) models: Box<dyn ChildModels>,
    pub(super) catalog: Box<CatalogFn>,
    pub(crate) limits: Limits,
    pub(super) main_profile: Profile,
    pub(super) provider: Option<Provider>,
    pub(super) max_tokens: u32,
    pub(super) retry: RetryPolicy,
    pub(super) session: Box<SessionFn>,
    pub(crate) hooks: Option<CommandHooks>,
    pub(crate) observer: Arc<dyn SubagentObserver>,
    pub(super) background_root: CancellationToken,
    pub(super) agents: Mutex<BTreeMap<String, Arc<Handle>>>,
    /// Names given with the agent call's `name`, to their ids.
    pub(super) names: Mutex<BTreeMap<String, String>>,
    pub(crate) running: AtomicUsize,
    pub(super) counter: AtomicU64,
    pub(super) total: Mutex<Usage>,
    /// Woken each time a run ends.
    pub(crate) ended: tokio::sync::Notify,
    /// The per-definition tools registered: (tool, agent type, description).
    pub(super) definition_tools: Mutex<Vec<(String, String, String)>>,
    /// Background children of the main agent whose end the main agent was told of.
    pub(super) noticed: Mutex<std::collections::BTreeSet<String>>,
}

/// The subagent runtime: the agent tools' state, shared by every agent of a session
/// (cloning is one reference count). See [the module](super).
#[derive(Clone)]
pub struct Subagents {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Subagents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subagents")
            .field("limits", &self.inner.limits)
            .field("running", &self.inner.running.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// Builds a [`Subagents`]; see [`Subagents::builder`].
pub struct SubagentsBuilder {
    orchestrator: Arc<crate::orchestrate::Orchestrator>,
    models: Box<dyn ChildModels>,
    catalog: Box<CatalogFn>,
    limits: Limits,
    main_profile: Profile,
    provider: Option<Provider>,
    max_tokens: u32,
    retry: RetryPolicy,
    session: Box<SessionFn>,
    hooks: Option<CommandHooks>,
    observer: Arc<dyn SubagentObserver>,
}

impl SubagentsBuilder {
    /// How each child gets its model (default: the parent's model for all).
    pub fn models(mut self, models: impl ChildModels + 'static) -> Self {
        self.models = Box::new(models);
        self
    }

    /// Where the definitions come from, read anew at each start so that changed
    /// files take effect at once (default: only the built-in types).
    pub fn catalog(mut self, load: impl Fn(&Path) -> Catalog + Send + Sync + 'static) -> Self {
        self.catalog = Box::new(load);
        self
    }

    /// The limits (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The main agent's profile: what its children are narrowed from (default: every
    /// tool).
    pub fn main_profile(mut self, profile: Profile) -> Self {
        self.main_profile = profile;
        self
    }

    /// The provider shape of the children's tool definitions (default: the model
    /// API's plain shape, as [`Agent`](crate::agent::Agent) sends).
    pub fn definitions(mut self, provider: Provider) -> Self {
        self.provider = Some(provider);
        self
    }

    /// Tokens per child response (default 8192).
    pub fn max_tokens(mut self, n: u32) -> Self {
        self.max_tokens = n;
        self
    }

    /// The children's retry policy (default: [`RetryPolicy::default`]).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// A fresh session's extensions for each child (default: the built-in tools'
    /// session state, as `toolwright::builtin::session()` makes it).
    pub fn session(mut self, make: impl Fn() -> Extensions + Send + Sync + 'static) -> Self {
        self.session = Box::new(make);
        self
    }

    /// The command hooks whose `SubagentStart` and `SubagentStop` events run.
    pub fn hooks(mut self, hooks: CommandHooks) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Sees every descendant's events, tagged.
    pub fn observer(mut self, observer: Arc<dyn SubagentObserver>) -> Self {
        self.observer = observer;
        self
    }

    /// The runtime.
    pub fn build(self) -> Subagents {
        Subagents {
            inner: Arc::new(Inner {
                orchestrator: self.orchestrator,
                models: self.models,
                catalog: self.catalog,
                limits: self.limits,
                main_profile: self.main_profile,
                provider: self.provider,
                max_tokens: self.max_tokens,
                retry: self.retry,
                session: self.session,
                hooks: self.hooks,
                observer: self.observer,
                background_root: CancellationToken::new(),
                agents: Mutex::new(BTreeMap::new()),
                names: Mutex::new(BTreeMap::new()),
                running: AtomicUsize::new(0),
                counter: AtomicU64::new(0),
                total: Mutex::new(Usage::default()),
                ended: tokio::sync::Notify::new(),
                noticed: Mutex::new(std::collections::BTreeSet::new()),
                definition_tools: Mutex::new(Vec::new()),
            }),
        }
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a start was refused for, as the calling model reads it (the executor names
/// the tool).
pub(super) fn refuse(message: impl std::fmt::Display) -> ToolError {
    ToolError::msg(message)
}

impl Subagents {
    /// A runtime whose children run their calls through `orchestrator` (the parent's,
    /// so its rules, hooks and approver hold in every descendant) on `model`.
    pub fn builder(orchestrator: Arc<crate::orchestrate::Orchestrator>, model: Arc<dyn Model>) -> SubagentsBuilder {
        SubagentsBuilder {
            orchestrator,
            models: Box::new(SameModel(model)),
            catalog: Box::new(|_| Catalog::default()),
            limits: Limits::default(),
            main_profile: Profile::main_agent(),
            provider: None,
            max_tokens: 8192,
            retry: RetryPolicy::default(),
            session: Box::new(toolwright_builtin::session),
            hooks: None,
            observer: Arc::new(()),
        }
    }

    /// Registers `agent`, `task_output`, `task_stop` and `send_message` in `registry`
    /// (again, if they were: installing twice is harmless).
    pub fn install(&self, registry: &crate::Registry) -> Result<(), crate::RegistryError> {
        registry.clear_owner(OWNER);
        registry.register_owned(OWNER, Arc::new(AgentTool::new()))?;
        registry.register_owned(OWNER, Arc::new(TaskOutputTool::new()))?;
        registry.register_owned(OWNER, Arc::new(TaskStopTool::new()))?;
        registry.register_owned(OWNER, Arc::new(SendMessageTool::new()))?;
        Ok(())
    }

    /// Cline's style: one tool per definition of the catalog for `cwd`
    /// (`use_subagent_<name>`, made provider-safe, at most 64 characters, `_2`, `_3`
    /// on collision, the same names for the same definitions), registered in
    /// `registry`'s runtime layer and served by the same start as `agent`. Call it
    /// before each turn: it changes the registry only when the definitions changed,
    /// and a removed definition's tool leaves it. Returns the tool names.
    pub fn sync_definition_tools(
        &self,
        registry: &crate::Registry,
        cwd: &Path,
    ) -> Result<Vec<String>, crate::RegistryError> {
        let catalog = (self.inner.catalog)(cwd);
        let definitions: Vec<&AgentDefinition> = catalog.definitions().collect();
        let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
        let tools = toolwright_agents::cline_tool_names(&names);
        let wanted: Vec<(String, String, String)> = definitions
            .iter()
            .zip(&tools)
            .map(|(d, tool)| (tool.clone(), d.name.clone(), d.description.clone()))
            .collect();
        let mut registered = lock(&self.inner.definition_tools);
        if *registered != wanted {
            registry.clear_owner(DEFINITION_OWNER);
            for (tool, name, description) in &wanted {
                registry
                    .register_owned(DEFINITION_OWNER, Arc::new(DefinitionTool::new(tool.clone(), name, description)))?;
            }
            *registered = wanted;
        }
        Ok(tools)
    }

    /// `extensions` with this runtime in them: the turn's agent tools are offered and
    /// find it there.
    pub fn extensions(&self, mut extensions: Extensions) -> Extensions {
        extensions.insert(self.clone());
        extensions.insert(crate::agent::ForkCell::default());
        extensions
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// How many agents are running now.
    pub fn running(&self) -> usize {
        self.inner.running.load(Ordering::SeqCst)
    }

    /// The tokens every subagent of the session used (the main agent's not included).
    pub fn usage(&self) -> Usage {
        *lock(&self.inner.total)
    }

    /// Every agent started in this session, in the order they started.
    pub fn reports(&self) -> Vec<AgentReport> {
        let mut all: Vec<Arc<Handle>> = lock(&self.inner.agents).values().cloned().collect();
        all.sort_by_key(|h| h.serial);
        all.iter().map(|h| h.report()).collect()
    }

    /// The report of agent `id` so far.
    pub fn report(&self, id: &str) -> Option<AgentReport> {
        self.handle(id).map(|h| h.report())
    }

    /// Waits at most `timeout` for agent `id` to end; its report, ended or not.
    pub async fn wait(&self, id: &str, timeout: Duration) -> Option<AgentReport> {
        let handle = self.handle(id)?;
        let mut ended = handle.ended.subscribe();
        let _ = tokio::time::timeout(timeout, async {
            while handle.state().status == AgentStatus::Running {
                if ended.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        Some(handle.report())
    }

    /// Stops agent `id` and every agent under it; false if there is no such agent.
    pub fn stop(&self, id: &str, reason: &str) -> bool {
        let Some(handle) = self.handle(id) else { return false };
        self.stop_tree(&handle, reason);
        true
    }

    /// Stops every agent, foreground and background (the session is ending).
    pub fn stop_all(&self, reason: &str) {
        let all: Vec<Arc<Handle>> = lock(&self.inner.agents).values().cloned().collect();
        for handle in all {
            handle.stop(reason);
        }
        self.inner.background_root.cancel();
    }

    /// Waits for the next background child of the main agent to end that the main
    /// agent has not been told of, and returns its report; `None` when none is left
    /// running or untold. (What `toolwright agent` uses to tell the model when a
    /// background agent is done.)
    pub async fn next_background_report(&self) -> Option<AgentReport> {
        loop {
            let ended = self.inner.ended.notified();
            tokio::pin!(ended);
            ended.as_mut().enable();
            let mut running = false;
            {
                let agents = lock(&self.inner.agents);
                let mut noticed = lock(&self.inner.noticed);
                let mut candidates: Vec<&Arc<Handle>> =
                    agents.values().filter(|h| h.scope.depth == 1 && h.scope.background).collect();
                candidates.sort_by_key(|h| h.serial);
                for handle in candidates {
                    if handle.state().status == AgentStatus::Running {
                        running = true;
                    } else if noticed.insert(handle.scope.id.clone()) {
                        return Some(handle.report());
                    }
                }
            }
            if !running {
                return None;
            }
            ended.await;
        }
    }

    pub(crate) fn handle(&self, id: &str) -> Option<Arc<Handle>> {
        let agents = lock(&self.inner.agents);
        if let Some(handle) = agents.get(id) {
            return Some(Arc::clone(handle));
        }
        let id = lock(&self.inner.names).get(id).cloned()?;
        agents.get(&id).cloned()
    }

    /// The chain of agents above `handle`, nearest first.
    pub(crate) fn ancestors(&self, handle: &Handle) -> Vec<Arc<Handle>> {
        let agents = lock(&self.inner.agents);
        let mut out = Vec::new();
        let mut next = handle.scope.parent_id.clone();
        while let Some(id) = next {
            let Some(parent) = agents.get(&id) else { break };
            next = parent.scope.parent_id.clone();
            out.push(Arc::clone(parent));
        }
        out
    }

    pub(super) fn stop_tree(&self, handle: &Handle, reason: &str) {
        // The tokens stop the descendants too (each child's derives from its
        // parent's); they are told why as well.
        let agents: Vec<Arc<Handle>> = lock(&self.inner.agents).values().cloned().collect();
        for other in &agents {
            if other.scope.id != handle.scope.id && self.ancestors(other).iter().any(|a| a.scope.id == handle.scope.id)
            {
                other.stop(format!("{reason} (it was under agent {})", handle.scope.id));
            }
        }
        handle.stop(reason);
    }

    pub(crate) fn add_usage(&self, usage: &Usage) {
        lock(&self.inner.total).add(usage);
    }

    /// The agent types a call can start, for the tool's description.
    pub(crate) fn types_listing(&self, cwd: &Path) -> String {
        let catalog = (self.inner.catalog)(cwd);
        let mut text = String::from("Agent types (`subagent_type`):");
        for definition in catalog.available() {
            let tools = match &definition.tools {
                Some(tools) => tools.join(", "),
                None => "all of yours".to_owned(),
            };
            text.push_str(&format!("\n- {}: {} (tools: {tools})", definition.name, definition.description.trim()));
        }
        if catalog.get(FORK).is_none() {
            let fork = toolwright_agents::fork();
            text.push_str(&format!("\n- {FORK}: {} (tools: yours)", fork.description));
        }
        text
    }

    /// Whether agent `target` may be addressed by the caller: the main agent may
    /// address any; a subagent, only those under it.
    pub(super) fn may_address(&self, cx: &ToolContext, target: &Handle) -> bool {
        match cx.extension::<AgentScope>() {
            None => true,
            Some(me) => self.ancestors(target).iter().any(|a| a.scope.id == me.id),
        }
    }

    pub(super) fn new_id(&self) -> String {
        use std::hash::{BuildHasher, Hasher};
        let n = self.inner.counter.fetch_add(1, Ordering::Relaxed);
        let mut hasher = std::hash::RandomState::new().build_hasher();
        hasher.write_u64(n);
        hasher
            .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        format!("a{:015x}", hasher.finish() >> 4)
    }

    /// Takes one of the running slots, or says why not.
    pub(crate) fn take_slot(&self) -> Result<(), ToolError> {
        let max = self.inner.limits.max_running;
        self.inner
            .running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1))
            .map(|_| ())
            .map_err(|_| {
                refuse(format!(
                    "{max} agents are running, the most allowed at once; wait for one with task_output, stop one \
                     with task_stop, or do this yourself"
                ))
            })
    }

    /// The tree budget, checked before a start or resume under `root`.
    pub(super) fn check_tree_budget(&self, root: Option<&Handle>) -> Result<(), ToolError> {
        let (Some(budget), Some(root)) = (self.inner.limits.tree_tokens, root) else { return Ok(()) };
        let used = root.state().tree_usage.total_tokens();
        if used >= budget {
            return Err(refuse(format!(
                "agent {}'s tree has used {used} tokens, its budget is {budget}; no more agents may start in it",
                root.scope.id
            )));
        }
        Ok(())
    }

    /// The agent at depth 1 above (or at) `handle`.
    pub(crate) fn root_of(&self, handle: &Arc<Handle>) -> Arc<Handle> {
        self.ancestors(handle).pop().unwrap_or_else(|| Arc::clone(handle))
    }

    /// The mode the caller's calls are decided in.
    pub(super) fn caller_mode(&self, cx: &ToolContext, parent: Option<&Handle>) -> Mode {
        if let Some(parent) = parent {
            return parent.mode;
        }
        let policy = self.inner.orchestrator.executor().permission_policy();
        policy.mode_name_in(cx.extensions()).and_then(Mode::from_name).unwrap_or_default()
    }

    /// A finished child's result: the text for the model and the typed result.
    pub(super) fn finished_output(&self, handle: &Handle) -> ToolOutput {
        let mut report = handle.report();
        let text = report::for_model(&mut report, self.inner.limits.report_chars);
        handle.state().truncated = report.truncated;
        let mut output =
            if report.status == AgentStatus::Completed { ToolOutput::text(text) } else { ToolOutput::error(text) };
        output.structured = Some(report::structured(&report));
        output
    }

    /// `task_output`: waits up to `wait`, then a page of the report from `offset`.
    pub(crate) async fn output(
        &self,
        cx: &ToolContext,
        id: &str,
        wait: Duration,
        offset: usize,
    ) -> Result<ToolOutput, ToolError> {
        let handle = self.addressed(cx, id, "task_output")?;
        if !wait.is_zero() {
            let token = cx.cancellation().clone();
            tokio::select! {
                _ = self.wait(&handle.scope.id, wait) => {}
                () = token.cancelled() => return Err(ToolError::Cancelled),
            }
        }
        let report = handle.report();
        if report.status == AgentStatus::Running {
            let state = handle.state();
            return Ok(ToolOutput::text(format!(
                "agent {id} is still running ({} tool calls so far, {} tokens). Wait again with task_output, or \
                 stop it with task_stop.",
                state.tool_calls,
                state.tree_usage.total_tokens()
            )));
        }
        lock(&self.inner.noticed).insert(handle.scope.id.clone());
        let total = report.text.chars().count();
        let (shown, more) = report::page(&report.text, offset, self.inner.limits.report_chars);
        let mut text = format!("agent {} ({}): {}", report.agent_id, report.agent_type, report.status.name());
        if let Some(reason) = &report.reason {
            text.push_str(&format!(" ({reason})"));
        }
        if offset > 0 || more {
            let end = offset.min(total) + shown.chars().count();
            text.push_str(&format!("; characters {} to {end} of {total}", offset.min(total)));
        }
        text.push_str("\n\n");
        text.push_str(shown);
        if more {
            let end = offset + shown.chars().count();
            text.push_str(&report::cut_marker(&report.agent_id, end, total).replace("0 to", &format!("{offset} to")));
        }
        let mut output = ToolOutput::text(text);
        output.structured = Some(report::structured(&report));
        Ok(output)
    }

    /// `task_stop`.
    pub(crate) async fn stop_by_tool(&self, cx: &ToolContext, id: &str) -> Result<ToolOutput, ToolError> {
        let handle = self.addressed(cx, id, "task_stop")?;
        if handle.state().status != AgentStatus::Running {
            return Ok(ToolOutput::text(format!(
                "agent {id} is not running ({}); nothing to stop",
                handle.report().status.name()
            )));
        }
        self.stop_tree(&handle, "stopped by task_stop");
        // Its run ends once its calls are cancelled and its commands killed.
        let report = self.wait(&handle.scope.id, Duration::from_secs(10)).await;
        let ended = report.as_ref().is_some_and(|r| r.status != AgentStatus::Running);
        Ok(ToolOutput::text(if ended {
            format!("agent {id} and every agent under it are stopped; its output so far: task_output")
        } else {
            format!("agent {id} is stopping (its calls are being cancelled)")
        }))
    }

    /// `send_message`.
    pub(crate) async fn send(&self, cx: &ToolContext, to: &str, message: &str) -> Result<ToolOutput, ToolError> {
        let handle = self.addressed(cx, to, "send_message")?;
        let id = handle.scope.id.clone();
        {
            let mut state = handle.state();
            if state.status == AgentStatus::Running {
                state.pending.push(message.to_owned());
                return Ok(ToolOutput::text(format!(
                    "agent {id} is running; it reads the message when its current step ends"
                )));
            }
        }
        let root = self.root_of(&handle);
        self.check_tree_budget(Some(&root))?;
        self.take_slot()?;
        let guard = run::Slot::taken(self.clone());
        let Some(mut conversation) = handle.state().conversation.clone() else {
            return Err(refuse(format!("agent {id} never got to run; start a new one")));
        };
        conversation.push_user(message);
        // A resumed agent runs in the background, under a fresh token below its
        // parent's (or the session's).
        let parent = handle.scope.parent_id.as_deref().and_then(|p| self.handle(p));
        let token = match &parent {
            Some(parent) => parent.token.child_token(),
            None => self.inner.background_root.child_token(),
        };
        let resumed = Arc::new(handle.resumed(token.clone()));
        let child = ChildRequest {
            agent: &resumed.scope,
            definition: &resumed.definition,
            requested: Some(&resumed.model),
            description: &resumed.description,
        };
        let model = self.inner.models.model(&child).map_err(refuse)?;
        lock(&self.inner.agents).insert(id.clone(), Arc::clone(&resumed));
        lock(&self.inner.noticed).remove(&id);
        let cwd = resumed.state().worktree.clone();
        let turn = self.child_turn(cx, &resumed, token, cwd.as_deref());
        let agent = self.child_agent(model, &resumed.definition, resumed.profile.clone(), &resumed.scope);
        let extras = run::Extras { call_id: Some(cx.call_id().to_owned()), ..run::Extras::default() };
        tokio::spawn(run::drive(self.clone(), resumed, agent, conversation, turn, guard, extras));
        Ok(ToolOutput::text(format!(
            "agent {id} resumed with the message and runs in the background; read its answer with task_output \
             {{\"task_id\": \"{id}\"}}"
        )))
    }

    /// The agent a tool call names, if the caller may address it.
    pub(super) fn addressed(&self, cx: &ToolContext, id: &str, tool: &str) -> Result<Arc<Handle>, ToolError> {
        let handle = self.handle(id).ok_or_else(|| {
            let known: Vec<String> = self.reports().into_iter().map(|r| r.agent_id).collect();
            let known = if known.is_empty() { "none has been started".to_owned() } else { known.join(", ") };
            ToolError::msg(format!("{tool}: no agent `{id}` (the agents: {known})"))
        })?;
        if !self.may_address(cx, &handle) {
            return Err(ToolError::msg(format!(
                "{tool}: agent `{id}` is not one this agent started (an agent addresses only those under it)"
            )));
        }
        Ok(handle)
    }
}

/// `<session transcript without .jsonl>/subagents/agent-<id>.jsonl`, beside the
/// parent's (Claude Code's layout); none when the session keeps no transcript.
pub(super) fn transcript_path(cx: &ToolContext, id: &str) -> Option<PathBuf> {
    let main = cx.extension::<crate::SessionInfo>()?.transcript_path.as_ref()?;
    Some(main.with_extension("").join("subagents").join(format!("agent-{id}.jsonl")))
}

/// The agent type that forks the caller.
pub(super) const FORK: &str = "fork";

#[cfg(test)]
mod tests {
    use super::Subagents;
    use crate::agent::{Agent, Model, RecordedModel, RetryPolicy};
    use std::sync::Arc;

    fn response(body: &str) -> String {
        format!(
            "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"r\",\"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":1}}}}}}\n\n{body}\
             event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        )
    }

    fn call(name: &str, input: &str) -> String {
        let input = input.replace('"', "\\\"");
        response(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"{name}\",\"input\":{{}}}}}}\n\n\
             event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{input}\"}}}}\n\n\
             event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
             event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"tool_use\"}},\"usage\":{{\"output_tokens\":1}}}}\n\n"
        ))
    }

    fn text(text: &str) -> String {
        response(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n\
             event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{text}\"}}}}\n\n\
             event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n\
             event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}},\"usage\":{{\"output_tokens\":1}}}}\n\n"
        ))
    }

    /// A finished tree leaves nothing holding the runtime: no cycle through the
    /// children's turns, handles or tasks.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_tree_holds_no_reference_to_its_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let registry = Arc::new(toolwright_builtin::registry().unwrap());
        let executor = crate::Executor::builder(Arc::clone(&registry)).policy(crate::permission::AllowAll).build();
        let orchestrator = Arc::new(crate::orchestrate::Orchestrator::new(Arc::new(executor)));
        let session = format!(
            "--- agent: main\n{}{}{}--- agent: bg\n{}--- agent: fg\n{}",
            call("agent", r#"{"description":"bg","prompt":"p","run_in_background":true}"#),
            call("agent", r#"{"description":"fg","prompt":"p"}"#),
            text("all done"),
            text("bg done"),
            text("fg done"),
        );
        let tree = super::super::RecordedTree::parse(&session).unwrap();
        let main: Arc<RecordedModel> = tree.main();
        let subagents =
            Subagents::builder(Arc::clone(&orchestrator), main.clone() as Arc<dyn Model>).models(tree).build();
        subagents.install(&registry).unwrap();
        {
            let agent = Agent::new_shared(main, Arc::clone(&orchestrator)).retry(RetryPolicy::none());
            let mut turn =
                crate::TurnContext::new(dir.path()).with_extensions(subagents.extensions(crate::Extensions::new()));
            let outcome = agent.run("t", &mut turn, &mut ()).await.unwrap();
            assert_eq!(outcome.text, "all done");
        }
        for _ in 0..200 {
            if subagents.running() == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let reports = subagents.reports();
        assert_eq!(reports.len(), 2, "{reports:?}");
        assert!(reports.iter().all(|r| r.status == super::AgentStatus::Completed), "{reports:?}");
        assert_eq!(Arc::strong_count(&subagents.inner), 1, "something still holds the runtime");
    }
}
