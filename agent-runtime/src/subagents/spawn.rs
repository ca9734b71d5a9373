//! Starting a child: the limits, its turn, its hooks and its agent, then running it
//! in the foreground or launching it in the background.

use super::handle::Handle;
use super::models::ChildRequest;
use super::runtime::*;
use super::tools::agent::Input as AgentInput;
use super::worktree::Worktree;
use super::{handle, run};
use crate::agent::{Agent, Model};
use crate::provider::Conversation;
use crate::rules::hooks::CommandHooks;
use crate::{AgentScope, CancellationToken, Profile, ToolContext, ToolError, ToolOutput};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use toolwright_agents::{AgentDefinition, Isolation, Spawn, child_mode};
use toolwright_permissions::DEFAULT_AGENT_TYPE;

impl Subagents {
    /// Starts a child for an agent call: checks the limits, runs it (or launches it in
    /// the background), and answers with its report.
    pub(crate) async fn start(&self, cx: &ToolContext, input: AgentInput) -> Result<ToolOutput, ToolError> {
        let limits = &self.inner.limits;
        let caller = cx.extension::<AgentScope>().cloned();
        let parent = caller.as_ref().and_then(|s| self.handle(&s.id));
        let depth = caller.as_ref().map_or(1, |s| s.depth + 1);
        if depth > limits.max_depth {
            return Err(refuse(format!(
                "an agent at depth {} cannot start another: the depth limit is {}; do the task yourself",
                depth - 1,
                limits.max_depth
            )));
        }
        let kind = input.subagent_type.as_deref().map(str::trim).unwrap_or(DEFAULT_AGENT_TYPE);
        let catalog = (self.inner.catalog)(cx.cwd());
        // `fork`: a copy of the caller, from its last request (unless a definition
        // takes the name).
        let fork = match (kind, catalog.get(FORK)) {
            (FORK, None) => Some(cx.extension::<crate::agent::ForkCell>().and_then(|c| c.get()).ok_or_else(|| {
                refuse("a fork continues from the calling agent's last request, and there is none to copy here")
            })?),
            _ => None,
        };
        let resolved = match &fork {
            Some(_) => Some(toolwright_agents::fork()),
            None => catalog.resolve(kind),
        };
        let Some(definition) = resolved else {
            let names: Vec<String> = catalog.available().into_iter().map(|d| d.name).collect();
            let close = names.iter().find(|n| strsim::jaro_winkler(&n.to_lowercase(), &kind.to_lowercase()) > 0.85);
            let hint = close.map(|n| format!(" Did you mean `{n}`?")).unwrap_or_default();
            return Err(refuse(format!("no agent type `{kind}`; the types are: {}.{hint}", names.join(", "))));
        };
        if let Some(name) = &input.name
            && lock(&self.inner.names).contains_key(name)
        {
            return Err(refuse(format!("the name `{name}` is taken by another agent; give another")));
        }
        let background = input.run_in_background || definition.background;
        let root = parent.as_ref().map(|p| self.root_of(p));
        self.check_tree_budget(root.as_deref())?;
        self.take_slot()?;
        let guard = run::Slot::taken(self.clone());

        let id = self.new_id();
        let isolated = input.isolation.is_some() || definition.isolation == Some(Isolation::Worktree);
        let worktree = match isolated {
            true => Some(Worktree::create(cx.cwd(), &id).await.map_err(refuse)?),
            false => None,
        };
        let mut scope = AgentScope::new(id.clone(), definition.name.clone(), caller.as_ref());
        scope.background = background;
        scope.transcript_path = transcript_path(cx, &id);
        let requested = input.model.as_deref().or(definition.model.as_deref());
        let child = ChildRequest { agent: &scope, definition: &definition, requested, description: &input.description };
        let model = self.inner.models.model(&child).map_err(refuse)?;
        let parent_profile = parent.as_ref().map_or(&self.inner.main_profile, |p| &p.profile);
        let mut spawn = Spawn::at_depth(depth).max_depth(limits.max_depth);
        if background {
            spawn = spawn.in_background();
        }
        let profile = definition.profile(parent_profile, spawn);
        let mode = child_mode(self.caller_mode(cx, parent.as_deref()), definition.permission_mode);
        let token = match (background, &parent) {
            (false, _) => cx.cancellation().child_token(),
            (true, Some(parent)) => parent.token.child_token(),
            (true, None) => self.inner.background_root.child_token(),
        };
        let parts = handle::Parts {
            scope: scope.clone(),
            description: input.description.trim().to_owned(),
            profile: profile.clone(),
            mode,
            definition: definition.clone(),
            model: model.name().to_owned(),
            serial: self.inner.counter.load(Ordering::Relaxed),
            own_hooks: own_hooks(&definition),
        };
        let handle = Arc::new(Handle::new(parts, token.clone()));
        // A fork goes on from its parent's tools, what its searches loaded too.
        if fork.is_some()
            && let Some(parent) = cx.extension::<toolwright_core::deferred::ToolSession>()
        {
            *lock(&handle.tools) = Some(parent.branch());
        }
        lock(&self.inner.agents).insert(id.clone(), Arc::clone(&handle));
        if let Some(name) = &input.name {
            lock(&self.inner.names).insert(name.clone(), id.clone());
        }

        let turn = self.child_turn(cx, &handle, token, worktree.as_ref().map(|w| w.cwd.as_path()));
        let added = self.start_hooks(&handle, &turn).await;
        let mut prompt = input.prompt.clone();
        for context in added {
            prompt.push_str("\n\n");
            prompt.push_str(&context);
        }
        // `skills:` in the definition: their full content, preloaded.
        let mut definition = definition;
        if !definition.skills.is_empty()
            && let Some(skills) = cx.extension::<crate::skills::Skills>()
        {
            let (text, notes) = skills.preload(cx.cwd(), &definition.skills);
            definition.prompt.push_str(&text);
            for note in notes {
                tracing::warn!(agent = %definition.name, "{note}");
            }
        }
        let (conversation, agent) = match &fork {
            // The parent's system prompt, tool definitions and history, byte for byte,
            // then the task: the provider's cached prefix is reused.
            Some(point) => {
                let mut conversation = point.conversation.clone();
                let shared = conversation.items().len();
                conversation.push_user(&prompt);
                let agent = self
                    .child_agent(model, &definition, profile, &scope)
                    .system(point.system.clone())
                    .show_tools(point.tools.clone())
                    .shared_prefix(shared);
                (conversation, agent)
            }
            None => (Conversation::new(model.api(), &prompt), self.child_agent(model, &definition, profile, &scope)),
        };
        if background {
            let extras = run::Extras { worktree, progress: None, call_id: Some(cx.call_id().to_owned()) };
            tokio::spawn(run::drive(self.clone(), Arc::clone(&handle), agent, conversation, turn, guard, extras));
            return Ok(launched(&handle));
        }
        // A foreground child's calls are reported as progress of the agent call (an
        // MCP client that gave a progress token sees them as notifications).
        let parent_turn = cx.turn();
        let (call_id, tool) = (cx.call_id().to_owned(), cx.tool_name().to_owned());
        let progress: run::Reporter = Arc::new(move |line| parent_turn.call(&call_id, &tool, &tool).progress(line));
        let extras = run::Extras { worktree, progress: Some(progress), call_id: Some(cx.call_id().to_owned()) };
        run::drive(self.clone(), Arc::clone(&handle), agent, conversation, turn, guard, extras).await;
        lock(&self.inner.noticed).insert(id);
        Ok(self.finished_output(&handle))
    }

