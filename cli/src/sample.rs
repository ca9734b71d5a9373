//! The bundled sessions and the sample workspace they work on, embedded so that
//! `toolwright replay` runs anywhere.

use std::path::Path;

/// (name, file text): the sessions under `cli/sessions/`.
pub const SESSIONS: &[(&str, &str)] = &[
    ("fix-failing-test", include_str!("../sessions/fix-failing-test.anthropic.sse")),
    ("explore", include_str!("../sessions/explore.openai.sse")),
    ("trouble", include_str!("../sessions/trouble.anthropic.sse")),
    ("delegate", include_str!("../sessions/delegate.anthropic.sse")),
    ("plan", include_str!("../sessions/plan.anthropic.sse")),
];

/// The session `replay` runs without an argument.
pub const DEFAULT_SESSION: &str = "fix-failing-test";

/// (path, content): `cli/sessions/workspace/`.
const WORKSPACE: &[(&str, &str)] = &[
    (".claude/settings.json", include_str!("../sessions/workspace/.claude/settings.json")),
    (".claude/skills/fix-a-bug/SKILL.md", include_str!("../sessions/workspace/.claude/skills/fix-a-bug/SKILL.md")),
    ("README.md", include_str!("../sessions/workspace/README.md")),
    ("calc.py", include_str!("../sessions/workspace/calc.py")),
    ("test_calc.py", include_str!("../sessions/workspace/test_calc.py")),
    ("stats/__init__.py", include_str!("../sessions/workspace/stats/__init__.py")),
    ("stats/load.py", include_str!("../sessions/workspace/stats/load.py")),
    ("stats/report.py", include_str!("../sessions/workspace/stats/report.py")),
];

/// A session by bundled name, or from a file.
pub fn session(name_or_path: &str) -> Result<(String, String), String> {
    if let Some((name, text)) = SESSIONS.iter().find(|(name, _)| *name == name_or_path) {
        return Ok(((*name).to_owned(), (*text).to_owned()));
    }
    let path = Path::new(name_or_path);
    match std::fs::read_to_string(path) {
        Ok(text) => {
            Ok((path.file_name().map_or_else(|| name_or_path.to_owned(), |n| n.to_string_lossy().into_owned()), text))
        }
        Err(e) => {
            let names: Vec<&str> = SESSIONS.iter().map(|(n, _)| *n).collect();
            Err(format!("{name_or_path}: {e} (bundled sessions: {})", names.join(", ")))
        }
    }
}

/// Writes the sample workspace into `dir` (which must be empty or not exist).
pub fn write_workspace(dir: &Path) -> Result<(), String> {
    if dir.exists() && std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.next().is_some() {
        return Err(format!("{}: not empty; give a new or empty directory", dir.display()));
    }
    for (path, content) in WORKSPACE {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&target, content).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    Ok(())
}
