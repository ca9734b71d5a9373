//! A workspace's settings as the commands use them, in one call: the permission rules
//! and the hooks of every settings file (Claude Code's and toolwright's), an executor
//! built from them, and an MCP server that serves a registry under them, as
//! `toolwright serve` does.

use crate::rules::RulePolicy;
use crate::rules::hooks::CommandHooks;
use crate::rules::settings::{self, SettingsError, Trust};
use crate::{Executor, Registry};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright_core::permission::Approver;

/// The rules and hooks that apply in a workspace.
///
/// ```no_run
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// let cwd = std::env::current_dir()?;
/// let settings = toolwright::WorkspaceSettings::load(&cwd)?;
/// for warning in settings.warnings() { eprintln!("warning: {warning}"); }
/// let registry = Arc::new(toolwright::registry()?);
/// # #[cfg(feature = "mcp-stdio")]
/// let server = settings.mcp_server(registry, toolwright::mcp::AskMode::Deny);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct WorkspaceSettings {
    cwd: PathBuf,
    trust: Trust,
    policy: RulePolicy,
    hooks: CommandHooks,
    /// `mcpCallers`: what each caller of a served registry may do.
    callers: Vec<crate::rules::callers::CallerProfile>,
    /// The files read, to make the rules again for each caller's profiles.
    files: Vec<(crate::rules::Source, PathBuf)>,
}

impl WorkspaceSettings {
    /// Reads the settings files for `cwd` (its `.claude/` and `.toolwright/` files,
    /// and the user's under `$HOME`). `cwd` should be canonical, as the rules' paths
    /// are matched against it.
    pub fn load(cwd: &Path) -> Result<WorkspaceSettings, SettingsError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        WorkspaceSettings::load_with_home(cwd, home.as_deref())
    }

    /// As [`load`](Self::load), with the user's settings under `home` (or none).
    pub fn load_with_home(cwd: &Path, home: Option<&Path>) -> Result<WorkspaceSettings, SettingsError> {
        WorkspaceSettings::load_with_trust(cwd, home, Trust::recorded(cwd, home))
    }

    /// As [`load_with_home`](Self::load_with_home), with the workspace trusted or
    /// not as the host says. Untrusted, the workspace's own settings files only
    /// restrict: their allow rules, additional directories and a loosening starting
    /// mode wait for trust (a warning names each file), as in Claude Code. [`load`]
    /// and [`load_with_home`] take the trust Claude Code has recorded for the
    /// workspace (`hasTrustDialogAccepted` in `~/.claude.json`).
    ///
    /// [`load`]: Self::load
    /// [`load_with_home`]: Self::load_with_home
    pub fn load_with_trust(cwd: &Path, home: Option<&Path>, trust: Trust) -> Result<WorkspaceSettings, SettingsError> {
        let files = settings::locations(cwd, home);
        let policy = settings::policy_from_files_with(cwd, &files, trust)?;
        let hooks = settings::hooks_from_files(&files, trust)?;
        let callers = crate::rules::callers::profiles_from_files(&files, trust)?;
        Ok(WorkspaceSettings { cwd: cwd.to_path_buf(), trust, policy, hooks, callers, files })
    }

    /// The value the settings files give the session variable `name` in their `env`
    /// (Claude Code's `"env": {"ENABLE_TOOL_SEARCH": "auto:5"}`): a managed file's,
    /// else the most local one's.
    pub fn env_var(&self, name: &str) -> Option<String> {
        settings::env_var(&self.files, name)
    }

    /// The workspace's directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Whether the workspace's own files were read as trusted (what else they bring,
    /// such as a `.mcp.json`, should follow it).
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// What the files had to say that was not an error (unknown keys, rules that
    /// match nothing), each naming the file.
    pub fn warnings(&self) -> Vec<String> {
        let callers = crate::rules::callers::CallerPolicy::warnings(&self.callers);
        self.policy.warnings().iter().chain(self.hooks.warnings()).cloned().chain(callers).collect()
    }

    /// The permission rules the settings make.
    pub fn policy(&self) -> &RulePolicy {
        &self.policy
    }

    /// The settings' command hooks (the subagent runtime runs their `SubagentStart`
    /// and `SubagentStop` hooks).
    pub fn hooks(&self) -> &CommandHooks {
        &self.hooks
    }

    /// Adds hooks that come from elsewhere (a plugin's `hooks/hooks.json`, named
    /// `origin` in their warnings); they run beside the settings' own.
    pub fn add_hooks(&mut self, hooks: CommandHooks, origin: &Path) {
        self.hooks.extend(hooks, origin);
    }

    /// An executor for `registry` under these rules and hooks; what the rules would
    /// ask about goes to the settings' `PermissionRequest` hooks, then to `approver`.
    pub fn executor(self, registry: Arc<Registry>, approver: impl Approver + 'static) -> Executor {
        let approver = self.hooks.approver(approver).with_permission_mode(self.policy.mode().name());
        let builder = if self.callers.is_empty() {
            Executor::builder(registry).policy(self.policy)
        } else {
            let (cwd, files, trust) = (self.cwd.clone(), self.files.clone(), self.trust);
            let again =
                Box::new(move || settings::policy_from_files_with(&cwd, &files, trust).map_err(|e| e.to_string()));
            let policy = crate::rules::callers::CallerPolicy::new(self.policy, self.callers, again);
            Executor::builder(registry).policy(policy)
        };
        self.hooks.install(builder).approver(approver).build()
    }

    /// An MCP server for `registry` in this workspace: calls run under these rules
    /// and hooks, in the workspace, sharing one session of the built-in tools (reads
    /// are remembered across calls); what would ask gets `ask`.
    #[cfg(feature = "mcp-stdio")]
    pub fn mcp_server(self, registry: Arc<Registry>, ask: crate::mcp::AskMode) -> crate::mcp::McpServer {
        let cwd = self.cwd.clone();
        let executor = self.executor(registry, crate::mcp::approver(ask));
        let session = toolwright_builtin::session();
        crate::mcp::McpServer::with_executor(Arc::new(executor)).with_cwd(cwd).with_extensions(move || session.clone())
    }
}
