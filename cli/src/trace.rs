//! What `replay` and `agent` print while calls run: a live trace (spinners on a
//! terminal, plain lines otherwise, or JSON lines), permission prompts, and the
//! final summary.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use toolwright::permission::{Approval, Approver, PermissionRequest};
use toolwright::{BoxFuture, ProgressEvent, ToolCall, ToolResult};

/// How the trace is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Spinners for running calls (stdout is a terminal).
    Tty,
    /// One line per event.
    Plain,
    /// One line per event, on stderr (stdout carries a result).
    Stderr,
    /// One JSON object per line.
    Json,
}

impl Mode {
    pub fn pick(json: bool) -> Mode {
        if json {
            Mode::Json
        } else if std::io::stdout().is_terminal() {
            Mode::Tty
        } else {
            Mode::Plain
        }
    }
}

#[derive(Default)]
struct Stats {
    calls: usize,
    batches: usize,
    errors: usize,
    call_time: Duration,
    /// Time spent waiting for a person's answer, inside calls: not call time.
    waiting: Duration,
    /// Time the model took, from each request to the end of its stream.
    model: Duration,
    /// The open batch: the tools of a run of concurrency-safe calls (which the
    /// scheduler lets overlap), or one unsafe call; when it started and when its
    /// last call finished.
    batch: Vec<String>,
    batch_safe: bool,
    batch_started: Option<Instant>,
    batch_finished: Option<Instant>,
}

pub struct Trace {
    mode: Mode,
    started: Instant,
    multi: MultiProgress,
    bars: Mutex<HashMap<String, ProgressBar>>,
    /// Every event, kept for a timeline when one was asked for.
    kept: Mutex<Option<Vec<Value>>>,
    stats: Mutex<Stats>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// At most `lines` lines of `text`, each cut to `width` characters, and how many
/// lines were left out.
pub fn abbreviate(text: &str, lines: usize, width: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = all
        .iter()
        .take(lines)
        .map(|line| {
            let mut cut: String = line.chars().take(width).collect();
            if line.chars().count() > width {
                cut.push('…');
            }
            cut
        })
        .collect();
    if all.len() > lines {
        out.push(format!("… ({} more)", count(all.len() - lines, "line", "lines")));
    }
    out.join("\n")
}

impl Trace {
    pub fn new(mode: Mode) -> Arc<Trace> {
        let target = if mode == Mode::Tty { ProgressDrawTarget::stdout() } else { ProgressDrawTarget::hidden() };
        Arc::new(Trace {
            mode,
            started: Instant::now(),
            multi: MultiProgress::with_draw_target(target),
            bars: Mutex::default(),
            kept: Mutex::default(),
            stats: Mutex::default(),
        })
    }

    fn line(&self, text: &str) {
        match self.mode {
            Mode::Tty => {
                // The bars redraw by columns: a tab would stair-step the lines below.
                let _ = self.multi.println(expand_tabs(text));
            }
            Mode::Plain => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{text}");
            }
            Mode::Stderr => say!("{text}"),
            Mode::Json => {}
        }
    }

