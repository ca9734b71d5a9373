//! An attacker's view of the file tools, with real files: a directory swapped for a
//! symlink to outside the workspace while calls run (check-then-use), hard links to
//! outside files, a FIFO, a symlinked parent for a new file, and temporary files.
#![allow(missing_docs)]

mod common;

use common::Session;
use serde_json::json;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Swaps `dir` between a real directory and a symlink to `outside`, as fast as it can,
/// until `stop`.
fn flip(dir: &Path, outside: &Path, stop: Arc<AtomicBool>, flips: Arc<AtomicU64>) -> std::thread::JoinHandle<()> {
    let (dir, outside) = (dir.to_path_buf(), outside.to_path_buf());
    std::thread::spawn(move || {
        let real = dir.with_extension("real");
        let link = dir.with_extension("link");
        while !stop.load(Ordering::Relaxed) {
            // dir is real: swap in the link, then put the real one back.
            let _ = std::os::unix::fs::symlink(&outside, &link);
            if fs::rename(&dir, &real).is_ok() {
                let _ = fs::rename(&link, &dir);
                std::thread::yield_now();
                let _ = fs::remove_file(&dir);
                let _ = fs::rename(&real, &dir);
                flips.fetch_add(1, Ordering::Relaxed);
            }
        }
    })
}

#[test]
fn a_directory_swapped_for_a_link_never_leads_outside() {
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().canonicalize().unwrap();
    fs::write(outside.join("key"), "OUTSIDE SECRET\n").unwrap();
    fs::write(outside.join("only-outside.txt"), "x\n").unwrap();
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    fs::create_dir(root.join("sub")).unwrap();
    fs::write(root.join("sub/key"), "inside\n").unwrap();
    let mut s = Session::new(&root);
    // The edit tools need a read first; read while the directory is real.
    s.ok("read_file", json!({"path": "sub/key"}));

    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicU64::new(0));
    let flipper = flip(&root.join("sub"), &outside, Arc::clone(&stop), Arc::clone(&flips));
    // Until the race has really been run (enough swaps and rounds), or 30 s on a slow,
    // loaded host (the swapping thread can starve there).
    let started = Instant::now();
    let (mut calls, mut leaks) = (0, Vec::new());
    while started.elapsed() < Duration::from_secs(30)
        && (started.elapsed() < Duration::from_millis(1500) || flips.load(Ordering::Relaxed) < 200 || calls < 100)
    {
        calls += 1;
        let read = s.call("read_file", json!({"path": "sub/key"}));
        if read.output.text_content().contains("OUTSIDE") {
            leaks.push(format!("read_file: {}", read.output.text_content()));
        }
        let grep = s.call("grep", json!({"pattern": "SECRET", "path": "."}));
        if grep.output.text_content().contains("key:") || grep.output.text_content().contains("OUTSIDE") {
            leaks.push(format!("grep: {}", grep.output.text_content()));
        }
        // Listing goes through the same confinement as reading: no outside name.
        for (tool, input) in [
            ("list_dir", json!({"path": "sub"})),
            ("list_dir", json!({"path": ".", "depth": 3})),
            ("glob", json!({"pattern": "**/*.txt"})),
            ("glob", json!({"pattern": "*", "path": "sub"})),
        ] {
            let listed = s.call(tool, input).output.text_content();
            if listed.contains("only-outside") {
                leaks.push(format!("{tool}: {listed}"));
            }
        }
        s.call("write_file", json!({"path": "sub/new.txt", "content": format!("n{calls}")}));
        s.call("edit_file", json!({"path": "sub/key", "old_string": "inside", "new_string": "inside"}));
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    let flips = flips.load(Ordering::Relaxed);
    assert!(flips >= 20, "the directory was swapped only {flips} times");
    assert!(calls >= 20, "only {calls} rounds ran");
    assert!(leaks.is_empty(), "{} of {calls} rounds read outside: {:?}", leaks.len(), &leaks[..leaks.len().min(3)]);
    let landed: Vec<_> = fs::read_dir(&outside).unwrap().flatten().map(|e| e.file_name()).collect();
    let mut landed = landed;
    landed.sort();
    assert_eq!(landed, ["key", "only-outside.txt"], "nothing was written outside");
    assert_eq!(fs::read_to_string(outside.join("key")).unwrap(), "OUTSIDE SECRET\n");
}

