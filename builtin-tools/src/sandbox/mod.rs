//! Confining a command with the operating system (Linux): Landlock for the
//! filesystem (`fs.rs`), seccomp for the network (`net.rs`), and for a domain
//! allow list a proxy of ours that the command's TCP can reach and nothing else
//! (`proxy.rs`).
//!
//! How it is applied: on a short-lived thread of ours that confines itself and then
//! spawns the command. A Landlock domain and a seccomp filter belong to the thread
//! that installs them and pass to every process it starts (and theirs), so nothing
//! runs between fork and exec (no `pre_exec`, `unsafe_code` stays forbidden), no
//! helper binary has to be found, and the rest of the process stays unconfined.
//! Neither can be undone by the command: both only ever narrow, and
//! `no_new_privs` keeps set-uid programs from widening them.
//!
//! What it cannot cover: a hard link placed beforehand inside a writable root to a
//! file outside it is writable (Landlock confines paths, not inodes, as bind-mount
//! sandboxes do); names (not contents) in a read-denied directory can be listed;
//! the allow list's limits are in `proxy.rs`.

mod fs;
mod namespaces;
mod net;
mod pids;
mod protected;
mod proxy;

pub(crate) use protected::Guard;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use toolwright_core::ToolError;
use toolwright_core::leftovers::PendingTemp;
use toolwright_core::sandbox::{Sandbox, SandboxMode};

/// What happens to one command.
pub(crate) enum Decision {
    /// Run it confined.
    Confine(Box<Confinement>),
    /// Run it unconfined; `note` tells the model why, when it was not asked for.
    Unconfined {
        /// Why the sandbox is not on for this command.
        note: Option<String>,
    },
}

