//! What each caller of a served registry may do: the `mcpCallers` settings key maps
//! an authenticated caller (its name or one of its token's scopes) to a profile,
//! the tools it is offered and rules added to the workspace's for its calls.
//!
//! ```json
//! { "mcpCallers": {
//!     "ci":              { "tools": ["read_file", "grep", "glob", "shell"],
//!                          "permissions": { "allow": ["Bash(cargo test *)"] } },
//!     "scope:tools:read": { "tools": ["read_file", "grep", "glob", "list_dir"] },
//!     "*":               { "permissions": { "deny": ["Bash", "Edit"] } } } }
//! ```
//!
//! A key is a caller's name, `scope:S` for a token with scope `S`, or `*` for an
//! authenticated caller no other key names. Every matching profile applies: a
//! tool must be in each one's `tools` (when it has the list; `mcp__server__*` ends
//! in a wildcard), and its rules join the workspace's (deny, then ask, then allow,
//! as everywhere). A call with no caller (stdio, or HTTP without authentication)
//! is under the workspace's rules alone.

use crate::policy::RulePolicy;
use crate::rule::{Effect, Source};
pub use crate::settings::CallerProfileSettings;
use crate::settings::{SettingsError, Trust};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use toolwright_core::Caller;
use toolwright_core::Extensions;
use toolwright_core::permission::{PermissionDecision, PermissionPolicy, PermissionRequest, ReadFilter};

/// Who a profile is for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Subject(String),
    Scope(String),
    Anyone,
}

impl Key {
    fn parse(text: &str) -> Key {
        match text {
            "*" => Key::Anyone,
            _ => match text.strip_prefix("scope:") {
                Some(scope) => Key::Scope(scope.to_owned()),
                None => Key::Subject(text.to_owned()),
            },
        }
    }
}

/// A profile read from a settings file.
#[derive(Debug, Clone)]
pub struct CallerProfile {
    key: Key,
    written: String,
    tools: Option<Vec<String>>,
    rules: Vec<(String, Effect)>,
    source: Source,
    path: PathBuf,
    /// Keys of its `permissions` that are the workspace's only.
    unread: Vec<&'static str>,
}

impl CallerProfile {
    /// The entry `key` of the file at `path` (of `source`); `grants` says whether
    /// its allow rules count (the workspace's own files grant only once trusted).
    pub fn new(key: &str, entry: &CallerProfileSettings, source: Source, path: &Path, grants: bool) -> CallerProfile {
        let mut rules = Vec::new();
        let p = &entry.permissions;
        for (effect, list) in [(Effect::Allow, &p.allow), (Effect::Ask, &p.ask), (Effect::Deny, &p.deny)] {
            if effect == Effect::Allow && !grants {
                continue;
            }
            rules.extend(list.iter().map(|r| (r.clone(), effect)));
        }
        let unread = [
            ("additionalDirectories", !p.additional_directories.is_empty()),
            ("defaultMode", p.default_mode.is_some()),
            ("disableBypassPermissionsMode", p.disable_bypass_permissions_mode.is_some()),
            ("disableAutoMode", p.disable_auto_mode.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect();
        CallerProfile {
            unread,
            key: Key::parse(key),
            written: key.to_owned(),
            tools: entry.tools.clone(),
            rules,
            source,
            path: path.to_owned(),
        }
    }

    fn offers(&self, tool: &str) -> bool {
        self.tools.as_ref().is_none_or(|tools| {
            tools.iter().any(|t| match t.strip_suffix('*') {
                Some(prefix) => tool.starts_with(prefix),
                None => t == tool,
            })
        })
    }
}

/// Makes the workspace's rule set again (a [`RulePolicy`] holds its rules behind a
/// lock and is not cloned): each set of profiles gets its own, with theirs added.
/// A failure (a file changed under us and no longer reads) denies the caller's
/// calls: fewer rules must never mean more allowed.
pub type RulesAgain = Box<dyn Fn() -> Result<RulePolicy, String> + Send + Sync>;

/// The workspace's policy, with each caller's profiles on top.
pub struct CallerPolicy {
    base: RulePolicy,
    profiles: Vec<CallerProfile>,
    again: RulesAgain,
    /// The rule set for each combination of profiles met so far.
    made: Mutex<HashMap<Vec<usize>, Arc<RulePolicy>>>,
}

impl std::fmt::Debug for CallerPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallerPolicy").field("base", &self.base).field("profiles", &self.profiles).finish()
    }
}

