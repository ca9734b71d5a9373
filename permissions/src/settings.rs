//! Settings files in the `.claude/settings.json` schema: `permissions.{allow, ask,
//! deny, additionalDirectories, defaultMode, disableBypassPermissionsMode}`, a managed
//! file's `allowManagedPermissionRulesOnly` (and `hooks`, kept for the hook runner).
//!
//! Where they are read from, in the order they are read (a deny from any of them beats
//! an allow from any other; the starting mode comes from the highest level that sets
//! it: managed, local, project, user; see [`crate::trust`] for what a workspace's own
//! files may grant):
//!
//! | source | Claude Code's file | toolwright's own file |
//! |---|---|---|
//! | managed | `/etc/claude-code/managed-settings.json` | `/etc/toolwright/settings.json` |
//! | user | `~/.claude/settings.json` | `~/.toolwright/settings.json` |
//! | project | `<project>/.claude/settings.json` | `<project>/.toolwright/settings.json` |
//! | local | `<project>/.claude/settings.local.json` | `<project>/.toolwright/settings.local.json` |
//!
//! "Always allow" answers are saved to `<project>/.toolwright/settings.local.json`.

use crate::policy::{Mode, RulePolicy};
use crate::rule::{Anchors, Effect, Source};
pub use crate::trust::Trust;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A settings file that cannot be used: it names the file, the line and the key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid JSON, or a key has the wrong type.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong, with the key's path (`permissions.allow[2]`).
        message: String,
    },
}

/// The parts of a settings file toolwright reads. Unknown keys are Claude Code's
/// other settings and are left alone.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsFile {
    /// `permissions`.
    #[serde(default)]
    pub permissions: Permissions,
    /// `hooks`: event name to matcher groups.
    #[serde(default)]
    pub hooks: Option<crate::hooks::HooksSettings>,
    /// `sandbox`, read key by key ([`crate::sandbox::SandboxSettings`]).
    #[serde(default)]
    pub sandbox: Option<serde_json::Value>,
    /// `allowManagedPermissionRulesOnly` (managed settings only): the managed files'
    /// rules are the only ones.
    #[serde(default)]
    pub allow_managed_permission_rules_only: Option<bool>,
    /// `allowManagedHooksOnly` (managed settings only): only the managed files' hooks run.
    #[serde(default)]
    pub allow_managed_hooks_only: Option<bool>,
    /// `disableAllHooks`: no hooks but the managed ones run (none, from a managed file).
    #[serde(default)]
    pub disable_all_hooks: Option<bool>,
    /// `mcpCallers` (toolwright's): what each caller of a served registry may do
    /// ([`crate::callers`]; read there).
    #[serde(default)]
    pub mcp_callers: Option<std::collections::BTreeMap<String, CallerProfileSettings>>,
    /// `env`: environment variables for the session, as Claude Code's settings give
    /// them. toolwright reads only those it names ([`env_var`]); it sets none. Kept
    /// as written: a malformed `env` is Claude Code's to refuse, not a reason to lose
    /// the file's rules.
    #[serde(default)]
    pub env: Option<serde_json::Value>,
}

/// One `mcpCallers` entry as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallerProfileSettings {
    /// The tools offered (names; a trailing `*` matches a prefix). None: all.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// Rules added for this caller's calls (`allow`, `ask`, `deny`; the other
    /// `permissions` keys are the workspace's and are not read here).
    #[serde(default)]
    pub permissions: Permissions,
}

/// `permissions`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// Rules that allow.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Rules that ask.
    #[serde(default)]
    pub ask: Vec<String>,
    /// Rules that deny.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Directories besides the project where the tools may work.
    #[serde(default)]
    pub additional_directories: Vec<String>,
    /// The mode to start in.
    #[serde(default)]
    pub default_mode: Option<Mode>,
    /// `"disable"`: bypassPermissions cannot be entered (from any file).
    #[serde(default)]
    pub disable_bypass_permissions_mode: Option<String>,
    /// `"disable"`: Claude Code's auto mode is removed (toolwright has none: read and
    /// left alone).
    #[serde(default)]
    pub disable_auto_mode: Option<String>,
}

