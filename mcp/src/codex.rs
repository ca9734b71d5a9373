//! Codex's `config.toml`: its `[mcp_servers.<name>]` tables, read into the same
//! [`McpConfig`] as an `mcpServers` file. `url` with `http_headers` (literal),
//! `env_http_headers` (header name to an environment variable's name) and
//! `bearer_token_env_var` (sent as `Authorization: Bearer`); or `command`, `args`,
//! `env`, `cwd`; `enabled = false` leaves a server out; `tool_timeout_sec` is the
//! call timeout. An inline `bearer_token` is not read, as Codex refuses it. For
//! `toolwright mcp login`: a server's `scopes` and the top-level
//! `mcp_oauth_callback_port`.

use crate::config::{
    ConfigError, McpConfig, McpServerConfig, ServerTransport, anchored, call_timeout, check_command, check_url,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Codex's keys of a server table that toolwright does not use (they are not
/// warned about).
const CODEX_ONLY: &[&str] = &[
    "startup_timeout_sec",
    "startup_timeout_ms",
    "enabled_tools",
    "disabled_tools",
    "env_vars",
    "oauth",
    "oauth_resource",
];

#[derive(Deserialize)]
struct RawCodex {
    #[serde(default)]
    mcp_servers: BTreeMap<String, RawServer>,
    mcp_oauth_callback_port: Option<u16>,
}

#[derive(Deserialize)]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    http_headers: BTreeMap<String, String>,
    #[serde(default)]
    env_http_headers: BTreeMap<String, String>,
    bearer_token_env_var: Option<String>,
    bearer_token: Option<toml::Value>,
    enabled: Option<bool>,
    tool_timeout_sec: Option<f64>,
    scopes: Option<Vec<String>>,
    #[serde(flatten)]
    other: BTreeMap<String, toml::Value>,
}

/// Reads a Codex config's MCP servers; `lookup` reads the environment.
pub(crate) fn parse(
    text: &str,
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, ConfigError> {
    let file = path.display().to_string();
    let raw: RawCodex = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |span| position(text, span.start));
        ConfigError::Parse { path: file.clone(), line, column, key: String::new(), message: e.message().to_owned() }
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut config = McpConfig::default();
    for (name, server) in raw.mcp_servers {
        for key in server.other.keys().filter(|k| !CODEX_ONLY.contains(&k.as_str())) {
            config.warnings.push(format!("{file}: mcp_servers.{name}.{key}: unknown key, ignored"));
        }
        if server.bearer_token.is_some() {
            config.warnings.push(format!(
                "{file}: mcp_servers.{name}.bearer_token: an inline token is not read (Codex refuses it too); put it in an environment variable and name it in `bearer_token_env_var`"
            ));
        }
        if server.enabled == Some(false) {
            continue;
        }
        match server_config(server, base, lookup, raw.mcp_oauth_callback_port) {
            Ok(server) => {
                config.servers.insert(name, server);
            }
            Err(message) => config
                .warnings
                .push(format!("{file}: mcp_servers.{name}: {message}; this server is skipped, the others mount")),
        }
    }
    Ok(config)
}

fn server_config(
    server: RawServer,
    base: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
    callback_port: Option<u16>,
) -> Result<McpServerConfig, String> {
    let timeout = call_timeout("tool_timeout_sec", server.tool_timeout_sec)?;
    let var = |key: &str, name: &str| {
        lookup(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("{key}: the environment variable `{name}` is not set"))
    };
    let transport = match (server.command, server.url) {
        (Some(_), Some(_)) => return Err("has both `command` and `url`; give one".into()),
        (None, None) => return Err("needs `command` (stdio) or `url` (HTTP)".into()),
        (Some(command), None) => {
            check_command(&command)?;
            let cwd = anchored(server.cwd, base);
            ServerTransport::Stdio { command, args: server.args, env: server.env, cwd }
        }
        (None, Some(url)) => {
            check_url(&url)?;
            let mut headers = server.http_headers;
            for (header, name) in &server.env_http_headers {
                headers.insert(header.clone(), var(&format!("env_http_headers.{header}"), name)?);
            }
            if let Some(name) = &server.bearer_token_env_var {
                headers.insert("Authorization".into(), format!("Bearer {}", var("bearer_token_env_var", name)?));
            }
            let oauth = crate::config::OAuthSettings {
                callback_port: callback_port.filter(|p| *p != 0),
                scopes: server.scopes.filter(|s| !s.is_empty()).map(|s| s.join(" ")),
                ..Default::default()
            };
            ServerTransport::Http { url, headers, headers_helper: None, oauth }
        }
    };
    Ok(McpServerConfig { transport, trusted: false, timeout, defer: toolwright_core::Defer::Auto })
}

/// The 1-based line and column of byte `at` in `text`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::config::ServerTransport;
    use std::path::Path;

    fn env(name: &str) -> Option<String> {
        match name {
            "FIGMA_TOKEN" => Some("fig-123".into()),
            "ORG" => Some("acme".into()),
            _ => None,
        }
    }

    #[test]
    fn servers_headers_and_tokens_from_the_environment() {
        let text = r#"
model = "gpt-5"

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Region" = "us-east-1" }
env_http_headers = { "X-Org" = "ORG" }
tool_timeout_sec = 30

[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]

[mcp_servers.off]
command = "x"
enabled = false

[mcp_servers.needs_env]
url = "https://example.com/mcp"
bearer_token_env_var = "NOT_SET_HERE"

[mcp_servers.inline]
url = "https://example.com/mcp"
bearer_token = "abc"
"#;
        let config = parse(text, Path::new("/home/u/.codex/config.toml"), &env).unwrap();
        let ServerTransport::Http { headers, .. } = &config.servers["figma"].transport else { panic!() };
        assert_eq!(headers["Authorization"], "Bearer fig-123");
        assert_eq!(headers["X-Region"], "us-east-1");
        assert_eq!(headers["X-Org"], "acme");
        assert_eq!(config.servers["figma"].timeout.as_secs(), 30);
        assert!(
            matches!(&config.servers["files"].transport, ServerTransport::Stdio { command, .. } if command == "npx")
        );
        assert!(!config.servers.contains_key("off"));
        assert!(!config.servers.contains_key("needs_env"));
        let warnings = config.warnings.join("\n");
        assert!(warnings.contains("mcp_servers.needs_env") && warnings.contains("NOT_SET_HERE"), "{warnings}");
        assert!(warnings.contains("mcp_servers.inline.bearer_token"), "{warnings}");
    }

    #[test]
    fn a_malformed_file_names_its_line() {
        let err = parse("[mcp_servers.x]\nurl = \n", Path::new("c.toml"), &env).unwrap_err().to_string();
        assert!(err.starts_with("c.toml:2:"), "{err}");
    }
}
