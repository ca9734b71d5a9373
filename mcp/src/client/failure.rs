//! What a mounted call that failed says: the server refused it, did not answer in
//! time, wants more scope, or went away (and the next call reconnects).

use super::Server;
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use std::time::Duration;
use toolwright_core::ToolError;

impl Server {
    /// A write that failed closes the connection (the transport ends its reading
    /// side when a write times out); give the service a moment to notice, so that
    /// the link is dropped and the next call restarts the server.
    pub(super) async fn failure_after_close(&self, peer: &Peer<RoleClient>, error: ServiceError) -> ToolError {
        if matches!(error, ServiceError::TransportSend(_)) {
            for _ in 0..100 {
                if peer.is_transport_closed() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        self.failure(peer, error)
    }

    pub(super) fn failure(&self, peer: &Peer<RoleClient>, error: ServiceError) -> ToolError {
        match error {
            ServiceError::McpError(e) => {
                ToolError::msg(format!("MCP server `{}` refused the call: {}", self.name, e.message))
            }
            ServiceError::Timeout { timeout } => {
                ToolError::msg(format!("MCP server `{}` did not answer within {} s", self.name, timeout.as_secs_f64()))
            }
            other if other.to_string().to_ascii_lowercase().contains("insufficient scope") => {
                self.went_away(peer, "the server answered 403 insufficient_scope");
                ToolError::msg(format!(
                    "MCP server `{name}` answered 403 insufficient_scope: this call needs scope the login lacks; run `toolwright mcp login {name}` to grant it",
                    name = self.name
                ))
            }
            other => {
                let why = self.with_stderr(other.to_string());
                self.went_away(peer, &why);
                ToolError::msg(format!(
                    "MCP server `{}` went away during the call ({why}); the next call reconnects",
                    self.name
                ))
            }
        }
    }
}
