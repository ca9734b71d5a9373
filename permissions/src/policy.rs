//! The rule engine as a [`PermissionPolicy`]: deny, then ask, then allow, across all
//! sources; then the mode's default.

use crate::path::{PROBE_CHILD, absolute};
use crate::pattern::{CommandPattern, canonical_flags};
use crate::rule::{self, Anchors, CallNames, Effect, Kind, Rule, Source, Specifier, ToolName, kind_of_name};
use crate::shell::{self, Command, Word};
use serde_json::Value;
use smallvec::SmallVec;
use std::cell::OnceCell;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::{OnceLock, PoisonError, RwLock};
use toolwright_core::DynTool;
use toolwright_core::access::{Access, CommandLine};
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest, ReadFilter};

/// Claude Code's permission modes. Deny rules win in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Reads run; anything else not allowed by a rule asks.
    #[default]
    Default,
    /// As default, and edits inside the workspace run without asking.
    AcceptEdits,
    /// Only reading: anything that could change things is denied.
    Plan,
    /// What would ask is denied.
    DontAsk,
    /// What would ask runs.
    BypassPermissions,
}

impl Mode {
    /// The mode Claude Code spells `name` (`acceptEdits`), if there is one.
    pub fn from_name(name: &str) -> Option<Mode> {
        [Mode::Default, Mode::AcceptEdits, Mode::Plan, Mode::DontAsk, Mode::BypassPermissions]
            .into_iter()
            .find(|m| m.name() == name)
    }

    /// The mode as Claude Code spells it (`acceptEdits`), as hooks get it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
            Mode::BypassPermissions => "bypassPermissions",
        }
    }
}

/// The agent tool's parameter that `Agent(Explore)` rules match.
pub(crate) const AGENT_TYPE_PARAM: &str = "subagent_type";
/// The agent type a call without `subagent_type` starts.
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// Environment variables an allow rule may look past (`LANG=C ls` is `ls`). Deny and
/// ask rules look past any assignment.
pub const SAFE_ENV_VARS: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_COLLATE",
    "TZ",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CI",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "PAGER",
    "GIT_PAGER",
    "COLUMNS",
    "LINES",
    "DEBUG",
    "NODE_ENV",
];

/// A permission mode for the calls of one turn, put in its extensions: a subagent's
/// own mode (see `toolwright_agents::child_mode` for the precedence) under the same
/// rules as its parent. Deny rules and explicit ask rules hold in every mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeOverride(pub Mode);

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

/// The rules, with an index of those that can decide a shell call, built when first
/// needed after a change.
#[derive(Debug, Default)]
struct RuleSet {
    rules: Vec<Rule>,
    shell: OnceLock<ShellIndex>,
    /// The rules about a tool as a whole or one of its parameters (no specifier, or a
    /// parameter one), deny then ask, as positions: the first step of every decision.
    whole: OnceLock<Vec<usize>>,
    /// The `Read` deny path patterns, for the read filter every allowed call gets.
    read_denies: OnceLock<Arc<[(crate::path::PathPattern, String)]>>,
}

impl RuleSet {
    fn extend(&mut self, rules: impl IntoIterator<Item = Rule>) {
        self.rules.extend(rules);
        self.shell = OnceLock::new();
        self.whole = OnceLock::new();
        self.read_denies = OnceLock::new();
    }

    /// Whether a bare allow rule names the call's tool.
    fn allows_whole_tool(&self, call: &CallNames<'_>) -> bool {
        self.rules.iter().any(|r| r.effect == Effect::Allow && r.specifier.is_none() && r.tool.covers(call))
    }

    fn read_deny_patterns(&self) -> Arc<[(crate::path::PathPattern, String)]> {
        Arc::clone(self.read_denies.get_or_init(|| {
            self.rules
                .iter()
                .filter(|r| r.effect == Effect::Deny && r.tool.is_kind(Kind::Read))
                .filter_map(|r| r.specifier.as_ref().and_then(path_pattern).map(|p| (p.clone(), r.text.clone())))
                .collect()
        }))
    }

    fn whole_tool_rules(&self) -> &[usize] {
        self.whole.get_or_init(|| {
            let mut found: Vec<usize> = Vec::new();
            for effect in [Effect::Deny, Effect::Ask] {
                found.extend(
                    self.rules
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| {
                            r.effect == effect && matches!(r.specifier, None | Some(Specifier::Param { .. }))
                        })
                        .map(|(i, _)| i),
                );
            }
            found
        })
    }

    fn shell_index(&self) -> &ShellIndex {
        self.shell.get_or_init(|| ShellIndex::new(&self.rules))
    }
}

/// The command pattern a rule's specifier holds, if it has one.
fn command_pattern(specifier: &Specifier) -> Option<&CommandPattern> {
    match specifier {
        Specifier::Command(pattern) | Specifier::Any { command: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => command_pattern(other),
        _ => None,
    }
}

/// The path pattern a rule's specifier holds, if it has one.
fn path_pattern(specifier: &Specifier) -> Option<&crate::path::PathPattern> {
    match specifier {
        Specifier::Path(pattern) | Specifier::Any { path: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => path_pattern(other),
        _ => None,
    }
}

/// The domain pattern a rule's specifier holds, if it has one.
fn domain_pattern(specifier: &Specifier) -> Option<&crate::domain::DomainPattern> {
    match specifier {
        Specifier::Domain(pattern) | Specifier::Any { domain: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => domain_pattern(other),
        _ => None,
    }
}

/// Programs whose first argument names a subcommand (`git diff`, `npm test`), not a file.
fn has_subcommands(program: &str) -> bool {
    // (A `match`: compiled to a switch on the length, asked for every part.)
    matches!(
        program,
        "git"
            | "npm"
            | "pnpm"
            | "yarn"
            | "cargo"
            | "docker"
            | "podman"
            | "kubectl"
            | "go"
            | "gh"
            | "pip"
            | "pip3"
            | "uv"
            | "poetry"
    )
}

/// The rules that can decide a shell call, by list, as positions in the rule set: a
/// call tries only the patterns whose literal first word starts one of its commands.
#[derive(Debug, Default)]
struct ShellIndex {
    /// Deny, ask and allow.
    lists: [ListIndex; 3],
    /// Patterns by their literal first word, for each list, sorted by the word's length,
    /// then by it (most comparisons end at the length).
    by_first_word: Vec<(String, [Vec<usize>; 3])>,
    /// `Read` denies with a path: arguments naming what they cover are denied.
    read_denies: Vec<usize>,
}

/// One list's shell rules.
#[derive(Debug, Default)]
struct ListIndex {
    /// A bare `Bash`, and patterns without a literal first word: tried on every call.
    any_command: Vec<usize>,
    /// Every command pattern, for a command that could not be fully analysed (it is
    /// matched as written, whatever its first word).
    patterns: Vec<usize>,
    /// The rules about files a redirection writes.
    writes: Vec<usize>,
}

impl ShellIndex {
    fn new(rules: &[Rule]) -> ShellIndex {
        let mut index = ShellIndex::default();
        for (i, rule) in rules.iter().enumerate() {
            let slot = list_slot(rule.effect);
            let list = &mut index.lists[slot];
            // `Bash` rules govern every command; a rule naming a tool governs that
            // tool's commands (checked against the call's names when it decides).
            // (A bare rule may name the tool whose command it is.)
            let about_commands = match &rule.specifier {
                None => true,
                Some(specifier) => command_pattern(specifier).is_some(),
            };
            if about_commands {
                match rule.specifier.as_ref().and_then(command_pattern) {
                    None => list.any_command.push(i),
                    Some(pattern) => {
                        list.patterns.push(i);
                        match pattern.first_word() {
                            Some(word) => match index.by_first_word.iter_mut().find(|(w, _)| w == word) {
                                Some((_, lists)) => lists[slot].push(i),
                                None => {
                                    let mut lists: [Vec<usize>; 3] = Default::default();
                                    lists[slot].push(i);
                                    index.by_first_word.push((word.to_owned(), lists));
                                }
                            },
                            None => list.any_command.push(i),
                        }
                    }
                }
            }
            let path = rule.specifier.as_ref().and_then(path_pattern).is_some();
            let edits = rule.tool.is_kind(Kind::Edit) || read_deny_blocks_edits(rule);
            // A bare `Edit` is about every file written, a redirection's included.
            if (path && edits) || (rule.specifier.is_none() && rule.tool.is_kind(Kind::Edit)) {
                list.writes.push(i);
            }
            if path && rule.effect == Effect::Deny && rule.tool.is_kind(Kind::Read) {
                index.read_denies.push(i);
            }
        }
        index.by_first_word.sort_unstable_by(|a, b| shell::by_length_then_text(&a.0, &b.0));
        index
    }

    fn list(&self, effect: Effect) -> &ListIndex {
        &self.lists[list_slot(effect)]
    }

    /// Whether any rule of the list can decide something about a shell call.
    fn has_rules(&self, effect: Effect) -> bool {
        let list = self.list(effect);
        !list.patterns.is_empty()
            || !list.any_command.is_empty()
            || !list.writes.is_empty()
            || (effect == Effect::Deny && !self.read_denies.is_empty())
    }

    /// The patterns of each list starting with `word`.
    fn starting_with(&self, word: &str) -> Option<&[Vec<usize>; 3]> {
        // The words of that length (integer comparisons), then the few of them.
        let words = &self.by_first_word;
        let from = words.partition_point(|(w, _)| w.len() < word.len());
        words[from..].iter().take_while(|(w, _)| w.len() == word.len()).find(|(w, _)| w == word).map(|(_, lists)| lists)
    }

    /// Into `found`, the rules of the `effect` list to try, in the order they were
    /// given, for commands starting with the words `starting` was made for, each with
    /// the index of its word (`None`: any); with `every_pattern`, all of them.
    fn candidates(
        &self,
        effect: Effect,
        starting: &[Option<&[Vec<usize>; 3]>],
        every_pattern: bool,
        found: &mut Candidates,
    ) {
        let list = self.list(effect);
        found.clear();
        found.extend(list.any_command.iter().map(|&i| (i, None)));
        // Each source is in rule order: only more than one needs sorting.
        let mut sources = usize::from(!found.is_empty());
        if every_pattern {
            found.extend(list.patterns.iter().map(|&i| (i, None)));
            sources += 1;
        } else {
            for (s, lists) in starting.iter().enumerate() {
                if let Some(lists) = lists.filter(|lists| !lists[list_slot(effect)].is_empty()) {
                    found.extend(lists[list_slot(effect)].iter().map(|&i| (i, Some(s))));
                    sources += 1;
                }
            }
        }
        if sources > 1 {
            found.sort_unstable_by_key(|&(i, _)| i);
            found.dedup_by_key(|&mut (i, _)| i);
        }
    }
}

/// The rules to try for a call, each with the index of the first word it was found
/// by (`None`: any). (Inline: a call tries a few.)
type Candidates = SmallVec<[(usize, Option<usize>); 16]>;

/// A part's forms for the deny and ask rules; most parts have one.
type Forms = SmallVec<[String; 2]>;

fn list_slot(effect: Effect) -> usize {
    match effect {
        Effect::Deny => 0,
        Effect::Ask => 1,
        Effect::Allow => 2,
    }
}

/// Where `word` is in `list`, added if it is not.
fn index_in<'a>(list: &mut SmallVec<[&'a str; 8]>, word: &'a str) -> usize {
    list.iter().position(|w| *w == word).unwrap_or_else(|| {
        list.push(word);
        list.len() - 1
    })
}

/// The first space-separated token of a command text.
fn first_token(text: &str) -> &str {
    text.bytes().position(|b| b == b' ').map_or(text, |space| &text[..space])
}

/// How a fact of a call was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Deny(String),
    /// Ask whatever the mode: an explicit ask rule matched, or what the call touches
    /// cannot be known and some rule might be about it.
    AskRule(String),
    /// Ask, unless the mode decides otherwise.
    Ask(String),
    Allow,
    /// No rule said anything: the mode decides, by what the fact is.
    Undecided {
        what: What,
        reason: String,
    },
}

