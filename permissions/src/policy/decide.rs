//! One call against the rules: rules about the tool as a whole, then each fact
//! it touches (commands, paths, web, MCP), then the mode.

use super::index::*;
use super::places::*;
use super::verdict::*;
use super::*;
use crate::mode::Mode;
use crate::rule::{AGENT_TYPE_PARAM, SKILL_PARAM};
use crate::rule::{CallNames, Effect, Kind, Specifier};
use serde_json::Value;
use std::path::Path;
use toolwright_core::DynTool;
use toolwright_core::access::Access;
use toolwright_core::permission::{PermissionDecision, PermissionRequest};

impl RulePolicy {
    /// The decision for a call of `tool` with `input` in `cwd`: the tool parses the
    /// input and states what the call touches, and the policy decides on that, as the
    /// executor would (without hooks or an approver). An input the tool refuses is an
    /// error.
    pub fn decide_for(
        &self,
        tool: &dyn DynTool,
        input: &str,
        cwd: &Path,
    ) -> Result<PermissionDecision, toolwright_core::InputError> {
        let prepared = tool.prepare(input.as_bytes())?;
        let access = prepared.access();
        let extensions = toolwright_core::Extensions::new();
        let spec = tool.spec();
        let request = PermissionRequest {
            tool: &spec.name,
            rule_name: spec.rule_name.as_deref(),
            access: &access,
            invoked_name: &spec.name,
            call_id: "",
            input,
            flags: prepared.flags(),
            cwd,
            own_summary: None,
            extensions: &extensions,
        };
        Ok(self.decide(&request))
    }

    /// The decision for one call, from what it touches.
    pub(crate) fn decide(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let confined = self.sandbox_auto_allows(request);
        let mut decision = self.decide_by_rules(request, confined);
        // A question the mode would ask is answered by a grant in force (a skill's
        // `allowed-tools`); deny and ask rules are not `Ask`.
        // (A plan's approval is a person's, never a grant's.)
        if matches!(decision, PermissionDecision::Ask(_))
            && !is_exit_plan(request.tool, request.rule_name)
            && let Some(grants) = request.extensions.get::<crate::grants::Grants>()
            && grants.policy().decide_by_rules(request, confined) == PermissionDecision::Allow
        {
            decision = PermissionDecision::Allow;
        }
        // A command that will run confined skips the question (deny rules, explicit
        // ask rules and protected paths still hold: they are not `Ask`).
        if matches!(decision, PermissionDecision::Ask(_)) && confined {
            return PermissionDecision::Allow;
        }
        decision
    }

    /// Claude Code's `autoAllowBashIfSandboxed`: the call only runs commands, none
    /// excluded from the sandbox, not asking to run unconfined, outside plan mode, and
    /// the kernel can confine it.
    pub(crate) fn sandbox_auto_allows(&self, request: &PermissionRequest<'_>) -> bool {
        let Some(sandbox) = &self.sandbox else { return false };
        if !sandbox.auto_allow || self.mode_for(request.extensions) == Mode::Plan || request.access.is_none() {
            return false;
        }
        if sandbox.filesystem && toolwright_core::sandbox::landlock_abi().is_none() {
            return false;
        }
        let unconfined =
            top_level(request.input).get("dangerously_disable_sandbox").and_then(Value::as_bool) == Some(true);
        request.access.iter().all(|fact| match fact {
            Access::Command(line) => sandbox.confines(line.text(), unconfined),
            _ => false,
        })
    }