    /// An event for `--json` and the timeline, stamped with the milliseconds since
    /// the trace began (`t_ms`).
    fn json(&self, mut value: Value) {
        let keeping = lock(&self.kept).is_some();
        if self.mode != Mode::Json && !keeping {
            return;
        }
        value["t_ms"] = json!((self.started.elapsed().as_secs_f64() * 1e4).round() / 10.0);
        if self.mode == Mode::Json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{value}");
        }
        if let Some(kept) = lock(&self.kept).as_mut() {
            kept.push(value);
        }
    }

    /// Keeps every event from now on, for [`timeline`](Self::timeline).
    pub fn keep_events(&self) {
        lock(&self.kept).get_or_insert_with(Vec::new);
    }

    /// The events kept so far (when [`keep_events`](Self::keep_events) was called).
    pub fn kept_events(&self) -> Option<Vec<Value>> {
        lock(&self.kept).clone()
    }

    /// When the trace began (events' `t_ms` count from it).
    pub fn began(&self) -> Instant {
        self.started
    }

    /// A wait for a person's answer about call `call_id`, from `asked` until now.
    pub fn wait(&self, call_id: &str, asked: Instant, answer: &str) {
        let ms = |t: Instant| (t.saturating_duration_since(self.started).as_secs_f64() * 1e4).round() / 10.0;
        self.json(json!({
            "type": "wait", "call_id": call_id, "start_ms": ms(asked), "end_ms": ms(Instant::now()), "answer": answer,
        }));
    }

    pub fn header(&self, what: &str, detail: Value) {
        self.line(what);
        self.json(json!({"type": "start", "what": what, "detail": detail}));
    }

    /// A model response begins; `calls` when known in advance (a recording).
    pub fn turn(&self, n: usize, provider: &str, calls: Option<usize>) {
        let count = match calls {
            Some(1) => ", 1 tool call".to_owned(),
            Some(k) => format!(", {k} tool calls"),
            None => String::new(),
        };
        self.line(&format!("\n── turn {n} ({provider}{count}) ──"));
        self.json(json!({"type": "turn", "turn": n, "provider": provider, "calls": calls}));
    }

    pub fn text(&self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        for line in text.trim().lines() {
            self.line(&format!("assistant: {line}"));
        }
        self.json(json!({"type": "text", "text": text}));
    }

    fn batch_done(&self, n: usize, names: &[String], wall: Duration) {
        let how = if names.len() > 1 { format!("{} calls together", names.len()) } else { "alone".to_owned() };
        let ms = wall.as_secs_f64() * 1000.0;
        self.line(&format!("  batch {n}: {} ({how}, {ms:.0} ms)", names.join(", ")));
        self.json(json!({"type": "batch", "batch": n, "tools": names, "wall_ms": ms}));
    }

    /// Closes the open batch, printing it.
    pub fn end_batch(&self) {
        let closed = {
            let mut stats = lock(&self.stats);
            if stats.batch.is_empty() {
                None
            } else {
                stats.batches += 1;
                let wall = match (stats.batch_started, stats.batch_finished) {
                    (Some(start), Some(end)) => end.saturating_duration_since(start),
                    _ => Duration::ZERO,
                };
                Some((stats.batches, std::mem::take(&mut stats.batch), wall))
            }
        };
        if let Some((n, names, wall)) = closed {
            self.batch_done(n, &names, wall);
        }
    }

    pub fn started(&self, call: &ToolCall, summary: &str, concurrency_safe: bool) {
        let joins = {
            let stats = lock(&self.stats);
            concurrency_safe && stats.batch_safe && !stats.batch.is_empty()
        };
        if !joins {
            self.end_batch();
            let mut stats = lock(&self.stats);
            stats.batch_safe = concurrency_safe;
            stats.batch_started = Some(Instant::now());
        }
        lock(&self.stats).batch.push(call.name.clone());
        self.json(json!({"type": "started", "call_id": &*call.id, "tool": call.name, "input": call.input}));
        match self.mode {
            Mode::Tty => {
                let bar = self.multi.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("  {spinner} {msg} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_message(summary.to_owned());
                bar.enable_steady_tick(Duration::from_millis(100));
                lock(&self.bars).insert(call.id.to_string(), bar);
            }
            _ => self.line(&format!("  ▶ {summary}")),
        }
    }

    pub fn progress(&self, event: &ProgressEvent) {
        self.json(json!({
            "type": "progress", "call_id": event.call_id, "tool": event.tool,
            "message": event.progress.message, "progress": event.progress.progress, "total": event.progress.total,
        }));
        match self.mode {
            Mode::Tty => {
                if let Some(bar) = lock(&self.bars).get(&event.call_id) {
                    bar.set_message(format!("{} — {}", event.tool, event.progress.message));
                }
            }
            _ => self.line(&format!("    … {}: {}", event.tool, event.progress.message)),
        }
    }

    pub fn finished(&self, call: &ToolCall, result: &ToolResult) {
        {
            let mut stats = lock(&self.stats);
            stats.calls += 1;
            stats.call_time += result.duration;
            if !result.is_ok() || result.output.is_error {
                stats.errors += 1;
            }
            stats.batch_finished = Some(Instant::now());
        }
        if let Some(bar) = lock(&self.bars).remove(&*call.id) {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
        let ms = result.duration.as_secs_f64() * 1000.0;
        let mark = if result.output.is_error { "✗" } else { "✓" };
        let kind = result.error.map(|k| format!(" [{}]", k.label())).unwrap_or_default();
        self.line(&format!("  {mark} {} ({ms:.0} ms){kind}", result.summary_line(call)));
        let text = result.output.text_content();
        let short = abbreviate(&text, 4, 100);
        for line in short.lines() {
            self.line(&format!("      {line}"));
        }
        self.json(json!({
            "type": "finished", "call_id": &*call.id, "tool": &*result.tool, "ok": !result.output.is_error,
            "error": result.error.map(|k| k.label()), "duration_ms": ms, "summary": result.summary_line(call),
            "result": text,
        }));
    }

    /// A line for people and an event for `--json`.
    pub fn event(&self, text: Option<&str>, value: Value) {
        if let Some(text) = text {
            self.line(text);
        }
        self.json(value);
    }

    pub fn note(&self, text: &str) {
        self.line(text);
        self.json(json!({"type": "note", "text": text}));
    }

    /// Time the model took for one response.
    pub fn model_time(&self, time: Duration) {
        lock(&self.stats).model += time;
    }

    /// Time a call spent waiting for a person's answer, left out of call time.
    /// Runs `f` with the spinners hidden (a prompt on the terminal).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.multi.suspend(f)
    }

    pub fn waited(&self, time: Duration) {
        lock(&self.stats).waiting += time;
    }

    /// The final summary; returns (calls, errors).
    pub fn summary(&self) -> (usize, usize) {
        self.end_batch();
        let stats = lock(&self.stats);
        let wall = self.started.elapsed();
        let sum = stats.call_time.saturating_sub(stats.waiting);
        let speedup = if wall.as_secs_f64() > 0.0 { sum.as_secs_f64() / wall.as_secs_f64() } else { 1.0 };
        // A speed-up only means something where calls could run together.
        let together = if stats.calls > stats.batches {
            format!(" ({speedup:.2}x from running calls together)")
        } else {
            String::new()
        };
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let hooks = crate::timing::hooks();
        self.line(&format!(
            "\nsummary: {} in {}, {}; wall {:.0} ms against {:.0} ms of call time{together}\n\
             time: model {:.0} ms, tools {:.0} ms, waiting for approval {:.0} ms, hooks {:.0} ms; \
             parallelism {speedup:.2}x (tool time over wall time)",
            count(stats.calls, "call", "calls"),
            count(stats.batches, "batch", "batches"),
            count(stats.errors, "error", "errors"),
            ms(wall),
            ms(sum),
            ms(stats.model),
            ms(sum),
            ms(stats.waiting),
            ms(hooks),
        ));
        self.json(json!({
            "type": "summary", "calls": stats.calls, "batches": stats.batches, "errors": stats.errors,
            "wall_ms": ms(wall), "call_time_ms": ms(sum), "speedup": speedup, "model_ms": ms(stats.model),
            "waiting_ms": ms(stats.waiting), "hooks_ms": ms(hooks), "parallelism": speedup,
        }));
        (stats.calls, stats.errors)
    }
}