/// What an undecided fact is, for the mode to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    /// A read or search outside the working directories.
    Read,
    /// A write no rule or mode allows.
    Write,
    /// A write to a protected path: only a person (or bypassPermissions) approves it.
    Protected,
    /// A command no rule allows.
    Command { read_only: bool },
    /// A fetch no rule allows.
    Fetch,
    /// Anything else (an MCP tool, an undeclared or opaque tool).
    Other { read_only: bool },
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

    /// The decision for a call of `tool` with `input` in `cwd`: the tool parses the
    /// input and states what the call touches, and the policy decides on that, as the
    /// executor would (without hooks or an approver). An input the tool refuses is an
    /// error.
    pub fn decide_for(
        &self,
        tool: &dyn DynTool,
        input: &str,
        cwd: &Path,
    ) -> Result<PermissionDecision, toolwright_core::InputError> {
        let prepared = tool.prepare(input.as_bytes())?;
        let access = prepared.access();
        let extensions = toolwright_core::Extensions::new();
        let spec = tool.spec();
        let request = PermissionRequest {
            tool: &spec.name,
            rule_name: spec.rule_name.as_deref(),
            access: &access,
            invoked_name: &spec.name,
            call_id: "",
            input,
            flags: prepared.flags(),
            cwd,
            own_summary: None,
            extensions: &extensions,
        };
        Ok(self.decide(&request))
    }

    /// The decision for one call, from what it touches.
    fn decide(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let confined = self.sandbox_auto_allows(request);
        let decision = self.decide_by_rules(request, confined);
        // A command that will run confined skips the question (deny rules, explicit
        // ask rules and protected paths still hold: they are not `Ask`).
        if matches!(decision, PermissionDecision::Ask(_)) && confined {
            return PermissionDecision::Allow;
        }
        decision
    }

    /// Claude Code's `autoAllowBashIfSandboxed`: the call only runs commands, none
    /// excluded from the sandbox, not asking to run unconfined, outside plan mode, and
    /// the kernel can confine it.
    fn sandbox_auto_allows(&self, request: &PermissionRequest<'_>) -> bool {
        let Some(sandbox) = &self.sandbox else { return false };
        if !sandbox.auto_allow || self.mode_for(request.extensions) == Mode::Plan || request.access.is_none() {
            return false;
        }
        if sandbox.filesystem && toolwright_core::sandbox::landlock_abi().is_none() {
            return false;
        }
        let unconfined =
            top_level(request.input).get("dangerously_disable_sandbox").and_then(Value::as_bool) == Some(true);
        request.access.iter().all(|fact| match fact {
            Access::Command(line) => sandbox.confines(line.text(), unconfined),
            _ => false,
        })
    }

    /// The rules' decision, before the sandbox has its say.
    fn decide_by_rules(&self, request: &PermissionRequest<'_>, confined: bool) -> PermissionDecision {
        let mcp = request.access.iter().find_map(|fact| match fact {
            Access::Mcp { server, tool } => Some((server.as_str(), tool.as_str())),
            _ => None,
        });
        let mode = self.mode_for(request.extensions);
        let call = CallNames { tool: request.tool, rule_name: request.rule_name, mcp, mode };
        let read_only = request.flags.read_only;
        // Plan mode changes no files, whatever the rules allow (deny rules still name
        // themselves first).
        if mode == Mode::Plan
            && let Some(path) = request.access.iter().find_map(|fact| match fact {
                Access::Write(path) => Some(path),
                _ => None,
            })
        {
            let denied = self.fact(&Access::Write(path.clone()), &call, request.cwd, read_only, confined);
            return match denied {
                Verdict::Deny(why) => PermissionDecision::Deny(why),
                _ => PermissionDecision::Deny(format!(
                    "plan mode does not change files: {} writes `{path}`; leave plan mode to make the change",
                    request.tool
                )),
            };
        }
        // Rules about the tool as a whole, or one of its parameters: deny, then ask.
        {
            let set = self.read_rules();
            let mut params: Option<serde_json::Map<String, Value>> = None;
            {
                for rule in set.whole_tool_rules().iter().map(|&i| &set.rules[i]).filter(|r| r.tool.covers(&call)) {
                    let hit = match &rule.specifier {
                        None => true,
                        Some(Specifier::Param { name, value, .. }) => {
                            // (Parsed only when a parameter rule names the tool.)
                            let params = params.get_or_insert_with(|| top_level(request.input));
                            let given = params.get(name).and_then(scalar_text);
                            // The agent tool's type defaults to the general-purpose agent.
                            let given = given.or_else(|| (name == AGENT_TYPE_PARAM).then(|| DEFAULT_AGENT_TYPE.into()));
                            given.is_some_and(|v| value.matches(&v))
                        }
                        Some(_) => false,
                    };
                    // A bare ask rule (`Bash`, `Bash(*)`) is skipped for a command
                    // that runs confined, as in Claude Code.
                    if hit && rule.effect == Effect::Ask && rule.specifier.is_none() && confined {
                        continue;
                    }
                    if hit {
                        return self.finish(verdict_for(rule), mode);
                    }
                }
            }
            if !request.access.is_declared() {
                if set.allows_whole_tool(&call) {
                    return PermissionDecision::Allow;
                }
                let what = What::Other { read_only };
                return self
                    .finish(Verdict::Undecided { what, reason: format!("{} may touch anything", request.tool) }, mode);
            }
        }
        // Each fact: any denial denies the call, any question asks it.
        let mut decision = PermissionDecision::Allow;
        for fact in request.access {
            let verdict = self.fact(fact, &call, request.cwd, read_only, confined);
            match self.finish(verdict, mode) {
                deny @ PermissionDecision::Deny(_) => return deny,
                ask @ PermissionDecision::AskRule(_) => decision = ask,
                ask @ PermissionDecision::Ask(_) if decision == PermissionDecision::Allow => decision = ask,
                _ => {}
            }
        }
        decision
    }

    /// What the mode makes of a verdict. Deny rules win in every mode; an explicit ask
    /// rule asks in every mode (dontAsk denies it); what no rule decided is up to the
    /// mode, by what it is.
    fn finish(&self, verdict: Verdict, mode: Mode) -> PermissionDecision {
        match verdict {
            Verdict::Deny(why) => PermissionDecision::Deny(why),
            Verdict::Allow => PermissionDecision::Allow,
            Verdict::AskRule(why) => match mode {
                Mode::DontAsk => PermissionDecision::Deny(format!("{why} (dontAsk mode denies what would ask)")),
                _ => PermissionDecision::AskRule(why),
            },
            Verdict::Ask(why) => match mode {
                Mode::DontAsk => PermissionDecision::Deny(format!("{why} (dontAsk mode denies what would ask)")),
                Mode::BypassPermissions => PermissionDecision::Allow,
                _ => PermissionDecision::Ask(why),
            },
            Verdict::Undecided { what, reason } => match (mode, what) {
                (Mode::BypassPermissions, _) => PermissionDecision::Allow,
                (Mode::DontAsk, _) => {
                    PermissionDecision::Deny(format!("{reason}, and no rule allows it (dontAsk mode)"))
                }
                (_, What::Protected) => PermissionDecision::AskRule(format!(
                    "{reason}: a protected path, which only a person approves; allow it?"
                )),
                (Mode::Plan, What::Write) => {
                    PermissionDecision::Deny(format!("plan mode does not change files, and {reason}"))
                }
                (Mode::Plan, What::Other { read_only: false }) => {
                    PermissionDecision::Deny(format!("plan mode allows only reading, and {reason}"))
                }
                _ => PermissionDecision::Ask(concat(&["Allow ", &reason, "?"])),
            },
        }
    }

    /// One fact against the rules and the working directories.
    fn fact(&self, fact: &Access, call: &CallNames<'_>, cwd: &Path, read_only: bool, confined: bool) -> Verdict {
        let home = self.anchors.home.as_deref();
        match fact {
            Access::Command(line) => self.shell(line, call, cwd, confined),
            Access::Read(path) | Access::Search(path) => {
                let search = matches!(fact, Access::Search(_));
                let target = Touched::named(path, cwd, home, search);
                self.path_rules(&target, call, cwd, Kind::Read).unwrap_or_else(|| {
                    if target.inside(cwd, &self.additional_dirs) {
                        Verdict::Allow
                    } else {
                        let verb = if search { "searches" } else { "reads" };
                        let reason = format!("{} {verb} `{path}`, outside the working directories", call.tool);
                        Verdict::Undecided { what: What::Read, reason }
                    }
                })
            }
            Access::Write(path) => {
                let target = Touched::named(path, cwd, home, false);
                let inside = target.inside(cwd, &self.additional_dirs);
                self.write(&target, call, cwd, inside, || format!("{} writes `{path}`", call.tool))
            }
            Access::Fetch(url) => {
                let host = url.host_str().unwrap_or("");
                let set = self.read_rules();
                for effect in [Effect::Deny, Effect::Ask, Effect::Allow] {
                    for rule in set.rules.iter().filter(|r| r.effect == effect) {
                        let applies = rule.tool.is_kind(Kind::Fetch) || rule.tool.covers(call);
                        let hit = match &rule.specifier {
                            None => applies,
                            Some(specifier) => applies && domain_pattern(specifier).is_some_and(|d| d.matches(host)),
                        };
                        if hit {
                            return verdict_for(rule);
                        }
                    }
                }
                Verdict::Undecided { what: What::Fetch, reason: format!("{} fetches `{url}`", call.tool) }
            }
            Access::Mcp { server, tool } => {
                let set = self.read_rules();
                if set.allows_whole_tool(call) {
                    return Verdict::Allow;
                }
                let reason = format!("{} calls `{tool}` of the MCP server `{server}`", call.tool);
                Verdict::Undecided { what: What::Other { read_only: false }, reason }
            }
            Access::Opaque(what) => {
                let set = self.read_rules();
                if set.allows_whole_tool(call) {
                    return Verdict::Allow;
                }
                Verdict::Undecided { what: What::Other { read_only }, reason: format!("{}: {what}", call.tool) }
            }
            _ => Verdict::Undecided {
                what: What::Other { read_only },
                reason: format!("{} touches {fact:?}", call.tool),
            },
        }
    }

    /// The path rules of `kind` (and, for writes, Read denies) about `target`, deny,
    /// then ask, then allow; `None` if none matches.
    fn path_rules(&self, target: &Touched, call: &CallNames<'_>, cwd: &Path, kind: Kind) -> Option<Verdict> {
        let set = self.read_rules();
        for effect in [Effect::Deny, Effect::Ask, Effect::Allow] {
            for rule in set.rules.iter().filter(|r| r.effect == effect) {
                let applies = rule.tool.is_kind(kind)
                    || (kind == Kind::Edit && read_deny_blocks_edits(rule))
                    || (rule.tool.covers(call) && kind_of_rule(rule).is_none());
                let hit = match &rule.specifier {
                    // A bare `Read` or `Edit` covers every read or write; a bare rule
                    // naming the tool, all of its own.
                    None => rule.tool.is_kind(kind) || rule.tool.covers(call),
                    Some(specifier) => {
                        applies && path_pattern(specifier).is_some_and(|p| target.matches(p, effect, cwd))
                    }
                };
                if hit {
                    return Some(verdict_for(rule));
                }
            }
        }
        None
    }

    /// A file written: Edit and Read denies, Edit asks, protected paths, Edit allows,
    /// then acceptEdits inside the working directories.
    fn write(
        &self,
        target: &Touched,
        call: &CallNames<'_>,
        cwd: &Path,
        inside: bool,
        describe: impl Fn() -> String,
    ) -> Verdict {
        let ruled = self.path_rules(target, call, cwd, Kind::Edit);
        if let Some(verdict @ (Verdict::Deny(_) | Verdict::AskRule(_))) = &ruled {
            return verdict.clone();
        }
        // Allow rules do not pre-approve protected paths (Claude Code).
        if target.protected() {
            return Verdict::Undecided { what: What::Protected, reason: describe() };
        }
        if let Some(verdict) = ruled {
            return verdict;
        }
        if inside && call.mode == Mode::AcceptEdits {
            return Verdict::Allow;
        }
        Verdict::Undecided { what: What::Write, reason: describe() }
    }

    /// A shell command: every part must be allowed; any denied part denies it.
    fn shell(&self, line: &CommandLine, call: &CallNames<'_>, cwd: &Path, confined: bool) -> Verdict {
        let command = line.text();
        let analysis = line.analysis(shell::analyze);
        if analysis.too_deep {
            let why = analysis.unknowns.first().map_or("", String::as_str);
            return Verdict::Deny(format!("`{}` cannot be checked: {why}", first_line(command)));
        }
        let set = self.read_rules();
        let index = set.shell_index();
        let home = self.anchors.home.as_deref();
        let parts = &analysis.commands;
        // `cd dir && cat key` reads `dir/key`: paths are checked from the directories
        // a part may run in, each looked at on disk once (symlinks), when some rule is
        // about paths.
        let places = OnceCell::new();
        let places = || places.get_or_init(|| Places::new(&analysis, cwd, home));
        // The files redirections write, each looked at once for every list.
        let written = OnceCell::new();
        let written = || -> &[Touched] {
            written
                .get_or_init(|| analysis.writes.iter().map(|write| places().written(write, home)).collect::<Vec<_>>())
        };
        // The distinct first words the parts' forms start with (as written, or without
        // the program's directory): only the patterns starting with one are tried, and
        // only on the parts that start with it.
        let mut starts: SmallVec<[&str; 8]> = SmallVec::new();
        let views: SmallVec<[([usize; 2], OnceCell<Forms>); 4]> = parts
            .iter()
            .map(|part| {
                let written = first_token(part.words.first().map_or("", Word::text));
                let base = first_token(part.base_name().unwrap_or(written));
                ([index_in(&mut starts, written), index_in(&mut starts, base)], OnceCell::new())
            })
            .collect();
        let tried = |pattern: &CommandPattern, start: Option<usize>| {
            parts.iter().zip(&views).any(|(part, (part_starts, forms))| {
                start.is_none_or(|s| part_starts.contains(&s))
                    && forms.get_or_init(|| loose_forms(part)).iter().any(|form| matches_loose(pattern, form))
            })
        };
        let unknown = !analysis.unknowns.is_empty();
        // `Bash` rules govern every command; others only the tools they name.
        let applies = |rule: &Rule| rule.tool.is_kind(Kind::Shell) || rule.tool.covers(call);
        let starting: SmallVec<[_; 8]> = starts.iter().map(|word| index.starting_with(word)).collect();
        let mut candidates = Candidates::new();
        // An ask about the paths named waits until every deny has been looked for.
        let mut path_ask: Option<Verdict> = None;
        // Deny, then ask: each part, in every form it could be written.
        for effect in [Effect::Deny, Effect::Ask] {
            let list = index.list(effect);
            index.candidates(effect, &starting, unknown, &mut candidates);
            for &(i, start) in &candidates {
                let rule = &set.rules[i];
                if !applies(rule) {
                    continue;
                }
                let hit = match rule.specifier.as_ref().map(command_pattern) {
                    // A bare ask rule does not ask about a command that runs confined.
                    None => !(confined && effect == Effect::Ask),
                    Some(Some(pattern)) => tried(pattern, start) || (unknown && pattern.matches(command.trim())),
                    Some(None) => false,
                };
                if hit {
                    return verdict_for(rule);
                }
            }
            // Arguments naming files a Read deny covers: `cat .env` reads `.env`.
            if effect == Effect::Deny && !index.read_denies.is_empty() {
                // A deny needs either the path as named or where it finally is.
                // The first Read deny whose pattern `hits` the path as named or as it
                // finally is (a deny needs either).
                let read_deny = |probe: &Probe, hits: fn(&crate::path::PathPattern, &Path, &Path) -> bool| {
                    index.read_denies.iter().map(|&i| &set.rules[i]).find(|rule| {
                        rule.specifier.as_ref().and_then(path_pattern).is_some_and(|pattern| {
                            hits(pattern, &probe.path, cwd)
                                || probe.real.as_deref().is_some_and(|real| hits(pattern, real, cwd))
                        })
                    })
                };
                let denied = |named: &Probe| read_deny(named, crate::path::PathPattern::matches_at_or_below);
                // A recursive read of a directory reaches whatever a deny could match below it.
                let reaches = |probe: &Probe| read_deny(probe, crate::path::PathPattern::may_match_below);
                match places().named_paths(&analysis, command, home, denied, reaches) {
                    Some(deny @ Verdict::Deny(_)) => return deny,
                    other => path_ask = other,
                }
                // A link made by one part (`ln -s . x && cat x/.env`) names paths the
                // others can read through, which do not exist yet where the rules look.
                if path_ask.is_none() && parts.len() > 1 && parts.iter().any(makes_link) {
                    path_ask = Some(Verdict::AskRule(format!(
                        "`{}` makes a link that its other commands may read through, and some paths are \
                         denied; allow it?",
                        first_line(command)
                    )));
                }
            }
            // Redirections write files: Edit (and Read) deny and ask rules apply.
            if !list.writes.is_empty() {
                for (write, target) in analysis.writes.iter().zip(written()) {
                    if let Some(rule) =
                        list.writes.iter().map(|&i| &set.rules[i]).find(|r| covers_write(r, target, effect, cwd))
                    {
                        let why = format!("{} (the command writes `{write}`)", reason_for(rule));
                        return if effect == Effect::Deny { Verdict::Deny(why) } else { Verdict::AskRule(why) };
                    }
                }
            }
            if let Some(ask) = path_ask.take() {
                return ask;
            }
        }
        if let Some(why) = analysis.unknowns.first() {
            // What cannot be analysed might be what a deny rule is about: it is denied
            // where such rules exist, and always asks where ask rules do.
            if index.has_rules(Effect::Deny) {
                return Verdict::Deny(format!(
                    "`{}` cannot be checked against the deny rules: {why}",
                    first_line(command)
                ));
            }
            let question = format!("Allow `{}`? {why}", first_line(command));
            return if index.has_rules(Effect::Ask) { Verdict::AskRule(question) } else { Verdict::Ask(question) };
        }
        // Removing a critical path (`rm -rf /`, `~`, the working directory or a parent
        // of it) is approved by no rule and no mode: a person answers, every time.
        if let Some(why) = parts.iter().find_map(|part| self.critical_removal(part, places(), cwd, home)) {
            return Verdict::AskRule(format!("`{}` {why}; allow it?", first_line(command)));
        }
        // A redirection to a protected path is approved only by a person.
        if let Some(write) =
            analysis.writes.iter().zip(written()).find(|(_, target)| target.protected()).map(|(w, _)| w)
        {
            let reason = format!("`{}` writes `{write}`", first_line(command));
            return Verdict::Undecided { what: What::Protected, reason };
        }
        // Allow: every part by a rule, or by the read-only classifier.
        let allow = index.list(Effect::Allow);
        // What no rule allows: parts, then files written.
        let mut open: SmallVec<[&Command; 4]> = SmallVec::new();
        let mut open_writes: SmallVec<[&str; 2]> = SmallVec::new();
        let mut all_read_only = true;
        // Whether an allow rule allows a part as written; with `exact`, only a rule
        // without `*` naming it whole: an exec wrapper needs one, and one naming a whole
        // wrapper or find (`Bash(watch -n 1 make)`, `Bash(find . -delete)`) allows what
        // runs within it too (Claude Code).
        let allowed_by_rule = |part: &Command, exact: bool, found: &mut Candidates| -> bool {
            let text = strict_form(part);
            let starting = [text.as_deref().and_then(|text| index.starting_with(first_token(text)))];
            index.candidates(Effect::Allow, &starting, false, found);
            found.iter().filter(|&&(i, _)| applies(&set.rules[i])).any(|&(i, _)| {
                match set.rules[i].specifier.as_ref().map(command_pattern) {
                    None => !exact,
                    Some(Some(pattern)) => {
                        (!exact || pattern.is_exact()) && text.as_deref().is_some_and(|t| pattern.matches(t))
                    }
                    Some(None) => false,
                }
            })
        };
        for part in parts.iter().filter(|part| !part.stripped) {
            // `cd` changes no file (the shell tool keeps the directory inside the
            // workspace), but it is not read-only for scheduling: later calls depend
            // on it, so the classifier leaves it out and only the rules let it through.
            // A read-only part is harmless only where it stays inside the working
            // directories, and `git` only in the call's own directory (another
            // directory's hooks and config could run commands).
            let read_only = part.read_only || part.base_name() == Some("cd");
            let stays = || self.part_stays_inside(part, places(), cwd, home);
            let harmless = read_only && stays();
            all_read_only &= harmless;
            if harmless && self.read_only_shell_runs {
                continue;
            }
            // acceptEdits: the filesystem commands Claude Code lists, on paths inside
            // the working directories (none of them protected).
            if call.mode == Mode::AcceptEdits
                && part.base_name().is_some_and(|name| crate::protected::ACCEPT_EDITS_COMMANDS.contains(&name))
                && crate::read_only::runs_the_system_program(part)
                // sed's `e`, `w` and `r` run commands and touch other files.
                && (part.base_name() != Some("sed") || crate::sed::only_edits(part))
                && !part.exact_only
                && stays()
                && !self.part_touches_protected(part, places(), home)
            {
                continue;
            }
            let allowed = allowed_by_rule(part, part.exact_only, &mut candidates);
            if !allowed
                && !part.within.and_then(|at| parts.get(at)).is_some_and(|w| allowed_by_rule(w, true, &mut candidates))
            {
                open.push(part);
            }
        }
        for (write, target) in analysis.writes.iter().zip(written()) {
            // A target starting with `~` needs approval (Claude Code); a bare `Edit`
            // approves writes inside the working directories, a path rule where it names.
            let inside = target.inside(cwd, &self.additional_dirs);
            let allowed = !write.starts_with('~')
                && (allow.writes.iter().any(|&i| {
                    let rule = &set.rules[i];
                    covers_write(rule, target, Effect::Allow, cwd) && (rule.specifier.is_some() || inside)
                }) || (call.mode == Mode::AcceptEdits && inside));
            all_read_only = false;
            if !allowed {
                open_writes.push(write);
            }
        }
        if open.is_empty() && open_writes.is_empty() {
            return Verdict::Allow;
        }
        let mut reason = String::with_capacity(2 * command.len() + 32);
        for piece in [call.tool, ": `", first_line(command), "` needs approval for "] {
            reason.push_str(piece);
        }
        let mut separator = "";
        for part in open {
            reason.push_str(separator);
            display_form(part, &mut reason);
            separator = ", ";
        }
        for write in open_writes {
            for piece in [separator, "writing `", write, "`"] {
                reason.push_str(piece);
            }
            separator = ", ";
        }
        Verdict::Undecided { what: What::Command { read_only: all_read_only && self.read_only_shell_runs }, reason }
    }

    /// Why `part` is an `rm`/`rmdir` of a critical path, if it is (Claude Code's list):
    /// the root, a top-level directory, the home directory, the working directory or a
    /// parent of it, a glob directly under an additional directory, or a glob or
    /// trailing slash directly under a variable (`"$DIR"/*` is `/*` when it is empty).
    fn critical_removal(&self, part: &Command, places: &Places, cwd: &Path, home: Option<&Path>) -> Option<String> {
        if !matches!(part.base_name(), Some("rm" | "rmdir")) {
            return None;
        }
        for word in part.words.iter().skip(1) {
            let text = word.text();
            if text.starts_with('-') && matches!(word, Word::Literal(_)) {
                continue;
            }
            if let Word::Dynamic(raw) = word
                && (raw.ends_with("/*") || raw.ends_with('/') || raw.ends_with("/.*"))
            {
                return Some(format!("removes `{raw}`, which is the root's contents if the variable is empty"));
            }
            let glob = matches!(word, Word::Pattern(_));
            let target = if glob { literal_dirs(text) } else { text.to_owned() };
            for dir in places.of(part).flatten() {
                let probe = places.resolve(&target, dir, home);
                for path in [probe.path.as_path(), probe.real()] {
                    let depth = path.components().filter(|c| matches!(c, Component::Normal(_))).count();
                    let critical = depth <= 1
                        || home.is_some_and(|h| path == h)
                        || cwd.starts_with(path)
                        || (glob && self.additional_dirs.iter().any(|d| d.starts_with(path)));
                    if critical {
                        return Some(format!("removes `{text}`, a critical path (`{}`)", path.display()));
                    }
                }
            }
        }
        None
    }

    /// Whether a literal argument of `part` names a protected path.
    fn part_touches_protected(&self, part: &Command, places: &Places, home: Option<&Path>) -> bool {
        places.of(part).flatten().any(|dir| {
            part.words.iter().skip(1).filter_map(Word::literal).filter(|arg| !arg.starts_with('-')).any(|arg| {
                let probe = places.resolve(arg, dir, home);
                crate::protected::is_protected(&probe.path) || crate::protected::is_protected(probe.real())
            })
        })
    }

    /// Whether a part's literal path arguments, and the directories it runs in, stay
    /// inside the working directories, and a `git` part runs where the call does.
    fn part_stays_inside(&self, part: &Command, places: &Places, cwd: &Path, home: Option<&Path>) -> bool {
        let name = part.base_name();
        // Arguments known only when it runs (`xargs`, `find -exec`, `find -delete`).
        if part.more_args {
            return false;
        }
        let mut dirs = places.of(part);
        // git elsewhere (`cd dir && git`, `git -C dir`) or with its config changed
        // (`git -c core.pager=..`) can run commands from that directory or option.
        // (A `cd` back to the call's own directory, `cd .`, goes nowhere.)
        let elsewhere = || places.of(part).any(|dir| dir.is_none_or(|dir| dir.real() != places.cwd.real()));
        if name == Some("git")
            && (elsewhere()
                || part.words.iter().skip(1).any(|w| {
                    w.literal().is_none_or(|w| {
                        matches!(w, "-C" | "-c" | "--git-dir" | "--work-tree" | "--exec-path" | "--config-env")
                            || w.starts_with("--git-dir=")
                            || w.starts_with("--work-tree=")
                            || w.starts_with("--exec-path=")
                            || w.starts_with("--config-env=")
                    })
                }))
        {
            return false;
        }
        // Commands whose arguments are never paths.
        if matches!(
            name,
            Some(
                "echo"
                    | "printf"
                    | "true"
                    | "false"
                    | "pwd"
                    | "date"
                    | "seq"
                    | "whoami"
                    | "id"
                    | "uname"
                    | "type"
                    | "which"
                    | "test"
                    | "["
            )
        ) {
            return dirs.all(|dir| dir.is_some_and(|d| d.inside(cwd, &self.additional_dirs)));
        }
        let subcommand = name.is_some_and(has_subcommands);
        // sed's scripts are not paths (`/^#/d` is an address).
        let scripts: Vec<usize> = match name {
            Some("sed") => crate::sed::scripts(part).unwrap_or_default().into_iter().map(|(i, _)| i).collect(),
            _ => Vec::new(),
        };
        dirs.all(|dir| {
            let Some(dir) = dir else { return false };
            if !dir.inside(cwd, &self.additional_dirs) {
                return false;
            }
            part.words.iter().enumerate().skip(1).filter(|(i, _)| !scripts.contains(i)).map(|(i, w)| (i - 1, w)).all(
                |(k, word)| match word {
                    // `--file=/etc/x` opens its value like an operand.
                    Word::Literal(arg) if arg.starts_with('-') => option_path(name, arg)
                        .is_none_or(|value| places.resolve(value, dir, home).inside(cwd, &self.additional_dirs)),
                    Word::Literal(_) if k == 0 && subcommand => true,
                    Word::Literal(arg) => places.resolve(arg, dir, home).inside(cwd, &self.additional_dirs),
                    // A pattern stays inside when its literal directories do and it does not
                    // climb out (`*/../..`); what it matches is below them.
                    Word::Pattern(arg) => {
                        !arg.split('/').any(|c| c == "..")
                            && places.resolve(&literal_dirs(arg), dir, home).inside(cwd, &self.additional_dirs)
                    }
                    Word::Dynamic(_) => false,
                },
            )
        })
    }

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

