//! File access through a directory handle confined to the workspace root, so that
//! what was checked is what is opened.
//!
//! The workspace guard checks a path (canonical, inside a root, not ignored, not
//! denied). Opening that path again by name would leave a window in which a directory
//! on the way, or the file itself, is swapped for a symlink. Here every open goes
//! through a `cap_std::fs::Dir` of the root (`openat2` with `RESOLVE_BENEATH` where
//! the kernel has it, a component walk otherwise), so nothing outside the root can be
//! reached; then the opened descriptor's own path (`/proc/self/fd`) must be the
//! checked path, so a swap inside the root (to a denied file) is refused too. Writes
//! create their temporary file and rename it inside the parent directory's handle.
//!
//! A regular file with more than one hard link is refused, for reads and writes: its
//! other names may be outside the workspace (a hard link to `~/.ssh/id_rsa` reads the
//! key) and a write through a rename would silently split it. Non-regular files
//! (FIFOs, devices, sockets) are refused before anything is read or written.

use crate::workspace::Resolved;
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use std::fs::File;
use std::io::Write as _;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use toolwright_core::ToolError;
use toolwright_core::leftovers::PendingTemp;

/// The handle of `root`, a workspace root.
fn root_dir(root: &Path) -> Result<Dir, ToolError> {
    Dir::open_ambient_dir(root, ambient_authority())
        .map_err(|e| ToolError::io(format!("the workspace `{}` cannot be opened", root.display()), e))
}

/// `path` below `root`, as the relative path the handle opens (`.` for the root).
fn below<'a>(root: &Path, path: &'a Path) -> &'a Path {
    match path.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => Path::new("."),
        Ok(relative) => relative,
        Err(_) => path,
    }
}

/// Whether `file` is the file at `checked` (its descriptor's path, where `/proc` is
/// mounted; without it the confinement to the root still holds).
fn is_checked(file: &File, checked: &Path) -> bool {
    match std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
        Ok(real) => real == checked,
        Err(_) => true,
    }
}

