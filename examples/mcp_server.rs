//! Serve every tool linked into this binary (the built-ins and your own `#[tool]`s)
//! as an MCP server on stdin and stdout.
//!
//! Try it: `cargo run --example mcp_server`, then speak MCP on stdin, or point an
//! MCP client at the command. It ends when stdin closes.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = std::sync::Arc::new(toolwright::registry()?);
    toolwright::mcp::McpServer::new(registry).serve_stdio().await?;
    Ok(())
}