/// The top-level fields of a JSON object input (empty for anything else).
fn top_level(input: &str) -> serde_json::Map<String, Value> {
    match serde_json::from_str(input) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

/// A scalar parameter as text (`true`, `5`, `opus`); objects and arrays are not matched.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The kind a rule's name stands for.
fn kind_of_rule(rule: &Rule) -> Option<Kind> {
    match &rule.tool {
        ToolName::Exact(name) => kind_of_name(name),
        _ => None,
    }
}

/// Where a command's parts may run: the call's directory and each directory a `cd`
/// changes to, as named and as it finally is (symlinks), looked at on disk once.
struct Places<'a> {
    cwd: Probe,
    /// [`Analysis::dirs`] resolved; `None` where the directory is known only when the
    /// command runs.
    dirs: SmallVec<[Option<Probe>; 2]>,
    /// The changes `dirs` resolves, from where to which name: a later look at the same
    /// name from the same place is the same directory.
    changes: &'a [shell::DirChange],
    /// Paths already looked at on disk in this decision, by the directory they were
    /// named from and the name: each is looked at once, whichever check asks. (Slots
    /// that are set stay put, so what they hold can be lent out for the decision.)
    seen: [OnceCell<Seen>; SEEN_SLOTS],
}

/// How many looked-at paths a decision remembers; past that, a path is looked at
/// again (a command naming more than this many paths is rare).
const SEEN_SLOTS: usize = 16;

