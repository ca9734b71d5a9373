//! A timeline from an OTLP JSON export of toolwright's spans (the conventions'
//! names: `execute_tool`, `approval`, `chat`, `invoke_agent`).

use super::{Agent, Call, Hook, Retry, ServerUse, Status, Timeline, TimelineError, Turn, Wait};
use serde_json::Value;
use std::collections::HashMap;

struct Span<'a> {
    id: &'a str,
    parent: &'a str,
    name: &'a str,
    full_name: &'a str,
    start: f64,
    end: f64,
    attributes: HashMap<&'a str, String>,
    failed: bool,
    /// `retry` events: when, which attempt, why.
    retries: Vec<(f64, usize, String)>,
}

/// The timeline of OTLP documents, each with the line it starts on; `whole` is the
/// text of a single document spread over many lines, to name a bad span's line.
pub(super) fn timeline(documents: &[(usize, &Value)], whole: Option<&str>) -> Result<Timeline, TimelineError> {
    let mut spans = Vec::new();
    for &(line, doc) in documents {
        for resource in doc.get("resourceSpans").and_then(Value::as_array).into_iter().flatten() {
            for scope in resource.get("scopeSpans").and_then(Value::as_array).into_iter().flatten() {
                for span in scope.get("spans").and_then(Value::as_array).into_iter().flatten() {
                    if let Err((field, why)) = check(span) {
                        let line = whole.map_or(line, |text| line_of_span(text, spans.len()));
                        return Err(TimelineError::Field { line, field, why });
                    }
                    spans.push(read(span));
                }
            }
        }
    }
    let origin = spans.iter().map(|s| s.start).fold(f64::INFINITY, f64::min);
    let by_id: HashMap<&str, &Span> = spans.iter().map(|s| (s.id, s)).collect();
    // The nearest ancestor named `name`.
    let ancestor = |span: &Span, name: &str| -> Option<&Span> {
        let mut at = by_id.get(span.parent).copied();
        let mut hops = 0;
        while let Some(s) = at {
            if s.name == name || hops > 64 {
                return (s.name == name).then_some(s);
            }
            at = by_id.get(s.parent).copied();
            hops += 1;
        }
        None
    };
    // A subagent's run by its id (`gen_ai.agent.id`, else its span's), `None` for the main agent's.
    let run_id = |run: &Span| -> Option<String> {
        let name = run.attributes.get("gen_ai.agent.name").map(String::as_str);
        (name != Some("main") && !run.parent.is_empty())
            .then(|| run.attributes.get("gen_ai.agent.id").cloned().unwrap_or_else(|| run.id.to_owned()))
    };
    let agent_of = |span: &Span| -> Option<String> { ancestor(span, "invoke_agent").and_then(run_id) };
    let mut timeline = Timeline { title: "toolwright trace".into(), ..Timeline::default() };
    let mut turns: HashMap<Option<String>, usize> = HashMap::new();
    let mut ordered: Vec<&Span> = spans.iter().collect();
    ordered.sort_by(|a, b| a.start.total_cmp(&b.start));
    for span in ordered {
        // A span that ends before it starts (a clock step, a hand-edited file) is drawn
        // as an instant.
        let (start, end) = (span.start - origin, span.end.max(span.start) - origin);
        timeline.end_ms = timeline.end_ms.max(end);
        // A retry is an event on the run that retried.
        let owner = if span.name == "invoke_agent" { run_id(span) } else { agent_of(span) };
        for (at, attempt, error) in &span.retries {
            let error = error.clone();
            timeline.retries.push(Retry { agent: owner.clone(), at_ms: at - origin, attempt: *attempt, error });
        }
        match span.name {
            "invoke_agent" => {
                if let Some(id) = run_id(span) {
                    let name = span.attributes.get("gen_ai.agent.name").cloned().unwrap_or_else(|| "agent".into());
                    // The call that started it, and its description when the call's
                    // arguments were captured.
                    let call = ancestor(span, "execute_tool");
                    let call_id = call.and_then(|c| c.attributes.get("gen_ai.tool.call.id").cloned());
                    let description = call
                        .and_then(|c| c.attributes.get("gen_ai.tool.call.arguments"))
                        .and_then(|a| serde_json::from_str::<Value>(a).ok())
                        .and_then(|a| a.get("description").and_then(Value::as_str).map(str::to_owned))
                        .unwrap_or_default();
                    timeline.agents.push(Agent { id, name, parent: agent_of(span), description, call_id });
                }
            }
            "execute_tool" => {
                let status = Status::of(span.attributes.get("error.type").map(String::as_str), span.failed);
                let attr = |key: &str| span.attributes.get(key).cloned().unwrap_or_default();
                timeline.calls.push(Call {
                    id: attr("gen_ai.tool.call.id"),
                    // The name is also the span's: `execute_tool {name}`.
                    tool: span
                        .attributes
                        .get("gen_ai.tool.name")
                        .cloned()
                        .unwrap_or_else(|| span.full_name.trim_start_matches("execute_tool").trim().to_owned()),
                    agent: agent_of(span),
                    start_ms: start,
                    end_ms: end,
                    status,
                    input: attr("gen_ai.tool.call.arguments"),
                    result: super::first_line(&attr("gen_ai.tool.call.result")),
                    batch: None,
                });
            }
            "hook" => {
                let call_id = ancestor(span, "execute_tool")
                    .and_then(|c| c.attributes.get("gen_ai.tool.call.id").cloned())
                    .unwrap_or_default();
                let what = span.full_name.trim_start_matches("hook ").to_owned();
                timeline.hooks.push(Hook { call_id, what, start_ms: start, end_ms: end });
            }
            "approval" => {
                let call_id = ancestor(span, "execute_tool")
                    .and_then(|c| c.attributes.get("gen_ai.tool.call.id").cloned())
                    .unwrap_or_default();
                let answer = span.attributes.get("toolwright.approval.answer").cloned().unwrap_or_default();
                timeline.waits.push(Wait { call_id, start_ms: start, end_ms: end, answer });
            }
            "chat" => {
                let agent = agent_of(span);
                let n = turns.entry(agent.clone()).or_default();
                *n += 1;
                // The provider's searches in this response: one mark at its end.
                let count = |key: &str| span.attributes.get(key).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
                let (uses, results) = (count("toolwright.server_tool.uses"), count("toolwright.server_tool.results"));
                if uses > 0 {
                    let what = format!("{uses} search{}, {results} results", if uses == 1 { "" } else { "es" });
                    let name = "web_search".to_owned();
                    timeline.server_uses.push(ServerUse { agent: agent.clone(), at_ms: end, name, what });
                }
                timeline.turns.push(Turn { n: *n, agent, start_ms: start, end_ms: Some(end) });
            }
            _ => {}
        }
    }
    timeline.batch_subagents();
    Ok(timeline)
}

