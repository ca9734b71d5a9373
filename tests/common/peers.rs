//! The real MCP peers the MCP tests talk to: npm servers and the Python SDK,
//! installed by `tests/peers/install.sh` (once, under a lock, if missing).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root (these helpers serve the facade's tests and the CLI's).
pub fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let found = manifest.ancestors().find(|dir| dir.join("tests/peers/install.sh").is_file());
        found.unwrap_or(manifest).to_path_buf()
    })
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// Installs the peers if they are not there yet. Panics with the installer's
/// output if it fails: a missing peer is a failed test, never a skipped one.
pub fn ensure_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let lock = target_dir().join("peers.lock");
        std::fs::create_dir_all(target_dir()).expect("target dir");
        let out = Command::new("flock")
            .arg(&lock)
            .arg("bash")
            .arg(root().join("tests/peers/install.sh"))
            .output()
            .expect("running flock + tests/peers/install.sh (needs util-linux flock, npm and python3)");
        assert!(
            out.status.success(),
            "installing the MCP test peers failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// An npm-installed server's executable (`mcp-server-everything`).
pub fn npm_bin(name: &str) -> PathBuf {
    ensure_installed();
    root().join("tests/peers/node_modules/.bin").join(name)
}

/// The venv's Python, with the official `mcp` SDK.
pub fn python() -> PathBuf {
    ensure_installed();
    target_dir().join("peers-venv/bin/python")
}

pub fn peer_script(name: &str) -> PathBuf {
    root().join("tests/peers").join(name)
}