/// A path looked at: from where (`None`: the call's directory), its name (inline:
/// names are short), and what was found.
struct Seen {
    place: Option<usize>,
    name: SmallVec<[u8; 32]>,
    probe: Probe,
}

/// A looked-at path, kept by [`Places`] or, past its slots, owned.
enum Looked<'p> {
    Kept(&'p Probe),
    Owned(Probe),
}

impl std::ops::Deref for Looked<'_> {
    type Target = Probe;

    fn deref(&self) -> &Probe {
        match self {
            Looked::Kept(probe) => probe,
            Looked::Owned(probe) => probe,
        }
    }
}

impl<'a> Places<'a> {
    fn new(analysis: &'a shell::Analysis, cwd: &Path, home: Option<&Path>) -> Places<'a> {
        let cwd = Probe { path: cwd.to_path_buf(), real: None, is_dir: true };
        let mut dirs: SmallVec<[Option<Probe>; 2]> = SmallVec::new();
        for change in &analysis.dirs {
            let from = match change.from {
                None => Some(&cwd),
                Some(i) => dirs[i].as_ref(),
            };
            let place = match (from, &change.to) {
                (Some(from), Some(to)) => Some(resolve_named(to, from, home)),
                _ => None,
            };
            dirs.push(place);
        }
        Places { cwd, dirs, changes: &analysis.dirs, seen: Default::default() }
    }

    /// [`resolve_named`], looked at on disk once per decision.
    fn resolve(&self, arg: &str, base: &Probe, home: Option<&Path>) -> Looked<'_> {
        // (Keyed by the place: the call's directory or a `cd` target; a base from
        // elsewhere is looked at anew.)
        let place = if std::ptr::eq(base, &self.cwd) {
            None
        } else {
            match self.dirs.iter().position(|d| d.as_ref().is_some_and(|d| std::ptr::eq(d, base))) {
                Some(i) => Some(i),
                None => return Looked::Owned(resolve_named(arg, base, home)),
            }
        };
        // The directories `cd` went to are looked at already.
        if let Some(i) = self.changes.iter().position(|c| c.from == place && c.to.as_deref() == Some(arg))
            && let Some(dir) = &self.dirs[i]
        {
            return Looked::Kept(dir);
        }
        for slot in &self.seen {
            match slot.get() {
                Some(seen) if seen.place == place && seen.name.as_slice() == arg.as_bytes() => {
                    return Looked::Kept(&seen.probe);
                }
                Some(_) => {}
                None => {
                    let probe = resolve_named(arg, base, home);
                    let kept = slot.get_or_init(|| Seen { place, name: SmallVec::from_slice(arg.as_bytes()), probe });
                    return Looked::Kept(&kept.probe);
                }
            }
        }
        Looked::Owned(resolve_named(arg, base, home))
    }