/// Refuses what is not a plain file: a directory, a FIFO, a device, a socket, or a
/// file with several hard links.
fn plain_file(meta: &std::fs::Metadata, display: &str, hard_links: bool) -> Result<(), ToolError> {
    if meta.is_dir() {
        return Err(ToolError::msg(format!(
            "`{display}` is a directory; use glob or list_dir to see what it contains"
        )));
    }
    if !meta.is_file() {
        let kind = file_kind(meta);
        return Err(ToolError::msg(format!(
            "`{display}` is {kind}, not a regular file; only regular files are read or written"
        )));
    }
    if !hard_links && meta.nlink() > 1 {
        return Err(ToolError::msg(format!(
            "`{display}` has {} hard links; a file with several names may be one outside the workspace, so it is not \
             opened (copy it to a file of its own)",
            meta.nlink()
        )));
    }
    Ok(())
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// A workspace root's handle, for opening files below it that cannot be raced: a
/// custom tool that reads files the way the built-ins do.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let root_path = dir.path().canonicalize().unwrap();
/// std::fs::write(root_path.join("a.txt"), "hi").unwrap();
/// let root = toolwright_builtin::confined::Root::open(&root_path, false).unwrap();
/// let (file, meta) = root.read(&root_path.join("a.txt"), "a.txt").unwrap();
/// assert_eq!(meta.len(), 2);
/// # drop(file);
/// assert!(root.read(std::path::Path::new("/etc/passwd"), "/etc/passwd").is_err());
/// ```
pub struct Root {
    dir: Dir,
    path: PathBuf,
    hard_links: bool,
}

impl Root {
    /// The handle of the canonical root `path`; `hard_links` lets files with several
    /// names be opened.
    pub fn open(path: &Path, hard_links: bool) -> Result<Root, ToolError> {
        Ok(Root { dir: root_dir(path)?, path: path.to_path_buf(), hard_links })
    }

    /// Opens `path` (canonical, below the root) for reading, with its metadata: only a
    /// plain file that is still the one at `path`.
    pub fn read(&self, path: &Path, display: &str) -> Result<(File, std::fs::Metadata), ToolError> {
        let relative = below(&self.path, path);
        // The checked path is canonical: no symlink on it at all. `openat2` refuses to
        // leave the root and to follow any symlink, so one swapped in since the check
        // (a directory on the way, the file itself) fails the open, in one call.
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(&self.dir, relative, flags, Mode::empty(), resolve) {
            Ok(fd) => {
                let opened = File::from(fd);
                let meta = opened.metadata().map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
                plain_file(&meta, display, self.hard_links)?;
                return Ok((opened, meta));
            }
            Err(rustix::io::Errno::XDEV | rustix::io::Errno::LOOP) => return Err(changed(display)),
            Err(rustix::io::Errno::NOENT) => return Err(escaped_or(std::io::ErrorKind::NotFound.into(), display)),
            // A kernel without `openat2` (before 5.6): cap-std's confined walk, then
            // the descriptor's own path.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            Err(e) => return Err(ToolError::io(format!("cannot open `{display}`"), std::io::Error::from(e))),
        }
        let mut options = OpenOptions::new();
        // Non-blocking, so a FIFO put in its place cannot hang the open (the flag has
        // no effect on reads of a regular file).
        options.read(true).custom_flags(nix::libc::O_NONBLOCK);
        let opened =
            self.dir.open_with(below(&self.path, path), &options).map_err(|e| escaped_or(e, display))?.into_std();
        let meta = opened.metadata().map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
        plain_file(&meta, display, self.hard_links)?;
        if !is_checked(&opened, path) {
            return Err(changed(display));
        }
        Ok((opened, meta))
    }
}

/// Opens the checked file for reading, confined to its root, with its metadata.
pub(crate) fn open_read(file: &Resolved) -> Result<(File, std::fs::Metadata), ToolError> {
    Root::open(&file.root, file.hard_links)?.read(&file.path, &file.display)
}

/// The whole checked file, confined to its root, if it holds at most `limit` bytes.
pub(crate) fn read_all(file: &Resolved, limit: u64) -> Result<Vec<u8>, ToolError> {
    let (opened, meta) = open_read(file)?;
    read_at_most(opened, meta.len(), limit, &file.display)
}

/// What `opened` holds, if at most `limit` bytes. Read through `take`, not to the
/// end: a file that grows while it is read (a background job appending) is refused at
/// the limit instead of read without end.
pub(crate) fn read_at_most(
    opened: impl std::io::Read,
    size: u64,
    limit: u64,
    display: &str,
) -> Result<Vec<u8>, ToolError> {
    let too_large =
        |size: u64| ToolError::msg(format!("`{display}` is {size} bytes or more; the limit is {limit} bytes"));
    if size > limit {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(opened, limit + 1), &mut bytes)
        .map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The content hash of the checked file, read in pieces (a file of any size costs a
/// buffer, not its size).
pub(crate) fn hash_file(file: &Resolved) -> Result<u64, ToolError> {
    use std::hash::Hasher as _;
    let (mut opened, _) = open_read(file)?;
    let mut hasher = crate::session::ContentHasher::default();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        match std::io::Read::read(&mut opened, &mut buffer) {
            Ok(0) => return Ok(hasher.finish()),
            Ok(n) => hasher.write(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ToolError::io(format!("cannot read `{}`", file.display), e)),
        }
    }
}

fn escaped_or(e: std::io::Error, display: &str) -> ToolError {
    // `openat2(RESOLVE_BENEATH)` answers EXDEV for a path that would leave the root;
    // cap-std's own walk (older kernels) a permission error saying so.
    let escaped = e.raw_os_error() == Some(nix::libc::EXDEV)
        || (e.kind() == std::io::ErrorKind::PermissionDenied && e.to_string().contains("outside"));
    match e.kind() {
        _ if escaped => {
            ToolError::msg(format!("`{display}` leads outside the workspace (a link changed while it was opened)"))
        }
        std::io::ErrorKind::NotFound => {
            ToolError::msg(format!("`{display}` does not exist (it was removed or moved while it was opened)"))
        }
        _ => ToolError::io(format!("cannot open `{display}`"), e),
    }
}

fn changed(display: &str) -> ToolError {
    ToolError::msg(format!(
        "`{display}` changed while it was being opened (a link was swapped in, or it leads outside the workspace); \
         nothing was read or written"
    ))
}

/// A counter that makes temporary names unique within the process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The prefix of temporary files a write leaves only if it is killed.
pub(crate) const TEMP_PREFIX: &str = ".toolwright-";

/// Writes `bytes` to the checked path atomically, inside its root: parent directories
/// are created below the root, a temporary file is made in the parent's handle,
/// flushed, and renamed over the target within that handle. An existing target keeps
/// its permissions; a symlink, a directory, a non-regular file or a file with several
/// hard links is refused. A failed write removes its temporary file.
pub(crate) fn write_atomic(file: &Resolved, bytes: &[u8]) -> Result<(), ToolError> {
    let display = &file.display;
    let failed = |e| ToolError::io(format!("cannot write `{display}`"), e);
    let relative = below(&file.root, &file.path);
    let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else {
        return Err(ToolError::msg(format!("`{display}` is not a file path")));
    };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let root = root_dir(&file.root)?;
    root.create_dir_all(parent)
        .map_err(|e| ToolError::io(format!("cannot create the directories of `{display}`"), e))?;
    let dir = root.open_dir(parent).map_err(|e| escaped_or(e, display))?;
    let parent_path: PathBuf = file.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir_file = dir.try_clone().map_err(failed)?.into_std_file();
    if !is_checked(&dir_file, &parent_path) {
        return Err(changed(display));
    }
    // An existing file keeps its permissions; a new one gets the usual 0644.
    let permissions = match dir.symlink_metadata(name) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(ToolError::msg(format!(
                "`{display}` is a symbolic link; write to the file it points to instead"
            )));
        }
        Ok(_) => {
            let existing = dir.open_with(name, OpenOptions::new().read(true).custom_flags(nix::libc::O_NONBLOCK));
            let existing = existing.map_err(|e| escaped_or(e, display))?.into_std();
            let meta = existing.metadata().map_err(failed)?;
            plain_file(&meta, display, false)?;
            meta.permissions()
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::Permissions::from_mode(0o644),
        Err(e) => return Err(failed(e)),
    };
    sweep_stale_temps(&dir);
    let (temp_name, mut temp) = create_temp(&dir).map_err(failed)?;
    // Removed by a stop signal's clean-up if the write never ends.
    let _pending = PendingTemp::new(parent_path.join(&temp_name));
    let written = (|| {
        temp.write_all(bytes)?;
        temp.set_permissions(permissions)?;
        temp.sync_all()?;
        dir.rename(&temp_name, &dir, name)
    })();
    if let Err(e) = written {
        let _ = dir.remove_file(&temp_name);
        return Err(failed(e));
    }
    Ok(())
}

/// A new temporary file in `dir`, with its name.
fn create_temp(dir: &Dir) -> std::io::Result<(String, File)> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(0o600);
    loop {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "{TEMP_PREFIX}{}-{}-{nanos:08x}.tmp",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        match dir.open_with(&name, &options) {
            Ok(file) => return Ok((name, file.into_std())),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Whether the process that named temporary file `name` (`.toolwright-<pid>-…`)
/// still runs. Unknown counts as alive.
fn writer_alive(name: &str) -> bool {
    let pid = name.strip_prefix(TEMP_PREFIX).and_then(|rest| rest.split('-').next());
    match pid.and_then(|pid| pid.parse::<u32>().ok()) {
        Some(pid) if pid == std::process::id() => true,
        Some(pid) => Path::new("/proc").join(pid.to_string()).exists() || !Path::new("/proc/self").exists(),
        None => true,
    }
}

/// How old a temporary file must be before a later write removes it as left behind
/// by a killed one.
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes temporary files of earlier writes that were killed, from this directory:
/// ours by name, regular files only, whose writer is gone (the pid in the name is no
/// live process) or that are older than a minute (a write in progress is never that
/// old; this covers a pid reused since).
fn sweep_stale_temps(dir: &Dir) {
    let Ok(entries) = dir.entries() else { return };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten().take(10_000) {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(TEMP_PREFIX) && name.ends_with(".tmp")) {
            continue;
        }
        let Ok(meta) = dir.symlink_metadata(name) else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m.into_std()).ok())
            .is_some_and(|age| age > STALE_TEMP_AGE);
        if meta.is_file() && (old || !writer_alive(name)) {
            let _ = dir.remove_file(name);
        }
    }
}