/// Parses settings JSON; errors name `path`, the line, the column and the key.
pub fn parse(path: &Path, text: &str) -> Result<SettingsFile, SettingsError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let result: Result<SettingsFile, _> = serde_path_to_error::deserialize(&mut de);
    match result {
        Ok(file) => Ok(file),
        Err(e) => {
            let key = e.path().to_string();
            let inner = e.into_inner();
            let message = if key == "." { inner.to_string() } else { format!("at `{key}`: {inner}") };
            Err(SettingsError::Invalid { path: path.to_owned(), line: inner.line(), column: inner.column(), message })
        }
    }
}

/// Reads one file; a missing file is `None`.
pub fn read(path: &Path) -> Result<Option<SettingsFile>, SettingsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, &text).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingsError::Read { path: path.to_owned(), source }),
    }
}

/// The managed settings files (an organisation's; the highest level, read first).
pub const MANAGED_FILES: &[&str] = &["/etc/claude-code/managed-settings.json", "/etc/toolwright/settings.json"];

/// Where a workspace's settings come from: the project, the user's home (`~/` in
/// rules, `~/.claude/settings.json`) and the managed files. Every part can be given,
/// so an embedding host never depends on `$HOME` or `/etc`.
///
/// ```
/// use toolwright_permissions::settings::Settings;
/// let project = tempfile::tempdir().unwrap();
/// let home = tempfile::tempdir().unwrap();
/// let settings = Settings::new(project.path()).with_home(Some(home.path().to_owned())).with_managed(Vec::new());
/// assert_eq!(settings.files().len(), 6);
/// let policy = settings.policy().unwrap();
/// assert!(policy.warnings().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Settings {
    project: PathBuf,
    home: Option<PathBuf>,
    managed: Vec<PathBuf>,
    /// `None`: the trust Claude Code has recorded.
    trust: Option<Trust>,
}

impl Settings {
    /// The settings of `project`, with the home from `$HOME` and the usual managed files.
    pub fn new(project: impl Into<PathBuf>) -> Settings {
        Settings {
            project: project.into(),
            home: crate::path::home(),
            managed: MANAGED_FILES.iter().map(PathBuf::from).collect(),
            trust: None,
        }
    }

    /// Whether the workspace's own files may grant (see [`crate::trust`]). Without
    /// this, the trust Claude Code has recorded for it under the home decides.
    pub fn with_trust(mut self, trust: Trust) -> Settings {
        self.trust = Some(trust);
        self
    }

    /// The user's home directory (`None`: no user settings, and `~/` rules are refused).
    pub fn with_home(mut self, home: Option<PathBuf>) -> Settings {
        self.home = home;
        self
    }

    /// The managed settings files (read in this order).
    pub fn with_managed(mut self, files: Vec<PathBuf>) -> Settings {
        self.managed = files;
        self
    }

    /// The files in the order they are read, with their sources.
    pub fn files(&self) -> Vec<(Source, PathBuf)> {
        let mut out: Vec<(Source, PathBuf)> = self.managed.iter().map(|p| (Source::Managed, p.clone())).collect();
        out.extend(user_and_project(&self.project, self.home.as_deref()));
        out
    }

    /// The policy of these files.
    pub fn policy(&self) -> Result<RulePolicy, SettingsError> {
        let trust = self.trust.unwrap_or_else(|| Trust::recorded(&self.project, self.home.as_deref()));
        policy_with_home(&self.project, self.home.clone(), &self.files(), trust)
    }

    /// The command hooks of these files (a workspace's own only once it is trusted).
    pub fn hooks(&self) -> Result<crate::hooks::CommandHooks, SettingsError> {
        let trust = self.trust.unwrap_or_else(|| Trust::recorded(&self.project, self.home.as_deref()));
        hooks_from_files(&self.files(), trust)
    }
}

/// The settings files for `project` in the order they are read, with their sources.
pub fn locations(project: &Path, home: Option<&Path>) -> Vec<(Source, PathBuf)> {
    let mut out: Vec<(Source, PathBuf)> = MANAGED_FILES.iter().map(|p| (Source::Managed, PathBuf::from(p))).collect();
    out.extend(user_and_project(project, home));
    out
}