    /// The directories a part may run in; `None` for one known only when it runs.
    fn of<'p>(&'p self, part: &Command) -> impl Iterator<Item = Option<&'p Probe>> {
        part.dirs.iter().map(|dir| match dir {
            None => Some(&self.cwd),
            Some(i) => self.dirs[*i].as_ref(),
        })
    }

    /// A file a redirection writes, from every directory the command may be in.
    fn written(&self, write: &str, home: Option<&Path>) -> Touched {
        let from = std::iter::once(&self.cwd).chain(self.dirs.iter().flatten());
        Touched(from.map(|dir| Probe::clone(&self.resolve(write, dir, home))).collect())
    }

    /// A deny when the command changes to, or names, a path that `denied` finds a rule
    /// for (`cat .env`, `grep -r key secrets`, `cd secrets && ls`); an ask when it
    /// reads a computed path, or runs in a directory known only when it runs.
    fn named_paths<'r>(
        &self,
        analysis: &shell::Analysis,
        command: &str,
        home: Option<&Path>,
        denied: impl Fn(&Probe) -> Option<&'r Rule>,
        reaches: impl Fn(&Probe) -> Option<&'r Rule>,
    ) -> Option<Verdict> {
        let (parts, changes) = (&analysis.commands, &analysis.dirs);
        // An ask is kept until every path has been checked: a deny found later wins.
        let mut ask: Option<String> = None;
        let computed = |ask: &mut Option<String>, raw: &str| {
            ask.get_or_insert_with(|| {
                format!("`{}` reads a computed path `{raw}`, and some paths are denied; allow it?", first_line(command))
            });
        };
        for (place, change) in self.dirs.iter().zip(changes) {
            if let (Some(place), Some(to)) = (place, &change.to)
                && let Some(rule) = denied(place)
            {
                return Some(Verdict::Deny(format!("{} (the command changes to `{to}`)", reason_for(rule))));
            }
        }
        // `cmd < file` reads the file, from wherever the command may be.
        for read in &analysis.reads {
            for dir in std::iter::once(&self.cwd).chain(self.dirs.iter().flatten()) {
                match read {
                    Word::Literal(arg) | Word::Pattern(arg) => {
                        if let Some(verdict) = self.word_paths(read, arg, dir, home, &denied, &reaches) {
                            return Some(verdict);
                        }
                    }
                    Word::Dynamic(raw) => computed(&mut ask, raw),
                }
            }
        }
        for part in parts {
            // `cd`'s own words are the directory, checked above.
            let changes_dir = matches!(part.base_name(), Some("cd" | "pushd" | "popd"));
            let words = if changes_dir { &[][..] } else { part.words.get(1..).unwrap_or_default() };
            // `git diff`, `npm test`: the word right after these programs names a
            // subcommand, not a file.
            let subcommand = part.base_name().is_some_and(has_subcommands);
            let recursive = recursive_reads(part);
            for dir in self.of(part) {
                let Some(dir) = dir else {
                    ask.get_or_insert_with(|| {
                        format!(
                            "`{}` runs in a directory known only when it runs, and some paths are denied; allow it?",
                            first_line(command)
                        )
                    });
                    continue;
                };
                // A recursive search reads everything below its directories (the
                // working directory when it names none).
                if let Some(dirs) = &recursive {
                    let implicit = [Word::Literal(".".to_owned())];
                    let dirs: Vec<&Word> = if dirs.is_empty() { implicit.iter().collect() } else { dirs.clone() };
                    for word in dirs {
                        let Some(arg) = word.literal() else { continue };
                        let probe = self.resolve(arg, dir, home);
                        if let Some(rule) = reaches(&probe) {
                            let why = format!(
                                "{} (the command searches `{arg}`, which holds what it denies)",
                                reason_for(rule)
                            );
                            return Some(Verdict::Deny(why));
                        }
                    }
                }
                for (k, word) in words.iter().enumerate() {
                    match word {
                        Word::Literal(arg) if arg.starts_with('-') => {
                            if let Some(value) = option_path(part.base_name(), arg) {
                                let named = Word::Literal(value.to_owned());
                                if let Some(verdict) = self.word_paths(&named, value, dir, home, &denied, &reaches) {
                                    return Some(verdict);
                                }
                            }
                        }
                        Word::Literal(_) if k == 0 && subcommand => {}
                        Word::Literal(arg) | Word::Pattern(arg) => {
                            if let Some(verdict) = self.word_paths(word, arg, dir, home, &denied, &reaches) {
                                return Some(verdict);
                            }
                            // `git show HEAD:.env` reads the file as committed: `<rev>:<path>`.
                            if let Some(path) = git_object_path(part.base_name(), arg) {
                                let named = Word::Literal(path.to_owned());
                                if let Some(verdict) = self.word_paths(&named, path, dir, home, &denied, &reaches) {
                                    return Some(verdict);
                                }
                            }
                        }
                        Word::Dynamic(raw) => computed(&mut ask, raw),
                    }
                }
            }
        }
        // Whether the command reaches a denied path cannot be told: a person looks,
        // whatever the mode.
        ask.map(Verdict::AskRule)
    }

    /// A deny for a word naming paths from `dir`: as written, or as bash expands a
    /// pattern (a pattern too wide to expand reaches everything below its directory).
    fn word_paths<'r>(
        &self,
        word: &Word,
        arg: &str,
        dir: &Probe,
        home: Option<&Path>,
        denied: &impl Fn(&Probe) -> Option<&'r Rule>,
        reaches: &impl Fn(&Probe) -> Option<&'r Rule>,
    ) -> Option<Verdict> {
        let deny = |rule: &Rule| Some(Verdict::Deny(format!("{} (the command names `{arg}`)", reason_for(rule))));
        if !matches!(word, Word::Pattern(_)) {
            return denied(&self.resolve(arg, dir, home)).and_then(deny);
        }
        let Some(words) = crate::expand::braces(arg) else {
            // Too many words to check one by one: it reaches whatever is below the
            // directories it starts with (`{.e,a}{n,a}{v,a}{a,}...` is `.env` among 2,048).
            let below = self.resolve(&literal_dirs(arg), dir, home);
            return reaches(&below).and_then(deny);
        };
        for expanded in &words {
            let named = self.resolve(expanded, dir, home);
            if !crate::expand::has_glob(expanded) {
                if let Some(rule) = denied(&named) {
                    return deny(rule);
                }
                continue;
            }
            // Expanded from where the shell really is (symlinks on the way resolved).
            let base = dir.real();
            let pattern = match expanded.strip_prefix("~/").zip(home) {
                Some((rest, home)) => home.join(rest).to_string_lossy().into_owned(),
                None => expanded.clone(),
            };
            match crate::expand::glob(&pattern, base) {
                crate::expand::Expansion::Paths(paths) => {
                    for path in paths {
                        let probe = resolve_named(&path.to_string_lossy(), dir, home);
                        if let Some(rule) = denied(&probe) {
                            return deny(rule);
                        }
                    }
                }
                crate::expand::Expansion::TooMany(below) => {
                    let probe = Probe { path: below, real: None, is_dir: true };
                    if let Some(rule) = reaches(&probe) {
                        return deny(rule);
                    }
                }
            }
        }
        None
    }
}

