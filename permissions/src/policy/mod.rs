//! The rule engine as a [`PermissionPolicy`]: deny, then ask, then allow, across all
//! sources; then the mode's default.

mod decide;
mod forms;
mod index;
mod path_rules;
mod places;
mod read_denials;
mod shell_rules;
mod verdict;

pub use crate::mode::{Mode, ModeOverride, PlanMode};
use crate::path::home;
pub use crate::rule::DEFAULT_AGENT_TYPE;
use crate::rule::{self, Anchors, CallNames, Effect, Kind, Source};
pub use crate::shell::SAFE_ENV_VARS;
use crate::shell::{self};
use forms::*;
use index::*;
pub use read_denials::ReadDenials;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::{PoisonError, RwLock};
use toolwright_core::access::Access;
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest, ReadFilter};

/// A rule set with a mode: the policy an executor uses.
#[derive(Debug, Default)]
pub struct RulePolicy {
    rules: RwLock<RuleSet>,
    mode: Mode,
    /// Directories besides the working directory where acceptEdits applies.
    additional_dirs: Vec<PathBuf>,
    anchors: Anchors,
    /// Read-only shell commands run without asking in default mode.
    read_only_shell_runs: bool,
    /// Rules that were malformed or are ignored, with why.
    warnings: Vec<String>,
    /// Where "always allow" answers are saved, if anywhere.
    local_settings: Option<PathBuf>,
    /// The settings' `sandbox` key, resolved once (without the rules' read denials,
    /// which follow the working directory and the files there).
    sandbox: Option<toolwright_core::sandbox::Sandbox>,
    /// `permissions.disableBypassPermissionsMode`: bypassPermissions cannot be entered.
    bypass_disabled: bool,
}

const BYPASS_DISABLED: &str =
    "bypassPermissions is disabled (`permissions.disableBypassPermissionsMode`): the mode is not entered";

impl RulePolicy {
    /// An empty rule set in default mode; read-only shell commands run.
    pub fn new() -> RulePolicy {
        RulePolicy {
            read_only_shell_runs: true,
            anchors: Anchors { project: None, home: home() },
            ..RulePolicy::default()
        }
    }

