//! `shell`: `bash -c` in a working directory that persists between calls, in its own
//! process group so that a timeout or a cancellation kills everything it started.

use crate::workspace::Workspace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use toolwright_core::access::{Access, Accesses, CommandLine};
use toolwright_core::leftovers::{CallTag, PendingTemp, ProcessGroup};
use toolwright_shell::{self as shell, Analysis};
use std::time::{Duration, Instant};
use toolwright_core::truncate::cut_middle;
use toolwright_core::{ContextModifier, Tool, ToolContext, ToolError, ToolOutput, tool};

/// The timeout when none is given: 2 minutes.
pub const DEFAULT_SHELL_TIMEOUT_MS: u64 = 120_000;
/// How long the output pipe may stay open after the command's processes were
/// killed: the time for the kernel to close their ends.
const PIPE_GRACE: Duration = Duration::from_millis(500);
/// How often a running command reports progress (when its output has grown).
const PROGRESS_EVERY: Duration = Duration::from_millis(500);
/// How much of the end of the output a progress report looks at for its last line.
const PROGRESS_LINE_BYTES: u64 = 200;
/// The longest timeout a call may ask for: 10 minutes.
pub const MAX_SHELL_TIMEOUT_MS: u64 = 600_000;
/// Bytes of output the model gets; the middle of a longer output is cut.
pub const MAX_SHELL_OUTPUT_BYTES: usize = 30_000;
/// Bytes kept from each end of the raw output while a command runs.
const CAPTURE_END_BYTES: usize = 256 * 1024;

/// Run a shell command (build, test, git, install, scripts) with `bash -c` and return
/// its output and exit code.
///
/// The working directory persists between calls: after `cd sub`, later commands run
/// in `sub`. stdout and stderr are merged; a long output keeps its start and end.
/// The timeout defaults to 2 minutes (at most 10); on timeout or cancellation every
/// process the command started is killed. With `run_in_background`, the command
/// keeps running and the result is a handle: read its output later with
/// shell_output. Destructive: a command can delete or overwrite anything the user can.
/// A command classified read-only (every part only reads) is read-only and
/// concurrency-safe for that call.
#[tool(title = "Run shell command", destructive, open_world, timeout_secs = 660, rule_name = "Bash", aliases = ["Bash"])]
pub struct Shell {
    /// The command, as you would type it in bash.
    pub command: String,
    /// A short description of what the command does, for the user.
    pub description: Option<String>,
    /// In milliseconds; defaults to 120000, at most 600000.
    #[schemars(range(min = 1, max = MAX_SHELL_TIMEOUT_MS))]
    pub timeout: Option<u64>,
    /// Return at once with a handle for shell_output.
    #[serde(default)]
    pub run_in_background: bool,
    /// Run unsandboxed, only after the sandbox blocked this command; needs permission.
    #[serde(default)]
    pub dangerously_disable_sandbox: bool,
    /// The command's analysis, made once: the flags and the permission policy read it.
    #[serde(skip)]
    analysis: OnceLock<Arc<Analysis>>,
}

impl Shell {
    /// A call of `command` with the defaults.
    pub fn new(command: impl Into<String>) -> Shell {
        Shell {
            command: command.into(),
            description: None,
            timeout: None,
            run_in_background: false,
            dangerously_disable_sandbox: false,
            analysis: OnceLock::new(),
        }
    }

    fn analysis(&self) -> &Arc<Analysis> {
        self.analysis.get_or_init(|| Arc::new(shell::analyze(&self.command)))
    }
}

impl Tool for Shell {
    type Output = ToolOutput;

