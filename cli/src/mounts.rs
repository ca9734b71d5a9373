//! The MCP servers a command mounts: those of `--mcp-config FILE`, else of the
//! workspace's `.mcp.json` when it has one and the workspace is trusted (its stdio
//! servers are commands run on this machine), unless `--no-mcp`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright::mcp::{McpConfig, McpMounts, MountOptions};

#[derive(clap::Args)]
pub struct McpArgs {
    /// Mount the servers of this mcpServers file (default: the workspace's
    /// `.mcp.json`, when there is one).
    #[arg(long, value_name = "FILE")]
    mcp_config: Option<PathBuf>,
    /// Mount no MCP servers, not even the workspace's `.mcp.json`.
    #[arg(long, conflicts_with = "mcp_config")]
    no_mcp: bool,
}

impl McpArgs {
    /// The config to mount for a workspace in `cwd`, if any. The workspace's own
    /// `.mcp.json` only when `trusted` (else a warning through `warn`); a file given
    /// with `--mcp-config` is the user's choice.
    pub fn config(&self, cwd: &Path, trusted: bool, warn: impl Fn(&str)) -> Result<Option<McpConfig>, String> {
        if self.no_mcp {
            return Ok(None);
        }
        let path = match &self.mcp_config {
            Some(path) => path.clone(),
            None => {
                let project = cwd.join(".mcp.json");
                if !project.is_file() {
                    return Ok(None);
                }
                if !trusted {
                    warn(&format!(
                        "{}: not mounted until this workspace is trusted (its servers are commands run on this \
                         machine); pass --trust-workspace, or --mcp-config to mount it yourself",
                        project.display()
                    ));
                    return Ok(None);
                }
                project
            }
        };
        McpConfig::load(&path).map(Some).map_err(|e| e.to_string())
    }

    /// Mounts them into `registry` (each server within its connect timeout), with
    /// the warnings printed through `warn`. A tool whose input schema cannot be
    /// rendered for `renders_for` is left out; with `None` (a direct `call`, a
    /// `search`) nothing is rendered for a model and every tool is kept.
    pub async fn mount(
        &self,
        cwd: &Path,
        trusted: bool,
        registry: &Arc<toolwright::Registry>,
        plugins: &[toolwright::subagents::plugins::Plugin],
        renders_for: Option<toolwright::Provider>,
        warn: impl Fn(&str),
    ) -> Result<Option<McpMounts>, String> {
        let mut config = self.config(cwd, trusted, &warn)?;
        // Plugins' servers, as `plugin_<plugin>_<server>` (unless --no-mcp).
        if !self.no_mcp {
            for plugin in plugins {
                let Some(servers) = &plugin.mcp_servers else { continue };
                let renamed: serde_json::Map<String, serde_json::Value> =
                    servers.iter().map(|(name, v)| (plugin.server_name(name), v.clone())).collect();
                let text = serde_json::json!({ "mcpServers": renamed }).to_string();
                let origin = plugin.root.join(".mcp.json");
                match McpConfig::parse(&text, &origin) {
                    Ok(more) => {
                        let into = config.get_or_insert_with(McpConfig::default);
                        into.servers.extend(more.servers);
                        into.warnings.extend(more.warnings);
                    }
                    Err(e) => warn(&format!("plugin `{}`: its MCP servers are not mounted: {e}", plugin.name)),
                }
            }
        }
        let Some(config) = config else { return Ok(None) };
        // A tool is left out only when its schema cannot go to the provider this
        // run talks to: an Anthropic agent keeps the tools Gemini could not take.
        let options = MountOptions::default().providers(renders_for);
        let mounts = McpMounts::mount(Arc::clone(registry), &config, options).await;
        for warning in mounts.warnings() {
            warn(&warning);
        }
        Ok(Some(mounts))
    }
}
