//! A session as a timeline a person can read at a glance: one lane per call,
//! placed by its start and end, batches and overlaps visible, approval waits and
//! refused calls marked, model turns between them, subagents as collapsible
//! groups. Made from the trace events `replay`/`agent` record (the `--json`
//! lines, which carry `t_ms`) or from an OTLP JSON export of toolwright's spans;
//! drawn as one self-contained HTML file ([`html`]).

mod html;
mod otlp;

use crate::output::OutputPath;
use serde_json::Value;

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Ok,
    /// Refused by the rules, a hook or the user.
    Denied(String),
    /// Any other failure, with its kind.
    Error(String),
    /// Stopped before it finished (the user, a signal, a sibling's failure).
    Cancelled,
    /// Still running when the trace ended.
    Open,
}

impl Status {
    /// A finished call's status from its error kind (`None`: it succeeded, or
    /// failed without a kind when `failed`).
    pub(crate) fn of(kind: Option<&str>, failed: bool) -> Status {
        match kind {
            Some(kind) if is_refusal(kind) => Status::Denied(kind.to_owned()),
            Some("cancelled") => Status::Cancelled,
            Some(kind) => Status::Error(kind.to_owned()),
            None if failed => Status::Error("failed".into()),
            None => Status::Ok,
        }
    }
}

/// One call's lane.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: String,
    pub tool: String,
    /// The id of the subagent that made it (`None`: the main agent).
    pub agent: Option<String>,
    pub start_ms: f64,
    pub end_ms: f64,
    pub status: Status,
    pub input: String,
    pub result: String,
    pub batch: Option<usize>,
}

/// A wait for someone's approval, inside a call.
#[derive(Debug, Clone)]
pub struct Wait {
    pub call_id: String,
    pub start_ms: f64,
    pub end_ms: f64,
    pub answer: String,
}

/// A model turn: from its request to the next turn (or the end).
#[derive(Debug, Clone)]
pub struct Turn {
    pub n: usize,
    pub agent: Option<String>,
    pub start_ms: f64,
    pub end_ms: Option<f64>,
}

/// A subagent: its id, its type, and the agent that started it (`None`: the main
/// agent); the agent call's `description` and id, when the trace has them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub parent: Option<String>,
    pub description: String,
    pub call_id: Option<String>,
}

/// A hook that ran on a call.
#[derive(Debug, Clone)]
pub struct Hook {
    pub call_id: String,
    /// `PreToolUse {name}`.
    pub what: String,
    pub start_ms: f64,
    pub end_ms: f64,
}

/// A model request tried again: when, after which attempt, and why.
#[derive(Debug, Clone)]
pub struct Retry {
    pub agent: Option<String>,
    pub at_ms: f64,
    pub attempt: usize,
    pub error: String,
}

/// The provider's own tool at work in a model turn (its web search): a search
/// made, or what it found.
#[derive(Debug, Clone)]
pub struct ServerUse {
    pub agent: Option<String>,
    pub at_ms: f64,
    /// `web_search`.
    pub name: String,
    /// The query, or what came back.
    pub what: String,
}

/// A whole session.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The provider's own tools used in model turns.
    pub server_uses: Vec<ServerUse>,
    /// Model requests tried again.
    pub retries: Vec<Retry>,
    /// Hooks that ran on calls.
    pub hooks: Vec<Hook>,
    pub title: String,
    /// The subagents, in the order they started.
    pub agents: Vec<Agent>,
    pub calls: Vec<Call>,
    pub waits: Vec<Wait>,
    pub turns: Vec<Turn>,
    /// The wall time of the session.
    pub end_ms: f64,
}

/// A file that is neither kind of trace.
#[derive(Debug, thiserror::Error)]
pub enum TimelineError {
    #[error("line {line}: not JSON: {why}")]
    Json { line: usize, why: String },
    #[error("line {line}: `{field}` {why}")]
    Field { line: usize, field: &'static str, why: &'static str },
    #[error(
        "no calls in it: give the JSON lines of `toolwright replay --json` / `agent --json`, or an OTLP JSON export of toolwright's spans"
    )]
    Empty,
}

