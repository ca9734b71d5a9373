//! The host's own state in a workspace (a session file, saved "always allow" rules):
//! read and written beneath the workspace without following a link anywhere below
//! it. A command the agent ran may have replaced `.toolwright` with a symlink out of
//! the workspace; the host, which is not confined, must not then write there.
//!
//! ```
//! use toolwright_core::state_file;
//! let workspace = std::env::temp_dir().join(format!("state-file-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&workspace).unwrap();
//! state_file::write(&workspace, ".toolwright/state.json", b"{}").unwrap();
//! assert_eq!(state_file::read(&workspace, ".toolwright/state.json").unwrap(), b"{}");
//! // A command replaced the directory with a link out of the workspace: refused.
//! std::fs::remove_dir_all(workspace.join(".toolwright")).unwrap();
//! std::os::unix::fs::symlink(std::env::temp_dir(), workspace.join(".toolwright")).unwrap();
//! assert!(state_file::write(&workspace, ".toolwright/state.json", b"{}").is_err());
//! std::fs::remove_dir_all(&workspace).unwrap();
//! ```

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use std::io::{Error, ErrorKind, Write as _};
use std::path::{Component, Path};

/// The most of a state file read: they are small, and a planted huge one is not
/// the host's.
const READ_LIMIT: u64 = 64 * 1024 * 1024;

/// Opens the directory `relative` beneath `base` (made when `create`), refusing a
/// symlink at every step.
fn open_dir(base: &Path, relative: &Path, create: bool) -> std::io::Result<OwnedFd> {
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(base, flags, Mode::empty())?;
    for component in relative.components() {
        let Component::Normal(name) = component else {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!("`{}` is not a plain relative path", relative.display()),
            ));
        };
        if create {
            match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        dir = rustix::fs::openat(&dir, name, flags | OFlags::NOFOLLOW, Mode::empty())
            .map_err(|e| link_error(e, base, relative))?;
    }
    Ok(dir)
}

fn link_error(errno: Errno, base: &Path, relative: &Path) -> Error {
    match errno {
        Errno::LOOP | Errno::NOTDIR => Error::new(
            ErrorKind::InvalidInput,
            format!("`{}` in `{}` goes through a link or a file; not followed", relative.display(), base.display()),
        ),
        other => other.into(),
    }
}

fn split(relative: &Path) -> std::io::Result<(&Path, &std::ffi::OsStr)> {
    match (relative.parent(), relative.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(Error::new(ErrorKind::InvalidInput, format!("`{}` names no file", relative.display()))),
    }
}

/// Writes `bytes` to `relative` beneath `base` atomically (a temporary file renamed
/// over it), making its directories; a symlink on the way, or at the file, is an
/// error and nothing is written.
pub fn write(base: &Path, relative: impl AsRef<Path>, bytes: &[u8]) -> std::io::Result<()> {
    let relative = relative.as_ref();
    let (parent, name) = split(relative)?;
    let dir = open_dir(base, parent, true)?;
    let mut temp_name = name.to_owned();
    temp_name.push(format!(".tmp-{}", std::process::id()));
    let _ = rustix::fs::unlinkat(&dir, &temp_name, AtFlags::empty());
    let file = rustix::fs::openat(
        &dir,
        &temp_name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    let written = std::fs::File::from(file).write_all(bytes);
    let renamed = written.and_then(|()| rustix::fs::renameat(&dir, &temp_name, &dir, name).map_err(Error::from));
    if renamed.is_err() {
        let _ = rustix::fs::unlinkat(&dir, &temp_name, AtFlags::empty());
    }
    renamed
}

/// Reads `relative` beneath `base`, following no link on the way or at the file.
pub fn read(base: &Path, relative: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let relative = relative.as_ref();
    let (parent, name) = split(relative)?;
    let dir = open_dir(base, parent, false)?;
    // Non-blocking, so a FIFO planted there cannot hold the host.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::openat(&dir, name, flags, Mode::empty()).map_err(|e| link_error(e, base, relative))?;
    let file = std::fs::File::from(file);
    if !file.metadata()?.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, format!("`{}` is not a regular file", relative.display())));
    }
    let mut bytes = Vec::new();
    file.take(READ_LIMIT).read_to_end(&mut bytes)?;
    Ok(bytes)
}