    /// The rules' decision, before the sandbox has its say.
    pub(crate) fn decide_by_rules(&self, request: &PermissionRequest<'_>, confined: bool) -> PermissionDecision {
        let mcp = request.access.iter().find_map(|fact| match fact {
            Access::Mcp { server, tool } => Some((server.as_str(), tool.as_str())),
            _ => None,
        });
        let mode = self.mode_for(request.extensions);
        let call = CallNames { tool: request.tool, rule_name: request.rule_name, mcp, mode };
        let read_only = request.flags.read_only;
        // Plan mode changes no files, whatever the rules allow (deny rules still name
        // themselves first).
        if mode == Mode::Plan
            && let Some(path) = request.access.iter().find_map(|fact| match fact {
                Access::Write(path) => Some(path),
                _ => None,
            })
        {
            let denied = self.fact(&Access::Write(path.clone()), &call, request.cwd, read_only, confined);
            // The plan file is the one file plan mode writes (Claude Code's).
            let plan = request.extensions.get::<crate::mode::PlanMode>();
            let only_the_plan = plan.is_some_and(|plan| {
                request.access.iter().all(|fact| match fact {
                    Access::Write(path) => same_path(&request.cwd.join(path), &plan.file),
                    _ => true,
                })
            });
            return match denied {
                Verdict::Deny(why) => PermissionDecision::Deny(why),
                _ if only_the_plan => PermissionDecision::Allow,
                _ => PermissionDecision::Deny(format!(
                    "plan mode does not change files: {} writes `{path}`; leave plan mode to make the change{}",
                    request.tool,
                    plan.map(|p| format!(" (the plan itself goes in {})", p.file.display())).unwrap_or_default()
                )),
            };
        }
        // Rules about the tool as a whole, or one of its parameters: deny, then ask.
        {
            let set = self.read_rules();
            let mut params: Option<serde_json::Map<String, Value>> = None;
            {
                for rule in set.whole_tool_rules().iter().map(|&i| &set.rules[i]).filter(|r| r.tool.covers(&call)) {
                    let hit = match &rule.specifier {
                        None => true,
                        Some(Specifier::Param { name, value, .. }) => {
                            // (Parsed only when a parameter rule names the tool.)
                            let params = params.get_or_insert_with(|| top_level(request.input));
                            param_value(params, name).is_some_and(|v| value.matches(&v))
                        }
                        Some(_) => false,
                    };
                    // A bare ask rule (`Bash`, `Bash(*)`) is skipped for a command
                    // that runs confined, as in Claude Code.
                    if hit && rule.effect == Effect::Ask && rule.specifier.is_none() && confined {
                        continue;
                    }
                    if hit {
                        return self.finish(verdict_for(rule), mode);
                    }
                }
            }
            // dontAsk mode asks the person nothing, questions included (Claude Code's).
            if mode == Mode::DontAsk && (call.rule_name == Some("AskUserQuestion") || call.tool == "ask_user") {
                return PermissionDecision::Deny(format!(
                    "{} asks the user, and dontAsk mode asks nothing: go on with your best judgement and say what \
                     you assumed",
                    request.tool
                ));
            }
            // Approving a plan is always a person's question, and only in plan mode.
            if is_exit_plan(call.tool, call.rule_name) {
                return match mode {
                    Mode::Plan => self.finish(Verdict::Ask(EXIT_PLAN_QUESTION.to_owned()), mode),
                    _ => PermissionDecision::Deny(format!(
                        "{} presents a plan for approval, and the session is not in plan mode (it is in {} mode): \
                         there is nothing to approve; go on with the task",
                        request.tool,
                        mode.name()
                    )),
                };
            }
            // Allow rules that name a value (`Agent(Explore)`, `Skill(commit)`).
            for rule in set.rules.iter().filter(|r| r.effect == Effect::Allow && r.tool.covers(&call)) {
                if let Some(Specifier::Param { name, value, otherwise: None }) = &rule.specifier {
                    let params = params.get_or_insert_with(|| top_level(request.input));
                    if param_value(params, name).is_some_and(|v| value.matches(&v)) {
                        return self.finish(verdict_for(rule), mode);
                    }
                }
            }
            if !request.access.is_declared() {
                if set.allows_whole_tool(&call) {
                    return PermissionDecision::Allow;
                }
                let what = What::Other { read_only };
                return self
                    .finish(Verdict::Undecided { what, reason: format!("{} may touch anything", request.tool) }, mode);
            }
        }
        // Each fact: any denial denies the call, any question asks it.
        let mut decision = PermissionDecision::Allow;
        for fact in request.access {
            let verdict = self.fact(fact, &call, request.cwd, read_only, confined);
            match self.finish(verdict, mode) {
                deny @ PermissionDecision::Deny(_) => return deny,
                ask @ PermissionDecision::AskRule(_) => decision = ask,
                ask @ PermissionDecision::Ask(_) if decision == PermissionDecision::Allow => decision = ask,
                _ => {}
            }
        }
        decision
    }

    /// What the mode makes of a verdict. Deny rules win in every mode; an explicit ask
    /// rule asks in every mode (dontAsk denies it); what no rule decided is up to the
    /// mode, by what it is.
    pub(crate) fn finish(&self, verdict: Verdict, mode: Mode) -> PermissionDecision {
        match verdict {
            Verdict::Deny(why) => PermissionDecision::Deny(why),
            Verdict::Allow => PermissionDecision::Allow,
            Verdict::AskRule(why) => match mode {
                Mode::DontAsk => PermissionDecision::Deny(format!("{why} (dontAsk mode denies what would ask)")),
                _ => PermissionDecision::AskRule(why),
            },
            Verdict::Ask(why) => match mode {
                Mode::DontAsk => PermissionDecision::Deny(format!("{why} (dontAsk mode denies what would ask)")),
                Mode::BypassPermissions => PermissionDecision::Allow,
                _ => PermissionDecision::Ask(why),
            },
            Verdict::Undecided { what, reason } => match (mode, what) {
                (Mode::BypassPermissions, _) => PermissionDecision::Allow,
                (Mode::DontAsk, _) => {
                    PermissionDecision::Deny(format!("{reason}, and no rule allows it (dontAsk mode)"))
                }
                (_, What::Protected) => PermissionDecision::AskRule(format!(
                    "{reason}: a protected path, which only a person approves; allow it?"
                )),
                (Mode::Plan, What::Write) => {
                    PermissionDecision::Deny(format!("plan mode does not change files, and {reason}"))
                }
                (Mode::Plan, What::Other { read_only: false }) => {
                    PermissionDecision::Deny(format!("plan mode allows only reading, and {reason}"))
                }
                _ => PermissionDecision::Ask(concat(&["Allow ", &reason, "?"])),
            },
        }
    }

