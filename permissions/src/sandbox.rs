//! Claude Code's `sandbox` settings key, read into the
//! [`Sandbox`] the shell enforces. Every file's `sandbox` is merged: lists add up,
//! and a scalar from a higher level of the settings precedence wins (managed, local,
//! project, user; [`Source::precedence`]). A workspace's own files that are not
//! trusted yet (see [`crate::trust`]) only restrict: what they would loosen (turning
//! the sandbox off, auto-allowing, unconfined or excluded commands, writable or
//! readable paths, domains, Unix sockets, proxies) waits, with a warning. A key with
//! no meaning here is a warning naming it and its file.

use crate::rule::Source;
use serde_json::Value;
use std::path::{Path, PathBuf};
use toolwright_core::sandbox::{HostPattern, ListKind, Sandbox, SandboxMode};

/// The merged `sandbox` settings of the files read so far.
#[derive(Debug, Clone, Default)]
pub struct SandboxSettings {
    /// Some file has a `sandbox` key.
    seen: bool,
    /// Each scalar with the level it came from; `enabled` also with whether its file
    /// may grant (an untrusted file's `enabled: true` confines without auto-allowing).
    enabled: Option<(u8, bool, bool)>,
    fail_if_unavailable: Option<(u8, bool)>,
    auto_allow: Option<(u8, bool)>,
    allow_unsandboxed: Option<(u8, bool)>,
    filesystem_disabled: Option<(u8, bool)>,
    unix_sockets: Option<(u8, bool)>,
    excluded_commands: Vec<String>,
    allow_write: Vec<PathBuf>,
    deny_write: Vec<PathBuf>,
    deny_read: Vec<PathBuf>,
    allow_read: Vec<PathBuf>,
    /// With whether a managed file gave it (`allowManagedDomainsOnly` keeps only those).
    allowed_domains: Vec<(HostPattern, bool)>,
    denied_domains: Vec<HostPattern>,
    managed_domains_only: bool,
    http_proxy_port: Option<(u8, u16)>,
    socks_proxy_port: Option<(u8, u16)>,
    env_denied: Vec<String>,
    /// Keys that are ignored, with why.
    pub warnings: Vec<String>,
}

/// Keys read elsewhere or whose meaning is only the UI's: no warning.
const SILENT: &[&str] = &["enableWeakerNestedSandbox", "ignoreViolations"];

impl SandboxSettings {
    /// Whether any file had a `sandbox` key.
    pub fn is_set(&self) -> bool {
        self.seen
    }

    /// Adds one file's `sandbox` value. Paths resolve as Claude Code's do: `/`
    /// absolute, `~/` the home, anything else the project for project files and
    /// `~/.claude` for the user's.
    pub fn add(&mut self, value: &Value, source: Source, file: &Path, project: &Path, home: Option<&Path>) {
        self.add_from(value, source, file, project, home, true);
    }

    /// [`add`](Self::add) for a file that may only restrict (a workspace's own file
    /// before the workspace is trusted): what would loosen the sandbox is left out,
    /// each with a warning.
    pub fn add_restricting(&mut self, value: &Value, source: Source, file: &Path, project: &Path, home: Option<&Path>) {
        self.add_from(value, source, file, project, home, false);
    }