    /// Sets the mode. bypassPermissions is refused (the mode stays, with a warning)
    /// once [`without_bypass`](Self::without_bypass) has disabled it.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        if mode == Mode::BypassPermissions && self.bypass_disabled {
            self.warnings.push(BYPASS_DISABLED.to_owned());
            return self;
        }
        self.mode = mode;
        self
    }

    /// Disables bypassPermissions, as `permissions.disableBypassPermissionsMode:
    /// "disable"` does in any settings file: a policy in it falls back to default
    /// mode, and [`with_mode`](Self::with_mode) refuses it from then on.
    pub fn without_bypass(mut self) -> Self {
        self.bypass_disabled = true;
        if self.mode == Mode::BypassPermissions {
            self.mode = Mode::Default;
            self.warnings.push(BYPASS_DISABLED.to_owned());
        }
        self
    }

    /// Whether bypassPermissions is disabled.
    pub fn bypass_disabled(&self) -> bool {
        self.bypass_disabled
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The mode a call is decided in: a [`ModeOverride`] in the call's extensions (a
    /// subagent's own mode), else the policy's. bypassPermissions stays refused
    /// where [`without_bypass`](Self::without_bypass) disabled it.
    pub fn mode_for(&self, extensions: &toolwright_core::Extensions) -> Mode {
        match extensions.get::<ModeOverride>() {
            Some(ModeOverride(Mode::BypassPermissions)) if self.bypass_disabled => Mode::Default,
            Some(ModeOverride(mode)) => *mode,
            None => self.mode,
        }
    }

    /// Sets the user's home directory (`~/` in rules and paths); `None` when there is
    /// none. Defaults to `$HOME`.
    pub fn with_home(mut self, home: Option<PathBuf>) -> Self {
        self.anchors.home = home;
        self
    }

    /// Sets the project root that `/path` rules are anchored to.
    pub fn with_project(mut self, project: impl Into<PathBuf>) -> Self {
        self.anchors.project = Some(project.into());
        self
    }

    /// Whether read-only shell commands run without asking in default mode (on by default).
    pub fn with_read_only_shell_auto_allow(mut self, yes: bool) -> Self {
        self.read_only_shell_runs = yes;
        self
    }

    /// The settings' `sandbox` key (its warnings join the policy's).
    pub fn with_sandbox_settings(mut self, sandbox: crate::sandbox::SandboxSettings) -> Self {
        self.warnings.extend(sandbox.warnings.iter().cloned());
        self.sandbox = sandbox.resolve(Vec::new());
        self
    }

    /// How commands are confined in `cwd`: the `sandbox` settings, with the paths the
    /// `Read` deny rules cover. `None` when neither says anything: the shell's
    /// default.
    pub fn sandbox_for(&self, cwd: &Path) -> Option<toolwright_core::sandbox::Sandbox> {
        // A pattern that names one path is that path; any other (`**/.env`) is what
        // matches it now, found by a bounded walk (what a command creates later is
        // left to the tools' own checks).
        const WALK_LIMIT: usize = 20_000;
        let mut read_denied: Vec<PathBuf> = Vec::new();
        for (pattern, _) in self.read_rules().read_deny_patterns().iter() {
            match pattern.literal_path(cwd) {
                Some(path) => read_denied.push(path),
                None => read_denied.extend(pattern.matching_paths(cwd, WALK_LIMIT).0),
            }
        }
        if self.sandbox.is_none() && read_denied.is_empty() {
            return None;
        }
        let mut sandbox = self.sandbox.clone().unwrap_or_default();
        sandbox.read_denied.splice(0..0, read_denied);
        // `WebFetch(domain:...)` rules feed the network lists, as in Claude Code. A
        // pattern the lists cannot spell (`example.*`) joins neither: for an allow
        // rule that admits less, for a deny rule the list names nothing it would
        // widen (a host outside the allow list is refused anyway).
        if sandbox.mode != toolwright_core::sandbox::SandboxMode::Off {
            use toolwright_core::sandbox::{HostPattern, ListKind};
            let rules = self.read_rules();
            for rule in rules.rules.iter().filter(|r| r.tool.is_kind(Kind::Fetch)) {
                let Some(domain) = rule.specifier.as_ref().and_then(domain_pattern) else { continue };
                let (kind, list) = match rule.effect {
                    Effect::Allow => (ListKind::Allow, &mut sandbox.allowed_domains),
                    Effect::Deny => (ListKind::Deny, &mut sandbox.denied_domains),
                    _ => continue,
                };
                for pattern in HostPattern::parse(&domain.raw, kind).map(|p| p.patterns).unwrap_or_default() {
                    if !list.contains(&pattern) {
                        list.push(pattern);
                    }
                }
            }
        }
        Some(sandbox)
    }

    /// Adds a directory where acceptEdits applies besides the working directory.
    pub fn with_additional_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_dirs.push(dir.into());
        self
    }

    /// Saves "always allow" answers as allow rules in this settings file.
    pub fn with_local_settings(mut self, path: impl Into<PathBuf>) -> Self {
        self.local_settings = Some(path.into());
        self
    }

    /// Saves "always allow" answers nowhere (they last the session).
    pub fn without_local_settings(mut self) -> Self {
        self.local_settings = None;
        self
    }

    /// Adds a rule; a malformed rule is kept out and reported in [`warnings`](Self::warnings).
    pub fn add(&mut self, text: &str, effect: Effect, source: Source) -> Result<(), String> {
        self.add_anchored(text, effect, source, &self.anchors.clone(), None)
    }

    /// Adds a rule whose `/` paths are anchored as `anchors` say.
    pub(crate) fn add_anchored(
        &mut self,
        text: &str,
        effect: Effect,
        source: Source,
        anchors: &Anchors,
        origin: Option<&Path>,
    ) -> Result<(), String> {
        match rule::parse(text, effect, source, anchors) {
            Ok(rule) => {
                self.rules.get_mut().unwrap_or_else(PoisonError::into_inner).extend([rule]);
                Ok(())
            }
            Err(e) => {
                let place = origin.map(|p| format!("{}: ", p.display())).unwrap_or_default();
                let warning = format!("{place}rule `{text}` ({source:?} {effect:?}) is ignored: {e}");
                self.warnings.push(warning.clone());
                Err(warning)
            }
        }
    }

    /// Builder form of [`add`](Self::add) for rules known to be well formed.
    pub fn allow(mut self, text: &str) -> Self {
        let _ = self.add(text, Effect::Allow, Source::Session);
        self
    }

    /// Builder form for an ask rule.
    pub fn ask(mut self, text: &str) -> Self {
        let _ = self.add(text, Effect::Ask, Source::Session);
        self
    }

    /// Builder form for a deny rule.
    pub fn deny(mut self, text: &str) -> Self {
        let _ = self.add(text, Effect::Deny, Source::Session);
        self
    }

    /// A warning for [`warnings`](Self::warnings) (settings the policy leaves out).
    pub(crate) fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// Malformed or ignored rules, each naming the rule.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What the `Read` deny path rules cover, for a call in `cwd`: tools that walk
    /// directories skip it (a search of `.` must not read `secrets/` when
    /// `Read(./secrets/**)` is denied). The executor installs it in every call's
    /// context ([`PermissionPolicy::read_filter`]); nothing needs wiring.
    pub fn read_denials(&self, cwd: &Path) -> ReadDenials {
        // (The patterns are collected once per rule set: this runs for every allowed call.)
        ReadDenials { patterns: self.read_rules().read_deny_patterns(), cwd: cwd.to_owned() }
    }

    /// The domains the `WebFetch(domain:...)` deny rules name, as written (a leading
    /// `*.` dropped: a domain covers its subdomains where a search takes a list).
    pub fn fetch_denied_domains(&self) -> Vec<String> {
        let set = self.read_rules();
        let mut domains: Vec<String> = set
            .rules
            .iter()
            .filter(|r| r.effect == Effect::Deny && r.tool.is_kind(Kind::Fetch))
            .filter(|r| r.specifier.as_ref().and_then(index::domain_pattern).is_some())
            .filter_map(|r| r.text.split_once("domain:").map(|(_, d)| d.trim_end_matches(')').trim().to_owned()))
            .map(|d| d.strip_prefix("*.").map(str::to_owned).unwrap_or(d))
            .filter(|d| !d.is_empty())
            .collect();
        domains.sort();
        domains.dedup();
        domains
    }

    /// Whether a bare deny rule removes a tool with these names from the pool
    /// altogether (`Bash`, `mcp__github`, `mcp__*`, `Web*`).
    pub fn removes(&self, tool: &str, rule_name: Option<&str>) -> bool {
        let call = CallNames { tool, rule_name, mcp: None, mode: self.mode };
        self.read_rules()
            .rules
            .iter()
            .any(|r| r.effect == Effect::Deny && r.specifier.is_none() && r.tool.covers(&call))
    }

    fn read_rules(&self) -> std::sync::RwLockReadGuard<'_, RuleSet> {
        self.rules.read().unwrap_or_else(PoisonError::into_inner)
    }
}