/// Whether a command makes a link (`ln`, `link`, `cp -s`/`-l`, `mount --bind`).
fn makes_link(part: &Command) -> bool {
    let args = || part.words.iter().skip(1).filter_map(Word::literal);
    match part.base_name() {
        Some("ln" | "link") => true,
        Some("cp") => args().any(|a| {
            matches!(a, "--symbolic-link" | "--link")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains(['s', 'l']))
        }),
        Some("mount") => args().any(|a| matches!(a, "--bind" | "--rbind" | "-B" | "-R")),
        _ => false,
    }
}

/// The path of a `git` object name `<rev>:<path>` (`HEAD:.env`, `main:src/key`, `:.env`
/// for the index): what `git show` or `git cat-file` prints is that file, as committed.
/// (Paths in such a name are from the repository's root; the directory the command
/// runs in is taken for it, as `./` forms are.)
fn git_object_path<'a>(program: Option<&str>, arg: &'a str) -> Option<&'a str> {
    if program != Some("git") || arg.contains("://") {
        return None;
    }
    let (_, path) = arg.split_once(':')?;
    let path = path.strip_prefix("./").unwrap_or(path);
    (!path.is_empty()).then_some(path)
}

/// The path an option carries in its own word, which the program opens as it would
/// an operand: a long option's value (`diff --from-file=.env`, `wc --files0-from=x`)
/// and grep's attached pattern file (`grep -f.env`). A value that is no path (`--color=auto`)
/// names a file in the directory, which is harmless to check.
fn option_path<'a>(program: Option<&str>, arg: &'a str) -> Option<&'a str> {
    if let Some(long) = arg.strip_prefix("--") {
        // Looked at only when it may be a path: shaped like one, or the option's name
        // says so (`--from-file=x`); `--watch=false` and `--color=auto` are not (each
        // look is a syscall).
        let (name, value) = long.split_once('=')?;
        let path_shaped = value.contains(['/', '.', '~']);
        let path_named = ["file", "from", "dir", "path"].iter().any(|n| name.contains(n));
        return (!value.is_empty() && (path_shaped || path_named)).then_some(value);
    }
    match program {
        Some("grep" | "egrep" | "fgrep" | "rg" | "ugrep") => arg.strip_prefix("-f").filter(|value| !value.is_empty()),
        // `cp -t/tmp a`: the directory written to.
        Some("cp" | "mv" | "ln" | "install") => arg.strip_prefix("-t").filter(|value| !value.is_empty()),
        _ => None,
    }
}

/// The literal directories a pattern starts with (`src/*/x` → `src`, `*.rs` → `.`).
fn literal_dirs(pattern: &str) -> String {
    let mut dirs: Vec<&str> = Vec::new();
    for component in pattern.split('/') {
        if crate::expand::has_glob(component) || crate::expand::has_braces(component) {
            break;
        }
        dirs.push(component);
    }
    if dirs.is_empty() {
        return ".".to_owned();
    }
    if dirs == [""] {
        return "/".to_owned();
    }
    dirs.join("/")
}