/// A confinement ready to apply.
pub(crate) struct Confinement {
    ruleset: Option<landlock::RulesetCreated>,
    filter: seccompiler::BpfProgram,
    mode: SandboxMode,
    /// bubblewrap and its arguments up to the command, when namespaces are the first
    /// layer.
    namespaces: Option<(PathBuf, Vec<OsString>)>,
    /// The command's own directory, removed when it is dropped (and by
    /// `leftovers::clean_up` on a stop signal): `tmp/` in it is its `$TMPDIR`, the
    /// rest (the read-denied stand-ins) it cannot write.
    dir: tempfile::TempDir,
    _pending: PendingTemp,
    pub(crate) env_denied: Vec<String>,
    /// The proxy variables the command gets (the allow list's way out).
    proxy_env: Vec<(&'static str, String)>,
    /// toolwright's proxy for the allow list, running while the command does.
    proxy: Option<proxy::Proxy>,
    /// What the result tells the model when something was refused.
    pub(crate) summary: String,
    /// Why the confinement is weaker than it should be here, for every result.
    pub(crate) degraded: Option<String>,
    /// The protected paths, to put back after the command.
    pub(crate) guard: Guard,
    /// Keeps the spawning thread, and so bubblewrap, alive (see [`spawn`]).
    tether: Option<std::sync::mpsc::Sender<()>>,
    /// The bound on the command's processes; after `tether`, so the spawning thread
    /// is told to end before its cgroup is removed.
    bound: pids::Bound,
}

/// Decides how `command` runs under `sandbox`, writing in the workspace `roots`. `unsandboxed` is the call
/// asking to run unconfined (already through the permission rules, which treat it
/// as an unconfined command). `writable_files` are files of ours the command must
/// write (the shell's working-directory file).
pub(crate) fn decide(
    sandbox: &Arc<Sandbox>,
    command: &str,
    unsandboxed: bool,
    roots: &[PathBuf],
    writable_files: &[&Path],
) -> Result<Decision, ToolError> {
    if !sandbox.confines(command, unsandboxed) {
        return Ok(Decision::Unconfined { note: None });
    }
    let abi = fs::abi();
    let bwrap = namespaces::bwrap(probe);
    if sandbox.filesystem && abi.is_none() && bwrap.is_err() {
        let why = "this kernel has no Landlock (Linux 5.13 or later, with `landlock` among the LSMs) and no \
                   namespaces can be made";
        return match sandbox.mode {
            SandboxMode::Required => Err(ToolError::msg(format!(
                "the sandbox is required (`sandbox.failIfUnavailable`) and cannot be applied: {why}. Set \
                 `sandbox.enabled` to false to run commands unconfined, or run on a kernel with Landlock"
            ))),
            _ => Ok(Decision::Unconfined { note: Some(format!("not sandboxed: {why}")) }),
        };
    }
    let dir = tempfile::Builder::new()
        .prefix("toolwright-sandbox-")
        .tempdir()
        .map_err(|e| ToolError::io("cannot create the sandbox's temporary directory", e))?;
    let pending = PendingTemp::new(dir.path());
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).map_err(|e| ToolError::io("cannot create the sandbox's temporary directory", e))?;
    let network = Network::for_sandbox(sandbox, abi)?;
    let filter = net::filter(sandbox.unix_sockets, network.tcp()).map_err(ToolError::msg)?;
    let mut writable: Vec<PathBuf> = roots.to_vec();
    writable.extend(sandbox.writable.iter().cloned());
    let guard = Guard::take(&writable);
    writable.push(temp.clone());
    writable.extend(writable_files.iter().map(|f| f.to_path_buf()));
    let namespaces = match bwrap {
        Ok(bwrap) => {
            let needed = sandbox.read_denied.iter().any(|p| std::fs::symlink_metadata(p).is_ok());
            let stubs = namespaces::Stubs::make(dir.path(), needed)
                .map_err(|e| ToolError::io("cannot create the sandbox's stand-ins for denied paths", e))?;
            let args = bwrap.args(&namespaces::Mounts {
                isolate: sandbox.filesystem,
                writable: &writable,
                write_denied: &sandbox.write_denied,
                protected: &guard.existing(),
                read_denied: &sandbox.read_denied,
                read_allowed: &sandbox.read_allowed,
                stubs: &stubs,
            });
            Some((bwrap.path().to_owned(), args))
        }
        Err(_) => None,
    };
    // Landlock's filesystem rules only where there are no namespaces: a thread
    // under them may not mount.
    let grants = (sandbox.filesystem && namespaces.is_none()).then(|| fs::Grants {
        read_denied: sandbox.read_denied.clone(),
        read_allowed: sandbox.read_allowed.clone(),
        writable: writable.clone(),
        write_denied: sandbox.write_denied.clone(),
    });
    let ruleset = match abi {
        Some(abi) => fs::ruleset(abi, grants.as_ref(), &network.ports).map_err(ToolError::msg)?,
        None => None,
    };
    let mut summary = if sandbox.filesystem {
        let places: Vec<String> = writable.iter().map(|p| p.display().to_string()).collect();
        format!("writes only under {}, and {}", places.join(", "), network.summary)
    } else {
        format!("{} (filesystem isolation is off)", network.summary)
    };
    let bound = pids::Bound::make();
    let degraded = match bwrap {
        Ok(bwrap) if bwrap.nested_userns() => {
            Some("sandboxed, but this bubblewrap is older than 0.8, so the command may make user namespaces".to_owned())
        }
        Ok(_) => None,
        Err(why) => Some(format!(
            "sandboxed without namespaces: {why}; metadata outside the workspace, device nodes, protected paths \
             (until they are put back) and other processes are not covered"
        )),
    };
    let degraded = match (degraded, bound.missing()) {
        (Some(note), Some(missing)) => Some(format!("{note}; {missing}")),
        (None, Some(missing)) => Some(missing.to_owned()),
        (degraded, None) => degraded,
    };
    if let Some(note) = &degraded {
        summary.push_str(&format!("; {note}"));
    }
    Ok(Decision::Confine(Box::new(Confinement {
        ruleset,
        filter,
        mode: sandbox.mode,
        namespaces,
        dir,
        _pending: pending,
        env_denied: sandbox.env_denied.clone(),
        proxy_env: network.env,
        proxy: network.proxy,
        summary,
        degraded,
        guard,
        tether: None,
        bound,
    })))
}

/// Tries bubblewrap's `args` once, confined as a command would be: under the
/// network's Landlock rules and scopes and the seccomp filter.
fn probe(bwrap: &Path, args: &[OsString]) -> Result<(), String> {
    let ruleset = match fs::abi() {
        Some(abi) => fs::ruleset(abi, None, &[])?,
        None => None,
    };
    let filter = net::filter(false, false)?;
    let mut command = std::process::Command::new(bwrap);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let output = std::thread::spawn(move || -> Result<std::process::Output, String> {
        confine_thread(ruleset, &filter, false).map_err(|e| e.to_string())?;
        command.output().map_err(|e| format!("cannot start it: {e}"))
    })
    .join()
    .map_err(|_| "the probe's thread panicked".to_owned())??;
    if output.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&output.stderr).into_owned()) }
}