/// Whether a span has what OTLP JSON requires of it: its ids as hexadecimal (16 bytes
/// for the trace, 8 for the span and its parent, not all zero), its name, and its
/// times as unsigned nanoseconds.
fn check(span: &Value) -> Result<(), (&'static str, &'static str)> {
    let hex = |value: Option<&Value>, digits: usize| {
        value.and_then(Value::as_str).is_some_and(|s| {
            s.len() == digits && s.bytes().all(|b| b.is_ascii_hexdigit()) && s.bytes().any(|b| b != b'0')
        })
    };
    if !hex(span.get("traceId"), 32) {
        return Err(("traceId", "is not 32 hexadecimal digits, not all zero (an OTLP trace id)"));
    }
    if !hex(span.get("spanId"), 16) {
        return Err(("spanId", "is not 16 hexadecimal digits, not all zero (an OTLP span id)"));
    }
    match span.get("parentSpanId") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        parent if hex(parent, 16) => {}
        _ => return Err(("parentSpanId", "is neither empty nor 16 hexadecimal digits (an OTLP span id)")),
    }
    if !span.get("name").is_some_and(Value::is_string) {
        return Err(("name", "is missing or not a string"));
    }
    let nanos = |value: Option<&Value>| match value {
        Some(Value::String(s)) => !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
        Some(Value::Number(n)) => n.is_u64(),
        _ => false,
    };
    if !nanos(span.get("startTimeUnixNano")) {
        return Err(("startTimeUnixNano", "is not unsigned nanoseconds since the epoch"));
    }
    if !nanos(span.get("endTimeUnixNano")) {
        return Err(("endTimeUnixNano", "is not unsigned nanoseconds since the epoch"));
    }
    Ok(())
}