impl RulePolicy {
    /// The rules "always allow" adds for this call, each with whether it is saved to
    /// the local settings file (commands, domains, MCP tools) or kept for the session
    /// (file reads and edits, as Claude Code does). Empty when no rule can say it
    /// (a command that cannot be analysed).
    fn always_allow_rules(&self, request: &PermissionRequest<'_>) -> Vec<(String, bool)> {
        let mut rules: Vec<(String, bool)> = Vec::new();
        if !request.access.is_declared() {
            return vec![(request.tool.to_owned(), false)];
        }
        for fact in request.access {
            match fact {
                Access::Command(line) => {
                    let analysis = line.analysis(shell::analyze);
                    if !analysis.unknowns.is_empty() {
                        return Vec::new();
                    }
                    rules
                        .extend(analysis.commands.iter().filter_map(strict_form).map(|t| (format!("Bash({t})"), true)));
                }
                Access::Read(path) | Access::Search(path) | Access::Write(path) => {
                    let kind = if matches!(fact, Access::Write(_)) { "Edit" } else { "Read" };
                    let absolute = crate::path::absolute(path, request.cwd, self.anchors.home.as_deref());
                    rules.push((format!("{kind}(/{})", escape_glob(&absolute.to_string_lossy())), false));
                }
                Access::Fetch(url) => match url.host_str() {
                    Some(host) => rules.push((format!("WebFetch(domain:{host})"), true)),
                    None => return Vec::new(),
                },
                Access::Mcp { .. } => rules.push((request.tool.to_owned(), true)),
                _ => rules.push((request.tool.to_owned(), false)),
            }
        }
        rules.dedup();
        rules
    }
}

