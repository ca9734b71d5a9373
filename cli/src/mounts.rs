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
    /// the warnings printed through `warn`.
    pub async fn mount(
        &self,
        cwd: &Path,
        trusted: bool,
        registry: &Arc<toolwright::Registry>,
        warn: impl Fn(&str),
    ) -> Result<Option<McpMounts>, String> {
        let Some(config) = self.config(cwd, trusted, &warn)? else { return Ok(None) };
        let mounts = McpMounts::mount(Arc::clone(registry), &config, MountOptions::default()).await;
        for warning in mounts.warnings() {
            warn(&warning);
        }
        Ok(Some(mounts))
    }
}
