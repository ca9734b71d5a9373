//! In-process hooks: a pre-tool hook that blocks or rewrites calls, a post-tool
//! hook that adds context to results. Command hooks from settings files
//! (`toolwright::rules::hooks`) use the same interface.
//!
//! Run: `cargo run --example hooks`

use serde_json::Value;
use std::sync::Arc;
use toolwright::hooks::{HookCall, PostToolHook, PostToolOutcome, PreToolHook, PreToolOutcome};
use toolwright::permission::AllowAll;
use toolwright::{BoxFuture, Executor, ToolCall, ToolOutput, TurnContext};

/// Blocks `git push`, and caps `grep`'s `head_limit` at 5.
struct Guard;

impl PreToolHook for Guard {
    fn name(&self) -> &str {
        "guard"
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<PreToolOutcome, String>> {
        Box::pin(async move {
            let mut input: Value = serde_json::from_str(call.input).map_err(|e| e.to_string())?;
            let mut outcome = PreToolOutcome::default();
            if call.tool == "shell" && input["command"].as_str().is_some_and(|c| c.contains("git push")) {
                outcome.deny = Some("pushing is for humans in this repository".into());
            }
            if call.tool == "grep" && input["head_limit"].as_u64().is_none_or(|n| n > 5) {
                input["head_limit"] = 5.into();
                outcome.updated_input = Some(input);
                outcome.additional_context = Some("(the guard hook limited grep to 5 results)".into());
            }
            Ok(outcome)
        })
    }
}

/// Notes how long each result is.
struct Measure;

impl PostToolHook for Measure {
    fn name(&self) -> &str {
        "measure"
    }

    fn after<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        output: &'a ToolOutput,
    ) -> BoxFuture<'a, Result<PostToolOutcome, String>> {
        let lines = output.text_content().lines().count();
        Box::pin(async move {
            Ok(PostToolOutcome { additional_context: Some(format!("[{lines} lines]")), ..Default::default() })
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("file{i:02}.txt")), "needle\n")?;
    }
    let registry = Arc::new(toolwright::registry()?);
    let executor = Executor::builder(registry).policy(AllowAll).pre_hook(Guard).post_hook(Measure).build();
    let turn = TurnContext::new(dir.path()).with_extensions(toolwright::builtin::session());
    for (name, input) in [
        ("grep", r#"{"pattern": "needle", "output_mode": "files_with_matches"}"#),
        ("shell", r#"{"command": "git push origin main"}"#),
        ("shell", r#"{"command": "echo hooks ran"}"#),
    ] {
        let result = executor.execute(&ToolCall::new("c", name, input), &turn).await;
        let status = result.error.map_or("ok", |kind| kind.label());
        println!("{name} {input}\n  -> {status}\n{}\n", result.output.text_content());
    }
    Ok(())
}