    /// Claude Code's Bash spells it `dangerouslyDisableSandbox`.
    const FIELD_ALIASES: &'static [(&'static str, &'static str)] =
        &[("dangerouslyDisableSandbox", "dangerously_disable_sandbox")];

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.command.trim().is_empty() {
            return Err(ToolError::msg("`command` is empty"));
        }
        // (`timeout`'s bounds are the schema's, checked before this.)
        Ok(())
    }

    /// Read-only when the permission rules' classifier says every part of the command
    /// only reads (`ls`, `git status`, `rg ...`, no redirection to a file).
    fn is_read_only(&self) -> bool {
        shell::analysis_is_read_only(self.analysis())
    }

    /// The command, with its analysis for the policy.
    fn access(&self) -> Accesses {
        Accesses::of([Access::Command(CommandLine::with_analysis(self.command.as_str(), Arc::clone(self.analysis())))])
    }

    /// A read-only command may run alongside other safe calls.
    fn is_concurrency_safe(&self) -> bool {
        self.is_read_only()
    }

    fn summary(&self) -> Option<String> {
        Some(match &self.description {
            Some(description) => format!("$ {} ({description})", first_line(&self.command)),
            None => format!("$ {}", first_line(&self.command)),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let workspace = Workspace::of(cx)?;
        let cwd = cx.cwd().to_path_buf();
        let sandbox = crate::sandbox::for_call(cx);
        let cwd_file = tempfile::NamedTempFile::new().map_err(|e| ToolError::io("cannot create a temporary file", e))?;
        let _pending = PendingTemp::new(cwd_file.path());
        let decision = crate::sandbox::decide(
            &sandbox,
            &self.command,
            self.dangerously_disable_sandbox,
            workspace.roots(),
            &[cwd_file.path()],
        )?;
        let (mut confinement, first_note) = match decision {
            crate::sandbox::Decision::Confine(confinement) => {
                let note = confinement.degraded.clone();
                (Some(confinement), note)
            }
            crate::sandbox::Decision::Unconfined { note } => (None, note),
        };
        if self.run_in_background {
            let shells = cx.extension::<BackgroundShells>().ok_or_else(|| {
                ToolError::msg(
                    "background commands need a BackgroundShells table in the session \
                     (the agent must put `toolwright_builtin::session()` in the turn's extensions)",
                )
            })?;
            let id = shells.start(&self.command, &cwd, confinement)?;
            let note = first_note.map(|note| format!("({note})\n")).unwrap_or_default();
            return Ok(ToolOutput::text(format!(
                "{note}Started in the background as `{id}`. Read its output with shell_output(id: \"{id}\")."
            )));
        }
        let timeout = Duration::from_millis(self.timeout.unwrap_or(DEFAULT_SHELL_TIMEOUT_MS));
        let mut running = Running::spawn(&self.command, &cwd, Some(cwd_file.path()), confinement.as_deref_mut())?;
        let started = Instant::now();
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
        let mut reported = 0;
        let outcome = loop {
            tokio::select! {
                status = running.child.wait() => {
                    break Outcome::Exited(status.map_err(|e| ToolError::io("waiting for bash failed", e))?);
                }
                () = &mut deadline => break Outcome::TimedOut,
                () = cx.cancellation().cancelled() => break Outcome::Cancelled,
                _ = ticker.tick() => {
                    if let Some(report) = running.progress(&mut reported, started.elapsed()) {
                        cx.progress(report);
                    }
                }
            }
        };
        let elapsed = started.elapsed();
        // Whatever the command left behind in its group goes too.
        running.group.kill();
        let output = running.output().await;
        let mut text = render_output(&output);
        // What a confined command must not change is put back, however it ended.
        let undone = confinement.as_ref().map(|c| c.guard.restore()).unwrap_or_default();
        let undone_note = (!undone.is_empty()).then(|| {
            let names: Vec<String> = undone.iter().map(|p| format!("`{}`", p.display())).collect();
            format!(
                "\n\nBlocked by the sandbox: the command changed {}, which decide what later commands may do; the \
                 change was undone. Ask the user to make it.",
                names.join(", ")
            )
        });
        match outcome {
            Outcome::Cancelled => Err(ToolError::Cancelled),
            Outcome::TimedOut => {
                text.push_str(&format!(
                    "\n\nTimed out after {:.1} s: the command and every process it started were killed.",
                    elapsed.as_secs_f64()
                ));
                text.push_str(undone_note.as_deref().unwrap_or_default());
                Ok(ToolOutput::error(text))
            }
            Outcome::Exited(status) => {
                let code = status.code();
                let refused = confinement.as_ref().and_then(|c| c.refused_note().or_else(|| c.process_bound_note()));
                let blocked = match (&confinement, code) {
                    // The proxy's own account says more than the output's signs.
                    _ if refused.is_some() => refused,
                    (Some(confinement), c) if c != Some(0) => {
                        crate::sandbox::blocked_note(&text, &confinement.summary, sandbox.allow_unsandboxed)
                    }
                    _ => None,
                };
                let mut result = match code {
                    Some(0) => ToolOutput::text(text),
                    Some(code) => ToolOutput::error(format!("{text}\n\nExit code: {code}")),
                    None => ToolOutput::error(format!("{text}\n\nKilled by a signal.")),
                };
                if let Some(note) = blocked {
                    result = append_text(result, &format!("\n\n{note}"));
                }
                if let Some(note) = &undone_note {
                    result = ToolOutput::error(format!("{}{note}", result.text_content()));
                }
                // First, so a trace that shows only the first lines shows it too.
                if let Some(note) = &first_note {
                    result = prepend_text(result, &format!("({note})\n"));
                }
                if let Some(new_cwd) = read_cwd(cwd_file.path())
                    && new_cwd != cwd.canonicalize().unwrap_or_else(|_| cwd.clone())
                {
                    if workspace.roots().iter().any(|root| new_cwd.starts_with(root)) {
                        // The workspace stays where it was, not where the shell went.
                        let modifier = ContextModifier::new(move |turn| {
                            if turn.extension::<Workspace>().is_none() {
                                turn.insert_extension(workspace.clone());
                            }
                            turn.set_cwd(new_cwd.clone());
                        });
                        result = result.with_modifier(modifier);
                    } else {
                        let note = format!(
                            "\n(the working directory stays `{}`: `{}` is outside the workspace)",
                            cwd.display(),
                            new_cwd.display()
                        );
                        result = append_text(result, &note);
                    }
                }
                Ok(result)
            }
        }
    }
}

enum Outcome {
    Exited(std::process::ExitStatus),
    TimedOut,
    Cancelled,
}

fn first_line(command: &str) -> &str {
    command.lines().next().unwrap_or("")
}

fn append_text(output: ToolOutput, note: &str) -> ToolOutput {
    let text = output.text_content() + note;
    with_text(output, text)
}

fn prepend_text(output: ToolOutput, note: &str) -> ToolOutput {
    let text = format!("{note}{}", output.text_content());
    with_text(output, text)
}

fn with_text(output: ToolOutput, text: String) -> ToolOutput {
    let modifier = output.modifier.clone();
    let mut out = if output.is_error { ToolOutput::error(text) } else { ToolOutput::text(text) };
    out.modifier = modifier;
    out
}

fn read_cwd(file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| PathBuf::from(line))
}