#[test]
fn hard_links_fifos_and_linked_parents_are_refused() {
    let outside_dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let outside = outside_dir.path().canonicalize().unwrap();
    fs::write(outside.join("key"), "OUTSIDE\n").unwrap();
    let ws = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let root = ws.path().canonicalize().unwrap();
    let mut s = Session::new(&root);

    // A hard link to an outside file: its content is the outside file's.
    fs::hard_link(outside.join("key"), root.join("hard")).unwrap();
    let e = s.err("read_file", json!({"path": "hard"}));
    assert!(e.contains("2 hard links"), "{e}");
    let e = s.err("write_file", json!({"path": "hard", "content": "x"}));
    assert!(e.contains("hard links"), "{e}");
    assert!(!s.ok("grep", json!({"pattern": "OUTSIDE"})).contains("hard"));
    assert_eq!(fs::read_to_string(outside.join("key")).unwrap(), "OUTSIDE\n");

    // A FIFO: refused at once, nothing waits for a writer.
    let fifo = root.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let started = Instant::now();
    let e = s.err("read_file", json!({"path": "pipe"}));
    assert!(e.contains("FIFO"), "{e}");
    let e = s.err("edit_file", json!({"path": "pipe", "old_string": "a", "new_string": "b"}));
    assert!(e.contains("FIFO"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // A symlinked parent pointing outside, for a new file; a symlink as the target.
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    let e = s.err("write_file", json!({"path": "out/new.txt", "content": "x"}));
    assert!(e.contains("outside the workspace"), "{e}");
    std::os::unix::fs::symlink(root.join("real.txt"), root.join("alias.txt")).unwrap();
    fs::write(root.join("real.txt"), "r").unwrap();
    assert!(!outside.join("new.txt").exists());

    // With hard links allowed (a pnpm store), the file reads.
    let workspace = toolwright_builtin::Workspace::new(&root).unwrap().with_hard_links_allowed(true);
    let mut extensions = toolwright_builtin::session();
    extensions.insert(workspace);
    s.turn = toolwright_core::TurnContext::new(&root).with_extensions(extensions);
    assert!(s.ok("read_file", json!({"path": "hard"})).contains("OUTSIDE"));
}

#[test]
fn writes_leave_no_temporary_files_and_sweep_old_ones() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().canonicalize().unwrap();
    let mut s = Session::new(&root);
    // One a killed write left a while ago, one a write in progress holds now (its
    // writer lives), and one just left by a writer that was killed (it is gone).
    let stale = root.join(".toolwright-1-1-0.tmp");
    let fresh = root.join(format!(".toolwright-{}-2-0.tmp", std::process::id()));
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let orphaned = root.join(format!(".toolwright-{}-3-0.tmp", gone.id()));
    fs::write(&stale, "half").unwrap();
    fs::write(&fresh, "half").unwrap();
    fs::write(&orphaned, "half").unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(600);
    fs::File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
    s.ok("write_file", json!({"path": "a.txt", "content": "hello"}));
    assert!(!stale.exists(), "the stale temporary file was swept");
    assert!(fresh.exists(), "a recent one of a live writer may be a write in progress");
    assert!(!orphaned.exists(), "a dead writer's temporary file was swept at once");
    fs::remove_file(&fresh).unwrap();
    // A write that fails (the target is a directory) leaves nothing behind.
    fs::create_dir(root.join("d")).unwrap();
    s.err("write_file", json!({"path": "d", "content": "x"}));
    s.ok("read_file", json!({"path": "a.txt"}));
    s.ok("edit_file", json!({"path": "a.txt", "old_string": "hello", "new_string": "bye"}));
    let temps: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".toolwright-"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "bye");
}