/// `--yes` / `--deny`: answers to permission questions given up front.
#[derive(clap::Args)]
pub struct Answer {
    /// Answer every permission question yes.
    #[arg(long, conflicts_with = "deny")]
    yes: bool,
    /// Answer every permission question no.
    #[arg(long)]
    deny: bool,
}

impl Answer {
    /// `Some(answer)` when one was given; `None` asks on a terminal.
    pub fn given(&self) -> Option<bool> {
        if self.yes {
            Some(true)
        } else if self.deny {
            Some(false)
        } else {
            None
        }
    }
}

/// Answers the policy's questions: `--yes`, `--deny`, or a prompt on a terminal.
pub struct PromptApprover {
    pub answer: Option<bool>,
    pub trace: Arc<Trace>,
}

impl Approver for PromptApprover {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            let mut what = request.summary().into_owned();
            // A plan's approval shows the plan.
            if request.rule_name == Some("ExitPlanMode") {
                let plan = serde_json::from_str::<serde_json::Value>(request.input)
                    .ok()
                    .and_then(|input| input["plan"].as_str().map(str::to_owned))
                    .or_else(|| {
                        let file = &request.extensions.get::<toolwright::mode::PlanMode>()?.file;
                        std::fs::read_to_string(file).ok()
                    });
                if let Some(plan) = plan {
                    what = format!("the plan:\n{}", plan.trim());
                }
            }
            // A subagent's question says whose it is.
            let labelled;
            let question = match request.extensions.get::<toolwright::AgentScope>() {
                Some(agent) => {
                    labelled = format!("[agent {}] {question}", agent.label());
                    labelled.as_str()
                }
                None => question,
            };
            let asked = Instant::now();
            match self.answer {
                Some(true) => {
                    self.trace.note(&format!("  ? {question} → yes (--yes)"));
                    self.trace.wait(request.call_id, asked, "yes (--yes)");
                    Approval::AllowOnce
                }
                Some(false) => {
                    self.trace.note(&format!("  ? {question} → no (--deny)"));
                    self.trace.wait(request.call_id, asked, "no (--deny)");
                    Approval::Unanswered("--deny answers no to every question".into())
                }
                None if std::io::stdin().is_terminal() => {
                    // Once, always (the policy remembers it, in the local settings for
                    // rules it can write), or no.
                    let prompt = format!("  ? {question}\n    {what}\n    allow? [y]es once / [a]lways / [N]o ");
                    let trace = Arc::clone(&self.trace);
                    let line = tokio::task::spawn_blocking(move || {
                        trace.multi.suspend(|| {
                            print!("{prompt}");
                            let _ = std::io::stdout().flush();
                            let mut line = String::new();
                            let _ = std::io::stdin().read_line(&mut line);
                            line
                        })
                    })
                    .await
                    .unwrap_or_default();
                    self.trace.waited(asked.elapsed());
                    let answer = match line.trim().to_ascii_lowercase().as_str() {
                        "y" | "yes" => Approval::AllowOnce,
                        "a" | "always" => Approval::AlwaysAllow,
                        _ => Approval::Deny(Some("the user said no".into())),
                    };
                    let said = match &answer {
                        Approval::AllowOnce => "yes",
                        Approval::AlwaysAllow => "always",
                        _ => "no",
                    };
                    self.trace.wait(request.call_id, asked, said);
                    answer
                }
                None => {
                    self.trace.note(&format!("  ? {question} → no (not a terminal; pass --yes or --deny to answer)"));
                    self.trace.wait(request.call_id, asked, "no (no terminal)");
                    Approval::Unanswered("there is no terminal to ask on (pass --yes to allow)".into())
                }
            }
        })
    }
}

/// `1 call`, `2 calls`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` with tabs expanded to the next multiple of 8 columns.
fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut column = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' => {
                out.push(c);
                column = 0;
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn tabs_expand_to_the_next_stop_on_each_line() {
        assert_eq!(super::expand_tabs("1\tone\n12\ttwo\n\tx"), "1       one\n12      two\n        x");
    }
}