/// The directories a command reads recursively (`grep -r`, `rg`, `find`, `ls -R`,
/// `tree`, `du`, `cp -r`, `tar`, `git grep`): `None` if it does not; an empty list if it
/// reads the working directory.
fn recursive_reads(part: &Command) -> Option<Vec<&Word>> {
    let name = part.base_name()?;
    // Most commands read nothing recursively: decided on the name before anything is
    // collected.
    if !matches!(
        name,
        "grep"
            | "egrep"
            | "fgrep"
            | "rg"
            | "ag"
            | "ack"
            | "ack-grep"
            | "ugrep"
            | "pt"
            | "sift"
            | "find"
            | "ls"
            | "tree"
            | "du"
            | "cp"
            | "scp"
            | "rsync"
            | "tar"
            | "zip"
            | "7z"
            | "cpio"
            | "git"
    ) {
        return None;
    }
    let args = part.words.get(1..).unwrap_or_default();
    let flag = |word: &Word| word.literal().is_some_and(|w| w.starts_with('-') && w != "-");
    let short = |word: &Word, letters: &[char]| {
        word.literal()
            .is_some_and(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].chars().any(|c| letters.contains(&c)))
    };
    let long = |word: &Word, names: &[&str]| {
        word.literal().is_some_and(|w| {
            names.iter().any(|n| w.strip_prefix(n).is_some_and(|rest| rest.is_empty() || rest.starts_with('=')))
        })
    };
    // (Collected only for a command that does read recursively.)
    let operands = || -> Vec<&Word> { args.iter().filter(|w| !flag(w)).collect() };
    // For the searchers, the first operand is the pattern unless `-e`/`-f` gave it.
    let after_pattern = || {
        let given = args.iter().any(|w| short(w, &['e', 'f']) || long(w, &["--regexp", "--file", "--files"]));
        let mut operands = operands();
        if !given && !operands.is_empty() {
            operands.remove(0);
        }
        operands
    };
    match name {
        "grep" | "egrep" | "fgrep"
            if args.iter().any(|w| {
                short(w, &['r', 'R'])
                    || long(w, &["--recursive", "--dereference-recursive"])
                    || w.literal() == Some("--directories=recurse")
            }) =>
        {
            Some(after_pattern())
        }
        "rg" | "ag" | "ack" | "ack-grep" | "ugrep" | "pt" | "sift" => Some(after_pattern()),
        "find" => Some(
            args.iter()
                .take_while(|w| w.literal().is_none_or(|w| !w.starts_with('-') && w != "(" && w != "!"))
                .collect(),
        ),
        "ls" if args.iter().any(|w| short(w, &['R']) || long(w, &["--recursive"])) => Some(operands()),
        "tree" | "du" => Some(operands()),
        "cp" | "scp" | "rsync"
            if args.iter().any(|w| short(w, &['r', 'R', 'a']) || long(w, &["--recursive", "--archive"])) =>
        {
            Some(operands())
        }
        "tar" | "zip" | "7z" | "cpio" => Some(operands()),
        "git" if part.words.get(1).and_then(Word::literal) == Some("grep") => Some(Vec::new()),
        _ => None,
    }
}

/// `arg` named from the directory `base`: the path, and where it finally is when a
/// symlink on the way makes that differ. Each component below `base` (below the root
/// for an absolute path) is looked at once (`lstat`), up to the first that does not
/// exist or is not a directory; a symlink is resolved from there on as the system
/// would, `..` after it included. The call's working directory is taken as given: the
/// shell tool keeps it physical (`pwd -P` after every command), so only a directory the
/// agent was started in can hold a symlink.
fn resolve_named(arg: &str, base: &Probe, home: Option<&Path>) -> Probe {
    // `~+` is the directory the command runs in.
    if let Some(rest) = arg.strip_prefix("~+").filter(|rest| rest.is_empty() || rest.starts_with('/')) {
        let rest = rest.trim_start_matches('/');
        return resolve_named(if rest.is_empty() { "." } else { rest }, base, home);
    }
    // Most arguments are one name in the directory: one look at it.
    if !arg.contains('/') && !matches!(arg, "" | "." | "..") && !arg.starts_with('~') {
        let mut path = PathBuf::with_capacity(base.path.as_os_str().len() + arg.len() + 1);
        path.push(&base.path);
        path.push(arg);
        let real = base.real.as_ref().map(|real| real.join(arg));
        let looked_at = real.as_deref().unwrap_or(&path);
        return match look_at(looked_at) {
            Some(Found::Link) => {
                let real = resolve_link(looked_at);
                let is_dir = real.is_dir();
                Probe { real: (real != path).then_some(real), path, is_dir }
            }
            found => Probe { path, real, is_dir: found == Some(Found::Dir) },
        };
    }
    let expanded: std::borrow::Cow<'_, Path> = match (arg.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => home.join(format!(".{rest}")).into(),
        _ => Path::new(arg).into(),
    };
    let mut at = PathBuf::with_capacity(base.real().as_os_str().len() + expanded.as_os_str().len() + 1);
    let mut through_link = false;
    if expanded.is_absolute() {
        at.push("/");
    } else {
        at.push(base.real());
        through_link = base.real.is_some();
    }
    let mut components = expanded.components();
    // Whether what the walk is at exists, and is a directory (the base is one).
    let mut exists = true;
    let mut is_dir = true;
    while let Some(component) = components.next() {
        match component {
            Component::Normal(name) => {
                at.push(name);
                if !exists {
                    continue;
                }
                match look_at(&at) {
                    Some(Found::Link) => {
                        // (Joining an empty rest would add a `/`, which a file refuses.)
                        let rest = components.as_path();
                        at = resolve_link(&if rest.as_os_str().is_empty() { at } else { at.join(rest) });
                        through_link = true;
                        is_dir = at.is_dir();
                        break;
                    }
                    Some(found) => {
                        is_dir = found == Found::Dir;
                        exists = is_dir;
                    }
                    None => {
                        exists = false;
                        is_dir = false;
                    }
                }
            }
            Component::ParentDir => {
                at.pop();
                is_dir = exists;
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    // Without a symlink on the way, the walk went where the lexical path goes.
    if !through_link {
        return Probe { path: at, real: None, is_dir };
    }
    let path = absolute(arg, &base.path, home);
    let real = Some(at).filter(|real| *real != path);
    Probe { path, real, is_dir }
}

/// What a path names, its last symlink not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Link,
    Dir,
    Other,
}

/// What is at `path` (`None`: nothing, or it cannot be looked at). On Linux one
/// `statx` asking for the type alone: a decision looks paths up, and on this kind of
/// VM that is a fifth cheaper than the full `lstat` std makes (1.25 against 1.55 us).
fn look_at(path: &Path) -> Option<Found> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{AtFlags, CWD, FileType, StatxFlags, statx};
        let stat = statx(CWD, path, AtFlags::SYMLINK_NOFOLLOW, StatxFlags::TYPE).ok()?;
        Some(match FileType::from_raw_mode(stat.stx_mode.into()) {
            FileType::Symlink => Found::Link,
            FileType::Directory => Found::Dir,
            _ => Found::Other,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let kind = std::fs::symlink_metadata(path).ok()?.file_type();
        Some(if kind.is_symlink() {
            Found::Link
        } else if kind.is_dir() {
            Found::Dir
        } else {
            Found::Other
        })
    }
}

/// Paths the `Read` deny rules cover, for a given working directory.
#[derive(Debug, Clone, Default)]
pub struct ReadDenials {
    patterns: Arc<[(crate::path::PathPattern, String)]>,
    cwd: PathBuf,
}

impl ReadDenials {
    /// The rule that denies reading `path` (absolute), if one does. A path through a
    /// symlink is denied when the link or its target is.
    pub fn denied_by(&self, path: &Path, is_dir: bool) -> Option<&str> {
        let found = |path: &Path| {
            self.patterns.iter().find(|(p, _)| p.matches(path, &self.cwd, is_dir)).map(|(_, text)| text.as_str())
        };
        found(path).or_else(|| {
            let real = path.canonicalize().ok()?;
            (real != path).then(|| found(&real)).flatten()
        })
    }

    /// Whether reading `path` could reach a denied path below it (a recursive search
    /// of a directory holding one).
    pub fn covers_below(&self, path: &Path) -> bool {
        self.patterns.iter().any(|(p, _)| p.may_match_below(path, &self.cwd))
    }

    /// Whether there are no such rules.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

impl ReadFilter for ReadDenials {
    fn denied(&self, path: &Path, is_dir: bool) -> Option<String> {
        self.denied_by(path, is_dir).map(|rule| format!("denied by the permission rule `{rule}`"))
    }
}

/// Whether a rule of a list's `writes` covers a file a redirection writes: a bare
/// `Edit` covers every one, a path rule the ones its pattern matches.
fn covers_write(rule: &Rule, target: &Touched, effect: Effect, cwd: &Path) -> bool {
    match &rule.specifier {
        None => true,
        Some(specifier) => path_pattern(specifier).is_some_and(|p| target.matches(p, effect, cwd)),
    }
}

/// A `Read` deny also blocks edits and writes of what it covers.
fn read_deny_blocks_edits(rule: &Rule) -> bool {
    rule.effect == Effect::Deny && matches!(&rule.tool, ToolName::Exact(n) if n == "Read")
}

fn verdict_for(rule: &Rule) -> Verdict {
    match rule.effect {
        Effect::Deny => Verdict::Deny(reason_for(rule)),
        Effect::Ask => Verdict::AskRule(format!("{}; allow it?", reason_for(rule))),
        Effect::Allow => Verdict::Allow,
    }
}

fn reason_for(rule: &Rule) -> String {
    let list = match rule.effect {
        Effect::Deny => "denied",
        Effect::Ask => "asked for",
        Effect::Allow => "allowed",
    };
    format!("{list} by the rule `{}` ({:?} settings)", rule.text, rule.source)
}

/// The pieces joined, allocated once (the question of every call that asks is built
/// this way).
fn concat(pieces: &[&str]) -> String {
    let mut text = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    pieces.iter().for_each(|p| text.push_str(p));
    text
}

fn first_line(command: &str) -> &str {
    let line = memchr::memchr(b'\n', command.as_bytes()).map_or(command, |end| &command[..end]);
    let line = line.strip_suffix('\r').unwrap_or(line);
    line.get(..200).unwrap_or(line)
}

/// The user's home directory (`~/` in rules), if known.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// Whether the normalised absolute `path` is `dir` or below it (on bytes: a sibling
/// sharing a name prefix, `/work/proj2` for `/work/proj`, is not below it).
fn within(path: &Path, dir: &Path) -> bool {
    let (path, dir) = (path.as_os_str().as_encoded_bytes(), dir.as_os_str().as_encoded_bytes());
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    path.strip_prefix(dir).is_some_and(|rest| rest.is_empty() || rest.starts_with(b"/"))
}

/// A path a call touches, with its link resolved once.
#[derive(Debug, Clone)]
struct Probe {
    path: PathBuf,
    /// What the path finally names, if a symlink makes that a different path.
    real: Option<PathBuf>,
    is_dir: bool,
}

impl Probe {
    /// Whether the path, as named and as it finally is, is inside `cwd` or `extra`.
    fn inside(&self, cwd: &Path, extra: &[PathBuf]) -> bool {
        let one = |p: &Path| within(p, cwd) || extra.iter().any(|d| within(p, d));
        one(&self.path) && self.real.as_deref().is_none_or(one)
    }

    /// The path as finally named.
    fn real(&self) -> &Path {
        self.real.as_deref().unwrap_or(&self.path)
    }
}

/// Paths a call touches, each with its link resolved once.
struct Touched(Vec<Probe>);

impl Touched {
    /// `path` named from `cwd`; for a search, also what is below it (a probe child
    /// lets a deny of `dir/**` catch a search of `dir`).
    fn named(path: &str, cwd: &Path, home: Option<&Path>, search: bool) -> Touched {
        let cwd = Probe { path: cwd.to_path_buf(), real: None, is_dir: true };
        let named = resolve_named(path, &cwd, home);
        let inside = search.then(|| Probe {
            path: named.path.join(PROBE_CHILD),
            real: named.real.as_ref().map(|real| real.join(PROBE_CHILD)),
            is_dir: false,
        });
        Touched([named].into_iter().chain(inside).collect())
    }

    /// Whether every path, as named and as it finally is, is inside `cwd` or `extra`.
    fn inside(&self, cwd: &Path, extra: &[PathBuf]) -> bool {
        self.0.iter().all(|p| p.inside(cwd, extra))
    }

    /// Whether a path, as named or as it finally is, is protected.
    fn protected(&self) -> bool {
        self.0.iter().any(|p| crate::protected::is_protected(&p.path) || crate::protected::is_protected(p.real()))
    }

    fn matches(&self, pattern: &crate::path::PathPattern, effect: Effect, cwd: &Path) -> bool {
        // A symlink: an allow needs the link and its target; a deny (or ask) needs
        // either. Likewise over the paths a call touches.
        let one = |probe: &Probe| {
            let link = pattern.matches(&probe.path, cwd, probe.is_dir);
            let real = match &probe.real {
                Some(real) => pattern.matches(real, cwd, probe.is_dir),
                None => link,
            };
            if effect == Effect::Allow { link && real } else { link || real }
        };
        if effect == Effect::Allow { self.0.iter().all(one) } else { self.0.iter().any(one) }
    }
}

/// The file a path finally names, symlinks resolved; for a path that does not exist
/// (a file about to be written), its nearest existing directory resolved and the rest
/// as written (`link/new.txt` is created where `link` points).
fn resolve_link(path: &Path) -> PathBuf {
    match path.canonicalize() {
        Ok(real) => real,
        Err(_) => match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => resolve_link(parent).join(name),
            _ => path.to_path_buf(),
        },
    }
}

/// The text an allow rule must match: literal words, safe assignments skipped, any
/// other assignment kept in front, a computed word as a placeholder no literal
/// pattern matches. `None` if nothing can be said.
fn strict_form(command: &Command) -> Option<String> {
    const UNKNOWN: &str = "\u{1}";
    let mut text = String::with_capacity(command.words.iter().map(|w| w.text().len() + 1).sum::<usize>() + 8);
    let mut pieces = 0;
    let mut add = |piece: &[&str]| {
        if pieces > 0 {
            text.push(' ');
        }
        pieces += 1;
        piece.iter().for_each(|p| text.push_str(p));
    };
    for (name, value) in &command.env {
        if !SAFE_ENV_VARS.contains(&name.as_str()) {
            add(&[name, "=", value]);
        }
    }
    for word in &command.words {
        add(&[word.literal().unwrap_or(UNKNOWN)]);
    }
    if command.more_args {
        add(&[UNKNOWN]);
    }
    (pieces > 0).then_some(text)
}

/// The part as written, in backquotes, added to `text`.
fn display_form(command: &Command, text: &mut String) {
    text.push('`');
    for (i, word) in command.words.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(word.text());
    }
    text.push('`');
}

