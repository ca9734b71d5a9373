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
use std::sync::Arc;
use toolwright::access::Accesses;
use toolwright::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::{DynTool, Extensions, PreparedCall};
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

/// Decides a call of `tool` with `input` as the executor does: the tool is prepared
/// once (the shell tool analyses its command for its flags), and the policy decides on
/// the facts it states.
fn decide_prepared(
    policy: &RulePolicy,
    tool: &dyn DynTool,
    prepared: &dyn PreparedCall,
    access: &Accesses,
    input: &str,
    cwd: &Path,
) -> PermissionDecision {
    let extensions = Extensions::new();
    let spec = tool.spec();
    let request = PermissionRequest {
        tool: &spec.name,
        rule_name: spec.rule_name.as_deref(),
        access,
        invoked_name: &spec.name,
        call_id: "c1",
        input,
        flags: prepared.flags(),
        cwd,
        own_summary: None,
        extensions: &extensions,
    };
    policy.check(&request)
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
    let registry = toolwright::builtin::registry().expect("the built-ins");
    let shell = Arc::clone(registry.resolve("shell").expect("shell").tool());
    let edit_file = Arc::clone(registry.resolve("edit_file").expect("edit_file").tool());
    let text = "cd src && git diff --stat HEAD~1 | head -20 && npm test -- --watch=false";
    let command = json!({ "command": text }).to_string();
    let edit = json!({"path": "src/module4/lib.rs", "old_string": "x", "new_string": "y"}).to_string();
    let mut group = c.benchmark_group("permission_decision_100_rules");
    // As in a real call: staging analysed the command for the shell tool's flags, and
    // the policy reads that analysis from the call's facts.
    let prepared = shell.prepare(command.as_bytes()).expect("a shell call");
    let access = prepared.access();
    let _ = prepared.flags();
    group.bench_function("compound_shell_command", |b| {
        b.iter(|| black_box(decide_prepared(&policy, shell.as_ref(), prepared.as_ref(), &access, &command, cwd)))
    });
    // A command never seen: the parse is part of the decision.
    let mut n = 0u64;
    group.bench_function("compound_shell_command_cold", |b| {
        b.iter_batched(
            || {
                n += 1;
                let fresh = json!({ "command": format!("{text} {n}") }).to_string();
                let prepared = shell.prepare(fresh.as_bytes()).expect("a shell call");
                let access = prepared.access();
                (fresh, prepared, access)
            },
            |(fresh, prepared, access)| {
                black_box(decide_prepared(&policy, shell.as_ref(), prepared.as_ref(), &access, &fresh, cwd))
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("parse_only", |b| {
        b.iter(|| black_box(toolwright_permissions::shell::analyze(black_box(text))))
    });
    let prepared_edit = edit_file.prepare(edit.as_bytes()).expect("an edit call");
    let edit_access = prepared_edit.access();
    group.bench_function("edit_path", |b| {
        b.iter(|| {
            black_box(decide_prepared(&policy, edit_file.as_ref(), prepared_edit.as_ref(), &edit_access, &edit, cwd))
        })
    });
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