impl Timeline {
    /// From a saved trace: JSON lines of trace events, or OTLP JSON (one document,
    /// or one per line).
    pub fn parse(text: &str) -> Result<Timeline, TimelineError> {
        let mut events: Vec<(usize, Value)> = Vec::new();
        let whole = text.trim_start();
        if whole.starts_with('{')
            && whole.contains("\"resourceSpans\"")
            && let Ok(doc) = serde_json::from_str::<Value>(whole)
        {
            let first = text.len() - whole.len();
            let first_line = text[..first].bytes().filter(|&b| b == b'\n').count() + 1;
            return non_empty(otlp::timeline(&[(first_line, &doc)], Some(text))?);
        }
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let value: Value =
                serde_json::from_str(line).map_err(|e| TimelineError::Json { line: i + 1, why: e.to_string() })?;
            if value.get("resourceSpans").is_none() {
                checked(i + 1, &value)?;
            }
            events.push((i + 1, value));
        }
        if events.iter().any(|(_, e)| e.get("resourceSpans").is_some()) {
            let documents: Vec<(usize, &Value)> = events.iter().map(|(line, doc)| (*line, doc)).collect();
            return non_empty(otlp::timeline(&documents, None)?);
        }
        let events: Vec<Value> = events.into_iter().map(|(_, e)| e).collect();
        non_empty(Timeline::from_events(&events))
    }

    /// From trace events in order (what `--json` prints).
    pub fn from_events(events: &[Value]) -> Timeline {
        let mut timeline = Timeline::default();
        let mut unbatched: Vec<usize> = Vec::new();
        let ms = |e: &Value, key: &str| e.get(key).and_then(Value::as_f64);
        for event in events {
            let at = ms(event, "t_ms").unwrap_or(timeline.end_ms);
            timeline.end_ms = timeline.end_ms.max(at);
            let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            // A subagent's events carry its id, type and parent.
            let agent = event.get("agent_id").and_then(Value::as_str).map(str::to_owned);
            if let Some(id) = &agent
                && !timeline.agents.iter().any(|a| &a.id == id)
            {
                timeline.agents.push(Agent {
                    id: id.clone(),
                    name: text("agent_type"),
                    parent: event.get("parent_id").and_then(Value::as_str).map(str::to_owned),
                    ..Agent::default()
                });
            }
            let kind = event.get("type").and_then(Value::as_str).map(|k| k.strip_prefix("subagent_call_").unwrap_or(k));
            match kind {
                Some("start") => timeline.title = text("what"),
                Some("subagent_started") => {
                    if let Some(known) = timeline.agents.iter_mut().find(|a| Some(&a.id) == agent.as_ref()) {
                        known.description = text("description");
                        known.call_id = event.get("parent_call_id").and_then(Value::as_str).map(str::to_owned);
                    }
                }
                Some("turn" | "subagent_turn") => {
                    if let Some(last) = timeline.turns.iter_mut().rev().find(|t| t.agent == agent && t.end_ms.is_none())
                    {
                        last.end_ms = Some(at);
                    }
                    let n = event.get("turn").and_then(Value::as_u64).unwrap_or(0) as usize;
                    timeline.turns.push(Turn { n, agent, start_ms: at, end_ms: None });
                }
                Some("started") => {
                    // The trace's batches are the main agent's; a subagent's are
                    // found from its calls' times (below).
                    if agent.is_none() {
                        unbatched.push(timeline.calls.len());
                    }
                    timeline.calls.push(Call {
                        id: text("call_id"),
                        tool: text("tool"),
                        agent,
                        start_ms: at,
                        end_ms: at,
                        status: Status::Open,
                        input: text("input"),
                        result: String::new(),
                        batch: None,
                    });
                }
                Some("finished") => {
                    let id = text("call_id");
                    let status = Status::of(
                        event.get("error").and_then(Value::as_str),
                        event.get("ok").and_then(Value::as_bool) == Some(false),
                    );
                    let result = first_line(&text("result"));
                    match timeline.calls.iter_mut().rev().find(|c| c.id == id && c.status == Status::Open) {
                        Some(call) => {
                            call.end_ms = at;
                            call.status = status;
                            call.result = result;
                        }
                        // A call refused before it started still has a lane.
                        None => {
                            let duration = ms(event, "duration_ms").unwrap_or(0.0);
                            if agent.is_none() {
                                unbatched.push(timeline.calls.len());
                            }
                            timeline.calls.push(Call {
                                id,
                                tool: text("tool"),
                                agent,
                                start_ms: (at - duration).max(0.0),
                                end_ms: at,
                                status,
                                input: String::new(),
                                result,
                                batch: None,
                            });
                        }
                    }
                }
                Some("batch") => {
                    let n = event.get("batch").and_then(Value::as_u64).map(|n| n as usize);
                    for i in unbatched.drain(..) {
                        timeline.calls[i].batch = n;
                    }
                }
                Some("retry") => timeline.retries.push(Retry {
                    agent,
                    at_ms: at,
                    attempt: event.get("attempt").and_then(Value::as_u64).unwrap_or(0) as usize,
                    error: first_line(&text("error")),
                }),
                Some("server_tool") => {
                    let input = event.get("input");
                    let query = input.and_then(|i| i.get("query")).and_then(Value::as_str);
                    let what = query.map_or_else(|| input.map(Value::to_string).unwrap_or_default(), str::to_owned);
                    timeline.server_uses.push(ServerUse {
                        agent,
                        at_ms: at,
                        name: text("name"),
                        what: first_line(&what),
                    });
                }
                Some("server_tool_result") => {
                    let pages = event.get("pages").and_then(Value::as_array).map_or(0, Vec::len);
                    let what = match event.get("error").and_then(Value::as_str) {
                        Some(code) => format!("failed: {code}"),
                        None => format!("{pages} result{}", if pages == 1 { "" } else { "s" }),
                    };
                    timeline.server_uses.push(ServerUse { agent, at_ms: at, name: text("name"), what });
                }
                Some("wait") => timeline.waits.push(Wait {
                    call_id: text("call_id"),
                    start_ms: ms(event, "start_ms").unwrap_or(at),
                    end_ms: ms(event, "end_ms").unwrap_or(at),
                    answer: text("answer"),
                }),
                _ => {}
            }
        }
        for call in &mut timeline.calls {
            if call.status == Status::Open {
                call.end_ms = timeline.end_ms;
            }
        }
        timeline.batch_subagents();
        timeline
    }

    /// Each subagent's calls in batches of their own: a call that starts while
    /// another of the same agent runs joins its batch; one that starts after all
    /// have ended begins the next.
    pub(crate) fn batch_subagents(&mut self) {
        let ids: Vec<String> = self.agents.iter().map(|a| a.id.clone()).collect();
        for id in ids {
            let mut mine: Vec<usize> =
                (0..self.calls.len()).filter(|&i| self.calls[i].agent.as_deref() == Some(id.as_str())).collect();
            mine.sort_by(|&a, &b| self.calls[a].start_ms.total_cmp(&self.calls[b].start_ms));
            let (mut batch, mut running_until) = (0, f64::NEG_INFINITY);
            for i in mine {
                if batch == 0 || self.calls[i].start_ms >= running_until {
                    batch += 1;
                    running_until = self.calls[i].end_ms;
                } else {
                    running_until = running_until.max(self.calls[i].end_ms);
                }
                self.calls[i].batch = Some(batch);
            }
        }
    }

    /// The calls whose time is the session's own: the main agent's (a subagent's
    /// calls run inside the agent call that started it), or all of them when the
    /// trace has none of the main agent's.
    pub(crate) fn top_level_calls(&self) -> impl Iterator<Item = &Call> {
        let any_main = self.calls.iter().any(|c| c.agent.is_none());
        self.calls.iter().filter(move |c| !any_main || c.agent.is_none())
    }

    /// The timeline as one self-contained HTML page.
    pub fn html(&self) -> String {
        html::render(self)
    }
}