/// The forms a deny or ask rule is matched against: past any assignment; as written,
/// with the name's directory dropped, with `git`'s global options dropped, and with
/// short flags merged and sorted (`rm -r -f` is `rm -fr`).
fn loose_forms(command: &Command) -> Forms {
    let Some(name) = command.words.first().map(Word::text) else { return Forms::new() };
    let mut forms = Forms::new();
    forms.push(joined(command.words.iter().map(Word::text)));
    let base = command.base_name().unwrap_or(name);
    if base != name {
        let named = concat(&[base, &forms[0][name.len()..]]);
        forms.push(named);
    }
    // Global options before the subcommand (`git -C dir push`): the form without them.
    if base == "git" && command.words.get(1).is_some_and(|w| w.text().starts_with('-')) {
        let args: Vec<&str> = command.words[1..].iter().map(Word::text).collect();
        if let Some((sub, rest)) = shell::git_subcommand(&args)
            && rest.len() + 1 < args.len()
        {
            forms.push(joined(["git", sub].into_iter().chain(rest.iter().copied())));
        }
    }
    // Flags anywhere (`git push origin --force`, `rm x -rf`): the form with every flag
    // moved to just after the command, or its subcommand, in the order written.
    // (The words are the same in every form: most commands have no flag after an
    // operand, and skip this.)
    let skip = if has_subcommands(base) { 2 } else { 1 };
    let args = command.words.iter().skip(skip).map(Word::text).take_while(|w| *w != "--");
    let misplaced = args
        .scan(false, |operand, w| {
            let flag = w.starts_with('-') && w.len() > 1;
            let late = flag && *operand;
            *operand |= !flag;
            Some(late)
        })
        .any(|late| late);
    for i in 0..forms.len() {
        if !misplaced {
            break;
        }
        if let Some(moved) = flags_first(&forms[i]) {
            forms.push(moved);
        }
    }
    for i in 0..forms.len() {
        if let Some(canonical) = canonical_flags(&forms[i]) {
            forms.push(canonical);
        }
    }
    if command.more_args {
        for i in 0..forms.len() {
            let with_more = concat(&[&forms[i], " \u{1}"]);
            forms.push(with_more);
        }
    }
    forms
}

/// `form` with its flags moved right after the command name (after the subcommand
/// for programs that have one), if that changes it. `--` ends the flags.
fn flags_first(form: &str) -> Option<String> {
    // Most commands have no flag after an operand: nothing to move, nothing allocated.
    let mut seen_operand = false;
    let mut misplaced = false;
    let skip = if form.split(' ').next().is_some_and(has_subcommands) { 2 } else { 1 };
    for word in form.split(' ').skip(skip) {
        if word == "--" {
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            if seen_operand {
                misplaced = true;
                break;
            }
        } else {
            seen_operand = true;
        }
    }
    if !misplaced {
        return None;
    }
    let words: Vec<&str> = form.split(' ').collect();
    let head = skip;
    if words.len() <= head + 1 {
        return None;
    }
    let rest = &words[head..];
    let end = rest.iter().position(|w| *w == "--").unwrap_or(rest.len());
    let (flags, operands): (Vec<&str>, Vec<&str>) = rest[..end].iter().partition(|w| w.starts_with('-') && w.len() > 1);
    let moved = words[..head].iter().chain(&flags).chain(&operands).chain(&rest[end..]).copied();
    let moved = joined(moved);
    (moved != form).then_some(moved)
}

/// Words joined by spaces, allocated once.
fn joined<'a>(words: impl Iterator<Item = &'a str> + Clone) -> String {
    let mut text = String::with_capacity(words.clone().map(|w| w.len() + 1).sum());
    for (i, word) in words.enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

fn matches_loose(pattern: &CommandPattern, form: &str) -> bool {
    pattern.matches(form) || pattern.canonical().is_some_and(|p| p.matches(form))
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

    fn sandbox(&self, cwd: &Path) -> Option<Arc<toolwright_core::sandbox::Sandbox>> {
        self.sandbox_for(cwd).map(Arc::new)
    }
}
