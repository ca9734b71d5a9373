//! What the MCP benchmarks share: the rmcp baseline (an rmcp `#[tool_router]`
//! server with the same no-op tool), an in-process stdio pipe to any server, and
//! the call both make.

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

/// A client of `server` over an in-process stdio pipe (a tokio duplex).
pub async fn client_for<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.unwrap()
}

/// The no-op's call.
pub fn params() -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("noop");
    params.arguments = serde_json::json!({"value": 7}).as_object().cloned();
    params
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NoopArgs {
    pub value: u32,
}

/// rmcp's server with one tool: the no-op.
#[derive(Clone)]
pub struct RmcpOne {
    pub tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpOne {
    #[tool(description = "Do nothing.")]
    async fn noop(&self, Parameters(args): Parameters<NoopArgs>) -> String {
        format!("got {}", args.value)
    }
}

impl RmcpOne {
    pub fn new() -> RmcpOne {
        RmcpOne { tool_router: RmcpOne::tool_router() }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpOne {}