impl CallerPolicy {
    /// `base` for calls without a caller (or one no profile names); `again` makes
    /// the same rules anew for a caller's profiles to join.
    pub fn new(base: RulePolicy, profiles: Vec<CallerProfile>, again: RulesAgain) -> CallerPolicy {
        CallerPolicy { base, profiles, again, made: Mutex::default() }
    }

    /// Malformed rules and keys not read in the profiles, each naming its file and key.
    pub fn warnings(profiles: &[CallerProfile]) -> Vec<String> {
        let mut scratch = RulePolicy::new();
        let mut out = Vec::new();
        for profile in profiles {
            for key in &profile.unread {
                out.push(format!(
                    "{}: `mcpCallers.{}.permissions.{key}` is not read per caller (it is the workspace's)",
                    profile.path.display(),
                    profile.written
                ));
            }
            for (rule, effect) in &profile.rules {
                if let Err(why) = scratch.add(rule, *effect, profile.source) {
                    out.push(format!(
                        "{}: `mcpCallers.{}`: the rule `{rule}` is not used: {why}",
                        profile.path.display(),
                        profile.written
                    ));
                }
            }
        }
        out
    }

    /// The profiles that apply to `caller`, by index.
    fn matching(&self, caller: &Caller) -> Vec<usize> {
        let named: Vec<usize> = (0..self.profiles.len())
            .filter(|&i| match &self.profiles[i].key {
                Key::Subject(name) => *name == caller.subject,
                Key::Scope(scope) => caller.scopes.contains(scope),
                Key::Anyone => false,
            })
            .collect();
        if !named.is_empty() {
            return named;
        }
        (0..self.profiles.len()).filter(|&i| self.profiles[i].key == Key::Anyone).collect()
    }

    fn rules_for(&self, matched: &[usize]) -> Result<Arc<RulePolicy>, String> {
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(policy) = made.get(matched) {
            return Ok(Arc::clone(policy));
        }
        let mut policy = (self.again)()?;
        for &i in matched {
            let profile = &self.profiles[i];
            for (rule, effect) in &profile.rules {
                // Malformed ones were warned about at load.
                let _ = policy.add(rule, *effect, profile.source);
            }
        }
        let policy = Arc::new(policy);
        made.insert(matched.to_vec(), Arc::clone(&policy));
        Ok(policy)
    }
}

impl PermissionPolicy for CallerPolicy {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let Some(caller) = request.extensions.get::<Caller>() else { return self.base.check(request) };
        let matched = self.matching(caller);
        if matched.is_empty() {
            return self.base.check(request);
        }
        if let Some(&i) = matched.iter().find(|&&i| !self.profiles[i].offers(request.tool)) {
            let profile = &self.profiles[i];
            return PermissionDecision::Deny(format!(
                "`{}` is not among the tools of the caller `{}` (`mcpCallers.{}` in {})",
                request.tool,
                caller.subject,
                profile.written,
                profile.path.display()
            ));
        }
        match self.rules_for(&matched) {
            Ok(rules) => rules.check(request),
            Err(why) => PermissionDecision::Deny(format!("the caller's rules could not be made: {why}")),
        }
    }

    fn offers(&self, tool: &str, extensions: &Extensions) -> bool {
        match extensions.get::<Caller>() {
            Some(caller) => self.matching(caller).iter().all(|&i| self.profiles[i].offers(tool)),
            None => true,
        }
    }

    fn mode_name(&self) -> Option<&str> {
        self.base.mode_name()
    }

    fn mode_name_in(&self, extensions: &Extensions) -> Option<&str> {
        self.base.mode_name_in(extensions)
    }

    fn remember(&self, request: &PermissionRequest<'_>) -> bool {
        // An answer for one caller must not become a rule for all.
        request.extensions.get::<Caller>().is_none() && self.base.remember(request)
    }

    fn read_filter(&self, cwd: &Path) -> Option<Arc<dyn ReadFilter>> {
        self.base.read_filter(cwd)
    }

    fn fetch_filter(&self) -> Option<Arc<dyn toolwright_core::permission::FetchFilter>> {
        self.base.fetch_filter()
    }

    fn sandbox(&self, cwd: &Path) -> Option<Arc<toolwright_core::sandbox::Sandbox>> {
        self.base.sandbox(cwd)
    }
}

