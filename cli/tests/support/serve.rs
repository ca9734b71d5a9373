//! `toolwright serve --http 127.0.0.1:0` as a child process, killed on drop.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub struct HttpServe {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl HttpServe {
    /// Serves the workspace `ws` with `home` as HOME, with `extra` flags.
    pub fn start(ws: &Path, home: &Path, extra: &[&str]) -> HttpServe {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["serve", "--http", "127.0.0.1:0", "--cwd"])
            .arg(ws)
            .args(extra)
            .env("HOME", home)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("toolwright: serving MCP at ").unwrap_or_else(|| panic!("{line}"));
        let addr = url.strip_prefix("http://").and_then(|u| u.strip_suffix("/mcp")).unwrap().to_owned();
        HttpServe { child, addr }
    }

    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    #[allow(dead_code)]
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for HttpServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