/// The merged output of a command: its start and end, however long it ran.
#[derive(Debug, Default)]
pub(crate) struct Captured {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    /// Bytes between head and tail that were not kept.
    dropped: u64,
    /// Bytes ever written.
    total: u64,
}

impl Captured {
    fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = CAPTURE_END_BYTES.saturating_sub(self.head.len());
        let (now, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(now);
        bytes = rest;
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(CAPTURE_END_BYTES);
        if excess > 0 {
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// Everything kept, as bytes.
    fn bytes(&self) -> (Vec<u8>, u64) {
        (self.since(0), self.dropped)
    }

    /// The kept bytes from `offset` (counted over everything written) on. The tail
    /// only holds bytes written after the head filled, so the two never overlap.
    fn since(&self, offset: u64) -> Vec<u8> {
        let tail_start = self.total - self.tail.len() as u64;
        let mut out = Vec::new();
        if let Some(head) = self.head.get(usize::try_from(offset).unwrap_or(usize::MAX)..) {
            out.extend_from_slice(head);
        }
        let skip = offset.saturating_sub(tail_start);
        out.extend(self.tail.iter().skip(usize::try_from(skip).unwrap_or(usize::MAX)));
        out
    }
}

/// The model's view of an output: lossily decoded (with a note), middle cut.
pub(crate) fn render_output(captured: &Captured) -> String {
    let (bytes, dropped) = captured.bytes();
    let (text, lossy) = match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    let mut out = match cut_middle(&text, MAX_SHELL_OUTPUT_BYTES) {
        Some(cut) => format!(
            "{}\n[… {} bytes ({} lines) cut from the middle …]\n{}",
            cut.head.trim_end_matches('\n'),
            cut.cut_bytes as u64 + dropped,
            cut.cut_lines,
            cut.tail
        ),
        None => text.clone(),
    };
    if out.is_empty() {
        out.push_str("(no output)");
    }
    let out = out.trim_end_matches('\n').to_owned();
    if lossy { format!("{out}\n(the output was not valid UTF-8; invalid bytes are shown as \u{FFFD})") } else { out }
}

/// Everything a command started: its process group, and the processes that left
/// the group, found by their tag. Killed when this is dropped (a cancelled call's
/// future is dropped after the grace period), and by
/// [`leftovers::clean_up`](toolwright_core::leftovers::clean_up) when the process is
/// told to stop.
pub(crate) struct Group {
    group: ProcessGroup,
    tag: CallTag,
}

impl Group {
    pub(crate) fn kill(&mut self) {
        self.group.kill();
        self.tag.kill_tagged();
    }
}

/// A spawned `bash -c` with its output being read.
pub(crate) struct Running {
    pub(crate) child: tokio::process::Child,
    pub(crate) group: Group,
    output: Arc<Mutex<Captured>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Starts `command` in `cwd`, in a new process group, stdout and stderr into one
    /// pipe; with `cwd_file`, bash writes its final working directory there on exit.
    pub(crate) fn spawn(
        command: &str,
        cwd: &Path,
        cwd_file: Option<&Path>,
        confinement: Option<&mut crate::sandbox::Confinement>,
    ) -> Result<Running, ToolError> {
        let (reader, writer) = std::io::pipe().map_err(|e| ToolError::io("cannot create a pipe", e))?;
        let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(reader.into())
            .map_err(|e| ToolError::io("cannot read from a pipe", e))?;
        let tag = CallTag::new();
        let writer2 = writer.try_clone().map_err(|e| ToolError::io("cannot create a pipe", e))?;
        let script = match cwd_file {
            Some(_) => format!("trap 'pwd -P > \"$TOOLWRIGHT_CWD_FILE\"' EXIT\n{command}"),
            None => command.to_owned(),
        };
        let mut cmd = match &confinement {
            Some(confinement) => confinement.command("bash"),
            None => tokio::process::Command::new("bash"),
        };
        cmd.arg("-c")
            .arg(script)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(writer2)
            .process_group(0)
            .kill_on_drop(true);
        if let Some(file) = cwd_file {
            cmd.env("TOOLWRIGHT_CWD_FILE", file);
        }
        let (tag_name, tag_value) = tag.env();
        cmd.env(tag_name, tag_value);
        // `cmd` holds the pipe's write ends; it is dropped once spawned, so EOF comes
        // when the group exits.
        let child = match confinement {
            Some(confinement) => crate::sandbox::spawn(cmd, confinement)?,
            None => cmd.spawn().map_err(|e| ToolError::io("cannot start bash", e))?,
        };
        let group = Group { group: ProcessGroup::adopt(child.id()), tag };
        let output = Arc::new(Mutex::new(Captured::default()));
        let sink = Arc::clone(&output);
        let reader = tokio::spawn(async move {
            use tokio::io::AsyncReadExt as _;
            let mut reader = reader;
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = reader.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap_or_else(PoisonError::into_inner).push(&buf[..n]);
            }
        });
        Ok(Running { child, group, output, reader })
    }

    /// A progress report when the output has grown since `reported` bytes: how long
    /// the command has run, how much it wrote, and its last line.
    fn progress(&self, reported: &mut u64, elapsed: Duration) -> Option<toolwright_core::Progress> {
        let captured = self.output.lock().unwrap_or_else(PoisonError::into_inner);
        if captured.total == *reported {
            return None;
        }
        *reported = captured.total;
        let recent = captured.since(captured.total.saturating_sub(PROGRESS_LINE_BYTES));
        let text = String::from_utf8_lossy(&recent);
        let last = text.trim_end().rsplit('\n').next().unwrap_or_default().trim();
        Some(toolwright_core::Progress::message(format!(
            "running for {:.1} s, {} bytes of output; last line: {last}",
            elapsed.as_secs_f64(),
            captured.total
        )))
    }

    /// The output, once the pipe has closed (the group and the tagged processes
    /// were killed, so it will), or after [`PIPE_GRACE`]: a process that escaped
    /// the tag may hold the pipe open, and the call does not wait for it.
    async fn output(self) -> Captured {
        let Running { output, mut reader, .. } = self;
        if tokio::time::timeout(PIPE_GRACE, &mut reader).await.is_err() {
            reader.abort();
        }
        std::mem::take(&mut *output.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// One background command.
struct Background {
    command: String,
    output: Arc<Mutex<Captured>>,
    /// Bytes of the output already returned by shell_output.
    read: u64,
    status: Arc<Mutex<Option<Option<i32>>>>,
    group: Arc<Mutex<Group>>,
    started: Instant,
}

/// The session's background commands. Dropping the last clone kills those still
/// running.
#[derive(Clone, Default)]
pub struct BackgroundShells {
    inner: Arc<Mutex<HashMap<String, Background>>>,
    next: Arc<AtomicU64>,
}

impl std::fmt::Debug for BackgroundShells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.inner.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "BackgroundShells({n} commands)")
    }
}

impl BackgroundShells {
    fn start(
        &self,
        command: &str,
        cwd: &Path,
        mut confinement: Option<Box<crate::sandbox::Confinement>>,
    ) -> Result<String, ToolError> {
        let Running { mut child, group, output, reader: _ } =
            Running::spawn(command, cwd, None, confinement.as_deref_mut())?;
        let id = format!("shell_{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let status = Arc::new(Mutex::new(None));
        let done = Arc::clone(&status);
        tokio::spawn(async move {
            let code = child.wait().await.ok().map(|s| s.code());
            *done.lock().unwrap_or_else(PoisonError::into_inner) = Some(code.flatten());
            // What it must not change is put back, and its temporary directory goes.
            if let Some(confinement) = confinement {
                confinement.guard.restore();
            }
        });
        let entry = Background {
            command: command.to_owned(),
            output,
            read: 0,
            status,
            group: Arc::new(Mutex::new(group)),
            started: Instant::now(),
        };
        self.inner.lock().unwrap_or_else(PoisonError::into_inner).insert(id.clone(), entry);
        Ok(id)
    }

    /// New output of a background command since the last read, and its state; with
    /// `kill`, the command's process group is killed first.
    pub(crate) fn read(
        &self,
        id: &str,
        kill: bool,
        filter: Option<&grep_regex::RegexMatcher>,
    ) -> Result<ToolOutput, ToolError> {
        let mut table = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let known: Vec<String> = table.keys().cloned().collect();
        let Some(entry) = table.get_mut(id) else {
            let mut known = known;
            known.sort();
            let list = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
            return Err(ToolError::msg(format!("no background command `{id}`; the running ones are: {list}")));
        };
        if kill {
            entry.group.lock().unwrap_or_else(PoisonError::into_inner).kill();
        }
        let captured = entry.output.lock().unwrap_or_else(PoisonError::into_inner);
        let mut fresh = captured.since(entry.read);
        entry.read = captured.total;
        drop(captured);
        if let Some(filter) = filter {
            use grep_matcher::Matcher as _;
            fresh = fresh
                .split_inclusive(|&b| b == b'\n')
                .filter(|line| filter.is_match(line.strip_suffix(b"\n").unwrap_or(line)).unwrap_or(false))
                .flatten()
                .copied()
                .collect();
        }
        let mut view = Captured::default();
        view.push(&fresh);
        let text = if fresh.is_empty() { "(no new output)".to_owned() } else { render_output(&view) };
        let state = match *entry.status.lock().unwrap_or_else(PoisonError::into_inner) {
            None if kill => "killed".to_owned(),
            None => format!("running for {:.0} s", entry.started.elapsed().as_secs_f64()),
            Some(Some(code)) => format!("exited with code {code}"),
            Some(None) => "killed by a signal".to_owned(),
        };
        Ok(ToolOutput::text(format!("`{id}` ({}): {state}\n{text}", first_line(&entry.command))))
    }
}

impl Drop for BackgroundShells {
    fn drop(&mut self) {
        if Arc::strong_count(&self.inner) == 1 {
            for entry in self.inner.lock().unwrap_or_else(PoisonError::into_inner).values() {
                entry.group.lock().unwrap_or_else(PoisonError::into_inner).kill();
            }
        }
    }
}
