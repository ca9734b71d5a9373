//! The trace as the subagent runtime's observer: each child's start, calls and end,
//! tagged with its type, id and depth (and every field in `--json`).

use super::trace::{Trace, abbreviate};
use serde_json::{Value, json};
use std::sync::Arc;
use toolwright::AgentScope;
use toolwright::orchestrate::CallEvent;
use toolwright::subagents::{SubagentEvent, SubagentObserver};

pub struct TracedChildren {
    pub trace: Arc<Trace>,
}

fn tag(agent: &AgentScope) -> Value {
    json!({
        "agent_id": agent.id, "agent_type": agent.agent_type, "parent_id": agent.parent_id,
        "depth": agent.depth, "background": agent.background,
    })
}

fn with(agent: &AgentScope, kind: &str, extra: Value) -> Value {
    let mut value = tag(agent);
    value["type"] = json!(kind);
    if let (Some(object), Value::Object(extra)) = (value.as_object_mut(), extra) {
        object.extend(extra);
    }
    value
}

impl SubagentObserver for TracedChildren {
    fn event(&self, agent: &AgentScope, event: SubagentEvent<'_>) {
        let indent = "  ".repeat(agent.depth);
        let who = format!("[{} {}]", agent.agent_type, agent.id);
        match event {
            SubagentEvent::Started { description, call_id, background, resumed, .. } => {
                let how = match (resumed, background) {
                    (true, _) => "resumed",
                    (false, true) => "started in the background",
                    (false, false) => "started",
                };
                let text = format!("{indent}⇢ agent {} {how} (depth {}): {description}", who, agent.depth);
                let value = with(
                    agent,
                    "subagent_started",
                    json!({"description": description, "resumed": resumed, "parent_call_id": call_id}),
                );
                self.trace.event(Some(&text), value);
            }
            SubagentEvent::Response { n } => {
                self.trace.event(None, with(agent, "subagent_turn", json!({"turn": n})));
            }
            SubagentEvent::Call(CallEvent::Started { call, .. }) => {
                let text = format!("{indent}  {who} ▶ {}", call.summary_line());
                let value = with(
                    agent,
                    "subagent_call_started",
                    json!({"call_id": &*call.id, "tool": call.name, "input": call.input}),
                );
                self.trace.event(Some(&text), value);
            }
            SubagentEvent::Call(CallEvent::Finished { call, result, .. }) => {
                let mark = if result.output.is_error { "✗" } else { "✓" };
                let kind = result.error.map(|k| format!(" [{}]", k.label())).unwrap_or_default();
                let ms = result.duration.as_secs_f64() * 1000.0;
                let mut text = format!("{indent}  {who} {mark} {} ({ms:.0} ms){kind}", result.summary_line(call));
                if result.output.is_error {
                    let body = abbreviate(&result.output.text_content(), 2, 100);
                    for line in body.lines() {
                        text.push_str(&format!("\n{indent}      {line}"));
                    }
                }
                let value = with(
                    agent,
                    "subagent_call_finished",
                    json!({
                        "call_id": &*call.id, "tool": &*result.tool, "ok": !result.output.is_error,
                        "error": result.error.map(|k| k.label()), "duration_ms": ms,
                        "result": result.output.text_content(),
                    }),
                );
                self.trace.event(Some(&text), value);
            }
            SubagentEvent::Usage(usage) => {
                self.trace.event(None, with(agent, "subagent_usage", json!({"usage": usage})));
            }
            SubagentEvent::Finished(report) => {
                let reason = report.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
                let text = format!(
                    "{indent}⇠ agent {who} {}{reason} ({} tool calls, {} tokens, {} ms)",
                    report.status.name(),
                    report.tree_tool_calls,
                    report.usage.total_tokens(),
                    report.duration.as_millis()
                );
                let value = with(
                    agent,
                    "subagent_finished",
                    json!({
                        "status": report.status.name(), "reason": report.reason, "usage": report.usage,
                        "own_usage": report.own_usage, "tool_calls": report.tool_calls,
                        "tree_tool_calls": report.tree_tool_calls,
                        "duration_ms": u64::try_from(report.duration.as_millis()).unwrap_or(u64::MAX),
                        "denied": report.denied, "text": report.text, "transcript": report.transcript,
                        "model": report.model,
                    }),
                );
                self.trace.event(Some(&text), value);
            }
            _ => {}
        }
    }
}
