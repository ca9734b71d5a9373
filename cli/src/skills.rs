//! `toolwright skills`: the skills found for a workspace, what the model's listing
//! shows of them, and every problem with them.

use std::path::PathBuf;
use toolwright::skills::{SkillCatalog, SkillOptions};
use toolwright::subagents::Severity;

/// List the skills for the workspace and every problem with them.
///
/// Reads `SKILL.md` files where Claude Code looks (managed, `~/.claude/skills/`,
/// `~/.agents/skills/`, `.claude/skills/` and `.agents/skills/` from the working
/// directory up to the repository's root, `--plugin-dir`s, `.claude/commands/`), by
/// Claude Code's precedence. The workspace's own wait until it is trusted. Exits
/// with 1 when a skill file cannot be used.
#[derive(clap::Args)]
pub struct SkillsArgs {
    /// The workspace (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Print JSON: {"skills": [...], "listing": ..., "problems": [...]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    trust: crate::turn::TrustArgs,
    #[command(flatten)]
    places: SkillPlaces,
    #[command(flatten)]
    plugins: crate::plugins::PluginArgs,
}

/// Where skills come from besides the standard places.
#[derive(clap::Args, Clone, Default)]
pub struct SkillPlaces {
    /// A directory added to the session: its `.claude/skills/` and `.claude/commands/`
    /// too (repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    add_dirs: Vec<PathBuf>,
}

impl SkillPlaces {
    /// The options for `cwd`, trusted as `trust` says.
    pub fn options(&self, trust: toolwright::rules::trust::Trust) -> SkillOptions {
        SkillOptions::new().trust(trust).additional_dirs(self.add_dirs.iter().cloned())
    }
}

/// The listing, and whether every skill file could be used.
pub fn run(args: SkillsArgs) -> Result<(String, bool), String> {
    let cwd = crate::turn::workspace_dir(args.cwd.as_deref())?;
    let trust = args.trust.trust(&cwd);
    let plugins = args.plugins.load(&cwd, trust.is_trusted(), |w| eprintln!("{w}"));
    let catalog = SkillCatalog::load(&cwd, &args.places.options(trust).plugins(plugins.plugins()));
    let ok = !catalog.problems().iter().chain(plugins.problems()).any(|p| p.severity == Severity::Error);
    let budget = toolwright::skills::budget_from_env();
    let text = if args.json { json(&catalog, budget) } else { text(&catalog, budget) };
    Ok((text, ok))
}

fn text(catalog: &SkillCatalog, budget: usize) -> String {
    let skills: Vec<_> = catalog.skills().collect();
    let mut out = format!("{} skill{}\n", skills.len(), if skills.len() == 1 { "" } else { "s" });
    for skill in &skills {
        let mut marks = vec![skill.source.name().to_owned()];
        if !skill.model_invocable() {
            marks.push("user only".into());
        }
        if skill.fork {
            marks.push(format!("runs as a subagent ({})", skill.agent.as_deref().unwrap_or("general-purpose")));
        }
        if !skill.allowed_tools.is_empty() {
            marks.push(format!("grants {}", skill.allowed_tools.join(" ")));
        }
        out.push_str(&format!("  {} ({})\n", skill.name, marks.join("; ")));
        let description = skill.listing_text(200);
        if !description.is_empty() {
            out.push_str(&format!("    {description}\n"));
        }
        if let Some(path) = &skill.path {
            out.push_str(&format!("    {}\n", path.display()));
        }
    }
    let listing = toolwright::skills::listing(catalog.model_invocable(), budget);
    out.push_str(&format!(
        "the model's listing: {} characters of {budget}{}\n",
        listing.text.chars().count(),
        if listing.names_only.is_empty() {
            String::new()
        } else {
            format!("; by name only: {}", listing.names_only.join(", "))
        }
    ));
    for problem in catalog.problems() {
        out.push_str(&format!("{problem}\n"));
    }
    out.trim_end().to_owned()
}

fn json(catalog: &SkillCatalog, budget: usize) -> String {
    let skills: Vec<serde_json::Value> = catalog
        .skills()
        .map(|s| {
            serde_json::json!({
                "name": s.name,
                "description": s.description,
                "source": s.source.name(),
                "path": s.path,
                "model_invocable": s.model_invocable(),
                "user_invocable": s.user_invocable,
                "allowed_tools": s.allowed_tools,
                "context": if s.fork { Some("fork") } else { None },
                "agent": s.agent,
                "argument_hint": s.argument_hint,
            })
        })
        .collect();
    let listing = toolwright::skills::listing(catalog.model_invocable(), budget);
    let problems: Vec<serde_json::Value> = catalog
        .problems()
        .iter()
        .map(|p| {
            serde_json::json!({
                "path": p.path,
                "key": p.key,
                "line": p.line,
                "severity": if p.severity == Severity::Error { "error" } else { "warning" },
                "message": p.message,
            })
        })
        .collect();
    serde_json::json!({
        "skills": skills,
        "listing": {"text": listing.text, "budget": budget, "names_only": listing.names_only},
        "problems": problems,
    })
    .to_string()
}
