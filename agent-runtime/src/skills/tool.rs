//! `skill` (Claude Code's `Skill`): loads a skill's instructions into the
//! conversation, or runs it as a subagent.

use super::{SKILL_TOOL, Skills};
use crate::access::Accesses;
use crate::{Alias, BoxFuture, DynTool, Flags, InputError, PreparedCall, ToolContext, ToolError, ToolOutput, ToolSpec};
use serde_json::{Value, json};
use std::borrow::Cow;

const ALIASES: &[Alias] = &[Alias::hidden("Skill")];

const DESCRIPTION: &str = "Runs a skill: loads its instructions (a workflow, a checklist, project conventions) into \
the conversation, or runs it as a subagent. When a skill below matches the task, invoke it before anything else and \
follow what it says; give its exact name (no leading `/`) and, if it takes any, its arguments in `args`. A skill \
already loaded stays in the conversation: do not load it again. Its supporting files are read with the read tools by \
the paths it gives.";

pub(crate) struct SkillTool {
    spec: ToolSpec,
}

impl SkillTool {
    pub(crate) fn new() -> SkillTool {
        let mut spec = ToolSpec::runtime(SKILL_TOOL, DESCRIPTION, "toolwright skills");
        spec.rule_name = Some("Skill".into());
        spec.aliases = Cow::Borrowed(ALIASES);
        spec.title = Some("Run a skill".into());
        spec.defer = crate::Defer::Never;
        SkillTool { spec }
    }
}

impl DynTool for SkillTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name, as listed (e.g. \"commit\", \"pdf\", \"plugin:review\"), without a leading slash"},
                "args": {"type": "string", "description": "The skill's arguments, if it takes any"}
            },
            "required": ["skill"],
            "additionalProperties": false
        })
    }

    fn prepare(&self, raw_input: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        let input: Input = crate::parse_input(raw_input)?;
        Ok(Box::new(input))
    }

    fn is_enabled(&self, turn: &crate::TurnContext) -> bool {
        turn.extensions().get::<Skills>().is_some()
    }

    fn description(&self, turn: &crate::TurnContext) -> Cow<'_, str> {
        let Some(skills) = turn.extensions().get::<Skills>() else { return Cow::Borrowed(DESCRIPTION) };
        let catalog = skills.catalog(turn.cwd(), turn.extensions());
        let listing = super::listing(catalog.model_invocable(), skills.budget());
        if listing.text.is_empty() {
            return Cow::Owned(format!("{DESCRIPTION}\n\nNo skills are available now."));
        }
        Cow::Owned(format!("{DESCRIPTION}\n\nAvailable skills:\n{}", listing.text))
    }
}

/// The call's input: Claude Code's fields.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Input {
    pub(crate) skill: String,
    #[serde(default)]
    pub(crate) args: Option<String>,
}

impl PreparedCall for Input {
    fn flags(&self) -> Flags {
        Flags::NONE
    }

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.skill.trim().trim_start_matches('/').is_empty() {
            return Err(ToolError::msg("`skill` is empty: give a skill's name from the list"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let args = self.args.as_deref().map(str::trim).filter(|a| !a.is_empty());
        Some(match args {
            Some(args) => format!("skill {} {args}", self.skill.trim()),
            None => format!("skill {}", self.skill.trim()),
        })
    }

    fn access(&self) -> Accesses {
        // What a skill does cannot be stated: the policy decides by `Skill(name)`
        // rules and the mode. Its commands are each checked again.
        Accesses::undeclared()
    }

    fn call<'a>(self: Box<Self>, cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let skills = cx
                .extension::<Skills>()
                .cloned()
                .ok_or_else(|| ToolError::msg("skill: no skills runtime in this turn (see Skills::extensions)"))?;
            skills.invoke(cx, self.skill.trim().trim_start_matches('/'), self.args.as_deref().unwrap_or("")).await
        })
    }
}
