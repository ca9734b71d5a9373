//! `--plugin-dir`: Claude Code plugins read from disk for one session, with those the
//! settings enable (`enabledPlugins`) that are installed under
//! `~/.claude/plugins/cache/`. The workspace's settings enable plugins only once it
//! is trusted; a folder named on the command line is the user's choice.

use std::path::{Path, PathBuf};
use toolwright::subagents::plugins::Plugins;

#[derive(clap::Args, Clone, Default)]
pub struct PluginArgs {
    /// Load the Claude Code plugin in this folder (its skills, commands, agents, hooks
    /// and MCP servers) for this session (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    plugin_dirs: Vec<PathBuf>,
}

impl PluginArgs {
    /// The plugins for a session in `workspace`, with each problem passed to `warn`.
    pub fn load(&self, workspace: &Path, trusted: bool, warn: impl Fn(&str)) -> Plugins {
        let mut dirs = self.plugin_dirs.clone();
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        if let Some(home) = &home {
            let mut files = vec![home.join(".claude/settings.json")];
            if trusted {
                files.push(workspace.join(".claude/settings.json"));
                files.push(workspace.join(".claude/settings.local.json"));
            }
            for file in files {
                let Ok(text) = std::fs::read_to_string(&file) else { continue };
                let Ok(settings) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
                let (found, problems) = Plugins::enabled_in(&settings, home, &file);
                dirs.extend(found);
                for problem in problems {
                    warn(&problem.to_string());
                }
            }
        }
        let plugins = Plugins::load(&dirs);
        for problem in plugins.problems() {
            warn(&problem.to_string());
        }
        plugins
    }
}

/// The plugins' hooks, beside the settings' own.
pub fn add_hooks(plugins: &Plugins, settings: &mut toolwright::WorkspaceSettings) {
    for plugin in plugins.plugins() {
        if let Some(hooks) = &plugin.hooks {
            let hooks = toolwright::rules::hooks::CommandHooks::from_value(hooks);
            settings.add_hooks(hooks, &plugin.root.join("hooks/hooks.json"));
        }
    }
}
