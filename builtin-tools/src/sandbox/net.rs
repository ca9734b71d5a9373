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
//!
//! With an allow list (`proxy.rs`) the two work together: seccomp lets IP sockets
//! be made only as plain TCP (no UDP, raw, SCTP or MPTCP, which Landlock's rules do
//! not see), refuses TCP Fast Open (`MSG_FASTOPEN` connects from `sendto`) and
//! `listen` (which binds an unbound socket without `bind`), and Landlock lets TCP
//! connect only to the proxy's port and bind nowhere.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;

/// The errno a refused socket gets: "Permission denied", as a firewall would say.
const REFUSED: u32 = libc::EACCES as u32;

/// Calls no confined command may make, whatever the settings: loading kernel code,
/// rebooting, io_uring (whose socket operation would bypass the filter), and the
/// kernel interfaces that reach past namespaces or that only the machine's
/// administrator uses: the kernel keyrings (not namespaced), BPF and perf, the
/// clocks, swap, quotas, process accounting, the kernel log, file handles (the way
/// round a mount's confinement), fanotify and userfaultfd; and the ways into another
/// process's memory (`ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`), so no
/// command reads what a process beside it holds. Without namespaces a
/// command that runs as root keeps its capabilities, so these are refused here, not
/// left to the capability checks.
const ALWAYS_REFUSED: &[i64] = &[
    libc::SYS_io_uring_setup,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_quotactl,
    libc::SYS_acct,
    libc::SYS_syslog,
    libc::SYS_open_by_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_userfaultfd,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
];

/// `MSG_FASTOPEN`: `sendto`/`sendmsg` with it connects a TCP socket.
const MSG_FASTOPEN: u64 = 0x2000_0000;

/// The filter for a command: Unix sockets only when `unix_sockets`; IP sockets
/// only when `tcp`, and then only as plain TCP.
pub(super) fn filter(unix_sockets: bool, tcp: bool) -> Result<BpfProgram, String> {
    let arch =
        target_arch().ok_or_else(|| format!("seccomp: no filter for the {} architecture", std::env::consts::ARCH))?;
    let arg = |index, op, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(|e| format!("seccomp: {e}"))
    };
    let rule = |conditions: Vec<SeccompCondition>| SeccompRule::new(conditions).map_err(|e| format!("seccomp: {e}"));
    let family = |value: i32| value as u64;
    // Each rule is a refusal: a call matching any of them fails with EACCES.
    let mut socket_rules = Vec::new();
    let mut families = vec![arg(0, SeccompCmpOp::Ne, family(libc::AF_UNIX))?];
    if tcp {
        families.push(arg(0, SeccompCmpOp::Ne, family(libc::AF_INET))?);
        families.push(arg(0, SeccompCmpOp::Ne, family(libc::AF_INET6))?);
        for ip in [libc::AF_INET, libc::AF_INET6] {
            // The socket type's low bits (the rest are SOCK_NONBLOCK, SOCK_CLOEXEC).
            for kind in (0..16u64).filter(|k| *k != libc::SOCK_STREAM as u64) {
                socket_rules.push(rule(vec![
                    arg(0, SeccompCmpOp::Eq, family(ip))?,
                    arg(1, SeccompCmpOp::MaskedEq(0xf), kind)?,
                ])?);
            }
            socket_rules.push(rule(vec![
                arg(0, SeccompCmpOp::Eq, family(ip))?,
                arg(2, SeccompCmpOp::Ne, 0)?,
                arg(2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64)?,
            ])?);
        }
    }
    socket_rules.push(rule(families)?);
    if !unix_sockets {
        socket_rules.push(rule(vec![arg(0, SeccompCmpOp::Eq, family(libc::AF_UNIX))?])?);
    }
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rules);
    if tcp {
        let fast_open = |flags_at| -> Result<Vec<SeccompRule>, String> {
            Ok(vec![rule(vec![arg(flags_at, SeccompCmpOp::MaskedEq(MSG_FASTOPEN), MSG_FASTOPEN)?])?])
        };
        rules.insert(libc::SYS_sendto, fast_open(3)?);
        rules.insert(libc::SYS_sendmsg, fast_open(2)?);
        rules.insert(libc::SYS_sendmmsg, fast_open(3)?);
        rules.insert(libc::SYS_listen, Vec::new());
    }
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