/// `path` with gitignore's pattern characters escaped, so a saved rule matches only it.
fn escape_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '!' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl PermissionPolicy for RulePolicy {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        self.decide(request)
    }

    fn mode_name(&self) -> Option<&str> {
        Some(self.mode().name())
    }

    fn mode_name_in(&self, extensions: &toolwright_core::Extensions) -> Option<&str> {
        Some(self.mode_for(extensions).name())
    }

    fn remember(&self, request: &PermissionRequest<'_>) -> bool {
        // A plan's approval is never remembered: the next plan is asked about too.
        if decide::is_exit_plan(request.tool, request.rule_name) {
            return true;
        }
        let rules = self.always_allow_rules(request);
        if rules.is_empty() {
            return false;
        }
        let mut added = Vec::new();
        for (text, _) in &rules {
            if let Ok(rule) = rule::parse(text, Effect::Allow, Source::Local, &self.anchors) {
                added.push(rule);
            }
        }
        let saved: Vec<String> = rules.iter().filter(|(_, save)| *save).map(|(text, _)| text.clone()).collect();
        if let Some(path) = &self.local_settings
            && !saved.is_empty()
        {
            // Best effort: a failure to save still allows for this session.
            let _ = crate::settings::append_allow_rules(path, &saved);
        }
        self.rules.write().unwrap_or_else(PoisonError::into_inner).extend(added);
        true
    }

    fn read_filter(&self, cwd: &Path) -> Option<Arc<dyn ReadFilter>> {
        let denials = self.read_denials(cwd);
        (!denials.is_empty()).then(|| Arc::new(denials) as Arc<dyn ReadFilter>)
    }

    fn fetch_filter(&self) -> Option<Arc<dyn toolwright_core::permission::FetchFilter>> {
        let set = self.read_rules();
        let mut denials = read_denials::FetchDenials::default();
        for rule in set.rules.iter().filter(|r| r.effect == Effect::Deny && r.tool.is_kind(Kind::Fetch)) {
            match &rule.specifier {
                None => denials.all = Some(rule.text.clone()),
                Some(specifier) => {
                    if let Some(pattern) = index::domain_pattern(specifier) {
                        denials.patterns.push((pattern.clone(), rule.text.clone()));
                    }
                }
            }
        }
        (!denials.is_empty()).then(|| Arc::new(denials) as Arc<dyn toolwright_core::permission::FetchFilter>)
    }

    fn sandbox(&self, cwd: &Path) -> Option<Arc<toolwright_core::sandbox::Sandbox>> {
        self.sandbox_for(cwd).map(Arc::new)
    }
}