/// The line of the `n`th span (from 0) in a document's text: where its `spanId` key
/// stands.
fn line_of_span(text: &str, n: usize) -> usize {
    text.match_indices("\"spanId\"").nth(n).map_or(1, |(at, _)| text[..at].bytes().filter(|&b| b == b'\n').count() + 1)
}

fn read(span: &Value) -> Span<'_> {
    let text = |key: &str| span.get(key).and_then(Value::as_str).unwrap_or_default();
    // OTLP JSON writes 64-bit integers as strings; nanoseconds to milliseconds.
    let nanos = |key: &str| match span.get(key) {
        Some(Value::String(s)) => s.parse::<f64>().unwrap_or(0.0),
        Some(v) => v.as_f64().unwrap_or(0.0),
        None => 0.0,
    } / 1e6;
    let mut attributes = HashMap::new();
    for attribute in span.get("attributes").and_then(Value::as_array).into_iter().flatten() {
        let Some(key) = attribute.get("key").and_then(Value::as_str) else { continue };
        let value = attribute.get("value").and_then(|v| {
            v.get("stringValue")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| v.get("intValue").map(|i| i.to_string().trim_matches('"').to_owned()))
                .or_else(|| v.get("boolValue").map(Value::to_string))
                .or_else(|| v.get("doubleValue").map(Value::to_string))
        });
        if let Some(value) = value {
            attributes.insert(key, value);
        }
    }
    // The span's name is the conventions' `{operation} {target}`; the operation is the key.
    let full_name = text("name");
    let name = full_name.split(' ').next().unwrap_or(full_name);
    let failed = span.get("status").and_then(|s| s.get("code")).is_some_and(|c| c == 2 || c == "STATUS_CODE_ERROR");
    let mut retries = Vec::new();
    for event in span.get("events").and_then(Value::as_array).into_iter().flatten() {
        let name = event.get("name").and_then(Value::as_str).unwrap_or_default();
        if !name.starts_with("retry") {
            continue;
        }
        let field = |key: &str| {
            event.get("attributes").and_then(Value::as_array).into_iter().flatten().find(|a| a["key"] == key).map(|a| {
                let v = &a["value"];
                v.get("stringValue").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| {
                    v.get("intValue").map(|i| i.to_string().trim_matches('"').to_owned()).unwrap_or_default()
                })
            })
        };
        let at = match event.get("timeUnixNano") {
            Some(Value::String(s)) => s.parse::<f64>().unwrap_or(0.0),
            Some(v) => v.as_f64().unwrap_or(0.0),
            None => 0.0,
        } / 1e6;
        let attempt = field("toolwright.retry.attempt").and_then(|a| a.parse().ok()).unwrap_or(0);
        retries.push((at, attempt, field("error.type").unwrap_or_default()));
    }
    Span {
        id: text("spanId"),
        parent: text("parentSpanId"),
        name,
        full_name,
        start: nanos("startTimeUnixNano"),
        end: nanos("endTimeUnixNano"),
        attributes,
        failed,
        retries,
    }
}
