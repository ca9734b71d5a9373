//! A typical compound shell command decided against 100 rules (target: at most 5 us):
//! as in a real call, with the command already analysed when the call was staged (the
//! shell tool's flags), and cold, with the parse included; the parse alone and a
//! path-tool decision for reference.
//!
//! Run: `cargo bench --bench permissions`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;
use toolwright_permissions::RulePolicy;

/// 100 rules of the kinds a real settings file holds.
fn hundred_rules(project: &Path) -> RulePolicy {
    let mut policy = RulePolicy::new().with_project(project);
    let tools = ["npm", "cargo", "git", "make", "docker", "kubectl", "python", "node", "go", "pip"];
    let mut n = 0;
    for tool in tools {
        for sub in ["run", "test", "build", "push", "install", "log", "exec"] {
            policy = match n % 3 {
                0 => policy.allow(&format!("Bash({tool} {sub} *)")),
                1 => policy.deny(&format!("Bash({tool} {sub} --force *)")),
                _ => policy.ask(&format!("Bash({tool} {sub}:*)")),
            };
            n += 1;
        }
    }
    for i in 0..30 {
        policy = match i % 3 {
            0 => policy.deny(&format!("Read(./secrets{i}/**)")),
            1 => policy.allow(&format!("Edit(./src/module{i}/**)")),
            _ => policy.ask(&format!("WebFetch(domain:host{i}.example.com)")),
        };
        n += 1;
    }
    assert_eq!(n, 100);
    assert!(policy.warnings().is_empty(), "{:?}", policy.warnings());
    policy
}

fn decisions(c: &mut Criterion) {
    // A real project on disk: the paths a command names are looked at (symlinks).
    let project = tempfile::tempdir().expect("a temporary directory");
    let cwd = project.path();
    for dir in ["src/module4", "secrets0", "tests"] {
        std::fs::create_dir_all(cwd.join(dir)).expect("a directory");
    }
    for file in ["README.md", "package.json", "src/main.rs", "src/module4/lib.rs", "secrets0/key"] {
        std::fs::write(cwd.join(file), "x\n").expect("a file");
    }
    let policy = hundred_rules(cwd);
    let command = json!({"command": "cd src && git diff --stat HEAD~1 | head -20 && npm test -- --watch=false"});
    let edit = json!({"path": "src/module4/lib.rs"});
    let text = command["command"].as_str().unwrap().to_owned();
    let mut group = c.benchmark_group("permission_decision_100_rules");
    // As in a real call: staging analysed the command for the shell tool's flags, so
    // the decision finds the analysis shared.
    toolwright_permissions::shell::analyze_shared(&text);
    group.bench_function("compound_shell_command", |b| {
        b.iter(|| black_box(policy.decide("shell", black_box(&command), false, cwd)))
    });
    // A command never seen: the parse is part of the decision.
    let mut n = 0u64;
    group.bench_function("compound_shell_command_cold", |b| {
        b.iter_batched(
            || {
                n += 1;
                json!({ "command": format!("{text} {n}") })
            },
            |fresh| black_box(policy.decide("shell", &fresh, false, cwd)),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("parse_only", |b| {
        b.iter(|| black_box(toolwright_permissions::shell::analyze(black_box(&text))))
    });
    group.bench_function("edit_path", |b| {
        b.iter(|| black_box(policy.decide("edit_file", black_box(&edit), false, cwd)))
    });
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
