//! The network half: a seccomp filter on the spawning thread (inherited by every
//! process the command starts) that refuses `socket()` for every family but Unix
//! (and Unix too unless the settings allow it), and `io_uring_setup` (io_uring can
//! open sockets without the `socket` system call). `socketpair` stays allowed:
//! it only connects two ends inside the sandbox.
//!
//! Why seccomp and not Landlock's network rules: Landlock (ABI 4 and later) governs
//! TCP `bind` and `connect` by port only, and not UDP at all before ABI 10, so a
//! command could still look names up and send datagrams; seccomp stops every IP
//! socket at its creation, whatever the protocol. Landlock's TCP rules are added
//! as a second layer where the kernel has them (see `fs.rs`).

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;

/// The errno a refused socket gets: "Permission denied", as a firewall would say.
const REFUSED: u32 = libc::EACCES as u32;

/// Calls no confined command may make, whatever the settings: loading kernel code,
/// rebooting, and io_uring (whose socket operation would bypass the filter).
const ALWAYS_REFUSED: &[i64] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
];

/// The filter for a command: Unix sockets only when `unix_sockets`.
pub(super) fn filter(unix_sockets: bool) -> Result<BpfProgram, String> {
    let arch =
        target_arch().ok_or_else(|| format!("seccomp: no filter for the {} architecture", std::env::consts::ARCH))?;
    let family = |op, value: i32| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, value as u64)
            .and_then(|condition| SeccompRule::new(vec![condition]))
            .map_err(|e| format!("seccomp: {e}"))
    };
    let mut socket_rules = vec![family(SeccompCmpOp::Ne, libc::AF_UNIX)?];
    if !unix_sockets {
        socket_rules.push(family(SeccompCmpOp::Eq, libc::AF_UNIX)?);
    }
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules);
    for call in ALWAYS_REFUSED {
        rules.insert(*call, Vec::new());
    }
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(REFUSED), arch)
        .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| format!("seccomp: {e}"))
}

/// Applies `program` to the calling thread (and so to what it spawns).
pub(super) fn apply(program: &BpfProgram) -> Result<(), String> {
    seccompiler::apply_filter(program).map_err(|e| format!("seccomp: {e}"))
}

fn target_arch() -> Option<seccompiler::TargetArch> {
    match std::env::consts::ARCH {
        "x86_64" => Some(seccompiler::TargetArch::x86_64),
        "aarch64" => Some(seccompiler::TargetArch::aarch64),
        "riscv64" => Some(seccompiler::TargetArch::riscv64),
        _ => None,
    }
}