/// Confines the calling thread: Landlock's ruleset when there is one, then seccomp.
fn confine_thread(
    ruleset: Option<landlock::RulesetCreated>,
    filter: &seccompiler::BpfProgram,
    required: bool,
) -> Result<(), ToolError> {
    match ruleset {
        Some(ruleset) => match fs::restrict(ruleset).map_err(ToolError::msg)? {
            landlock::RulesetStatus::NotEnforced if required => {
                return Err(ToolError::msg(
                    "the sandbox is required and Landlock enforced none of its rules on this kernel",
                ));
            }
            _ => {}
        },
        // seccomp needs no_new_privs without CAP_SYS_ADMIN (Landlock set it above).
        None => nix::sys::prctl::set_no_new_privs().map_err(|e| ToolError::msg(format!("no_new_privs: {e}")))?,
    }
    net::apply(filter).map_err(ToolError::msg)
}

impl Confinement {
    /// A command that runs `program` confined: bubblewrap's, when namespaces are the
    /// first layer, else `program` itself. Arguments go on after it.
    pub(crate) fn command(&self, program: &str) -> tokio::process::Command {
        match &self.namespaces {
            Some((bwrap, args)) => {
                let mut command = tokio::process::Command::new(bwrap);
                command.args(args).arg("--").arg(program);
                command
            }
            None => tokio::process::Command::new(program),
        }
    }
}

/// Spawns `command` (made by [`Confinement::command`]) confined: on a thread that
/// confines itself first, and then waits until the confinement is dropped. bubblewrap
/// is told to die with that thread (`--die-with-parent` watches the thread that
/// started it), so dropping the confinement, or the agent dying by any signal, ends
/// the command's whole tree.
pub(crate) fn spawn(
    mut command: tokio::process::Command,
    confinement: &mut Confinement,
) -> Result<tokio::process::Child, ToolError> {
    // bubblewrap starts with exactly the command's environment, never the agent's:
    // its processes live in the command's PID namespace, where `/proc/1/environ`
    // can be read.
    let environment = confinement.environment(&command);
    command.env_clear().envs(environment);
    let ruleset = confinement.ruleset.take();
    let filter = confinement.filter.clone();
    let required = confinement.mode == SandboxMode::Required;
    let tasks = confinement.bound.tasks();
    let runtime = tokio::runtime::Handle::current();
    let (spawned_tx, spawned_rx) = std::sync::mpsc::sync_channel(1);
    let (tether, held) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("toolwright-sandbox".into())
        .spawn(move || {
            // The child is registered with the runtime's process driver.
            // Into the process bound first: Landlock may not let it write there after.
            let spawned = {
                let _runtime = runtime.enter();
                tasks
                    .as_deref()
                    .map_or(Ok(()), pids::enter)
                    .map_err(ToolError::msg)
                    .and_then(|()| confine_thread(ruleset, &filter, required))
                    .and_then(|()| command.spawn().map_err(|e| ToolError::io("cannot start the command", e)))
            };
            // The command holds the output pipe's write ends: they must close now,
            // not when this thread ends, or the output never reaches its end.
            drop(command);
            let started = spawned.is_ok();
            let _ = spawned_tx.send(spawned);
            if started {
                // Until the tether is dropped: no message ever comes.
                let _ = held.recv();
            }
        })
        .map_err(|e| ToolError::io("cannot start the sandbox thread", e))?;
    let child = spawned_rx.recv().unwrap_or_else(|_| Err(ToolError::msg("the sandbox thread panicked")))?;
    confinement.bound.started(child.id());
    confinement.tether = Some(tether);
    Ok(child)
}

/// How a confined command reaches the network.
struct Network {
    /// The local ports its TCP may connect to (the proxies'); empty: no IP sockets.
    ports: Vec<u16>,
    env: Vec<(&'static str, String)>,
    proxy: Option<proxy::Proxy>,
    /// For the model: what it may reach.
    summary: String,
}

impl Network {
    fn for_sandbox(sandbox: &Arc<Sandbox>, abi: Option<landlock::ABI>) -> Result<Network, ToolError> {
        let mut network = Network { ports: Vec::new(), env: Vec::new(), proxy: None, summary: "no network".to_owned() };
        if !sandbox.has_network() {
            return Ok(network);
        }
        // Without Landlock's TCP rules an IP socket could go anywhere: none at all.
        if abi.is_none_or(|abi| abi < landlock::ABI::V4) {
            network.summary = "no network (the domain allow list needs Landlock's TCP rules, Linux 6.7 or later, \
                               which this kernel lacks)"
                .to_owned();
            return Ok(network);
        }
        let ours = match (sandbox.allowed_domains.is_empty(), sandbox.http_proxy_port, sandbox.socks_proxy_port) {
            (false, None, _) | (false, _, None) => Some(
                proxy::Proxy::start(Arc::clone(sandbox))
                    .map_err(|e| ToolError::io("cannot start the sandbox's network proxy", e))?,
            ),
            _ => None,
        };
        let http = sandbox.http_proxy_port.or(ours.as_ref().map(proxy::Proxy::port));
        let socks = sandbox.socks_proxy_port.or(ours.as_ref().map(proxy::Proxy::port));
        if let Some(port) = http {
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
                network.env.push((name, format!("http://127.0.0.1:{port}")));
            }
            network.ports.push(port);
        }
        if let Some(port) = socks {
            for name in ["ALL_PROXY", "all_proxy"] {
                network.env.push((name, format!("socks5h://127.0.0.1:{port}")));
            }
            network.ports.push(port);
        }
        network.ports.dedup();
        let hosts: Vec<String> = sandbox.allowed_domains.iter().map(ToString::to_string).collect();
        network.summary = match &ours {
            Some(_) => {
                format!("network only to {} through the sandbox's proxy (HTTP_PROXY, ALL_PROXY)", hosts.join(", "))
            }
            None => "network only through the configured proxy (HTTP_PROXY, ALL_PROXY)".to_owned(),
        };
        network.proxy = ours;
        Ok(network)
    }

