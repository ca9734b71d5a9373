//! `exit_plan_mode` (Claude Code's `ExitPlanMode`): presents the plan for approval;
//! approved, the session leaves plan mode for the mode the person chose.

use serde_json::{Value, json};
use toolwright_core::mode::{Mode, ModeOverride, PlanMode};
use toolwright_core::permission::Approval;
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// The largest plan read from the plan file.
const MAX_PLAN_BYTES: u64 = 256 * 1024;

/// Present your plan to the user for approval and, once approved, leave plan mode to
/// carry it out. Write the plan to the plan file first (the path plan mode gave
/// you), or give it in `plan`. Use it only to finish planning an implementation, not
/// for research; do not ask "is this plan OK?" another way.
#[tool(title = "Exit plan mode", rule_name = "ExitPlanMode", aliases = ["ExitPlanMode"])]
pub struct ExitPlanMode {
    /// The plan, in Markdown, when it is not in the plan file.
    #[serde(default)]
    pub plan: Option<String>,
    /// The plan file (as hooks are shown it); read when `plan` is not given.
    #[serde(rename = "planFilePath", default)]
    pub plan_file_path: Option<String>,
}

impl ExitPlanMode {
    /// The plan and the file it came from: `plan`, else the plan file.
    fn read_plan(&self, cx: &ToolContext) -> Result<(String, Option<std::path::PathBuf>), ToolError> {
        let file = cx.extension::<PlanMode>().map(|p| p.file.clone());
        // A plan given in the input names no file.
        if let Some(plan) = self.plan.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            return Ok((plan.to_owned(), None));
        }
        let Some(file) = file else {
            return Err(ToolError::msg("give the plan in `plan` (Markdown): there is no plan file in this session"));
        };
        let read = match std::fs::metadata(&file) {
            Ok(meta) if meta.len() > MAX_PLAN_BYTES => {
                return Err(ToolError::msg(format!("the plan file {} is over 256 KB; shorten it", file.display())));
            }
            Ok(_) => std::fs::read_to_string(&file),
            Err(e) => Err(e),
        };
        match read {
            Ok(text) if !text.trim().is_empty() => Ok((text.trim().to_owned(), Some(file))),
            _ => Err(ToolError::msg(format!(
                "no plan yet: write it to {} (or give it in `plan`), then call ExitPlanMode again",
                file.display()
            ))),
        }
    }
}

impl Tool for ExitPlanMode {
    type Output = ToolOutput;

    fn validate(&self, cx: &ToolContext) -> Result<(), ToolError> {
        // Outside plan mode the policy says so; in it, there must be a plan to show.
        if cx.extension::<ModeOverride>().is_some_and(|m| m.0 == Mode::Plan) {
            self.read_plan(cx)?;
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        Some("present the plan for approval".to_owned())
    }

    fn hook_input(&self, cx: &ToolContext) -> Option<Value> {
        let (plan, file) = self.read_plan(cx).ok()?;
        Some(json!({ "plan": plan, "planFilePath": file }))
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (plan, file) = self.read_plan(cx)?;
        // `always` accepts edits from now on; any other approval asks before each.
        let next = match cx.approval() {
            Some(Approval::AlwaysAllow) => Mode::AcceptEdits,
            _ => cx.extension::<PlanMode>().and_then(|p| p.before).filter(|m| *m != Mode::Plan).unwrap_or(Mode::Default),
        };
        let where_ = file.as_ref().map(|f| format!(" (saved in {})", f.display())).unwrap_or_default();
        let text = format!(
            "The user approved your plan{where_}; the session is in {} mode now. Carry the plan out, updating your \
             task list as you go.\n\n## Approved plan\n{plan}",
            next.name()
        );
        let mut output = ToolOutput::text(text);
        output.structured = Some(json!({
            "plan": plan,
            "isAgent": cx.extension::<toolwright_core::AgentScope>().is_some(),
            "filePath": file,
        }));
        Ok(output.with_modifier(ContextModifier::new(move |turn| turn.insert_extension(ModeOverride(next)))))
    }
}
