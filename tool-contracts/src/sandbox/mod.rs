//! What the operating-system sandbox of a command allows: data that a permission
//! policy gives a call ([`PermissionPolicy::sandbox`](crate::permission::PermissionPolicy::sandbox)),
//! and that the shell tool enforces (Landlock for files, seccomp for the network, in
//! `toolwright-builtin`). Claude Code's `sandbox` settings key is read into it by
//! `toolwright-permissions`.

mod hosts;

pub use hosts::{HostPattern, HostPatternError, ListKind, Parsed, RequestedHost};
use std::path::PathBuf;

/// Whether commands are confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SandboxMode {
    /// Not confined.
    Off,
    /// Confined where the kernel allows it; where it does not, the command runs
    /// unconfined and its result says so.
    #[default]
    Auto,
    /// Confined, or refused with the reason (`sandbox.failIfUnavailable`).
    Required,
}

/// A command's confinement.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sandbox {
    /// Confined or not.
    pub mode: SandboxMode,
    /// Filesystem isolation (`sandbox.filesystem.disabled` turns it off, the network
    /// stays confined).
    pub filesystem: bool,
    /// Where writes may go besides the working directory and the command's own
    /// temporary directory (absolute).
    pub writable: Vec<PathBuf>,
    /// Paths no write may reach, even inside a writable one.
    pub write_denied: Vec<PathBuf>,
    /// Paths nothing may read (the rules' `Read(...)` denials, `denyRead`).
    pub read_denied: Vec<PathBuf>,
    /// Paths readable again inside a denied one (`allowRead`).
    pub read_allowed: Vec<PathBuf>,
    /// Unix domain sockets may be opened (`network.allowAllUnixSockets`).
    pub unix_sockets: bool,
    /// The hosts a command may reach through the sandbox's proxy
    /// (`network.allowedDomains`); empty: no network at all.
    pub allowed_domains: Vec<HostPattern>,
    /// Hosts refused even where an allowed pattern names them
    /// (`network.deniedDomains`).
    pub denied_domains: Vec<HostPattern>,
    /// The user's own HTTP proxy on this local port, instead of toolwright's
    /// (`network.httpProxyPort`): it then decides what is reachable.
    pub http_proxy_port: Option<u16>,
    /// The user's own SOCKS5 proxy on this local port (`network.socksProxyPort`).
    pub socks_proxy_port: Option<u16>,
    /// Environment variables removed before the command runs
    /// (`credentials.envVars` with `mode: deny`).
    pub env_denied: Vec<String>,
    /// A command may ask to run unconfined (`dangerously_disable_sandbox`), through
    /// the permission rules (`allowUnsandboxedCommands`, default true).
    pub allow_unsandboxed: bool,
    /// Commands that always run unconfined, through the rules (`excludedCommands`:
    /// a command word, or a prefix ending in ` *` or `:*`).
    pub excluded_commands: Vec<String>,
    /// A command that runs confined is allowed without asking
    /// (`autoAllowBashIfSandboxed`); deny rules and content-specific ask rules still
    /// apply.
    pub auto_allow: bool,
}

impl Default for Sandbox {
    /// Confined where the kernel allows it, the working directory and the temporary
    /// directory writable, everything readable, no network; permissions unchanged.
    fn default() -> Self {
        Sandbox {
            mode: SandboxMode::Auto,
            filesystem: true,
            writable: Vec::new(),
            write_denied: Vec::new(),
            read_denied: Vec::new(),
            read_allowed: Vec::new(),
            unix_sockets: false,
            allowed_domains: Vec::new(),
            denied_domains: Vec::new(),
            http_proxy_port: None,
            socks_proxy_port: None,
            env_denied: Vec::new(),
            allow_unsandboxed: true,
            excluded_commands: Vec::new(),
            auto_allow: false,
        }
    }
}

impl Sandbox {
    /// No confinement.
    pub fn off() -> Sandbox {
        Sandbox { mode: SandboxMode::Off, ..Sandbox::default() }
    }

