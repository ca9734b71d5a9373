//! `enter_plan_mode` (Claude Code's `EnterPlanMode`): the session's permission mode
//! becomes plan: read, search and think; change nothing but the plan file.

use serde_json::json;
use toolwright_core::mode::{Mode, ModeOverride, PlanMode};
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// Enter plan mode before a change that needs a design: several files, an unclear
/// approach, a choice the user should make. In plan mode you explore the code
/// (read, search, read-only commands) and write a plan; nothing else is changed until
/// the user approves it with exit_plan_mode. Not for small, clear changes.
#[tool(title = "Enter plan mode", rule_name = "EnterPlanMode", aliases = ["EnterPlanMode"], pure)]
pub struct EnterPlanMode {}

impl Tool for EnterPlanMode {
    type Output = ToolOutput;

    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        if cx.extension::<ModeOverride>().is_some_and(|m| m.0 == Mode::Plan) {
            return Err(ToolError::msg("already in plan mode: write the plan, then present it with exit_plan_mode"));
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some("enter plan mode".to_owned())
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = cx.extension::<toolwright_core::SessionInfo>().map(|s| s.id.clone()).unwrap_or_else(|| "plan".into());
        let file = cx.cwd().join(".claude/plans").join(format!("{id}.md"));
        let before = cx.extension::<ModeOverride>().map(|m| m.0);
        let message = format!(
            "Entered plan mode. Explore the code and design an approach: read, search and run read-only commands; \
             do not change any file (edits and other changes are refused) except the plan file. Use AskUserQuestion \
             to settle requirements. Write the plan in Markdown to {}, then call ExitPlanMode to present it for \
             approval.",
            file.display()
        );
        let plan = PlanMode { file, before };
        let mut output = ToolOutput::text(message.clone());
        output.structured = Some(json!({ "message": message }));
        Ok(output.with_modifier(ContextModifier::new(move |turn| {
            turn.insert_extension(ModeOverride(Mode::Plan));
            turn.insert_extension(plan.clone());
        })))
    }
}
