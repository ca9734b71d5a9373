//! The mounted servers' resources through Claude Code's two resource tools, against
//! server-everything from npm: its documents and templates listed, a text read,
//! a blob read without being written anywhere, and bad names answered clearly.
#![allow(missing_docs)]

mod common;

use common::peers;
use serde_json::json;
use std::sync::Arc;
use toolwright::mcp::{McpConfig, McpMounts, MountOptions};
use toolwright::permission::{PermissionDecision, PermissionPolicy, PermissionRequest};
use toolwright::{Content, Executor, Registry, ToolCall, TurnContext};

struct AllowAll;
impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

async fn call(executor: &Executor, name: &str, input: serde_json::Value) -> toolwright::ToolResult {
    executor.execute(&ToolCall::new(format!("c-{name}"), name, input.to_string()), &TurnContext::new(".")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_listed_and_read_by_claude_codes_tools() {
    let config =
        json!({"mcpServers": {"everything": {"command": peers::npm_bin("mcp-server-everything"), "args": ["stdio"]}}});
    let config = McpConfig::parse(&config.to_string(), "t.json".as_ref()).unwrap();
    let registry = Arc::new(Registry::builder().build().unwrap());
    let mounts = McpMounts::mount(Arc::clone(&registry), &config, MountOptions::default()).await;
    assert!(mounts.warnings().is_empty(), "{:?}", mounts.warnings());
    let pool = registry.pool(&TurnContext::new("."), &toolwright::Profile::main_agent(), &[]);
    assert!(pool.names().any(|n| n == "list_mcp_resources") && pool.names().any(|n| n == "read_mcp_resource"));
    let executor = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();

    let listed = call(&executor, "ListMcpResourcesTool", json!({})).await;
    let text = listed.output.text_content();
    assert!(!listed.output.is_error, "{text}");
    let document = "demo://resource/static/document/architecture.md";
    assert!(text.contains(&format!("- {document} (architecture.md) on everything")), "{text}");
    assert!(text.contains("demo://resource/dynamic/text/{resourceId}") && text.contains("a template"), "{text}");
    let structured = listed.output.structured.unwrap();
    assert!(
        structured["resources"].as_array().unwrap().iter().any(|r| r["uri"] == document && r["server"] == "everything")
    );

    let read = call(&executor, "ReadMcpResourceTool", json!({"server": "everything", "uri": document})).await;
    assert!(!read.output.is_error, "{:?}", read.output);
    assert!(read.output.text_content().contains("Architecture"), "{}", read.output.text_content());

    let blob =
        call(&executor, "read_mcp_resource", json!({"server": "everything", "uri": "demo://resource/dynamic/blob/1"}))
            .await;
    assert!(!blob.output.is_error, "{:?}", blob.output);
    assert!(
        blob.output
            .content
            .iter()
            .any(|c| matches!(c, Content::Resource { blob: Some(_), .. } | Content::Image { .. })),
        "{:?}",
        blob.output.content
    );
    assert!(blob.output.structured.unwrap()["contents"][0]["blobBytes"].as_u64().unwrap() > 0);

    // A resource read is subscribed to: its changes show in the next listing.
    let toggled = call(&executor, "mcp__everything__toggle-subscriber-updates", json!({})).await;
    assert!(!toggled.output.is_error, "{:?}", toggled.output);
    let mut changed = false;
    for _ in 0..40 {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        let listed = call(&executor, "list_mcp_resources", json!({"server": "everything"})).await;
        if listed.output.text_content().contains("changed since it was read") {
            changed = true;
            break;
        }
    }
    assert!(changed, "no resources/updated reached the listing");

    let unknown = call(&executor, "ReadMcpResourceTool", json!({"server": "nope", "uri": document})).await;
    assert!(
        unknown.output.is_error && unknown.output.text_content().contains("mounted: everything"),
        "{:?}",
        unknown.output
    );
    let missing = call(&executor, "ReadMcpResourceTool", json!({"server": "everything"})).await;
    assert!(missing.output.is_error && missing.output.text_content().contains("uri"), "{:?}", missing.output);
    let one = call(&executor, "list_mcp_resources", json!({"server": "nope"})).await;
    assert!(one.output.is_error, "{:?}", one.output);

    mounts.shutdown().await;
    assert!(registry.get("list_mcp_resources").is_none(), "the tools go with the mounts");
}
