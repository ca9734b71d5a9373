//! The filesystem half: a Landlock ruleset on the spawning thread (inherited by every
//! process the command starts). Everything is readable and executable but the
//! read-denied paths; only the writable roots (the working directory, the command's
//! temporary directory, the settings' `allowWrite`) are writable, minus the
//! write-denied paths. Landlock only grants, and a grant covers everything beneath,
//! so a denied path inside a granted directory is carved out by granting that
//! directory's other entries instead (see [`around`]).
//!
//! On a kernel with an older Landlock ABI the ruleset is the strongest that kernel
//! enforces (the crate's best-effort mode): ABI 1 lacks `Refer` (renames across
//! directories are then refused outright), ABI 2 lacks `Truncate`, ABI 3 lacks
//! device `ioctl`, ABI 4 adds the TCP rules, ABI 6 the scopes (signals and abstract
//! Unix sockets of processes outside the sandbox). With no Landlock at all the
//! command is refused when the sandbox is required, and runs unconfined with a
//! warning otherwise.

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetStatus, Scope,
};
use std::path::{Path, PathBuf};

/// Device files every command may read and write (`> /dev/null`, a terminal).
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];

/// The kernel's Landlock ABI, if it has Landlock.
pub(super) fn abi() -> Option<ABI> {
    toolwright_core::sandbox::landlock_abi().map(ABI::from)
}

/// What the ruleset grants.
pub(super) struct Grants {
    pub(super) read_denied: Vec<PathBuf>,
    pub(super) read_allowed: Vec<PathBuf>,
    pub(super) writable: Vec<PathBuf>,
    pub(super) write_denied: Vec<PathBuf>,
}

/// Builds the ruleset (opening every granted path now, while nothing is confined):
/// the filesystem as `grants` say (untouched when `None`), TCP `connect` only to
/// `connect_ports` and `bind` nowhere (ABI 4 and later), no signals to and no
/// abstract Unix sockets of processes outside the sandbox (ABI 6 and later). `None`
/// when this kernel's Landlock has none of these to enforce.
pub(super) fn ruleset(
    abi: ABI,
    grants: Option<&Grants>,
    connect_ports: &[u16],
) -> Result<Option<RulesetCreated>, String> {
    if grants.is_none() && abi < ABI::V4 {
        return Ok(None);
    }
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let mut ruleset = Ruleset::default();
    if grants.is_some() {
        ruleset = ruleset.handle_access(all).map_err(landlock_error)?;
    }
    if abi >= ABI::V4 {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp).map_err(landlock_error)?;
    }
    if abi >= ABI::V6 {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket | Scope::Signal).map_err(landlock_error)?;
    }
    let mut created = ruleset.create().map_err(landlock_error)?;
    if abi >= ABI::V4 {
        for port in connect_ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp)).map_err(landlock_error)?;
        }
    }
    let Some(grants) = grants else { return Ok(Some(created)) };
    let readable = around(Path::new("/"), &grants.read_denied, &grants.read_allowed);
    for dir in &readable.granted {
        created = grant(created, abi, dir, read)?;
    }
    // The directories on the way to a denied path can be listed (names only).
    for dir in &readable.passed {
        created = grant(created, abi, dir, AccessFs::ReadDir.into())?;
    }
    // Writing, not reading: what may be read is only what the read grants say, so a
    // read-denied path inside the workspace stays unreadable.
    let write = all & !read;
    for root in &grants.writable {
        let writable = around(root, &grants.write_denied, &[]);
        for path in &writable.granted {
            created = grant(created, abi, path, write)?;
        }
    }
    for device in DEVICES {
        let rights = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
        created = grant(created, abi, Path::new(device), rights & all)?;
    }
    Ok(Some(created))
}

/// Grants `rights` beneath `path`; a path that does not exist is skipped (there is
/// nothing there to reach).
fn grant(created: RulesetCreated, abi: ABI, path: &Path, rights: BitFlags<AccessFs>) -> Result<RulesetCreated, String> {
    let fd = match PathFd::new(path) {
        Ok(fd) => fd,
        Err(_) => return Ok(created),
    };
    // A file takes only the rights that apply to files.
    let rights = if path.is_dir() { rights } else { rights & AccessFs::from_file(abi) };
    if rights.is_empty() {
        return Ok(created);
    }
    created.add_rule(PathBeneath::new(fd, rights)).map_err(landlock_error)
}

/// Confines the calling thread (and what it spawns). Anything short of full
/// enforcement on a kernel that has Landlock is reported by the caller.
pub(super) fn restrict(created: RulesetCreated) -> Result<RulesetStatus, String> {
    created.restrict_self().map(|status| status.ruleset).map_err(landlock_error)
}

fn landlock_error(error: impl std::fmt::Display) -> String {
    format!("Landlock: {error}")
}

/// A root with some paths beneath it carved out.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Carved {
    /// Granted, with everything beneath.
    pub(super) granted: Vec<PathBuf>,
    /// Directories on the way to a carved-out path (granted nothing themselves).
    pub(super) passed: Vec<PathBuf>,
}

/// `root` with everything beneath it, except `denied` (and what is beneath them),
/// except again `reopened` inside a denied path. A directory that holds a denied
/// path is replaced by its entries, recursively, down to the denied path: entries
/// made later directly in such a directory are not granted.
pub(super) fn around(root: &Path, denied: &[PathBuf], reopened: &[PathBuf]) -> Carved {
    let mut carved = Carved::default();
    let denied: Vec<&Path> = denied.iter().map(PathBuf::as_path).filter(|d| d.starts_with(root)).collect();
    walk(root, &denied, reopened, &mut carved);
    carved
}

fn walk(dir: &Path, denied: &[&Path], reopened: &[PathBuf], carved: &mut Carved) {
    if denied.contains(&dir) {
        // Denied whole: only what is reopened inside it (and not denied deeper).
        for again in reopened.iter().filter(|r| r.starts_with(dir) && r.as_path() != dir) {
            let deeper: Vec<&Path> = denied.iter().copied().filter(|d| d.starts_with(again) && *d != again).collect();
            walk(again, &deeper, &[], carved);
        }
        return;
    }
    if denied.is_empty() {
        carved.granted.push(dir.to_owned());
        return;
    }
    carved.passed.push(dir.to_owned());
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let child = entry.path();
        let under: Vec<&Path> = denied.iter().copied().filter(|d| d.starts_with(&child)).collect();
        walk(&child, &under, reopened, carved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_denied_path_is_carved_out_of_its_parents() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["a/secret", "a/open", "b"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::write(root.join("a/secret/key"), "k").unwrap();
        std::fs::write(root.join("a/file"), "f").unwrap();
        let carved = around(root, &[root.join("a/secret")], &[]);
        let mut granted = carved.granted.clone();
        granted.sort();
        assert_eq!(granted, [root.join("a/file"), root.join("a/open"), root.join("b")]);
        assert_eq!(carved.passed, [root.to_owned(), root.join("a")]);
        // Reopened inside the denied directory.
        std::fs::create_dir(root.join("a/secret/public")).unwrap();
        let carved = around(root, &[root.join("a/secret")], &[root.join("a/secret/public")]);
        assert!(carved.granted.contains(&root.join("a/secret/public")));
        assert!(!carved.granted.iter().any(|g| g.ends_with("key")));
        // Nothing denied under the root: the root whole.
        assert_eq!(around(root, &[PathBuf::from("/elsewhere")], &[]).granted, [root.to_owned()]);
    }
}
