//! Shell arguments read as bash reads them, in a real project on disk: globs and brace
//! expansions expanded against the file system, input redirections, `~+`, and
//! recursive searches of a directory that holds a denied path.
#![allow(missing_docs)]

mod support;

use serde_json::json;
use std::fs;
use toolwright_core::permission::PermissionDecision;
use toolwright_permissions::RulePolicy;

#[test]
fn every_way_a_command_reaches_a_read_denied_file_is_denied() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for file in ["secrets/key.txt", "docs/readme.txt", "src/a.rs", "src/b.rs", ".env"] {
        let path = root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "TOKEN=x").unwrap();
    }
    let policy = RulePolicy::new().with_project(&root).deny("Read(./secrets/**)").deny("Read(./.env)");
    let decide = |command: &str| support::decide(&policy, "shell", &json!({ "command": command }), &root);
    let mut wrong = Vec::new();
    for command in [
        "cat sec*/key.txt",
        "cat */key.txt",
        "cat sec{rets,x}/key.txt",
        "cat {docs,secrets}/*.txt",
        "cat secrets/*",
        "cat .e*",
        "head -1 ./*/*.txt",
        "cat < secrets/key.txt",
        "wc -c < .env",
        "while read l; do echo $l; done < .env",
        "cat ~+/secrets/key.txt",
        "cat ~+/.env",
        "cd secrets && cat *",
        "grep -r TOKEN .",
        "grep -rn TOKEN",
        "grep TOKEN -R src/..",
        "grep -e TOKEN -r .",
        "rg TOKEN",
        "rg TOKEN .",
        "rg -l TOKEN",
        "find . -name key.txt",
        "find",
        "ls -R",
        "ls -laR .",
        "tree",
        "du -a",
        "cp -r . /tmp/copy",
        "tar czf /tmp/all.tgz .",
        "git grep TOKEN",
        "ls *",
        "cat *",
    ] {
        if !matches!(decide(command), PermissionDecision::Deny(_)) {
            wrong.push(format!("`{command}`: want a denial, got {:?}", decide(command)));
        }
    }
    // (bash's `?` and `*` never match a leading dot: `cat ?env` reads nothing denied.)
    for command in [
        "cat ?env",
        "cat src/*.rs",
        "cat src/{a,b}.rs",
        "grep -r TOKEN src",
        "rg TOKEN src docs",
        "ls docs src",
        "find src -name '*.rs'",
        "cat docs/*.txt",
        "cat 'sec*/key.txt'",
    ] {
        if decide(command) != PermissionDecision::Allow {
            wrong.push(format!("`{command}`: want it allowed, got {:?}", decide(command)));
        }
    }
    // What cannot be told asks, in every mode.
    for command in ["cat $F", "cat < \"$F\"", "cat ~-/x", "cp $X /tmp/out"] {
        if !matches!(decide(command), PermissionDecision::AskRule(_)) {
            wrong.push(format!("`{command}`: want a question, got {:?}", decide(command)));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn unquoted_globs_make_commands_with_dangerous_flags_ask() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::write(root.join("-delete"), "").unwrap();
    let policy = RulePolicy::new();
    let decide = |command: &str| support::decide(&policy, "shell", &json!({ "command": command }), &root);
    assert!(matches!(decide("find . -name *"), PermissionDecision::Ask(_)));
    assert!(matches!(decide("sort *"), PermissionDecision::Ask(_)));
    assert_eq!(decide("find . -name '*.rs'"), PermissionDecision::Allow);
    assert_eq!(decide("ls *"), PermissionDecision::Allow);
}