/// The `mcpCallers` profiles of every file, in file order. The workspace's own
/// files' allow rules count only once it is trusted.
pub fn profiles_from_files(files: &[(Source, PathBuf)], trust: Trust) -> Result<Vec<CallerProfile>, SettingsError> {
    let mut out = Vec::new();
    for (source, path) in files {
        let Some(file) = crate::settings::read(path)? else { continue };
        let grants = trust.is_trusted() || !crate::settings::repository_file(*source, path);
        for (key, entry) in file.mcp_callers.iter().flatten() {
            out.push(CallerProfile::new(key, entry, *source, path, grants));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{CallerPolicy, CallerProfile, CallerProfileSettings};
    use crate::RulePolicy;
    use crate::rule::Source;
    use std::path::Path;
    use toolwright_core::permission::PermissionPolicy;
    use toolwright_core::{Caller, Extensions};

    fn profile(key: &str, json: serde_json::Value) -> CallerProfile {
        let entry: CallerProfileSettings = serde_json::from_value(json).unwrap();
        CallerProfile::new(key, &entry, Source::Project, Path::new("/p/.toolwright/settings.json"), true)
    }

    fn offered(policy: &CallerPolicy, caller: Option<(&str, &[&str])>, tool: &str) -> bool {
        let mut extensions = Extensions::new();
        if let Some((subject, scopes)) = caller {
            extensions
                .insert(Caller { subject: subject.into(), scopes: scopes.iter().map(|s| s.to_string()).collect() });
        }
        policy.offers(tool, &extensions)
    }

    #[test]
    fn names_and_scopes_choose_profiles_and_star_takes_the_rest() {
        let policy = CallerPolicy::new(
            RulePolicy::new(),
            vec![
                profile("ci", serde_json::json!({"tools": ["read_file", "mcp__github__*"]})),
                profile("scope:read", serde_json::json!({"tools": ["read_file", "grep"]})),
                profile("*", serde_json::json!({"tools": ["grep"]})),
            ],
            Box::new(|| Ok(RulePolicy::new())),
        );
        assert!(offered(&policy, Some(("ci", &[])), "mcp__github__create_issue"));
        assert!(!offered(&policy, Some(("ci", &[])), "grep"));
        // Named and scoped: both apply, a tool must be in each list.
        assert!(offered(&policy, Some(("ci", &["read"])), "read_file"));
        assert!(!offered(&policy, Some(("ci", &["read"])), "mcp__github__create_issue"));
        // Matched by nothing else: `*`.
        assert!(offered(&policy, Some(("bob", &[])), "grep") && !offered(&policy, Some(("bob", &[])), "read_file"));
        // No caller: everything (the workspace's rules decide).
        assert!(offered(&policy, None, "shell"));
    }

    #[test]
    fn rules_that_cannot_be_made_again_deny_rather_than_loosen() {
        let policy = CallerPolicy::new(
            RulePolicy::new(),
            vec![profile("ci", serde_json::json!({"permissions": {"allow": ["Bash"]}}))],
            Box::new(|| Err("the file no longer parses".into())),
        );
        let registry = toolwright_builtin::registry().unwrap();
        let shell = registry.resolve("shell").unwrap();
        let mut extensions = Extensions::new();
        extensions.insert(Caller { subject: "ci".into(), scopes: vec![] });
        let input = serde_json::json!({"command": "echo hi"}).to_string();
        let prepared = shell.tool().prepare(input.as_bytes()).unwrap();
        let access = prepared.access();
        let request = toolwright_core::permission::PermissionRequest {
            tool: "shell",
            rule_name: Some("Bash"),
            access: &access,
            invoked_name: "shell",
            call_id: "c1",
            input: &input,
            flags: prepared.flags(),
            cwd: Path::new("/tmp"),
            own_summary: None,
            extensions: &extensions,
        };
        assert!(matches!(policy.check(&request), toolwright_core::permission::PermissionDecision::Deny(_)));
    }

    #[test]
    fn keys_that_are_the_workspaces_are_named_as_not_read() {
        let warnings = CallerPolicy::warnings(&[profile(
            "ci",
            serde_json::json!({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Bash("]}}),
        )]);
        assert!(warnings.iter().any(|w| w.contains("mcpCallers.ci.permissions.defaultMode")), "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("`Bash(`")), "{warnings:?}");
    }
}
