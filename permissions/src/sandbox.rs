//! Claude Code's `sandbox` settings key, read into the
//! [`Sandbox`](toolwright_core::sandbox::Sandbox) the shell enforces. Every file's
//! `sandbox` is merged in precedence order: lists add up, a later scalar wins. A
//! key with no meaning here is a warning naming it and its file.

use crate::rule::Source;
use serde_json::Value;
use std::path::{Path, PathBuf};
use toolwright_core::sandbox::{HostPattern, ListKind, Sandbox, SandboxMode};

/// The merged `sandbox` settings of the files read so far.
#[derive(Debug, Clone, Default)]
pub struct SandboxSettings {
    /// Some file has a `sandbox` key.
    seen: bool,
    enabled: Option<bool>,
    fail_if_unavailable: Option<bool>,
    auto_allow: Option<bool>,
    allow_unsandboxed: Option<bool>,
    filesystem_disabled: Option<bool>,
    unix_sockets: Option<bool>,
    excluded_commands: Vec<String>,
    allow_write: Vec<PathBuf>,
    deny_write: Vec<PathBuf>,
    deny_read: Vec<PathBuf>,
    allow_read: Vec<PathBuf>,
    /// With whether a managed file gave it (`allowManagedDomainsOnly` keeps only those).
    allowed_domains: Vec<(HostPattern, bool)>,
    denied_domains: Vec<HostPattern>,
    managed_domains_only: bool,
    http_proxy_port: Option<u16>,
    socks_proxy_port: Option<u16>,
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
        for (key, value) in map {
            let at = format!("sandbox.{key}");
            match key.as_str() {
                "enabled" => self.enabled = self.flag(file, &at, value).or(self.enabled),
                "failIfUnavailable" => {
                    self.fail_if_unavailable = self.flag(file, &at, value).or(self.fail_if_unavailable)
                }
                "autoAllowBashIfSandboxed" => self.auto_allow = self.flag(file, &at, value).or(self.auto_allow),
                "allowUnsandboxedCommands" => {
                    self.allow_unsandboxed = self.flag(file, &at, value).or(self.allow_unsandboxed)
                }
                "excludedCommands" => {
                    let list = self.strings(file, &at, value);
                    self.excluded_commands.extend(list);
                }
                "filesystem" => self.filesystem(value, source, file, &resolve),
                "network" => self.network(value, source, file),
                "credentials" => self.credentials(value, file),
                other if SILENT.contains(&other) => {}
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    fn filesystem(&mut self, value: &Value, source: Source, file: &Path, resolve: &dyn Fn(&str) -> PathBuf) {
        let Some(map) = value.as_object() else { return self.warn(file, "sandbox.filesystem", "is not an object") };
        for (key, value) in map {
            let at = format!("sandbox.filesystem.{key}");
            let is_list = matches!(key.as_str(), "allowWrite" | "denyWrite" | "denyRead" | "allowRead");
            let paths: Vec<PathBuf> =
                if is_list { self.strings(file, &at, value).iter().map(|p| resolve(p)).collect() } else { Vec::new() };
            match key.as_str() {
                "allowWrite" => self.allow_write.extend(paths),
                "denyWrite" => self.deny_write.extend(paths),
                "denyRead" => self.deny_read.extend(paths),
                "allowRead" => self.allow_read.extend(paths),
                // A checked-out project must not switch filesystem isolation off.
                "disabled" if matches!(source, Source::Project | Source::Local) => {
                    self.warn(file, &at, "is honoured only from user or managed settings; ignored")
                }
                "disabled" => self.filesystem_disabled = self.flag(file, &at, value).or(self.filesystem_disabled),
                _ => self.warn(file, &at, "has no meaning for toolwright's sandbox; ignored"),
            }
        }
    }

    fn network(&mut self, value: &Value, source: Source, file: &Path) {
        let Some(map) = value.as_object() else { return self.warn(file, "sandbox.network", "is not an object") };
        for (key, value) in map {
            let at = format!("sandbox.network.{key}");
            match key.as_str() {
                "allowAllUnixSockets" => self.unix_sockets = self.flag(file, &at, value).or(self.unix_sockets),
                "allowedDomains" => {
                    let managed = source == Source::Managed;
                    let patterns = self.hosts(file, &at, value, ListKind::Allow);
                    self.allowed_domains.extend(patterns.into_iter().map(|p| (p, managed)));
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
                "httpProxyPort" => self.http_proxy_port = self.port(file, &at, value).or(self.http_proxy_port),
                "socksProxyPort" => self.socks_proxy_port = self.port(file, &at, value).or(self.socks_proxy_port),
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
                                let path = crate::path::absolute(
                                    path.trim(),
                                    Path::new("/"),
                                    crate::policy::home().as_deref(),
                                );
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
        if self.enabled == Some(false) {
            return Some(Sandbox::off());
        }
        let mut sandbox = Sandbox::default();
        sandbox.mode = if self.fail_if_unavailable == Some(true) { SandboxMode::Required } else { SandboxMode::Auto };
        sandbox.filesystem = self.filesystem_disabled != Some(true);
        sandbox.writable = self.allow_write.clone();
        sandbox.write_denied = self.deny_write.clone();
        sandbox.read_denied = read_denied;
        sandbox.read_denied.extend(self.deny_read.iter().cloned());
        sandbox.read_allowed = self.allow_read.clone();
        sandbox.unix_sockets = self.unix_sockets == Some(true);
        sandbox.allowed_domains = self
            .allowed_domains
            .iter()
            .filter(|(_, managed)| *managed || !self.managed_domains_only)
            .map(|(pattern, _)| pattern.clone())
            .collect();
        sandbox.denied_domains = self.denied_domains.clone();
        sandbox.http_proxy_port = self.http_proxy_port;
        sandbox.socks_proxy_port = self.socks_proxy_port;
        sandbox.env_denied = self.env_denied.clone();
        sandbox.allow_unsandboxed = self.allow_unsandboxed != Some(false);
        sandbox.excluded_commands = self.excluded_commands.clone();
        sandbox.auto_allow = self.enabled == Some(true) && self.auto_allow != Some(false);
        Some(sandbox)
    }
}
