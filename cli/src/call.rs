//! `toolwright call <tool> <json | @file | ->`: one call through the pipeline.

use super::trace::{Mode, Trace};
use super::turn::{block_on, traced_turn};
use serde_json::json;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;
use toolwright::ToolCall;

#[derive(clap::Args)]
pub struct CallArgs {
    /// The tool's name (or an alias).
    tool: String,
    /// The input: JSON text, `@file` to read it from a file, or `-` for stdin.
    input: String,
    /// The working directory for the call (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<std::path::PathBuf>,
    #[command(flatten)]
    answer: super::trace::Answer,
    /// Print the result as JSON (content, isError, error kind, duration).
    #[arg(long)]
    json: bool,
    #[cfg(feature = "mcp")]
    #[command(flatten)]
    mcp: super::mounts::McpArgs,
    #[command(flatten)]
    trust: super::turn::TrustArgs,
    #[command(flatten)]
    plugin_args: super::plugins::PluginArgs,
    /// The largest input taken, in bytes; a larger one is refused unread.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    max_input_bytes: u64,
}

/// Where `call` keeps the reads of its session, in the workspace.
const SESSION_FILE: &str = ".toolwright/call-session.json";

/// The input, read no further than `max_bytes`. (Its depth is the pipeline's to
/// check: an input nested past what the parser reads is an error result naming it.)
fn read_input(spec: &str, max_bytes: u64) -> Result<String, String> {
    let over = |what: &str| format!("{what} is over the limit of {max_bytes} bytes (--max-input-bytes)");
    let bounded = |reader: &mut dyn Read, what: &str| -> Result<String, String> {
        let mut bytes = Vec::new();
        reader.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("reading {what}: {e}"))?;
        if bytes.len() as u64 > max_bytes {
            return Err(over(what));
        }
        String::from_utf8(bytes).map_err(|e| format!("{what} is not UTF-8: {e}"))
    };
    let text = if spec == "-" {
        bounded(&mut std::io::stdin().lock(), "the input from stdin")?
    } else if let Some(path) = spec.strip_prefix('@') {
        let mut file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
        bounded(&mut file, path)?
    } else if spec.len() as u64 > max_bytes {
        return Err(over("the input"));
    } else {
        spec.to_owned()
    };
    // The CLI's own input: bad JSON is an error here, not a result.
    if !text.trim().is_empty() {
        serde_json::from_str::<&serde_json::value::RawValue>(&text)
            .map_err(|e| format!("the input is not JSON: {e}"))?;
    }
    Ok(text)
}

/// Runs the call; `Ok(false)` when the tool answered with an error result.
pub fn run(args: CallArgs) -> Result<bool, String> {
    let input = read_input(&args.input, args.max_input_bytes)?;
    let cwd = super::turn::workspace_dir(args.cwd.as_deref())?;
    // The workspace's rules and hooks, as for `serve`, with the plugins' hooks.
    let mut workspace = args.trust.load(&cwd)?;
    let trusted = workspace.trust().is_trusted();
    for warning in workspace.warnings() {
        say!("toolwright: warning: {warning}");
    }
    let plugins = args.plugin_args.load(&cwd, trusted, |w| say!("toolwright: warning: {w}"));
    super::plugins::add_hooks(&plugins, &mut workspace);
    // Questions and notes go to stderr through a plain trace; stdout is the result.
    let trace = Trace::new(Mode::Stderr);
    let answer = args.answer.given();
    let registry = Arc::new(crate::registry()?);
    let approver = super::trace::PromptApprover { answer, trace: Arc::clone(&trace) };
    let denied = super::lsp::denied_env(&workspace, &cwd);
    let executor = workspace.executor(registry, approver);
    let result = block_on(async {
        // The workspace's MCP servers, mounted before the call (it may be theirs).
        #[cfg(feature = "mcp")]
        let warn = |w: &str| say!("toolwright: warning: {w}");
        let _mounts = args.mcp.mount(&cwd, trusted, executor.registry(), plugins.plugins(), None, warn).await?;
        let (turn, printer) = traced_turn(&cwd, &trace);
        // One session across calls: what an earlier call read may be edited now (a
        // write still checks that the file has not changed since).
        let session_file = Path::new(SESSION_FILE);
        let states = toolwright::builtin::FileStates::load(&cwd, session_file);
        let lsp = super::lsp::load(&cwd, trusted, &plugins, &denied, |w| say!("toolwright: warning: {w}"));
        let mut extensions = super::lsp::session(&lsp);
        extensions.insert(states.clone());
        let turn = turn.with_extensions(extensions);
        let result = executor.execute(&ToolCall::new("cli-call", args.tool.as_str(), input), &turn).await;
        lsp.shutdown().await;
        drop(turn);
        let _ = printer.await;
        if let Err(e) = states.save(&cwd, session_file) {
            say!("toolwright: warning: cannot keep the session's reads in {}: {e}", cwd.join(session_file).display());
        }
        Ok::<_, String>(result)
    })??;
    let mut stdout = std::io::stdout().lock();
    let text = if args.json {
        json!({
            "tool": &*result.tool, "is_error": result.output.is_error, "error": result.error.map(|k| k.label()),
            "duration_ms": result.duration.as_secs_f64() * 1000.0, "truncated": result.truncated,
            "content": result.output.content.iter().map(|c| c.to_model_text()).collect::<Vec<_>>(),
            "structured": result.output.structured,
        })
        .to_string()
    } else {
        result.output.text_content()
    };
    writeln!(stdout, "{text}").map_err(|e| format!("cannot write output: {e}"))?;
    if let Some(kind) = result.error {
        say!("toolwright: `{}` answered with an error ({})", args.tool, kind.label());
    }
    Ok(!result.output.is_error)
}
