//! The MCP conformance suite's fixture tools, each a `#[tool]`, served over streamable
//! HTTP: what `npx @modelcontextprotocol/conformance server --url URL` checks a server
//! with (content of every kind, an error, log messages, progress, sampling and
//! elicitation). `tests/mcp_conformance.rs` runs the suite against it.
//!
//! Run: `cargo run --example conformance_server -- 127.0.0.1:3001`; it prints the URL.
//! Log messages are `tracing` events, which `McpLogLayer` sends to the client that
//! asked for them; progress is `cx.progress`; sampling and elicitation go to the
//! client through the [`McpPeer`] the server puts in each call's extensions.

// Sampling is deprecated by SEP-2577 in rmcp; the suite's `tools-call-sampling` still checks it.
#![allow(deprecated)]

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use toolwright::mcp::McpPeer;
use toolwright::mcp::rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ElicitResult};
use toolwright::prelude::*;
use tracing_subscriber::layer::SubscriberExt as _;

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of one silent sample.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

fn image() -> Content {
    Content::Image { media_type: "image/png".into(), data: PNG.into() }
}

fn resource() -> Content {
    Content::Resource {
        uri: "test://embedded-resource".into(),
        mime_type: Some("text/plain".into()),
        text: Some("This is an embedded resource content.".into()),
        blob: None,
    }
}

/// A result of these blocks.
fn blocks(content: Vec<Content>) -> ToolOutput {
    ToolOutput { content, ..ToolOutput::default() }
}

/// The client of this call, to ask it things.
fn client(cx: &ToolContext) -> Result<&McpPeer, ToolError> {
    cx.extension::<McpPeer>().ok_or_else(|| ToolError::msg("not called over MCP: there is no client to ask"))
}

/// Returns a simple text response.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestSimpleText {}

impl Tool for TestSimpleText {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok("This is a simple text response for testing.".into())
    }
}

/// Returns an image.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestImageContent {}

impl Tool for TestImageContent {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(blocks(vec![image()]))
    }
}

/// Returns audio.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestAudioContent {}

impl Tool for TestAudioContent {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(blocks(vec![Content::Audio { media_type: "audio/wav".into(), data: WAV.into() }]))
    }
}

/// Returns an embedded text resource.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestEmbeddedResource {}

impl Tool for TestEmbeddedResource {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(blocks(vec![resource()]))
    }
}

/// Returns text, an image and a resource.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestMultipleContentTypes {}

impl Tool for TestMultipleContentTypes {
    type Output = ToolOutput;
    async fn call(self, _cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(blocks(vec![Content::Text("Multiple content types test:".into()), image(), resource()]))
    }
}

/// Sends three log messages while it runs.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestToolWithLogging {}

impl Tool for TestToolWithLogging {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        tracing::info!("Tool execution started");
        tokio::time::sleep(Duration::from_millis(50)).await;
        tracing::info!("Tool processing data");
        tokio::time::sleep(Duration::from_millis(50)).await;
        tracing::info!("Tool execution completed");
        Ok("Tool with logging executed successfully".into())
    }
}

/// Fails on purpose.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestErrorHandling {}

impl Tool for TestErrorHandling {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Err(ToolError::msg("This tool intentionally returns an error for testing"))
    }
}

/// Reports progress 0, 50 and 100 of 100.
#[tool(read_only, pure, concurrency_safe)]
pub struct TestToolWithProgress {}

impl Tool for TestToolWithProgress {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(Progress::fraction("working", done, 100.0));
        }
        Ok("Tool with progress executed successfully".into())
    }
}

/// Asks the client's model to answer a prompt (MCP sampling).
#[tool(read_only, pure)]
pub struct TestSampling {
    /// The prompt to send to the model.
    pub prompt: String,
}

impl Tool for TestSampling {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let McpPeer(peer) = client(cx)?;
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": 100
        }))
        .map_err(|e| ToolError::msg(format!("the sampling request: {e}")))?;
        let answer = peer.create_message(params).await.map_err(|e| ToolError::msg(format!("sampling: {e}")))?;
        let text = serde_json::to_value(&answer.message.content).unwrap_or_default();
        let text = text.get("text").and_then(|t| t.as_str()).map(str::to_owned).unwrap_or_else(|| text.to_string());
        Ok(format!("LLM response: {text}"))
    }
}

/// Sends `schema` to the client as an elicitation with `message`; its answer as text.
async fn elicit(cx: &ToolContext, message: &str, schema: serde_json::Value) -> Result<ElicitResult, ToolError> {
    let McpPeer(peer) = client(cx)?;
    let params: ElicitRequestParams =
        serde_json::from_value(json!({"mode": "form", "message": message, "requestedSchema": schema}))
            .map_err(|e| ToolError::msg(format!("the elicitation request: {e}")))?;
    peer.create_elicitation(params).await.map_err(|e| ToolError::msg(format!("elicitation: {e}")))
}

fn action_and_content(answer: &ElicitResult) -> (String, String) {
    let action = serde_json::to_value(&answer.action).unwrap_or_default();
    let action = action.as_str().unwrap_or_default().to_owned();
    (action, answer.content.clone().unwrap_or(json!({})).to_string())
}

/// Asks the client's user for a username and an email address.
#[tool(read_only, pure)]
pub struct TestElicitation {
    /// The message to show the user.
    pub message: String,
}

impl Tool for TestElicitation {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        });
        let (action, content) = action_and_content(&elicit(cx, &self.message, schema).await?);
        Ok(format!("User response: <action: {action}, content: {content}>"))
    }
}

/// Asks with a default for every primitive type (SEP-1034).
#[tool(read_only, pure)]
pub struct TestElicitationSep1034Defaults {}

impl Tool for TestElicitationSep1034Defaults {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            }
        });
        let (action, content) =
            action_and_content(&elicit(cx, "Please review and update the form fields with defaults", schema).await?);
        Ok(format!("Elicitation completed: action={action}, content={content}"))
    }
}

/// Asks with each of the five enum forms (SEP-1330).
#[tool(read_only, pure)]
pub struct TestElicitationSep1330Enums {}

impl Tool for TestElicitationSep1330Enums {
    type Output = String;
    async fn call(self, cx: &ToolContext) -> Result<String, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "description": "Pick one", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "description": "Pick one", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]},
                "legacyEnum": {"type": "string", "description": "Pick one", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "description": "Pick any", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "description": "Pick any", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
            }
        });
        let (action, content) =
            action_and_content(&elicit(cx, "Please select options from the enum fields", schema).await?);
        Ok(format!("Elicitation completed: action={action}, content={content}"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Each tool's `tracing` events go to the client at the level it set.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(toolwright::mcp::McpLogLayer))?;
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".into());
    let registry = Registry::builder()
        .register::<TestSimpleText>()
        .register::<TestImageContent>()
        .register::<TestAudioContent>()
        .register::<TestEmbeddedResource>()
        .register::<TestMultipleContentTypes>()
        .register::<TestToolWithLogging>()
        .register::<TestErrorHandling>()
        .register::<TestToolWithProgress>()
        .register::<TestSampling>()
        .register::<TestElicitation>()
        .register::<TestElicitationSep1034Defaults>()
        .register::<TestElicitationSep1330Enums>()
        .build()?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    toolwright::mcp::McpServer::new(Arc::new(registry))
        .with_server_info("toolwright-conformance-server", env!("CARGO_PKG_VERSION"))
        .serve_http_on(listener)
        .await?;
    Ok(())
}