    fn tcp(&self) -> bool {
        !self.ports.is_empty()
    }
}

impl Confinement {
    /// The whole environment a confined command gets: the agent's, less the denied
    /// variables and the proxy exemptions, with `command`'s own settings and the
    /// sandbox's `TMPDIR` and proxies.
    fn environment(&self, command: &tokio::process::Command) -> Vec<(OsString, OsString)> {
        let mut environment: std::collections::BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        for (name, value) in command.as_std().get_envs() {
            match value {
                Some(value) => environment.insert(name.to_owned(), value.to_owned()),
                None => environment.remove(name),
            };
        }
        for name in self.env_denied.iter().map(String::as_str).chain(["NO_PROXY", "no_proxy"]) {
            environment.remove(std::ffi::OsStr::new(name));
        }
        environment.insert("TMPDIR".into(), self.dir.path().join("tmp").into_os_string());
        for (name, value) in &self.proxy_env {
            environment.insert(name.into(), value.into());
        }
        environment.into_iter().collect()
    }

    /// A note when the command was refused new processes at the sandbox's bound.
    pub(crate) fn process_bound_note(&self) -> Option<String> {
        self.bound.reached().then(|| {
            format!(
                "Blocked by the sandbox: the command reached its bound of {} processes and threads, and was refused \
                 more (a runaway loop of forks, or a build asked for too many jobs).",
                pids::MAX_PROCESSES
            )
        })
    }

    /// What the allow list's proxy refused, for the result.
    pub(crate) fn refused_note(&self) -> Option<String> {
        let refused = self.proxy.as_ref()?.refused();
        (!refused.is_empty()).then(|| {
            format!(
                "Blocked by the sandbox: its network proxy refused {}, which `sandbox.network.allowedDomains` does \
                 not allow. Ask the user to add the host if the command needs it.",
                refused.join(", ")
            )
        })
    }
}

/// A note for the model when a confined command failed in a way the sandbox causes:
/// a refused write or socket reads "Permission denied" or "Operation not permitted".
pub(crate) fn blocked_note(output: &str, confinement_summary: &str, allow_unsandboxed: bool) -> Option<String> {
    const SIGNS: &[&str] = &[
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "Device or resource busy",
        "Invalid cross-device link",
        "EACCES",
        "EPERM",
        "PermissionError",
        "Network is unreachable",
        "Temporary failure in name resolution",
        "Could not resolve host",
        "Name or service not known",
        "Couldn't connect to server",
        "Failed to connect",
        "unable to resolve host",
        "Address family not supported",
        "toolwright sandbox:",
        "bwrap:",
        "CONNECT tunnel failed",
    ];
    if !SIGNS.iter().any(|sign| output.contains(sign)) {
        return None;
    }
    let way_out = if allow_unsandboxed {
        "If the command needs that, call it again with `dangerously_disable_sandbox: true`: it then runs unconfined, \
         after the user's permission."
    } else {
        "The settings do not allow running commands outside the sandbox (`allowUnsandboxedCommands: false`); ask \
         the user to widen `sandbox.filesystem.allowWrite` or to exclude the command."
    };
    Some(format!("Blocked by the sandbox, most likely: this command runs confined ({confinement_summary}). {way_out}"))
}

/// The sandbox for a call: the policy's, or the default.
pub(crate) fn for_call(cx: &toolwright_core::ToolContext) -> Arc<Sandbox> {
    cx.sandbox().cloned().unwrap_or_default()
}