fn user_and_project(project: &Path, home: Option<&Path>) -> Vec<(Source, PathBuf)> {
    let mut out = Vec::new();
    if let Some(home) = home {
        out.push((Source::User, home.join(".claude/settings.json")));
        out.push((Source::User, home.join(".toolwright/settings.json")));
    }
    out.push((Source::Project, project.join(".claude/settings.json")));
    out.push((Source::Project, project.join(".toolwright/settings.json")));
    out.push((Source::Local, project.join(".claude/settings.local.json")));
    out.push((Source::Local, project.join(".toolwright/settings.local.json")));
    out
}

/// The value `files` give the session variable `name` in their `env`: a managed
/// file's, else the last other file's that sets it (local over project over user,
/// as Claude Code layers settings). A number or a boolean reads as its text. A file
/// that cannot be read gives nothing here; its error is reported where its rules are
/// read.
///
/// ```
/// use toolwright_permissions::Source;
/// use toolwright_permissions::settings::env_var;
/// let dir = tempfile::tempdir().unwrap();
/// let user = dir.path().join("user.json");
/// let local = dir.path().join("local.json");
/// std::fs::write(&user, r#"{"env": {"ENABLE_TOOL_SEARCH": "true"}}"#).unwrap();
/// std::fs::write(&local, r#"{"env": {"ENABLE_TOOL_SEARCH": "auto:5"}}"#).unwrap();
/// let files = [(Source::User, user), (Source::Local, local)];
/// assert_eq!(env_var(&files, "ENABLE_TOOL_SEARCH").as_deref(), Some("auto:5"));
/// assert_eq!(env_var(&files, "OTHER"), None);
/// ```
pub fn env_var(files: &[(Source, PathBuf)], name: &str) -> Option<String> {
    let mut found: Option<String> = None;
    for (source, path) in files {
        let Ok(Some(file)) = read(path) else { continue };
        let value = match file.env.as_ref().and_then(|env| env.as_object()).and_then(|env| env.get(name)) {
            Some(serde_json::Value::String(text)) => text.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(serde_json::Value::Bool(b)) => b.to_string(),
            _ => continue,
        };
        if *source == Source::Managed {
            return Some(value);
        }
        found = Some(value);
    }
    found
}

/// Where "always allow" answers go.
pub fn local_settings_path(project: &Path) -> PathBuf {
    project.join(".toolwright/settings.local.json")
}

/// A policy from settings files: every file's rules (malformed ones become warnings
/// naming the rule and the file), the last `defaultMode` given, the additional
/// directories, and "always allow" saved to the local file. The workspace's own
/// files grant only with the trust Claude Code has recorded for it
/// ([`Trust::recorded`]); see [`crate::trust`].
pub fn policy_from_files(project: &Path, files: &[(Source, PathBuf)]) -> Result<RulePolicy, SettingsError> {
    let home = crate::path::home();
    let trust = Trust::recorded(project, home.as_deref());
    policy_with_home(project, home, files, trust)
}

/// [`policy_from_files`], with the workspace trusted or not as the host says.
pub fn policy_from_files_with(
    project: &Path,
    files: &[(Source, PathBuf)],
    trust: Trust,
) -> Result<RulePolicy, SettingsError> {
    policy_with_home(project, crate::path::home(), files, trust)
}

