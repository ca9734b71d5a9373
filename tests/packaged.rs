//! The crates as a user gets them from a registry. `cargo package --workspace` packs
//! every library crate; a scratch crate outside the workspace depends on the packed
//! `.crate` files (unpacked, through `[patch.crates-io]`, as if they were published)
//! with toolwright's default features, then builds and runs `examples/quickstart.rs`.
//! The same crate naming a part whose feature is off fails to build, and what the
//! compiler says first names the feature to add.
//!
//! Nothing a packed crate needs may live outside it: a file included from the
//! workspace, a `build.rs` reading it, a path-only dependency would all fail here.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The packages that are not for publishing: the examples' crates.
const UNPUBLISHED: [&str; 2] = ["toolwright-example-nested-input", "toolwright-example-own-cli"];

/// The largest a packed library crate may be: sources and docs, no test data.
const MAX_CRATE_BYTES: u64 = 1 << 20;

fn cargo() -> Command {
    let mut command = Command::new(env!("CARGO"));
    // The outer `cargo test`'s settings are for the workspace, not the scratch crate.
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"] {
        command.env_remove(var);
    }
    command
}

fn run(command: &mut Command, what: &str) -> Output {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `cargo package --workspace` into `dir`; the packed files with their sizes.
fn package(workspace: &Path, dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut command = cargo();
    command.current_dir(workspace).args(["package", "--workspace", "--no-verify", "--allow-dirty", "--offline"]);
    for name in UNPUBLISHED {
        command.args(["--exclude", name]);
    }
    command.arg("--target-dir").arg(dir);
    run(&mut command, "cargo package --workspace");
    let mut packed: Vec<(PathBuf, u64)> = fs::read_dir(dir.join("package"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "crate"))
        .map(|path| {
            let size = fs::metadata(&path).unwrap().len();
            (path, size)
        })
        .collect();
    packed.sort();
    packed
}

/// Unpacks each `.crate` into `into`; the package names and their folders.
fn unpack(packed: &[(PathBuf, u64)], into: &Path) -> Vec<(String, PathBuf)> {
    let _ = fs::remove_dir_all(into);
    fs::create_dir_all(into).unwrap();
    packed
        .iter()
        .map(|(file, _)| {
            run(Command::new("tar").arg("xzf").arg(file).arg("-C").arg(into), "tar xzf");
            let stem = file.file_stem().unwrap().to_str().unwrap();
            let name = stem.rsplit_once('-').unwrap().0.to_owned();
            (name, into.join(stem))
        })
        .collect()
}

/// A crate outside the workspace that sees the unpacked crates as published ones.
fn scratch_crate(dir: &Path, unpacked: &[(String, PathBuf)], workspace: &Path) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir.join("src/bin")).unwrap();
    let mut manifest = String::from(
        "[package]\nname = \"quickstart\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ntoolwright = \"0.1.0\"\n\
         tokio = { version = \"1\", features = [\"rt-multi-thread\", \"macros\"] }\n\n\
         # Not a member of the workspace it happens to sit under.\n[workspace]\n\n\
         [profile.dev]\ndebug = false\n\n[patch.crates-io]\n",
    );
    for (name, path) in unpacked {
        manifest.push_str(&format!("{name} = {{ path = {:?} }}\n", path.to_str().unwrap()));
    }
    fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lockfile: the same versions of everything the tests saw.
    fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    fs::copy(workspace.join("examples/quickstart.rs"), dir.join("src/main.rs")).unwrap();
    // Step 4 of the README's first hour, written by someone who forgot `agent`.
    fs::write(
        dir.join("src/bin/forgot_agent.rs"),
        "use toolwright::agent::{Agent, HttpModel};\n\
         use toolwright::orchestrate::Orchestrator;\n\
         use toolwright::provider::Api;\n\
         use std::sync::Arc;\n\n\
         fn main() {\n\
         \x20   let registry = Arc::new(toolwright::Registry::from_inventory().unwrap());\n\
         \x20   let executor = toolwright::Executor::new(registry);\n\
         \x20   let _agent = Agent::new(HttpModel::from_env(Api::Anthropic).unwrap(), Orchestrator::new(Arc::new(executor)));\n\
         }\n",
    )
    .unwrap();
}

#[test]
fn the_packaged_crates_build_and_run_the_quickstart() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("packaged");
    let packed = package(workspace, &root.join("package-target"));

    let names: Vec<String> =
        packed.iter().map(|(file, _)| file.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for expected in [
        "toolwright-0.1.0.crate",
        "toolwright-core-0.1.0.crate",
        "toolwright-macros-0.1.0.crate",
        "toolwright-cli-0.1.0.crate",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} was not packed: {names:?}");
    }
    for (file, size) in &packed {
        let name = file.file_name().unwrap().to_string_lossy();
        // The CLI carries its embedded sessions (the main job's default); libraries don't.
        if !name.starts_with("toolwright-cli-") {
            assert!(*size <= MAX_CRATE_BYTES, "{name} is {size} bytes packed, over {MAX_CRATE_BYTES}");
        }
        eprintln!("{name:<40} {:>8} KiB", size / 1024);
    }

    let unpacked = unpack(&packed, &root.join("unpacked"));
    let scratch = root.join("scratch");
    scratch_crate(&scratch, &unpacked, workspace);
    let target = root.join("scratch-target");

    let out = run(
        cargo().current_dir(&scratch).args(["run", "--quiet", "--bin", "quickstart", "--target-dir"]).arg(&target),
        "the quickstart against the packaged crates",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("add(2, 40) = 42"), "{stdout}");
    assert!(stdout.contains(r#""name":"add""#), "{stdout}");

    let out = cargo()
        .current_dir(&scratch)
        .args(["build", "--quiet", "--bin", "forgot_agent", "--target-dir"])
        .arg(&target)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "naming `toolwright::agent` without the feature built:\n{stderr}");
    let note = "needs toolwright's `agent` feature";
    let first_diagnostic = stderr.lines().find(|l| l.starts_with("error") || l.starts_with("warning")).unwrap_or("");
    assert!(stderr.contains(note), "no diagnostic names the feature:\n{stderr}");
    assert!(
        stderr.find(note) < stderr.find("error[").or(stderr.find("error:")),
        "the feature is named only after the errors (first: {first_diagnostic}):\n{stderr}"
    );
}