/// `timeline INPUT`: a saved trace drawn as HTML.
#[derive(clap::Args)]
pub struct TimelineArgs {
    /// The JSON lines of `replay --json` / `agent --json`, or an OTLP JSON export of
    /// toolwright's spans.
    #[arg(value_name = "TRACE")]
    input: std::path::PathBuf,
    /// Where to write the HTML (default: the input's name with `.html`).
    #[arg(long, short, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

pub fn run(args: TimelineArgs) -> Result<(), String> {
    let output = match &args.output {
        Some(path) => OutputPath::check(path, "--output")?,
        None => OutputPath::check(&args.input.with_extension("html"), "")?,
    };
    let text = std::fs::read_to_string(&args.input).map_err(|e| format!("{}: {e}", args.input.display()))?;
    let timeline = Timeline::parse(&text).map_err(|e| format!("{}: {e}", args.input.display()))?;
    output.write(timeline.html().as_bytes())?;
    say!("toolwright: timeline of {} written to {}", calls(timeline.calls.len()), output.given().display());
    Ok(())
}

/// Before a `replay` or `agent` run with `--timeline FILE`: that a page can be
/// written there, so a long session is not run (nor its workspace written) for a
/// timeline that is then lost.
pub fn can_write(path: &std::path::Path) -> Result<(), String> {
    OutputPath::check(path, "--timeline").map(drop)
}

/// After a `replay` or `agent` run with `--timeline FILE`: the session drawn there.
pub fn finish(trace: &crate::trace::Trace, path: Option<&std::path::Path>) -> Result<(), String> {
    let (Some(path), Some(events)) = (path, trace.kept_events()) else { return Ok(()) };
    let mut timeline = Timeline::from_events(&events);
    // The hooks that ran on its calls, from the command's subscriber.
    let started = trace.began();
    let ms = |t: std::time::Instant| (t.saturating_duration_since(started).as_secs_f64() * 1e4).round() / 10.0;
    for run in crate::timing::hook_runs().into_iter().filter(|r| r.start >= started) {
        let (start_ms, end_ms) = (ms(run.start), ms(run.end));
        timeline.hooks.push(Hook { call_id: run.call_id, what: run.what, start_ms, end_ms });
    }
    OutputPath::check(path, "--timeline")?.write(timeline.html().as_bytes())?;
    trace.note(&format!("timeline of {} written to {}", calls(timeline.calls.len()), path.display()));
    Ok(())
}

fn non_empty(timeline: Timeline) -> Result<Timeline, TimelineError> {
    if timeline.calls.is_empty() { Err(TimelineError::Empty) } else { Ok(timeline) }
}

/// `1 call`, `2 calls`.
fn calls(n: usize) -> String {
    if n == 1 { "1 call".into() } else { format!("{n} calls") }
}

/// A trace event's fields of the right kinds: an object, its time a number of
/// milliseconds from the start, and a call's id and tool strings.
fn checked(line: usize, event: &Value) -> Result<(), TimelineError> {
    let wrong = |field, why| Err(TimelineError::Field { line, field, why });
    let Some(fields) = event.as_object() else {
        return wrong("event", "is not a JSON object");
    };
    if let Some(t) = fields.get("t_ms")
        && !t.as_f64().is_some_and(|t| t.is_finite() && t >= 0.0)
    {
        return wrong("t_ms", "is not a number of milliseconds (0 or more)");
    }
    let kind = fields.get("type").and_then(Value::as_str).unwrap_or_default();
    if matches!(kind.strip_prefix("subagent_call_").unwrap_or(kind), "started" | "finished") {
        if !fields.get("call_id").is_some_and(Value::is_string) {
            return wrong("call_id", "is missing or not a string");
        }
        if fields.get("tool").is_some_and(|t| !t.is_string()) {
            return wrong("tool", "is not a string");
        }
    }
    Ok(())
}

/// Whether an error kind is a refusal (the rules, a hook or the user said no).
fn is_refusal(kind: &str) -> bool {
    matches!(kind, "denied" | "hook_denied" | "rejected")
}

/// The first line of a text that says something (not a rule of `=` or `-`, as
/// test runners print before the failure), at most 160 characters.
pub(crate) fn first_line(text: &str) -> String {
    let says = |l: &&str| l.chars().any(char::is_alphanumeric);
    let line =
        text.lines().find(says).or_else(|| text.lines().find(|l| !l.trim().is_empty())).unwrap_or_default().trim();
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_owned(),
    }
}
