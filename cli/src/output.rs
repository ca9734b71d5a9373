//! Files the CLI writes because the user named them (`--timeline FILE`, `timeline
//! -o FILE`): checked before any side effect of the run, written whole or not at all,
//! and never in place of something that is not a regular file. A device, FIFO,
//! socket or directory is refused; a symbolic link is written through to its target
//! (the link stays a link). Every error names the path as the user gave it.

use std::path::{Path, PathBuf};

/// A checked place to write: the path as given, for messages, and the file that is
/// written (the link's target, for a link).
#[derive(Debug)]
pub struct OutputPath {
    given: PathBuf,
    flag: &'static str,
    target: PathBuf,
}

/// How many links are followed before a chain is taken for a loop (the kernel's
/// own limit).
const MAX_LINKS: usize = 40;

impl OutputPath {
    /// Checks that a file can be written at `given` (named by `flag`, such as
    /// `--timeline`, for messages): its directory exists and takes files, and what is
    /// there now, if anything, is a regular file, or a link to one or to nothing yet.
    pub fn check(given: &Path, flag: &'static str) -> Result<OutputPath, String> {
        let mut out = OutputPath { given: given.to_owned(), flag, target: given.to_owned() };
        out.target = out.resolve()?;
        match std::fs::metadata(&out.target) {
            Ok(meta) if meta.is_dir() => {
                return Err(out.error("is a directory; give a file name such as session.html"));
            }
            Ok(meta) if !meta.is_file() => {
                return Err(out.error(&format!(
                    "is a {}, not a regular file; toolwright writes only regular files",
                    kind(&meta)
                )));
            }
            Ok(meta) if meta.permissions().readonly() => {
                return Err(out.error("is read-only; toolwright does not replace it"));
            }
            _ => {}
        }
        let dir = out.dir();
        if !dir.is_dir() {
            return Err(out.error(&format!("there is no directory {}", dir.display())));
        }
        // A scratch file where the file will be made: the directory takes files.
        tempfile::NamedTempFile::new_in(&dir)
            .map(drop)
            .map_err(|e| out.error(&format!("cannot write in {}: {}", dir.display(), e.kind())))?;
        Ok(out)
    }

    /// The path as the user gave it.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// Writes `bytes` there whole (a temporary file beside the target, renamed onto
    /// it), checking again first: the run may have been long.
    pub fn write(&self, bytes: &[u8]) -> Result<(), String> {
        let again = OutputPath::check(&self.given, self.flag)?;
        let dir = again.dir();
        let fail = |e: std::io::Error| again.error(&format!("cannot write it: {}", e.kind()));
        let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(fail)?;
        std::io::Write::write_all(&mut file, bytes).map_err(fail)?;
        file.as_file().sync_all().map_err(fail)?;
        // A file to attach to a bug report: readable as any file the user makes, or
        // with the mode of the file it replaces.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&again.target).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0o644);
            let _ = file.as_file().set_permissions(std::fs::Permissions::from_mode(mode));
        }
        file.persist(&again.target).map_err(|e| fail(e.error))?;
        Ok(())
    }

    fn dir(&self) -> PathBuf {
        self.target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_owned()
    }

    /// The file a write lands in: `given`, or the end of its chain of links.
    fn resolve(&self) -> Result<PathBuf, String> {
        let mut path = self.given.clone();
        for _ in 0..MAX_LINKS {
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_symlink() => {
                    let to =
                        std::fs::read_link(&path).map_err(|e| self.error(&format!("cannot read the link: {e}")))?;
                    path = match path.parent() {
                        Some(parent) if to.is_relative() => parent.join(to),
                        _ => to,
                    };
                }
                _ => return Ok(path),
            }
        }
        Err(self.error("is a loop of symbolic links"))
    }

    fn error(&self, why: &str) -> String {
        let shown =
            if self.target == self.given { String::new() } else { format!(" (a link to {})", self.target.display()) };
        match self.flag {
            "" => format!("{}{shown}: {why}", self.given.display()),
            flag => format!("{flag} {}{shown}: {why}", self.given.display()),
        }
    }
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let t = meta.file_type();
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    let _ = meta;
    "special file"
}