/// The most entries [`sweep_leftovers`] looks at.
const SWEEP_ENTRIES: usize = 100_000;

/// Removes what a write killed mid-way (`kill -9`, a crash) left in the workspace
/// `root`: the temporary files of writes whose process is gone, anywhere below the
/// root but in `.git` and in what the ignore files hide, by a walk of at most
/// 100,000 entries. A write sweeps its own directory as it goes; this is for a start,
/// when no write may come to that directory for a long time. The CLI calls it for
/// its workspace when a command starts; an agent of your own can call it likewise.
/// Returns the paths it removed.
pub fn sweep_leftovers(root: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let mut walk = ignore::WalkBuilder::new(root);
    walk.hidden(false).require_git(false).filter_entry(|entry| entry.file_name() != ".git");
    for entry in walk.build().take(SWEEP_ENTRIES).flatten() {
        let Some(name) = entry.file_name().to_str() else { continue };
        if !(name.starts_with(TEMP_PREFIX) && name.ends_with(".tmp")) || writer_alive(name) {
            continue;
        }
        // A regular file only: a link planted under such a name is left alone.
        if std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.is_file())
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(entry.path().to_owned());
        }
    }
    removed
}

/// Confirms the entries of a directory walk through handles confined to the root.
///
/// A walk reads directories by name, so a directory swapped for a symlink to one
/// outside the workspace while it runs would list the outside names. Each entry the
/// walk yields is looked up again through the root's handle (which reaches nothing
/// outside it) and kept only if it is the same file the walk saw (its inode number,
/// from the directory listing itself): a name read through a swapped directory is
/// another file, or none, inside the root.
pub(crate) struct Listing {
    root_path: PathBuf,
    root: Option<Dir>,
    /// The last directory looked up, reused while the walk stays in it.
    parent: Option<(PathBuf, Option<Dir>)>,
}