    /// A child's turn: the caller's directory (or `cwd`, its worktree) and progress, a
    /// fresh session of its own with the same session id, its scope, its mode, and
    /// this runtime.
    pub(super) fn child_turn(
        &self,
        cx: &ToolContext,
        handle: &Handle,
        token: CancellationToken,
        cwd: Option<&Path>,
    ) -> crate::TurnContext {
        let mut extensions = (self.inner.session)();
        // The child's deferred tools: those it had before a resume, else the new
        // session's, kept for the next.
        let mut kept = lock(&handle.tools);
        match &*kept {
            Some(tools) => extensions.insert(tools.clone()),
            None => *kept = extensions.get::<toolwright_core::deferred::ToolSession>().cloned(),
        }
        drop(kept);
        if let Some(session) = cx.extension::<crate::SessionInfo>() {
            extensions.insert(session.clone());
        }
        extensions.insert(handle.scope.clone());
        extensions.insert(toolwright_permissions::ModeOverride(handle.mode));
        if let Some(own) = &handle.own_hooks {
            extensions.insert(own.turn_hooks());
        }
        extensions.insert(self.clone());
        if let Some(skills) = cx.extension::<crate::skills::Skills>() {
            extensions.insert(skills.clone());
        }
        extensions.insert(crate::agent::ForkCell::default());
        let turn = cx.turn().with_extensions(extensions).with_cancellation(token);
        match cwd {
            Some(cwd) => turn.with_cwd(cwd),
            None => turn,
        }
    }