fn policy_with_home(
    project: &Path,
    home: Option<PathBuf>,
    files: &[(Source, PathBuf)],
    trust: Trust,
) -> Result<RulePolicy, SettingsError> {
    let mut policy = RulePolicy::new()
        .with_home(home.clone())
        .with_project(project)
        .with_local_settings(local_settings_path(project));
    let anchors = Anchors { project: Some(project.to_owned()), home };
    let mut sandbox = crate::sandbox::SandboxSettings::default();
    // Read first: whether the managed files' rules are the only ones, and whether
    // bypassPermissions is disabled, decide how the others are read.
    let mut read_files = Vec::with_capacity(files.len());
    for (source, path) in files {
        if let Some(file) = read(path)? {
            read_files.push((*source, path, file));
        }
    }
    let managed_rules_only = read_files
        .iter()
        .any(|(source, _, file)| *source == Source::Managed && file.allow_managed_permission_rules_only == Some(true));
    let mut bypass_disabled = false;
    for (_, path, file) in &read_files {
        match file.permissions.disable_bypass_permissions_mode.as_deref() {
            Some("disable") => bypass_disabled = true,
            Some(other) => policy.warn(format!(
                "{}: `permissions.disableBypassPermissionsMode` is \"{other}\"; the one value it takes is \"disable\"",
                path.display()
            )),
            None => {}
        }
    }
    // The starting mode from the highest level that sets it: managed, then local, then
    // project, then user (Claude Code's settings precedence).
    let mut mode: Option<(u8, Mode)> = None;
    for (source, path, file) in &read_files {
        let (source, path) = (source, *path);
        let p = &file.permissions;
        if file.allow_managed_permission_rules_only.is_some() && *source != Source::Managed {
            policy.warn(format!(
                "{}: `allowManagedPermissionRulesOnly` is read from managed settings only; ignored here",
                path.display()
            ));
        }
        // The workspace's own files grant only once it is trusted (Claude Code's
        // workspace trust); what restricts applies at once.
        let grants = trust.is_trusted() || !repository_file(*source, path);
        if let Some(value) = &file.sandbox {
            if grants {
                sandbox.add(value, *source, path, project, anchors.home.as_deref());
            } else {
                sandbox.add_restricting(value, *source, path, project, anchors.home.as_deref());
            }
        }
        let ruled = !managed_rules_only || *source == Source::Managed;
        let has_rules = !(p.allow.is_empty() && p.ask.is_empty() && p.deny.is_empty());
        if !ruled && has_rules {
            policy.warn(format!(
                "{}: its permission rules are not used: the managed settings' `allowManagedPermissionRulesOnly` \
                 makes theirs the only ones",
                path.display()
            ));
        }
        for (effect, list) in [(Effect::Allow, &p.allow), (Effect::Ask, &p.ask), (Effect::Deny, &p.deny)] {
            if (effect == Effect::Allow && !grants) || !ruled {
                continue;
            }
            for text in list {
                // A malformed rule is a warning naming the rule and the file.
                let _ = policy.add_anchored(text, effect, *source, &anchors, Some(path));
            }
        }
        if grants {
            for dir in &p.additional_directories {
                policy = policy.with_additional_dir(crate::path::absolute(dir, project, anchors.home.as_deref()));
            }
        }
        let loosens = matches!(p.default_mode, Some(Mode::AcceptEdits | Mode::BypassPermissions));
        if let Some(given) = p.default_mode.filter(|_| grants || !loosens) {
            let level = source.precedence();
            if mode.is_none_or(|(at, _)| level >= at) {
                mode = Some((level, given));
            }
        }
        if !grants {
            let mut held = Vec::new();
            if !p.allow.is_empty() {
                held.push(format!("{} allow rule{}", p.allow.len(), if p.allow.len() == 1 { "" } else { "s" }));
            }
            if !p.additional_directories.is_empty() {
                let n = p.additional_directories.len();
                held.push(format!("{n} additional director{}", if n == 1 { "y" } else { "ies" }));
            }
            if let Some(mode) = p.default_mode.filter(|_| loosens) {
                held.push(format!("the starting mode `{}`", mode.name()));
            }
            if !held.is_empty() {
                policy.warn(format!(
                    "{}: not used until this workspace is trusted: {} (its deny and ask rules apply); Claude Code \
                     records trust as `projects[\"{}\"].hasTrustDialogAccepted` in ~/.claude.json, and a host \
                     can give it (`Trust::Trusted`)",
                    path.display(),
                    held.join(", "),
                    crate::trust::trust_root(project).display()
                ));
            }
        }
    }
    if let Some((_, mode)) = mode {
        policy = policy.with_mode(mode);
    }
    if bypass_disabled {
        policy = policy.without_bypass();
    }
    if managed_rules_only {
        // Claude Code then saves no new rules either.
        policy = policy.without_local_settings();
    }
    Ok(policy.with_sandbox_settings(sandbox))
}

/// Whether a settings file is the workspace's own: the project's, or a local one the
/// repository supplies (tracked, or under a symlinked settings directory).
pub(crate) fn repository_file(source: Source, path: &Path) -> bool {
    match source {
        Source::Project => true,
        Source::Local => crate::trust::repository_supplies(path),
        Source::Managed | Source::User | Source::Session => false,
    }
}

