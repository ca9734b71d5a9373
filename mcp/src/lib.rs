//! MCP both ways, through [rmcp](https://docs.rs/rmcp), the official Rust SDK
//! (toolwright's cargo feature `mcp`; `mcp-stdio` for stdio and child processes
//! without HTTP, which is this crate without its `http` feature).
//!
//! - [`McpServer`] serves a registry over stdio or (not with `mcp-stdio` alone)
//!   streamable HTTP; calls run through the same [`Executor`](toolwright_core::Executor) pipeline as a
//!   model's calls.
//! - [`McpMounts`] connects the servers of an `mcpServers` config and registers
//!   their tools as runtime tools `mcp__<server>__<tool>`.
//!
//! The [`rmcp`] crate is re-exported for its model types and transports.

#[cfg(feature = "http")]
mod access;
mod approver;
#[cfg(feature = "http")]
mod auth;
mod client;
mod codex;
mod config;
mod convert;
#[cfg(feature = "http")]
mod cors;
mod expand;
#[cfg(feature = "http")]
mod headers_helper;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_limits;
mod input_required;
mod limits;
mod lines;
mod listen;
pub mod logging;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod login;
mod mounted_tool;
#[cfg(feature = "http")]
mod oauth;
mod questions;
mod resource_server;
mod resource_tools;
pub mod resources;
mod revision;
mod server;
mod tasks;
#[cfg(feature = "http")]
mod tls;

#[cfg(feature = "http")]
pub use access::{HttpAccess, HttpAccessError};
#[cfg(feature = "http")]
pub use auth::{BearerTokens, TokenError};
pub use client::{McpMounts, MountOptions, mount_file};
pub use config::{ConfigError, HeadersHelper, McpConfig, McpServerConfig, OAuthSettings, ServerTransport};
#[cfg(feature = "http")]
pub use http_limits::HttpLimits;
pub use limits::{LimitsError, MessageLimits};
pub use logging::McpLogLayer;
#[cfg(feature = "http")]
pub use oauth::{OAuthError, OAuthResource};
pub use rmcp;
pub use server::{AskMode, AuditRecord, McpPeer, McpServer, Outcome, ServeError, approver};
#[cfg(feature = "http")]
pub use tls::{TlsConfig, TlsError};
