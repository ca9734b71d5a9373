//! Two ways to decide what may run: your own `PermissionPolicy`, and Claude Code
//! style rules (`toolwright::rules::RulePolicy`), plus an `Approver` that answers the
//! questions a policy asks.
//!
//! Run: `cargo run --example custom_permissions`

use std::sync::Arc;
use toolwright::access::Access;
use toolwright::permission::{Approval, Approver, PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::rules::RulePolicy;
use toolwright::{BoxFuture, Executor, ToolCall, TurnContext};

/// Reads run; writes run only under `scratch/`; everything else asks. It decides on
/// what each call says it touches (`request.access`), not on tool names or the input.
struct ScratchOnly;

impl PermissionPolicy for ScratchOnly {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        if !request.access.is_declared() {
            return PermissionDecision::Ask(format!("Allow {}?", request.summary()));
        }
        for fact in request.access {
            match fact {
                Access::Read(_) | Access::Search(_) => {}
                Access::Write(path) if path.starts_with("scratch/") && !path.contains("..") => {}
                Access::Write(path) => {
                    return PermissionDecision::Deny(format!("writes go under scratch/, not {path}"));
                }
                _ => return PermissionDecision::Ask(format!("Allow {}?", request.summary())),
            }
        }
        PermissionDecision::Allow
    }
}

/// Says yes to questions about `echo` and no to the rest (a UI would ask a person).
struct EchoOnly;

impl Approver for EchoOnly {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            println!("  approver asked: {question}");
            if request.input.contains("\"echo ") { Approval::AllowOnce } else { Approval::Deny(None) }
        })
    }
}

async fn show(executor: &Executor, turn: &TurnContext, name: &str, input: &str) {
    let result = executor.execute(&ToolCall::new("c", name, input), turn).await;
    let status = result.error.map_or("ok", |kind| kind.label());
    println!("{name} {input} -> {status}: {}", result.output.text_content().lines().next().unwrap_or_default());
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("scratch"))?;
    let turn = TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    let registry = Arc::new(toolwright::registry()?);

    println!("A policy of your own:");
    let executor = Executor::builder(Arc::clone(&registry)).policy(ScratchOnly).approver(EchoOnly).build();
    show(&executor, &turn, "write_file", r#"{"path": "scratch/notes.txt", "content": "hi"}"#).await;
    show(&executor, &turn, "write_file", r#"{"path": "src/main.rs", "content": "hi"}"#).await;
    show(&executor, &turn, "read_file", r#"{"path": "scratch/notes.txt"}"#).await;
    show(&executor, &turn, "shell", r#"{"command": "echo from the shell"}"#).await;
    show(&executor, &turn, "shell", r#"{"command": "touch x"}"#).await;

    println!("\nClaude Code rules (the same rules settings.json holds):");
    let rules = RulePolicy::new()
        .with_project(dir.path())
        .allow("Bash(echo *)")
        .deny("Bash(rm -rf *)")
        .deny("Read(./scratch/secret*)");
    std::fs::write(dir.path().join("scratch/secret.txt"), "hunter2")?;
    let executor = Executor::builder(registry).policy(rules).approver(EchoOnly).build();
    show(&executor, &turn, "shell", r#"{"command": "echo allowed by a rule && echo twice"}"#).await;
    show(&executor, &turn, "shell", r#"{"command": "ls && rm -rf scratch"}"#).await;
    show(&executor, &turn, "read_file", r#"{"path": "scratch/secret.txt"}"#).await;
    show(&executor, &turn, "shell", r#"{"command": "cat scratch/secret.txt"}"#).await;
    Ok(())
}