/// The command hooks of every file, in file order; ignored hooks become warnings
/// naming the file.
///
/// A workspace's own files (the project's, and a local one the repository supplies)
/// run no hooks until the workspace is trusted: a hook is a command that runs on the
/// machine, outside the sandbox (Claude Code gates them behind the same trust). A
/// managed `allowManagedHooksOnly: true` keeps only the managed files' hooks;
/// `disableAllHooks: true` turns off every hook but the managed ones, or every hook
/// when a managed file says it. Each file whose hooks are left out is a warning.
pub fn hooks_from_files(
    files: &[(Source, PathBuf)],
    trust: Trust,
) -> Result<crate::hooks::CommandHooks, SettingsError> {
    let mut read_files = Vec::with_capacity(files.len());
    for (source, path) in files {
        if let Some(file) = read(path)? {
            read_files.push((*source, path, file));
        }
    }
    let managed_says = |pick: fn(&SettingsFile) -> Option<bool>| {
        read_files.iter().any(|(source, _, file)| *source == Source::Managed && pick(file) == Some(true))
    };
    let all_off = managed_says(|f| f.disable_all_hooks);
    // `disableAllHooks` elsewhere restricts, so it holds from any file, trusted or not.
    let managed_only = managed_says(|f| f.allow_managed_hooks_only)
        || read_files.iter().any(|(_, _, file)| file.disable_all_hooks == Some(true));
    let mut all = crate::hooks::CommandHooks::default();
    for (source, path, file) in &read_files {
        let Some(hooks) = &file.hooks else { continue };
        let why = if all_off {
            Some("the managed settings' `disableAllHooks` turns every hook off")
        } else if managed_only && *source != Source::Managed {
            Some("only the managed settings' hooks run (`allowManagedHooksOnly` or `disableAllHooks`)")
        } else if !trust.is_trusted() && repository_file(*source, path) {
            Some("not run until this workspace is trusted")
        } else {
            None
        };
        match why {
            Some(why) => all.warn(format!("{}: its hooks are left out: {why}", path.display())),
            None => all.extend(crate::hooks::CommandHooks::from_settings(hooks), path),
        }
    }
    Ok(all)
}

/// The policy for `project` from every settings location.
pub fn load(project: &Path) -> Result<RulePolicy, SettingsError> {
    Settings::new(project).policy()
}

/// Adds allow rules to a settings file, creating it if needed and keeping its other keys.
/// The file and its directory (`.toolwright/settings.local.json`) are opened without
/// following a link, which a command in the workspace could have planted to make the
/// host write elsewhere.
pub fn append_allow_rules(path: &Path, rules: &[String]) -> Result<(), SettingsError> {
    let read_error = |source| SettingsError::Read { path: path.to_owned(), source };
    let base = path.parent().and_then(Path::parent);
    let (Some(base), Some(relative)) = (base, base.and_then(|base| path.strip_prefix(base).ok())) else {
        return Err(read_error(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a settings file path")));
    };
    let mut root: serde_json::Value = match toolwright_core::state_file::read(base, relative) {
        Ok(text) => serde_json::from_slice(&text).map_err(|e| SettingsError::Invalid {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(source) => return Err(read_error(source)),
    };
    let allow = root
        .as_object_mut()
        .map(|o| o.entry("permissions").or_insert_with(|| serde_json::json!({})))
        .and_then(|p| p.as_object_mut())
        .map(|p| p.entry("allow").or_insert_with(|| serde_json::json!([])))
        .and_then(|a| a.as_array_mut());
    let Some(allow) = allow else {
        return Err(SettingsError::Invalid {
            path: path.to_owned(),
            line: 1,
            column: 1,
            message: "`permissions.allow` is not a list".into(),
        });
    };
    for rule in rules {
        if !allow.iter().any(|r| r.as_str() == Some(rule)) {
            allow.push(serde_json::Value::String(rule.clone()));
        }
    }
    let text = serde_json::to_string_pretty(&root).unwrap_or_default() + "\n";
    toolwright_core::state_file::write(base, relative, text.as_bytes()).map_err(read_error)
}
