//! The timeline as one HTML page with everything inline (no script, no font, no
//! image from anywhere): lanes are absolutely placed bars in percent of the wall
//! time, each with a `title` tooltip; subagents are `<details>` groups; every
//! mark says in text what its colour says.
//!
//! The page's structure is the contract a test (or a person's script) can read:
//! each call is `.call` with `data-call-id`, `data-tool`, `data-start-ms`,
//! `data-end-ms`, `data-status` (`ok`, `error`, `denied`, `open`) and
//! `data-batch`; each approval wait `.wait` with `data-call-id` and the times;
//! each model turn `.turn`.

use super::{Status, Timeline};
use std::fmt::Write as _;

const STYLE: &str = "
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#1d1d1f;background:#fff}
h1{font-size:18px;margin:0 0 4px}
.numbers{margin:0 0 12px;color:#444}
.axis,.lane{display:grid;grid-template-columns:260px 1fr;align-items:center}
.axis .track{border-bottom:1px solid #999;height:18px}
.tick{position:absolute;top:0;font-size:11px;color:#666;border-left:1px solid #bbb;padding-left:2px;height:18px}
.track{position:relative;height:16px}
.lane{border-bottom:1px solid #f0f0f0}
.lane:hover{background:#f6f8ff}
.label{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;padding-right:8px}
.bar{position:absolute;top:2px;height:12px;min-width:2px;border-radius:2px}
.call{min-width:3px;z-index:1}
.call.ok{background:#3b7dd8}
.call.error{background:#c62828;background-image:repeating-linear-gradient(45deg,transparent 0 4px,rgba(255,255,255,.45) 4px 6px)}
.call.denied{background:#8e24aa;background-image:repeating-linear-gradient(-45deg,transparent 0 3px,rgba(255,255,255,.55) 3px 5px)}
.call.cancelled{background:#616161;background-image:repeating-linear-gradient(90deg,transparent 0 3px,rgba(255,255,255,.5) 3px 5px)}
.call.open{background:#9e9e9e}
.hook{background:#00897b;top:0;height:5px;opacity:.9;z-index:2}
.wait{background:#f9a825;top:0;height:16px;opacity:.85;outline:1px dashed #6d4c00;pointer-events:none}
.turn{background:#43a047;opacity:.75}
.retry{background:none;color:#e65100;font-weight:700;top:-2px;height:auto;font-size:12px}
.server{background:none;color:#1565c0;font-weight:700;top:-2px;height:auto;font-size:12px}
.status{font-weight:600}
.batch{color:#888;font-size:11px}
.status.error{color:#c62828}.status.denied{color:#8e24aa}.status.cancelled{color:#424242}.status.open{color:#666}
details{margin:4px 0}summary{cursor:pointer;font-weight:600;padding:2px 0}
.group{border-left:3px solid #ddd;padding-left:6px}
.key span{display:inline-block;margin-right:14px}
.key i{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}
";

pub(super) fn render(timeline: &Timeline) -> String {
    let wall = timeline.end_ms.max(timeline.calls.iter().map(|c| c.end_ms).fold(0.0, f64::max)).max(1.0);
    let pct = |ms: f64| (ms / wall * 100.0).clamp(0.0, 100.0);
    let mut out = String::with_capacity(512 + timeline.calls.len() * 400);
    let title = if timeline.title.is_empty() { "toolwright session" } else { &timeline.title };
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>",
        esc(title)
    );
    let _ = write!(out, "<h1>{}</h1>{}", esc(title), numbers(timeline, wall));
    out.push_str(
        "<p class=\"key\"><span><i class=\"call ok\"></i>call</span><span><i class=\"call error\"></i>failed (✗)</span>\
         <span><i class=\"call denied\"></i>refused (⊘)</span><span><i class=\"call cancelled\"></i>cancelled (■)</span><span><i class=\"wait\"></i>waiting for approval</span><span><i class=\"hook\"></i>hook</span>\
         <span><i class=\"turn\"></i>model turn</span><span>↻ model request retried</span><span>⌕ the provider's web search</span></p>",
    );
    axis(&mut out, wall);
    // The main agent's lanes, each subagent's as a group inside the group of the
    // agent that started it.
    group(&mut out, timeline, None, &pct, wall);
    out.push_str("</body></html>\n");
    out
}

/// The lanes of agent `id` (`None`: the main agent), then its children's groups.
fn group(out: &mut String, timeline: &Timeline, id: Option<&str>, pct: &dyn Fn(f64) -> f64, wall: f64) {
    let mut calls: Vec<&super::Call> = timeline.calls.iter().filter(|c| c.agent.as_deref() == id).collect();
    calls.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    let turns: Vec<&super::Turn> = timeline.turns.iter().filter(|t| t.agent.as_deref() == id).collect();
    let agent = id.and_then(|id| timeline.agents.iter().find(|a| a.id == id));
    match (id, agent) {
        (Some(id), agent) => {
            let name = agent.map_or("agent", |a| a.name.as_str());
            // Titled by what it was asked to do; its id stays in the data.
            let title = match agent.map(|a| a.description.as_str()).filter(|d| !d.is_empty()) {
                Some(description) => format!("{name}: {description}"),
                None => name.to_owned(),
            };
            let call_id = agent.and_then(|a| a.call_id.as_deref()).unwrap_or_default();
            let _ = write!(
                out,
                "<details open class=\"group\" data-agent=\"{}\" data-agent-id=\"{}\" data-call-id=\"{}\">\
                 <summary>subagent {} ({} call{})</summary>",
                esc(name),
                esc(id),
                esc(call_id),
                esc(&title),
                calls.len(),
                if calls.len() == 1 { "" } else { "s" }
            );
        }
        (None, _) => out.push_str("<div class=\"group\" data-agent=\"main\">"),
    }
    let retries: Vec<&super::Retry> = timeline.retries.iter().filter(|r| r.agent.as_deref() == id).collect();
    let searches: Vec<&super::ServerUse> = timeline.server_uses.iter().filter(|u| u.agent.as_deref() == id).collect();
    if !turns.is_empty() || !retries.is_empty() || !searches.is_empty() {
        out.push_str("<div class=\"lane model\"><div class=\"label\">model turns</div><div class=\"track\">");
        for found in &searches {
            let _ = write!(
                out,
                "<div class=\"bar server\" data-server-tool=\"{}\" data-at-ms=\"{:.1}\" style=\"left:{:.3}%\" \
                 title=\"the provider's {}: {}\">⌕</div>",
                esc(&found.name),
                found.at_ms,
                pct(found.at_ms),
                esc(&found.name),
                esc(&found.what),
            );
        }
        for retry in &retries {
            let _ = write!(
                out,
                "<div class=\"bar retry\" data-attempt=\"{}\" data-at-ms=\"{:.1}\" style=\"left:{:.3}%\" \
                 title=\"retry after attempt {}: {}\">↻</div>",
                retry.attempt,
                retry.at_ms,
                pct(retry.at_ms),
                retry.attempt,
                esc(&retry.error),
            );
        }
        for (i, turn) in turns.iter().enumerate() {
            let end = turn.end_ms.or_else(|| turns.get(i + 1).map(|t| t.start_ms)).unwrap_or(wall);
            // The model's part of a turn: until its first call starts, if one does.
            let first_call =
                calls.iter().map(|c| c.start_ms).filter(|&s| s >= turn.start_ms && s <= end).fold(end, f64::min);
            let _ = write!(
                out,
                "<div class=\"bar turn\" data-turn=\"{n}\" data-start-ms=\"{s:.1}\" data-end-ms=\"{e:.1}\" \
                 style=\"left:{l:.3}%;width:{w:.3}%\" title=\"model turn {n}: {ms:.0} ms until its first call\"></div>",
                n = turn.n,
                s = turn.start_ms,
                e = first_call,
                l = pct(turn.start_ms),
                w = pct(first_call) - pct(turn.start_ms),
                ms = first_call - turn.start_ms,
            );
        }
        out.push_str("</div></div>");
    }
    // Children: the agents this one started, and any whose parent is not known;
    // each right under the agent call that started it, where the trace says which.
    let known = |parent: &Option<String>| parent.as_deref().is_some_and(|p| timeline.agents.iter().any(|a| a.id == p));
    let children: Vec<&super::Agent> = timeline
        .agents
        .iter()
        .filter(|a| a.parent.as_deref() == id || (id.is_none() && !known(&a.parent) && a.parent.is_some()))
        .collect();
    let under = |call: &super::Call, child: &&super::Agent| child.call_id.as_deref() == Some(call.id.as_str());
    for call in &calls {
        lane(out, call, timeline, pct);
        for child in children.iter().filter(|child| under(call, child)) {
            group(out, timeline, Some(&child.id), pct, wall);
        }
    }
    for child in children.iter().filter(|child| !calls.iter().any(|call| under(call, child))) {
        group(out, timeline, Some(&child.id), pct, wall);
    }
    // Calls of agents that never said they started.
    if id.is_none() {
        let mut strays: Vec<&str> = Vec::new();
        for call in &timeline.calls {
            if let Some(agent) = call.agent.as_deref()
                && !timeline.agents.iter().any(|a| a.id == agent)
                && !strays.contains(&agent)
            {
                strays.push(agent);
            }
        }
        for stray in strays {
            group(out, timeline, Some(stray), pct, wall);
        }
    }
    out.push_str(if id.is_some() { "</details>" } else { "</div>" });
}

fn lane(out: &mut String, call: &super::Call, timeline: &Timeline, pct: &dyn Fn(f64) -> f64) {
    let (class, mark) = match &call.status {
        Status::Ok => ("ok", "✓".to_owned()),
        Status::Error(kind) => ("error", format!("✗ {kind}")),
        Status::Denied(kind) => ("denied", format!("⊘ {}", kind.replace('_', " "))),
        Status::Cancelled => ("cancelled", "■ cancelled".to_owned()),
        Status::Open => ("open", "… unfinished".to_owned()),
    };
    let ms = call.end_ms - call.start_ms;
    let batch = call.batch.map(|b| b.to_string()).unwrap_or_default();
    // The wait's mark lets the pointer through to the call: its time is told here.
    let waited: f64 = timeline.waits.iter().filter(|w| w.call_id == call.id).map(|w| w.end_ms - w.start_ms).sum();
    let waited = if waited > 0.0 { format!("\nwaited for approval: {waited:.0} ms") } else { String::new() };
    let tip = format!(
        "{}{}\ninput: {}\nresult: {} ({ms:.0} ms{}){waited}",
        call.tool,
        call.batch.map(|b| format!(" (batch {b})")).unwrap_or_default(),
        super::first_line(&call.input),
        if call.result.is_empty() { mark.clone() } else { call.result.clone() },
        match &call.status {
            Status::Ok => String::new(),
            _ => format!(", {mark}"),
        },
    );
    let _ = write!(
        out,
        "<div class=\"lane\"><div class=\"label\"><span class=\"status {class}\">{}</span> {}{}</div><div class=\"track\">\
         <div class=\"bar call {class}\" data-call-id=\"{}\" data-tool=\"{}\" data-start-ms=\"{:.1}\" data-end-ms=\"{:.1}\" \
         data-status=\"{class}\" data-batch=\"{batch}\" style=\"left:{:.3}%;width:{:.3}%\" title=\"{}\"></div>",
        esc(&mark),
        esc(&call.tool),
        call.batch.map(|b| format!(" <span class=\"batch\">· batch {b}</span>")).unwrap_or_default(),
        esc(&call.id),
        esc(&call.tool),
        call.start_ms,
        call.end_ms,
        pct(call.start_ms),
        (pct(call.end_ms) - pct(call.start_ms)).max(0.0),
        esc(&tip),
    );
    for hook in timeline.hooks.iter().filter(|h| h.call_id == call.id) {
        let title = format!("hook {}: {:.0} ms", hook.what, hook.end_ms - hook.start_ms);
        let extra = format!(" data-hook=\"{}\"", esc(&hook.what));
        lane_mark(out, "hook", &call.id, &extra, (hook.start_ms, hook.end_ms), &title, pct);
    }
    for wait in timeline.waits.iter().filter(|w| w.call_id == call.id) {
        let title = format!("waiting for approval: {:.0} ms, answered {}", wait.end_ms - wait.start_ms, wait.answer);
        lane_mark(out, "wait", &call.id, "", (wait.start_ms, wait.end_ms), &title, pct);
    }
    out.push_str("</div></div>");
}

/// A mark on a call's lane (a hook's run, a wait for approval): its class, the
/// call's id, more attributes (escaped already), its times and its tooltip.
fn lane_mark(
    out: &mut String,
    class: &str,
    call_id: &str,
    extra: &str,
    (start, end): (f64, f64),
    title: &str,
    pct: &dyn Fn(f64) -> f64,
) {
    let _ = write!(
        out,
        "<div class=\"bar {class}\" data-call-id=\"{}\"{extra} data-start-ms=\"{start:.1}\" data-end-ms=\"{end:.1}\" \
         style=\"left:{:.3}%;width:{:.3}%\" title=\"{}\"></div>",
        esc(call_id),
        pct(start),
        (pct(end) - pct(start)).max(0.0),
        esc(title),
    );
}

/// Ticks at a round step, about ten across.
fn axis(out: &mut String, wall: f64) {
    let raw = wall / 10.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
    out.push_str("<div class=\"axis\"><div class=\"label\">time</div><div class=\"track\">");
    let mut t = 0.0;
    // The last tick stays clear of the right edge, where its label would wrap.
    while t <= wall * 0.94 || t == 0.0 {
        let label = if step >= 1000.0 { format!("{:.0} s", t / 1000.0) } else { format!("{t:.0} ms") };
        let _ = write!(out, "<span class=\"tick\" style=\"left:{:.3}%\">{label}</span>", t / wall * 100.0);
        t += step;
    }
    out.push_str("</div></div>");
}

/// The numbers at the top: calls, failures, refusals, wall and tool time, waits,
/// and the parallelism achieved (tool time over wall time).
fn numbers(timeline: &Timeline, wall: f64) -> String {
    let calls = timeline.calls.len();
    let failed = timeline.calls.iter().filter(|c| matches!(c.status, Status::Error(_))).count();
    let refused = timeline.calls.iter().filter(|c| matches!(c.status, Status::Denied(_))).count();
    let cancelled = timeline.calls.iter().filter(|c| c.status == Status::Cancelled).count();
    // Folded from +0.0: an empty f64 sum is -0.0, which prints as "-0".
    // As the run's summary counts them: a subagent's calls are inside the agent call
    // that started it, so only the session's own calls (and their waits) count.
    let own: Vec<&super::Call> = timeline.top_level_calls().collect();
    let waiting = timeline
        .waits
        .iter()
        .filter(|w| own.iter().any(|c| c.id == w.call_id))
        .map(|w| (w.end_ms - w.start_ms).max(0.0))
        .fold(0.0, |a, b| a + b);
    let tools = own.iter().map(|c| c.end_ms - c.start_ms).fold(0.0, |a, b| a + b) - waiting;
    format!(
        "<p class=\"numbers\" data-calls=\"{calls}\">{calls} calls, {failed} failed, {refused} refused, {cancelled} \
         cancelled; wall {wall:.0} ms, \
         {:.0} ms in tools, {waiting:.0} ms waiting for approval; parallelism {:.2}x (tool time over wall time)</p>",
        tools.max(0.0),
        tools.max(0.0) / wall
    )
}

/// Text for HTML (element content and quoted attributes).
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push_str("&#10;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
