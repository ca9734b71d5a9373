//! What the parent's model reads of a child: the report, cut with a marker when long,
//! the agent id, what was refused, and a usage trailer.

use super::handle::{AgentReport, AgentStatus};
use super::tools::TASK_OUTPUT_TOOL;
use serde_json::{Value, json};

/// `text` from character `offset`, at most `max` characters, and whether more follows.
pub(crate) fn page(text: &str, offset: usize, max: usize) -> (&str, bool) {
    let start = text.char_indices().nth(offset).map_or(text.len(), |(i, _)| i);
    let rest = &text[start..];
    match rest.char_indices().nth(max) {
        Some((end, _)) => (&rest[..end], true),
        None => (rest, false),
    }
}

/// The marker after a cut report: how much was shown and how to read the rest.
pub(crate) fn cut_marker(id: &str, shown_to: usize, total: usize) -> String {
    format!(
        "\n\n[report cut: characters 0 to {shown_to} of {total} shown. Read the rest with {TASK_OUTPUT_TOOL} \
         {{\"task_id\": \"{id}\", \"offset\": {shown_to}}}]"
    )
}

/// The text the parent's model reads for a finished child; sets `report.truncated`.
pub(crate) fn for_model(report: &mut AgentReport, max_chars: usize) -> String {
    let total = report.text.chars().count();
    let (shown, more) = page(&report.text, 0, max_chars);
    report.truncated = more;
    let mut out = String::with_capacity(shown.len() + 512);
    match report.status {
        AgentStatus::Completed => {}
        AgentStatus::Stopped => out.push_str(&format!(
            "[agent {} was stopped: {}. Its output so far follows.]\n\n",
            report.agent_id,
            report.reason.as_deref().unwrap_or("stopped")
        )),
        AgentStatus::Failed => out.push_str(&format!(
            "[agent {} failed: {}. Its output so far follows.]\n\n",
            report.agent_id,
            report.reason.as_deref().unwrap_or("failed")
        )),
        AgentStatus::Running => {}
    }
    if shown.trim().is_empty() {
        out.push_str("(the agent gave no final text)");
    } else {
        out.push_str(shown);
    }
    if more {
        out.push_str(&cut_marker(&report.agent_id, max_chars, total));
    }
    if let Some(path) = &report.worktree {
        out.push_str(&format!(
            "\n\nIts changes are in the git worktree {} (detached at the commit it started from); they are \
             not in your working directory until merged.",
            path.display()
        ));
    }
    if !report.denied.is_empty() {
        out.push_str("\n\nRefused in this agent's run:");
        for line in &report.denied {
            out.push_str("\n- ");
            out.push_str(line);
        }
    }
    out.push_str(&format!(
        "\n\nagentId: {} (continue it with send_message; read its report whole with {TASK_OUTPUT_TOOL})\n\
         <usage>total_tokens: {}\ntool_uses: {}\nduration_ms: {}</usage>",
        report.agent_id,
        report.usage.total_tokens(),
        report.tree_tool_calls,
        report.duration.as_millis()
    ));
    out
}

impl AgentReport {
    /// What a model reads of this report: the text cut at `max_chars` with a marker
    /// saying how to read the rest, the agent id, its refused calls, and a usage
    /// trailer (`total_tokens`, `tool_uses`, `duration_ms`).
    pub fn for_model(&self, max_chars: usize) -> String {
        for_model(&mut self.clone(), max_chars)
    }
}

/// The typed result, as structured content (Claude Code's field names).
pub(crate) fn structured(report: &AgentReport) -> Value {
    let usage = &report.usage;
    let mut value = json!({
        "status": report.status.name(),
        "agentId": report.agent_id,
        "agentType": report.agent_type,
        "content": [{"type": "text", "text": report.text}],
        "truncated": report.truncated,
        "resolvedModel": report.model,
        "totalTokens": usage.total_tokens(),
        "totalToolUseCount": report.tree_tool_calls,
        "ownToolUseCount": report.tool_calls,
        "totalDurationMs": u64::try_from(report.duration.as_millis()).unwrap_or(u64::MAX),
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
        },
        "denied": report.denied,
    });
    if let Some(reason) = &report.reason {
        value["reason"] = json!(reason);
    }
    if let Some(answer) = &report.structured {
        value["structured"] = answer.clone();
    }
    if let Some(path) = &report.transcript {
        value["transcriptPath"] = json!(path);
    }
    if let Some(path) = &report.worktree {
        value["worktreePath"] = json!(path);
    }
    value
}

#[cfg(test)]
mod tests {
    use super::page;

    #[test]
    fn pages_by_characters_not_bytes() {
        let text = "éé abc";
        assert_eq!(page(text, 0, 2), ("éé", true));
        assert_eq!(page(text, 3, 10), ("abc", false));
        assert_eq!(page(text, 99, 10), ("", false));
    }
}
