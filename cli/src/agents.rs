//! `toolwright agents`: the subagent definitions found for a workspace, and every
//! problem with them.

use std::path::PathBuf;
use toolwright::subagents::{AgentDefinition, Catalog, LoadOptions, Severity};

/// List the subagent definitions for the workspace and every problem with them.
///
/// Reads Claude Code's agent files (managed, `.claude/agents/` from the working
/// directory up to the repository's root, `~/.claude/agents/`) and Cline-format ones
/// (`.cline/agents/`), by Claude Code's precedence. The workspace's own wait until it
/// is trusted. Exits with 1 when a definition file cannot be used.
#[derive(clap::Args)]
pub struct AgentsArgs {
    /// The workspace (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Definitions as Claude Code's `--agents` JSON: {"name": {"description": ...,
    /// "prompt": ..., "tools": [...]}}; `@FILE` reads it from a file.
    #[arg(long, value_name = "JSON")]
    agents: Option<String>,
    /// Print JSON: {"agents": [...], "shadowed": [...], "problems": [...]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trust: crate::turn::TrustArgs,
    #[command(flatten)]
    plugins: crate::plugins::PluginArgs,
}

/// The definitions of `--agents JSON|@FILE`, and the problems with them.
pub fn given(agents: Option<&str>) -> Result<(Vec<AgentDefinition>, Vec<toolwright::subagents::Problem>), String> {
    let Some(text) = agents else { return Ok((Vec::new(), Vec::new())) };
    let text = match text.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).map_err(|e| format!("--agents @{file}: {e}"))?,
        None => text.to_owned(),
    };
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("--agents: not JSON ({e})"))?;
    Ok(AgentDefinition::from_agents_json(&json))
}

/// The listing, and whether every definition file could be used.
pub fn run(args: AgentsArgs) -> Result<(String, bool), String> {
    let cwd = crate::turn::workspace_dir(args.cwd.as_deref())?;
    let (given, mut problems) = given(args.agents.as_deref())?;
    let trust = args.trust.trust(&cwd);
    let plugins = args.plugins.load(&cwd, trust.is_trusted(), |_| {});
    problems.extend(plugins.problems().iter().cloned());
    let options = LoadOptions::new().trust(trust).given(given).plugins(plugins.plugins());
    let catalog = Catalog::load(&cwd, &options);
    problems.extend(catalog.problems().iter().cloned());
    let ok = !problems.iter().any(|p| p.severity == Severity::Error);
    let text = if args.json { json(&catalog, &problems) } else { text(&catalog, &problems) };
    Ok((text, ok))
}

fn text(catalog: &Catalog, problems: &[toolwright::subagents::Problem]) -> String {
    let mut out = String::new();
    let agents = catalog.available();
    let count = agents.len();
    out.push_str(&format!("{count} agent{}\n", if count == 1 { "" } else { "s" }));
    for agent in &agents {
        let tools = match &agent.tools {
            Some(tools) => tools.join(", "),
            None => "every tool a subagent may have".to_owned(),
        };
        let from = agent
            .path
            .as_ref()
            .map_or_else(|| agent.source.name().to_owned(), |p| format!("{}: {}", agent.source.name(), p.display()));
        out.push_str(&format!("  {}  ({from})\n    {}\n    tools: {tools}", agent.name, agent.description));
        if !agent.disallowed_tools.is_empty() {
            out.push_str(&format!("; never: {}", agent.disallowed_tools.join(", ")));
        }
        if let Some(model) = &agent.model {
            out.push_str(&format!("; model: {model}"));
        }
        if let Some(mode) = agent.permission_mode {
            out.push_str(&format!("; mode: {}", mode.name()));
        }
        out.push('\n');
    }
    for shadowed in catalog.shadowed() {
        let by = shadowed.by_path.as_ref().map_or_else(|| shadowed.by.name().to_owned(), |p| p.display().to_string());
        let this = shadowed
            .definition
            .path
            .as_ref()
            .map_or_else(|| shadowed.definition.source.name().to_owned(), |p| p.display().to_string());
        out.push_str(&format!("  ({} in {this} is replaced by {by})\n", shadowed.definition.name));
    }
    if !problems.is_empty() {
        out.push_str(&format!("{} problem{}\n", problems.len(), if problems.len() == 1 { "" } else { "s" }));
        for problem in problems {
            out.push_str(&format!("  {problem}\n"));
        }
    }
    out.trim_end().to_owned()
}

fn json(catalog: &Catalog, problems: &[toolwright::subagents::Problem]) -> String {
    let agents: Vec<serde_json::Value> = catalog
        .available()
        .iter()
        .map(|a| {
            serde_json::json!({
                "name": a.name, "description": a.description, "source": a.source.name(), "path": a.path,
                "tools": a.tools, "disallowedTools": a.disallowed_tools, "model": a.model,
                "permissionMode": a.permission_mode.map(|m| m.name()), "maxTurns": a.max_turns,
                "background": a.background, "prompt": a.prompt,
            })
        })
        .collect();
    let shadowed: Vec<serde_json::Value> = catalog
        .shadowed()
        .iter()
        .map(|s| serde_json::json!({"name": s.definition.name, "path": s.definition.path, "by": s.by.name(), "byPath": s.by_path}))
        .collect();
    let problems: Vec<serde_json::Value> = problems
        .iter()
        .map(|p| {
            serde_json::json!({
                "path": p.path, "key": p.key, "line": p.line, "message": p.message,
                "severity": if p.severity == Severity::Error { "error" } else { "warning" },
            })
        })
        .collect();
    serde_json::json!({"agents": agents, "shadowed": shadowed, "problems": problems}).to_string()
}