    /// The `SubagentStart` hooks' added context: the settings' and the definition's own.
    pub(super) async fn start_hooks(&self, handle: &Handle, turn: &crate::TurnContext) -> Vec<String> {
        let session = turn.extensions().get::<crate::SessionInfo>();
        let mut added = Vec::new();
        for hooks in self.inner.hooks.iter().chain(&handle.own_hooks) {
            added.extend(hooks.subagent_start(&handle.scope, session, turn.cwd(), handle.mode.name()).await);
        }
        added
    }

    pub(super) fn child_agent(
        &self,
        model: Arc<dyn Model>,
        definition: &AgentDefinition,
        profile: Profile,
        scope: &AgentScope,
    ) -> Agent {
        let turns = definition.max_turns.map_or(self.inner.limits.max_turns, |n| n as usize);
        let mut system = definition.prompt.trim().to_owned();
        if system.is_empty() {
            system = format!("You are the `{}` agent: {}", definition.name, definition.description.trim());
        }
        system.push_str(
            "\n\nYou were started by another agent to do one task. Your final message is your report to it: \
             make it complete, since it sees nothing else of your work.",
        );
        let mut agent = Agent::new_shared(model, Arc::clone(&self.inner.orchestrator))
            .system(system)
            .profile(profile)
            .max_responses(turns)
            .max_tokens(self.inner.max_tokens)
            .retry(self.inner.retry);
        if let Some(provider) = self.inner.provider {
            agent = agent.definitions(provider);
        }
        if let Some(path) = &scope.transcript_path {
            agent = agent.transcript(path);
        }
        agent
    }
}

/// A definition's own `hooks`, for that child only; what cannot be used is logged
/// (the catalog reports bad files; this is what the hook reader found).
pub(super) fn own_hooks(definition: &AgentDefinition) -> Option<CommandHooks> {
    let hooks = CommandHooks::from_definition(definition.hooks.as_ref()?);
    for warning in hooks.warnings() {
        tracing::warn!(agent = %definition.name, "the agent's own hooks: {warning}");
    }
    Some(hooks)
}

/// The answer to a background start.
pub(super) fn launched(handle: &Handle) -> ToolOutput {
    let id = &handle.scope.id;
    let mut text = format!(
        "Agent {id} ({}) was launched in the background. Read its report with task_output \
         {{\"task_id\": \"{id}\"}} (it waits for the end), or stop it with task_stop.",
        handle.scope.agent_type
    );
    if let Some(path) = &handle.scope.transcript_path {
        text.push_str(&format!(" Its transcript: {}", path.display()));
    }
    let mut output = ToolOutput::text(text);
    output.structured = Some(serde_json::json!({
        "status": "async_launched",
        "agentId": id,
        "agentType": handle.scope.agent_type,
        "description": handle.description,
        "resolvedModel": handle.model,
        "outputFile": handle.scope.transcript_path,
    }));
    output
}
