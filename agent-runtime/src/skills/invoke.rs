//! One invocation: find the skill, render it, run its `!` commands without asking,
//! and hand the model the result (or run it as a subagent).

use super::{Piece, RenderVars, Skill, Skills};
use crate::rules::grants::Grants;
use crate::{ContextModifier, ToolCall, ToolContext, ToolError, ToolOutput};
use std::hash::{Hash, Hasher};
use std::time::Duration;

/// A `!` command's time limit (Claude Code's two minutes).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);
/// Supporting files named in the result.
const MAX_FILES_LISTED: usize = 50;
/// Commands whose exit code 1 means "nothing found", not failure.
const GREP_LIKE: &[&str] = &["grep", "egrep", "fgrep", "rg", "ag", "ack", "git grep", "diff"];

impl Skills {
    pub(super) async fn invoke(&self, cx: &ToolContext, name: &str, args: &str) -> Result<ToolOutput, ToolError> {
        let catalog = self.catalog(cx.cwd(), cx.extensions());
        let Some(skill) = catalog.get(name).cloned() else {
            let names: Vec<&str> = catalog.model_invocable().map(|s| s.name.as_str()).collect();
            let hint = catalog.closest(name).map(|n| format!(" Did you mean `{n}`?")).unwrap_or_default();
            let listed = if names.is_empty() { "there are none".to_owned() } else { names.join(", ") };
            return Err(ToolError::msg(format!("no skill `{name}`; the skills are: {listed}.{hint}")));
        };
        if !skill.model_invocable() {
            return Err(ToolError::msg(format!(
                "the skill `{name}` can only be invoked by the user (disable-model-invocation): do not invoke it, \
                 and do not carry out its steps another way"
            )));
        }
        let session = cx.extension::<crate::SessionInfo>().map(|s| s.id.clone()).unwrap_or_default();
        let vars = RenderVars::new(session, cx.cwd().display().to_string());
        let grants = grants_of(&skill)?;
        let mut text = String::new();
        for piece in super::render(&skill, args, &vars) {
            match piece {
                Piece::Text(t) => text.push_str(&t),
                Piece::Command { pattern, command } => {
                    text.push_str(&self.run_command(cx, &skill, &pattern, &command, grants.as_ref()).await?);
                }
                _ => {}
            }
        }
        if skill.fork {
            return self.fork(cx, &skill, text).await;
        }
        let content = framed(&skill, text.trim());
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        content.hash(&mut hasher);
        if !self.remember(&skill.name, hasher.finish()) {
            return Ok(ToolOutput::text(format!(
                "The skill `{}` is already loaded in this conversation with these arguments; follow its \
                 instructions above.",
                skill.name
            )));
        }
        // For the rest of the run: the skill's grants, on top of any granted before;
        // its `hooks`, beside the turn's own (one modifier: a result has one).
        let hooks = skill.hooks.as_ref().map(|hooks| {
            let hooks = crate::rules::hooks::CommandHooks::from_value(hooks);
            for warning in hooks.warnings() {
                tracing::warn!(skill = %skill.name, "{warning}");
            }
            hooks.turn_hooks()
        });
        let mut output = ToolOutput::text(content);
        if grants.is_some() || hooks.is_some() {
            output = output.with_modifier(ContextModifier::new(move |turn| {
                if let Some(grants) = &grants {
                    let merged = grants.over(turn.extension::<Grants>());
                    turn.insert_extension(merged);
                }
                if let Some(added) = &hooks {
                    let mut all = turn.extension::<crate::hooks::TurnHooks>().cloned().unwrap_or_default();
                    all.pre.extend(added.pre.iter().cloned());
                    all.post.extend(added.post.iter().cloned());
                    turn.insert_extension(all);
                }
            }));
        }
        Ok(output)
    }

    /// Runs one `!` command through the executor, never asking: its output, or the
    /// error that aborts the skill.
    async fn run_command(
        &self,
        cx: &ToolContext,
        skill: &Skill,
        pattern: &str,
        command: &str,
        grants: Option<&Grants>,
    ) -> Result<String, ToolError> {
        let mut extensions = cx.extensions().clone();
        extensions.insert(crate::permission::NoQuestions(
            format!(
                "a skill's `!` commands are never asked about; allow the command with a rule or in the skill's \
                 `allowed-tools` (`{}`)",
                skill.name
            )
            .into(),
        ));
        if let Some(grants) = grants {
            let merged = grants.over(extensions.get::<Grants>());
            extensions.insert(merged);
        }
        let turn = cx.turn().with_extensions(extensions).with_cancellation(cx.cancellation().child_token());
        let input = serde_json::json!({
            "command": command,
            "description": format!("skill {}: a `!` command", skill.name),
            "timeout": COMMAND_TIMEOUT.as_millis() as u64,
        });
        let id = format!("{}-skill-{}", cx.call_id(), std::process::id());
        let call = ToolCall::new(id, "shell", input.to_string());
        let result = self.inner.executor.execute(&call, &turn).await;
        let output = result.output.text_content();
        if result.is_ok() {
            return Ok(output.trim_end().to_owned());
        }
        let grep_like = GREP_LIKE.iter().any(|g| command.trim_start().starts_with(&format!("{g} ")));
        if grep_like && let Some(found) = output.strip_suffix("\n\nExit code: 1") {
            return Ok(found.trim_end().to_owned());
        }
        Err(ToolError::msg(format!("Shell command failed for pattern \"{pattern}\": {}", output.trim())))
    }

    /// A `context: fork` skill: a subagent of the skill's `agent` type with its body
    /// as the prompt.
    async fn fork(&self, cx: &ToolContext, skill: &Skill, prompt: String) -> Result<ToolOutput, ToolError> {
        let Some(subagents) = cx.extension::<crate::subagents::Subagents>().cloned() else {
            return Err(ToolError::msg(format!(
                "the skill `{}` runs as a subagent (context: fork), and this turn has no subagent runtime",
                skill.name
            )));
        };
        let input =
            crate::subagents::AgentInput::for_skill(&skill.name, prompt, skill.agent.clone(), skill.model.clone());
        subagents.start(cx, input).await
    }
}

/// The skill's `allowed-tools` as grants; a rule that does not parse is an error.
fn grants_of(skill: &Skill) -> Result<Option<Grants>, ToolError> {
    if skill.allowed_tools.is_empty() {
        return Ok(None);
    }
    Grants::new(format!("the skill `{}`", skill.name), skill.allowed_tools.iter().cloned())
        .map(Some)
        .map_err(|e| ToolError::msg(format!("{e}; fix its `allowed-tools`")))
}

/// What the model reads: the skill's directory, its body, and its supporting files.
fn framed(skill: &Skill, body: &str) -> String {
    let mut out = format!("<skill_content name=\"{}\">\n", skill.name);
    if let Some(dir) = skill.dir() {
        out.push_str(&format!("Base directory for this skill: {}\n\n", dir.display()));
    }
    out.push_str(body);
    let files = skill.supporting_files(MAX_FILES_LISTED);
    if !files.is_empty() {
        out.push_str("\n\nSupporting files (read them when the instructions call for them):");
        for file in files {
            out.push_str(&format!("\n- {}", file.display()));
        }
    }
    out.push_str("\n</skill_content>");
    out
}