    fn add_from(
        &mut self,
        value: &Value,
        source: Source,
        file: &Path,
        project: &Path,
        home: Option<&Path>,
        grants: bool,
    ) {
        let Some(map) = value.as_object() else {
            self.warn(file, "sandbox", "is not an object; ignored");
            return;
        };
        let base: PathBuf = match source {
            Source::User => home.map_or_else(|| project.to_owned(), |h| h.join(".claude")),
            _ => project.to_owned(),
        };
        let resolve = |raw: &str| -> PathBuf {
            let raw = raw.trim().trim_end_matches("/**").trim_end_matches('/');
            let raw = if raw.is_empty() { "/" } else { raw };
            if raw == "~" || raw.starts_with("~/") {
                crate::path::absolute(raw, &base, home)
            } else {
                crate::path::absolute(raw, &base, None)
            }
        };
        self.seen = true;
        let level = source.precedence();
        for (key, value) in map {
            let at = format!("sandbox.{key}");
            match key.as_str() {
                "enabled" => {
                    if let Some(on) = self.held(file, &at, value, false, grants)
                        && self.enabled.is_none_or(|(l, _, _)| level >= l)
                    {
                        // An untrusted file saying `true` again keeps a granted auto-allow.
                        let granted = self.enabled.is_some_and(|(_, was_on, granted)| was_on && granted);
                        self.enabled = Some((level, on, grants || (on && granted)));
                    }
                }
                "failIfUnavailable" => {
                    let flag = self.held(file, &at, value, false, grants);
                    set(&mut self.fail_if_unavailable, level, flag);
                }
                "autoAllowBashIfSandboxed" => {
                    let flag = self.held(file, &at, value, true, grants);
                    set(&mut self.auto_allow, level, flag);
                }
                "allowUnsandboxedCommands" => {
                    let flag = self.held(file, &at, value, true, grants);
                    set(&mut self.allow_unsandboxed, level, flag);
                }
                "excludedCommands" => {
                    let list = self.strings(file, &at, value);
                    if self.grant_list(file, &at, !list.is_empty(), grants) {
                        self.excluded_commands.extend(list);
                    }
                }
                "filesystem" => self.filesystem(value, source, file, &resolve, grants),
                "network" => self.network(value, source, file, grants),
                "credentials" => self.credentials(value, file),
                other if SILENT.contains(&other) => {}
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    /// `value` as a flag, unless it is the loosening `loose` from a file that may not grant
    /// (then a warning says it waits).
    fn held(&mut self, file: &Path, at: &str, value: &Value, loose: bool, grants: bool) -> Option<bool> {
        let flag = self.flag(file, at, value);
        if flag == Some(loose) && !grants {
            self.warn(file, at, UNTRUSTED);
            return None;
        }
        flag
    }

    /// Whether a list that grants (`allowWrite`, `allowedDomains`, ...) is taken from
    /// this file; a warning says so when it waits for trust.
    fn grant_list(&mut self, file: &Path, at: &str, non_empty: bool, grants: bool) -> bool {
        if !grants && non_empty {
            self.warn(file, at, UNTRUSTED);
        }
        grants
    }

    fn filesystem(
        &mut self,
        value: &Value,
        source: Source,
        file: &Path,
        resolve: &dyn Fn(&str) -> PathBuf,
        grants: bool,
    ) {
        let Some(map) = value.as_object() else { return self.warn(file, "sandbox.filesystem", "is not an object") };
        for (key, value) in map {
            let at = format!("sandbox.filesystem.{key}");
            let is_list = matches!(key.as_str(), "allowWrite" | "denyWrite" | "denyRead" | "allowRead");
            let paths: Vec<PathBuf> =
                if is_list { self.strings(file, &at, value).iter().map(|p| resolve(p)).collect() } else { Vec::new() };
            match key.as_str() {
                "allowWrite" if self.grant_list(file, &at, !paths.is_empty(), grants) => self.allow_write.extend(paths),
                "denyWrite" => self.deny_write.extend(paths),
                "denyRead" => self.deny_read.extend(paths),
                "allowRead" if self.grant_list(file, &at, !paths.is_empty(), grants) => self.allow_read.extend(paths),
                "allowWrite" | "allowRead" => {}
                // A checked-out project must not switch filesystem isolation off.
                "disabled" if matches!(source, Source::Project | Source::Local) => {
                    self.warn(file, &at, "is honoured only from user or managed settings; ignored")
                }
                "disabled" => {
                    let flag = self.flag(file, &at, value);
                    set(&mut self.filesystem_disabled, source.precedence(), flag);
                }
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    fn network(&mut self, value: &Value, source: Source, file: &Path, grants: bool) {
        let Some(map) = value.as_object() else { return self.warn(file, "sandbox.network", "is not an object") };
        let level = source.precedence();
        for (key, value) in map {
            let at = format!("sandbox.network.{key}");
            match key.as_str() {
                "allowAllUnixSockets" => {
                    let flag = self.held(file, &at, value, true, grants);
                    set(&mut self.unix_sockets, level, flag);
                }
                "allowedDomains" => {
                    let managed = source == Source::Managed;
                    let patterns = self.hosts(file, &at, value, ListKind::Allow);
                    if self.grant_list(file, &at, !patterns.is_empty(), grants) {
                        self.allowed_domains.extend(patterns.into_iter().map(|p| (p, managed)));
                    }
                }
                "deniedDomains" => {
                    let patterns = self.hosts(file, &at, value, ListKind::Deny);
                    self.denied_domains.extend(patterns);
                }
                "allowManagedDomainsOnly" if source == Source::Managed => {
                    self.managed_domains_only |= self.flag(file, &at, value).unwrap_or(false)
                }
                "allowManagedDomainsOnly" => self.warn(file, &at, "is honoured only from managed settings; ignored"),
                // toolwright's proxy never prompts: a host outside the list is refused,
                // which is what `strictAllowlist: true` asks for.
                "strictAllowlist" => {
                    if self.flag(file, &at, value) == Some(false) {
                        self.warn(
                            file,
                            &at,
                            "cannot be false here: the sandbox's proxy never asks, it refuses hosts outside \
                             allowedDomains",
                        )
                    }
                }
                // Your own proxy decides what the command reaches: a grant.
                "httpProxyPort" | "socksProxyPort" => {
                    let port = self.port(file, &at, value);
                    if self.grant_list(file, &at, port.is_some(), grants) {
                        let slot =
                            if key == "httpProxyPort" { &mut self.http_proxy_port } else { &mut self.socks_proxy_port };
                        set(slot, level, port);
                    }
                }
                "allowUnixSockets" => self.warn(
                    file,
                    &at,
                    "cannot be enforced per path on Linux (seccomp sees no socket paths); use allowAllUnixSockets",
                ),
                "allowLocalBinding" => self.warn(
                    file,
                    &at,
                    "cannot be granted: Landlock's TCP rules go by port, not address, so a bind to localhost \
                     cannot be told from one to every interface; ignored",
                ),
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    /// A domain list; each entry that names nothing, or that is spelled two ways
    /// (`::1:443`), is a warning naming it.
    fn hosts(&mut self, file: &Path, at: &str, value: &Value, kind: ListKind) -> Vec<HostPattern> {
        let mut patterns = Vec::new();
        for (i, entry) in self.strings(file, at, value).into_iter().enumerate() {
            match HostPattern::parse(&entry, kind) {
                Ok(parsed) => {
                    if parsed.ambiguous {
                        let read: Vec<String> = parsed.patterns.iter().map(ToString::to_string).collect();
                        self.warn(
                            file,
                            &format!("{at}[{i}]"),
                            &format!("`{entry}` reads two ways; taken as {}: write IPv6 bracketed", read.join(" and ")),
                        );
                    }
                    patterns.extend(parsed.patterns);
                }
                Err(e) => self.warn(file, &format!("{at}[{i}]"), &format!("`{entry}` {e}; ignored")),
            }
        }
        patterns
    }

    fn port(&mut self, file: &Path, at: &str, value: &Value) -> Option<u16> {
        let port = value.as_u64().and_then(|p| u16::try_from(p).ok()).filter(|p| *p > 0);
        if port.is_none() {
            self.warn(file, at, "is not a port number (1 to 65535); ignored");
        }
        port
    }

    fn credentials(&mut self, value: &Value, file: &Path) {
        let Some(map) = value.as_object() else { return self.warn(file, "sandbox.credentials", "is not an object") };
        for (key, value) in map {
            let at = format!("sandbox.credentials.{key}");
            match key.as_str() {
                "envVars" => {
                    for (i, entry) in value.as_array().into_iter().flatten().enumerate() {
                        let name = entry.get("name").and_then(Value::as_str);
                        match (name, entry.get("mode").and_then(Value::as_str)) {
                            (Some(name), Some("deny")) => self.env_denied.push(name.to_owned()),
                            (Some(name), Some("mask")) => {
                                self.env_denied.push(name.to_owned());
                                self.warn(
                                    file,
                                    &format!("{at}[{i}]"),
                                    "mask is not supported: the variable is removed instead",
                                );
                            }
                            _ => self.warn(file, &format!("{at}[{i}]"), "needs `name` and `mode` (deny); ignored"),
                        }
                    }
                }
                "files" => {
                    for (i, entry) in value.as_array().into_iter().flatten().enumerate() {
                        match (entry.get("path").and_then(Value::as_str), entry.get("mode").and_then(Value::as_str)) {
                            (Some(path), Some("deny" | "mask")) => {
                                let path =
                                    crate::path::absolute(path.trim(), Path::new("/"), crate::path::home().as_deref());
                                self.deny_read.push(path);
                            }
                            _ => self.warn(file, &format!("{at}[{i}]"), "needs `path` and `mode`; ignored"),
                        }
                    }
                }
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    fn flag(&mut self, file: &Path, at: &str, value: &Value) -> Option<bool> {
        let flag = value.as_bool();
        if flag.is_none() {
            self.warn(file, at, "is not true or false; ignored");
        }
        flag
    }

    fn strings(&mut self, file: &Path, at: &str, value: &Value) -> Vec<String> {
        let Some(list) = value.as_array() else {
            self.warn(file, at, "is not a list of strings; ignored");
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in list.iter().enumerate() {
            match item.as_str() {
                Some(text) if !text.trim().is_empty() => out.push(text.trim().to_owned()),
                _ => self.warn(file, &format!("{at}[{i}]"), "is not a non-empty string; ignored"),
            }
        }
        out
    }

    fn warn(&mut self, file: &Path, at: &str, what: &str) {
        self.warnings.push(format!("{}: `{at}` {what}", file.display()));
    }

    /// The sandbox these settings describe, with `read_denied` added (the rules'
    /// `Read` denials). `None` when no file spoke about the sandbox: the shell's
    /// default applies (confined where the kernel allows it, permissions unchanged).
    /// `enabled: true` turns on what Claude Code's enabled sandbox does besides
    /// confining: `autoAllowBashIfSandboxed` (default true). Without `enabled`, the
    /// settings shape toolwright's default confinement and permissions are unchanged.
    pub fn resolve(&self, read_denied: Vec<PathBuf>) -> Option<Sandbox> {
        if !self.seen {
            return None;
        }
        let value = |slot: Option<(u8, bool)>| slot.map(|(_, v)| v);
        if self.enabled.is_some_and(|(_, on, _)| !on) {
            return Some(Sandbox::off());
        }
        let mut sandbox = Sandbox::default();
        let required = value(self.fail_if_unavailable) == Some(true);
        sandbox.mode = if required { SandboxMode::Required } else { SandboxMode::Auto };
        sandbox.filesystem = value(self.filesystem_disabled) != Some(true);
        sandbox.writable = self.allow_write.clone();
        sandbox.write_denied = self.deny_write.clone();
        sandbox.read_denied = read_denied;
        sandbox.read_denied.extend(self.deny_read.iter().cloned());
        sandbox.read_allowed = self.allow_read.clone();
        sandbox.unix_sockets = value(self.unix_sockets) == Some(true);
        sandbox.allowed_domains = self
            .allowed_domains
            .iter()
            .filter(|(_, managed)| *managed || !self.managed_domains_only)
            .map(|(pattern, _)| pattern.clone())
            .collect();
        sandbox.denied_domains = self.denied_domains.clone();
        sandbox.http_proxy_port = self.http_proxy_port.map(|(_, port)| port);
        sandbox.socks_proxy_port = self.socks_proxy_port.map(|(_, port)| port);
        sandbox.env_denied = self.env_denied.clone();
        sandbox.allow_unsandboxed = value(self.allow_unsandboxed) != Some(false);
        sandbox.excluded_commands = self.excluded_commands.clone();
        // Enabling also auto-allows, unless the `enabled` that won came from a file that
        // may not grant.
        sandbox.auto_allow =
            self.enabled.is_some_and(|(_, on, grants)| on && grants) && value(self.auto_allow) != Some(false);
        Some(sandbox)
    }
}

/// Why a loosening value waits.
const UNTRUSTED: &str = "loosens the sandbox and is not used until this workspace is trusted";

/// Sets `slot` to `value` from `level`, unless a higher level set it already.
fn set<T>(slot: &mut Option<(u8, T)>, level: u8, value: Option<T>) {
    if let Some(value) = value
        && slot.as_ref().is_none_or(|(at, _)| level >= *at)
    {
        *slot = Some((level, value));
    }
}