    /// One fact against the rules and the working directories.
    pub(crate) fn fact(
        &self,
        fact: &Access,
        call: &CallNames<'_>,
        cwd: &Path,
        read_only: bool,
        confined: bool,
    ) -> Verdict {
        let home = self.anchors.home.as_deref();
        match fact {
            Access::Command(line) => self.shell(line, call, cwd, confined),
            Access::Read(path) | Access::Search(path) => {
                let search = matches!(fact, Access::Search(_));
                let target = Touched::named(path, cwd, home, search);
                self.path_rules(&target, call, cwd, Kind::Read).unwrap_or_else(|| {
                    if target.inside(cwd, &self.additional_dirs) {
                        Verdict::Allow
                    } else {
                        let verb = if search { "searches" } else { "reads" };
                        let reason = format!("{} {verb} `{path}`, outside the working directories", call.tool);
                        Verdict::Undecided { what: What::Read, reason }
                    }
                })
            }
            Access::Write(path) => {
                let target = Touched::named(path, cwd, home, false);
                let inside = target.inside(cwd, &self.additional_dirs);
                self.write(&target, call, cwd, inside, || format!("{} writes `{path}`", call.tool))
            }
            Access::Fetch(url) => {
                let host = url.host_str().unwrap_or("");
                let set = self.read_rules();
                for effect in [Effect::Deny, Effect::Ask, Effect::Allow] {
                    for rule in set.rules.iter().filter(|r| r.effect == effect) {
                        let applies = rule.tool.is_kind(Kind::Fetch) || rule.tool.covers(call);
                        let hit = match &rule.specifier {
                            None => applies,
                            Some(specifier) => applies && domain_pattern(specifier).is_some_and(|d| d.matches(host)),
                        };
                        if hit {
                            return verdict_for(rule);
                        }
                    }
                }
                Verdict::Undecided { what: What::Fetch, reason: format!("{} fetches `{url}`", call.tool) }
            }
            Access::Mcp { server, tool } => {
                let set = self.read_rules();
                if set.allows_whole_tool(call) {
                    return Verdict::Allow;
                }
                let reason = format!("{} calls `{tool}` of the MCP server `{server}`", call.tool);
                Verdict::Undecided { what: What::Other { read_only: false }, reason }
            }
            Access::Opaque(what) => {
                let set = self.read_rules();
                if set.allows_whole_tool(call) {
                    return Verdict::Allow;
                }
                Verdict::Undecided { what: What::Other { read_only }, reason: format!("{}: {what}", call.tool) }
            }
            _ => Verdict::Undecided {
                what: What::Other { read_only },
                reason: format!("{} touches {fact:?}", call.tool),
            },
        }
    }
}

/// The top-level fields of a JSON object input (empty for anything else).
pub(crate) fn top_level(input: &str) -> serde_json::Map<String, Value> {
    match serde_json::from_str(input) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

/// A scalar parameter as text (`true`, `5`, `opus`); objects and arrays are not matched.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The value a parameter rule matches: the parameter's text; the agent type
/// defaulting to the general-purpose agent; a skill's name (without `/`) followed by
/// its arguments.
fn param_value(params: &serde_json::Map<String, Value>, name: &str) -> Option<String> {
    let given = params.get(name).and_then(scalar_text);
    if name == AGENT_TYPE_PARAM {
        return given.or_else(|| Some(DEFAULT_AGENT_TYPE.into()));
    }
    if name == SKILL_PARAM {
        let skill = given?.trim().trim_start_matches('/').to_owned();
        let args = params.get("args").and_then(scalar_text).unwrap_or_default();
        let args = args.trim();
        return Some(if args.is_empty() { skill } else { format!("{skill} {args}") });
    }
    given
}

/// The question a plan's approval asks: the approver's three answers are the three
/// ways out of plan mode.
pub(crate) const EXIT_PLAN_QUESTION: &str = "Approve this plan and leave plan mode? yes: approve, and ask before \
each edit; always: approve, and accept edits without asking; no: keep planning";

/// Whether a call of `tool` (rule name `rule_name`) is Claude Code's `ExitPlanMode`
/// (toolwright's `exit_plan_mode`): a plan's approval, which only a person gives.
pub(crate) fn is_exit_plan(tool: &str, rule_name: Option<&str>) -> bool {
    rule_name == Some("ExitPlanMode") || tool == "exit_plan_mode"
}

/// Whether two absolute paths name the same place, `.` and `..` resolved by their
/// text (the write itself is confined to what it resolves to).
fn same_path(a: &Path, b: &Path) -> bool {
    fn normal(path: &Path) -> std::path::PathBuf {
        let mut out = std::path::PathBuf::new();
        for part in path.components() {
            match part {
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }
    normal(a) == normal(b)
}
