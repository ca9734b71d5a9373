//! `serve`'s `logging` capability through rmcp's client in process: nothing until the
//! client sets a level, then each call's `tracing` events at or above it as
//! `notifications/message` named by the tool, and at most 20 a second.
#![allow(missing_docs, deprecated)] // MCP logging: deprecated by the 2026-07-28 revision, used before it.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolwright::Registry;
use toolwright::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, Implementation, InitializeRequestParams, LoggingLevel,
    LoggingMessageNotificationParam, SetLevelRequestParams,
};
use toolwright::mcp::rmcp::service::{NotificationContext, RoleClient, RunningService};
use toolwright::mcp::rmcp::{ClientHandler, ServiceExt};
use toolwright::mcp::{McpLogLayer, McpServer};
use toolwright::prelude::*;

/// Report on the disk.
#[tool(read_only, pure)]
pub struct Chatty;
impl Tool for Chatty {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        tracing::debug!("looked at the disk");
        tracing::warn!(disk = "/dev/vda", "disk almost full");
        Ok("done".into())
    }
}

/// Say a lot.
#[tool(read_only, pure)]
pub struct Flood;
impl Tool for Flood {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        for i in 0..200 {
            tracing::warn!("line {i}");
        }
        Ok("done".into())
    }
}

#[derive(Clone, Default)]
struct Client {
    messages: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> InitializeRequestParams {
        InitializeRequestParams::new(ClientCapabilities::default(), Implementation::new("log-client", "1"))
    }

    async fn on_logging_message(&self, params: LoggingMessageNotificationParam, _cx: NotificationContext<RoleClient>) {
        self.messages.lock().unwrap().push(params);
    }
}

async fn call(client: &RunningService<RoleClient, Client>, name: &str) {
    let result = client.call_tool(CallToolRequestParams::new(name.to_owned())).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
}

/// The messages after a short wait (they are sent beside the result).
async fn settled(client: &Client) -> Vec<LoggingMessageNotificationParam> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    std::mem::take(&mut *client.messages.lock().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_events_reach_the_client_at_its_level_named_by_the_tool_and_bounded() {
    use tracing_subscriber::layer::SubscriberExt as _;
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(McpLogLayer)).unwrap();
    let registry = Arc::new(Registry::builder().register::<Chatty>().register::<Flood>().build().unwrap());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(registry).serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let handler = Client::default();
    let client = handler.clone().serve(client_io).await.unwrap();
    assert!(client.peer_info().unwrap().capabilities.logging.is_some(), "the capability is declared");

    // No level set: nothing is sent.
    call(&client, "chatty").await;
    assert!(settled(&handler).await.is_empty());

    client.set_level(SetLevelRequestParams::new(LoggingLevel::Warning)).await.unwrap();
    call(&client, "chatty").await;
    let got = settled(&handler).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].level, LoggingLevel::Warning);
    assert_eq!(got[0].logger.as_deref(), Some("chatty"));
    assert_eq!(got[0].data["message"], "disk almost full");
    assert_eq!(got[0].data["fields"]["disk"], "/dev/vda");

    client.set_level(SetLevelRequestParams::new(LoggingLevel::Debug)).await.unwrap();
    call(&client, "chatty").await;
    let got = settled(&handler).await;
    // (In the order logged on the wire; the client may handle them in any order.)
    let mut messages: Vec<String> = got.iter().map(|m| format!("{:?} {}", m.level, m.data["message"])).collect();
    messages.sort();
    assert_eq!(messages, ["Debug \"looked at the disk\"", "Warning \"disk almost full\""], "{got:?}");

    // A flood is cut at the bound.
    call(&client, "flood").await;
    let got = settled(&handler).await;
    assert_eq!(got.len(), toolwright::mcp::logging::MAX_MESSAGES_PER_SECOND as usize, "{}", got.len());
    client.cancel().await.unwrap();
}