impl Listing {
    pub(crate) fn new(root: &Path) -> Listing {
        Listing { root_path: root.to_owned(), root: root_dir(root).ok(), parent: None }
    }

    /// Whether `path` (absolute, below the root), with inode number `ino` as the walk
    /// read it, is that file inside the root.
    pub(crate) fn confirms(&mut self, path: &Path, ino: Option<u64>) -> bool {
        let (Some(root), Some(ino)) = (&self.root, ino) else { return false };
        let Ok(relative) = path.strip_prefix(&self.root_path) else { return false };
        let (Some(parent), Some(name)) = (relative.parent(), relative.file_name()) else { return false };
        if self.parent.as_ref().is_none_or(|(seen, _)| seen != parent) {
            let dir = if parent.as_os_str().is_empty() { root.try_clone().ok() } else { root.open_dir(parent).ok() };
            self.parent = Some((parent.to_owned(), dir));
        }
        let Some((_, Some(dir))) = &self.parent else { return false };
        dir.symlink_metadata(name).is_ok_and(|meta| cap_std::fs::MetadataExt::ino(&meta) == ino)
    }
}

#[cfg(test)]
mod read_tests {
    #[test]
    fn a_file_that_grows_while_read_is_refused_at_the_limit() {
        // `repeat` never ends, as a file appended to faster than it is read.
        let endless = std::io::repeat(b'x');
        let err = super::read_at_most(endless, 10, 1024, "log").unwrap_err().to_string();
        assert!(err.contains("1025 bytes or more; the limit is 1024 bytes"), "{err}");
        assert_eq!(super::read_at_most(&b"hello"[..], 5, 5, "f").unwrap(), b"hello");
        assert!(super::read_at_most(&b"hello"[..], 6, 5, "f").is_err(), "a size over the limit is refused unread");
    }
}
