//! The MCP servers a command mounts: those of `--mcp-config FILE`, else of the
//! workspace's `.mcp.json` when it has one, unless `--no-mcp`.

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
    /// The config to mount for a workspace in `cwd`, if any.
    pub fn config(&self, cwd: &Path) -> Result<Option<McpConfig>, String> {
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
                project
            }
        };
        McpConfig::load(&path).map(Some).map_err(|e| e.to_string())
    }

    /// Mounts them into `registry` (each server within its connect timeout), with
    /// the warnings printed through `warn`.
    pub async fn mount(
        &self,
        cwd: &Path,
        registry: &Arc<toolwright::Registry>,
        warn: impl Fn(&str),
    ) -> Result<Option<McpMounts>, String> {
        let Some(config) = self.config(cwd)? else { return Ok(None) };
        let mounts = McpMounts::mount(Arc::clone(registry), &config, MountOptions::default()).await;
        for warning in mounts.warnings() {
            warn(&warning);
        }
        Ok(Some(mounts))
    }
}
