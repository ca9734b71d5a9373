//! The house stays as ARCHITECTURE.md describes it: no file-import circle of more
//! than three files in any crate, no source file over 800 lines, no function over
//! 150 (`benches/house.py`, which reads the code's own `crate::`/`super::` paths).

#![allow(missing_docs)]

use std::path::Path;
use std::process::Command;

#[test]
fn no_crate_has_a_long_file_a_long_function_or_an_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("benches/house.py"))
        .arg("--check")
        .output()
        .expect("python3 runs benches/house.py");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "benches/house.py --check failed:\n{report}{}", String::from_utf8_lossy(&out.stderr));
    // The report names every crate of the workspace, so a crate it failed to find
    // would show here rather than pass unseen.
    for krate in ["tool-contracts", "providers", "tool-core", "mcp", "shell", "permissions", "builtin-tools", "cli"] {
        assert!(report.lines().any(|l| l.starts_with(&format!("{krate}:"))), "no line for {krate} in:\n{report}");
    }
}
