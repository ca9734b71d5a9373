//! What the built-in tools remember between calls of one session: which files were
//! read (and in what state), and the background shell commands.

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;
use toolwright_core::{Extensions, ToolContext, ToolError};

/// The extensions the built-in tools need, for every turn of one session: a
/// [`FileStates`] cache and the [`BackgroundShells`](crate::tools::shell::BackgroundShells) table. Keep the `Extensions`
/// (or the `TurnContext` built with it) for the whole session; clones share state.
///
/// ```
/// let turn = toolwright_core::TurnContext::new(".").with_extensions(toolwright_builtin::session());
/// assert!(turn.extensions().get::<toolwright_builtin::FileStates>().is_some());
/// ```
pub fn session() -> Extensions {
    let mut extensions = Extensions::new();
    extensions.insert(FileStates::default());
    extensions.insert(crate::tools::BackgroundShells::default());
    // The session's web searches, counted against its cap.
    extensions.insert(crate::tools::WebSearches::default());
    // Hooks' `session_id`.
    extensions.insert(toolwright_core::SessionInfo::new());
    extensions
}

/// A file as it was when the session last read or wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    /// Modification time.
    pub modified: Option<SystemTime>,
    /// Length in bytes.
    pub len: u64,
    /// A hash of the whole content, when the whole file was seen.
    pub hash: Option<u64>,
    /// The lines read (first, last), or `None` for the whole file.
    pub lines: Option<(u64, u64)>,
}

/// The session's file-state cache: every read records the file's stamp, and a write
/// or an edit of an existing file needs a stamp that is still current.
#[derive(Debug, Clone, Default)]
pub struct FileStates(Arc<Mutex<HashMap<PathBuf, FileStamp>>>);

impl FileStates {
    /// Records that `path` was read (or written) in this state.
    pub fn record(&self, path: &Path, stamp: FileStamp) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(path.to_path_buf(), stamp);
    }

    /// Every file recorded (read or written this session), sorted.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.0.lock().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect();
        paths.sort();
        paths
    }

    /// The stamp recorded for `path`.
    pub fn get(&self, path: &Path) -> Option<FileStamp> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get(path).cloned()
    }

    /// The states saved at `file` by [`save`](Self::save), for a session that goes on
    /// across processes (`toolwright call`); none when the file is missing or not
    /// one of ours. Stale stamps are harmless: a write still checks the file now.
    pub fn load(workspace: &Path, file: &Path) -> FileStates {
        let states = FileStates::default();
        let Ok(text) = toolwright_core::state_file::read(workspace, file) else { return states };
        let Ok(saved) = serde_json::from_slice::<HashMap<PathBuf, SavedStamp>>(&text) else { return states };
        for (path, stamp) in saved {
            states.record(&path, stamp.into());
        }
        states
    }

    /// Saves the states at `file` beneath `workspace` (atomically, following no link a
    /// command may have planted there: see [`toolwright_core::state_file`]).
    pub fn save(&self, workspace: &Path, file: &Path) -> std::io::Result<()> {
        let saved: HashMap<PathBuf, SavedStamp> = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(path, stamp)| (path.clone(), SavedStamp::from(stamp)))
            .collect();
        toolwright_core::state_file::write(workspace, file, &serde_json::to_vec(&saved)?)
    }
}

/// A [`FileStamp`] as [`FileStates::save`] writes it.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedStamp {
    /// Seconds and nanoseconds since the epoch.
    modified: Option<(u64, u32)>,
    len: u64,
    hash: Option<u64>,
    lines: Option<(u64, u64)>,
}

impl From<&FileStamp> for SavedStamp {
    fn from(stamp: &FileStamp) -> SavedStamp {
        let modified = stamp
            .modified
            .and_then(|m| m.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map(|d| (d.as_secs(), d.subsec_nanos()));
        SavedStamp { modified, len: stamp.len, hash: stamp.hash, lines: stamp.lines }
    }
}

impl From<SavedStamp> for FileStamp {
    fn from(saved: SavedStamp) -> FileStamp {
        let modified =
            saved.modified.map(|(secs, nanos)| SystemTime::UNIX_EPOCH + std::time::Duration::new(secs, nanos));
        FileStamp { modified, len: saved.len, hash: saved.hash, lines: saved.lines }
    }
}

/// The hash of file content, fed in pieces or at once (FNV-1a: the same either way).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ContentHasher(u64);

impl Default for ContentHasher {
    fn default() -> Self {
        ContentHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for ContentHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash of file content, for telling a touched file from a changed one.
pub(crate) fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = ContentHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

/// The stamp of `path` now, with a hash of `content` if given.
pub(crate) fn stamp_now(path: &Path, content: Option<&[u8]>, lines: Option<(u64, u64)>) -> Option<FileStamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileStamp { modified: meta.modified().ok(), len: meta.len(), hash: content.map(content_hash), lines })
}

/// Checks that an existing file may be overwritten: it was read in this session and
/// has not changed since. `current` is its content now.
pub(crate) fn check_fresh(cx: &ToolContext, path: &Path, display: &str, current: &[u8]) -> Result<(), ToolError> {
    check_fresh_by(cx, path, display, || Ok(content_hash(current)))
}

/// [`check_fresh`], with the file's content hash computed only if it is needed
/// (`current_hash` may stream a large file).
pub(crate) fn check_fresh_by(
    cx: &ToolContext,
    path: &Path,
    display: &str,
    current_hash: impl FnOnce() -> Result<u64, ToolError>,
) -> Result<(), ToolError> {
    let Some(states) = cx.extension::<FileStates>() else {
        return Err(ToolError::msg(format!(
            "`{display}` exists, and this session keeps no record of reads, so it cannot be overwritten safely \
             (the agent must put `toolwright_builtin::session()` in the turn's extensions)"
        )));
    };
    let Some(seen) = states.get(path) else {
        return Err(ToolError::msg(format!(
            "`{display}` exists and has not been read in this session; read it with read_file first"
        )));
    };
    let meta = std::fs::metadata(path).map_err(|e| ToolError::io(format!("cannot read `{display}`"), e))?;
    // The content hash, when the whole file was seen, is the authority (a touch is not
    // a change, and a change within the clock's granularity is); else the stamp.
    let fresh = match seen.hash {
        Some(hash) => hash == current_hash()?,
        None => seen.modified == meta.modified().ok() && seen.len == meta.len(),
    };
    if fresh {
        return Ok(());
    }
    Err(ToolError::msg(format!(
        "`{display}` has changed since it was last read (by the user or another tool); read it again before writing"
    )))
}