    /// Whether a confined command reaches any network: through a proxy, toolwright's
    /// (for the allowed domains) or the user's own.
    pub fn has_network(&self) -> bool {
        !self.allowed_domains.is_empty() || self.http_proxy_port.is_some() || self.socks_proxy_port.is_some()
    }

    /// Whether a command may reach `host` on `port`: an allowed pattern names it and
    /// no denied one does.
    pub fn admits(&self, host: &RequestedHost, port: u16) -> bool {
        self.allowed_domains.iter().any(|p| p.matches(host, port))
            && !self.denied_domains.iter().any(|p| p.matches(host, port))
    }

    /// Whether `command` runs confined: the sandbox is on, the command is not
    /// excluded, and it does not ask to run unconfined where that is allowed
    /// (`unconfined_asked`: the call's `dangerously_disable_sandbox`).
    pub fn confines(&self, command: &str, unconfined_asked: bool) -> bool {
        self.mode != SandboxMode::Off && !self.excludes(command) && !(unconfined_asked && self.allow_unsandboxed)
    }

    /// Whether `command` is one the settings keep out of the sandbox: its first word
    /// (after `env` assignments) is an excluded command, or the command starts with
    /// an excluded prefix (`docker compose *`, `npm:*`).
    pub fn excludes(&self, command: &str) -> bool {
        let words: Vec<&str> =
            command.split_whitespace().skip_while(|w| w.contains('=') && !w.starts_with('=')).collect();
        let line = words.join(" ");
        self.excluded_commands.iter().any(|entry| {
            let entry = entry.trim();
            let prefix = entry.strip_suffix(":*").or_else(|| entry.strip_suffix(" *")).unwrap_or(entry).trim();
            !prefix.is_empty() && (line == prefix || line.starts_with(&format!("{prefix} ")))
        })
    }
}

/// The running kernel's Landlock ABI version, if it has Landlock: learned once, by
/// confining a throwaway thread (the `landlock` crate tells the ABI only in a
/// restriction's status). Both the policy (may a sandboxed command skip the
/// question?) and the shell (can it confine?) ask this one place.
/// `TOOLWRIGHT_SANDBOX_LANDLOCK=off` pretends there is none, to see how a deployment
/// fails closed.
#[cfg(target_os = "linux")]
pub fn landlock_abi() -> Option<i32> {
    use landlock::{AccessFs, Ruleset, RulesetAttr};
    static SEEN: std::sync::OnceLock<Option<i32>> = std::sync::OnceLock::new();
    *SEEN.get_or_init(|| {
        if std::env::var_os("TOOLWRIGHT_SANDBOX_LANDLOCK").is_some_and(|v| v == "off") {
            return None;
        }
        let probe = std::thread::spawn(|| {
            let status = Ruleset::default()
                .handle_access(AccessFs::Execute)
                .and_then(|ruleset| ruleset.create())
                .and_then(|created| created.restrict_self())
                .ok()?;
            match status.landlock {
                landlock::LandlockStatus::Available { effective_abi, .. } => {
                    (1..=64).rev().find(|v| landlock::ABI::from(*v) == effective_abi)
                }
                _ => None,
            }
        });
        probe.join().ok().flatten()
    })
}

/// Landlock is Linux's.
#[cfg(not(target_os = "linux"))]
pub fn landlock_abi() -> Option<i32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excluded_commands_match_whole_words_and_prefixes() {
        let sandbox = Sandbox {
            excluded_commands: vec!["docker".into(), "npm run:*".into(), "git push *".into()],
            ..Sandbox::default()
        };
        assert!(sandbox.excludes("docker ps"));
        assert!(sandbox.excludes("docker"));
        assert!(sandbox.excludes("FOO=1 docker ps"));
        assert!(!sandbox.excludes("dockerd"));
        assert!(!sandbox.excludes("echo docker"));
        assert!(sandbox.excludes("npm run build"));
        assert!(!sandbox.excludes("npm install"));
        assert!(sandbox.excludes("git push origin"));
        assert!(!sandbox.excludes("git status"));
    }
}
