//! The `mcpServers` configuration: the JSON shape Claude Code, Cline, Cursor and
//! Claude Desktop share.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
//!                "env": { "DEBUG": "0" }, "trusted": true, "timeout": 30 },
//!     "remote": { "url": "http://127.0.0.1:8080/mcp", "headers": { "Authorization": "Bearer …" } }
//!   }
//! }
//! ```
//!
//! Per server: `command`, `args`, `env`, `cwd` (stdio), or `url` and `headers`
//! (streamable HTTP); `type` (`stdio`, `http`, `streamable-http`) is optional.
//! toolwright's own keys: `trusted` (believe the server's `readOnlyHint`, default
//! false), `timeout` (seconds per call, default 60) and `deferTools` (also
//! `defer_loading`, `deferLoading`: `"auto"`, `"always"`, `"never"`, or true/false;
//! whether the server's tools are found through the tool search, see
//! [`deferred`](toolwright_core::deferred); default `"auto"`: deferred when the pool is over
//! its budget). `disabled: true` skips a server. Keys other clients use (`autoApprove`, `alwaysAllow`, `description`) are
//! accepted and ignored; any other key is a warning naming it.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The default time one call to a mounted tool may take.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Keys other MCP clients put in a server's entry, which toolwright accepts silently.
const FOREIGN_KEYS: &[&str] = &["autoApprove", "alwaysAllow", "description", "transportType", "disabledTools"];

/// The keys of a server's `oauth` entry ([`OAuthSettings`]).
const OAUTH_KEYS: &[&str] = &[
    "clientId",
    "callbackPort",
    "authServerMetadataUrl",
    "scopes",
    "clientMetadataUrl",
    "clientCredentials",
    "clientSecretEnv",
];

/// A parsed `mcpServers` file: the servers in name order, and warnings about what
/// was ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpConfig {
    /// Servers by name, sorted.
    pub servers: BTreeMap<String, McpServerConfig>,
    /// What was accepted but ignored (unknown keys), each naming file and key.
    pub warnings: Vec<String>,
    /// What a team adds to the tool search for these servers: summaries and extra
    /// search text, from the file beside this one ([`McpConfig::hints_path`]).
    pub search_hints: toolwright_core::deferred::SearchHints,
}

/// One server's entry.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerConfig {
    /// How to reach it.
    pub transport: ServerTransport,
    /// Whether its `readOnlyHint` annotations are believed.
    pub trusted: bool,
    /// How long one call may take.
    pub timeout: Duration,
    /// Whether its tools are deferred (`deferTools`).
    pub defer: toolwright_core::Defer,
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerTransport {
    /// A child process speaking MCP on stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// Its working directory (relative paths are from the config file's directory).
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (mounted with the `mcp` feature; with only `mcp-stdio`, a warning).
    Http {
        /// The endpoint, such as `http://127.0.0.1:8080/mcp`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
        /// `headersHelper`: a command whose output, a JSON object of header names to
        /// values, is merged over `headers` on each connection (reconnects run it
        /// again).
        headers_helper: Option<HeadersHelper>,
        /// `oauth`: how to log in (`toolwright mcp login`), for a server that asks.
        oauth: OAuthSettings,
    },
}

/// A server's `oauth` entry (Claude Code's keys; Codex's `scopes`): what a login
/// uses. Every key is optional: with none, the client registers itself (RFC 7591)
/// and asks for the scopes the server names.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A client ID registered with the authorization server beforehand (its secret,
    /// if any, from `MCP_CLIENT_SECRET` at login).
    pub client_id: Option<String>,
    /// The loopback port of the redirect URI, `http://127.0.0.1:PORT/callback`
    /// (default: a free one; fix it when the client's registration names a port).
    pub callback_port: Option<u16>,
    /// The authorization server's metadata URL (HTTPS), skipping discovery.
    pub auth_server_metadata_url: Option<String>,
    /// The scopes to ask for, space-separated (default: the server's challenge, then
    /// its metadata's `scopes_supported`).
    pub scopes: Option<String>,
    /// An HTTPS URL of this client's Client ID Metadata Document, used as the client
    /// ID where the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// Machine to machine (toolwright's key): the client credentials grant with
    /// `clientId` and a secret from the environment, at every connection, no login.
    #[serde(default)]
    pub client_credentials: bool,
    /// The environment variable holding the client's secret for `clientCredentials`
    /// (default `MCP_CLIENT_SECRET`).
    pub client_secret_env: Option<String>,
}

impl OAuthSettings {
    /// Whether any key is set.
    pub fn is_empty(&self) -> bool {
        *self == OAuthSettings::default()
    }
}

/// A server's `headersHelper`: run with `sh -c` in the config file's directory, with
/// `CLAUDE_CODE_MCP_SERVER_NAME` and `CLAUDE_CODE_MCP_SERVER_URL` set, at most 10 s.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadersHelper {
    /// The command line.
    pub command: String,
    /// Where it runs: the config file's directory.
    pub cwd: PathBuf,
}

/// A config file that could not be used. Each names the file, and where it can, the
/// line, column and key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The JSON is malformed or a value has the wrong type.
    #[error("{path}:{line}:{column}: {key}{message}", key = key_prefix(key))]
    Parse {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The key path (`mcpServers.files.args`), empty at the root.
        key: String,
        /// What was wrong.
        message: String,
    },
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() { String::new() } else { format!("{key}: ") }
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(rename = "mcpServers", default)]
    servers: BTreeMap<String, RawServer>,
    #[serde(flatten)]
    _rest: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(rename = "headersHelper")]
    headers_helper: Option<String>,
    #[serde(default)]
    oauth: Option<Value>,
    #[serde(default)]
    trusted: bool,
    timeout: Option<f64>,
    #[serde(default)]
    disabled: bool,
    #[serde(rename = "deferTools", alias = "defer_loading", alias = "deferLoading")]
    defer: Option<Value>,
    #[serde(flatten)]
    other: BTreeMap<String, Value>,
}

impl McpConfig {
    /// Reads and parses `path`: an `mcpServers` JSON file, or (a `.toml` file)
    /// Codex's `config.toml` with its `[mcp_servers.<name>]` tables.
    pub fn load(path: &Path) -> Result<McpConfig, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ConfigError::Io { path: path.display().to_string(), source })?;
        let mut config = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
            McpConfig::parse_codex(&text, path)?
        } else {
            McpConfig::parse(&text, path)?
        };
        // The search hints beside it; one that cannot be used is a warning.
        let hints = McpConfig::hints_path(path);
        match std::fs::read_to_string(&hints) {
            Ok(text) => match toolwright_core::deferred::SearchHints::from_json(&text) {
                Ok(found) => config.search_hints = found,
                Err(e) => config.warnings.push(format!("{}: {e}; the search hints are not used", hints.display())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => config.warnings.push(format!("{}: {e}; the search hints are not used", hints.display())),
        }
        Ok(config)
    }

    /// Where the search hints for the servers of the config at `path` are read from:
    /// beside it, its name with `.search.json` for its extension (`.mcp.json` has
    /// `.mcp.search.json`, Codex's `config.toml` has `config.search.json`).
    pub fn hints_path(path: &Path) -> std::path::PathBuf {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stem = name.strip_suffix(".json").or_else(|| name.strip_suffix(".toml")).unwrap_or(&name);
        path.with_file_name(format!("{stem}.search.json"))
    }

    /// Parses Codex's `config.toml` text: `url` servers with `http_headers`,
    /// `env_http_headers` and `bearer_token_env_var` (read from the environment
    /// now), stdio servers with `command`, `args`, `env`, `cwd`.
    pub fn parse_codex(text: &str, path: &Path) -> Result<McpConfig, ConfigError> {
        crate::codex::parse(text, path, &|name| std::env::var(name).ok())
    }

    /// Parses `text`; `path` names the file in errors and anchors relative `cwd`s.
    pub fn parse(text: &str, path: &Path) -> Result<McpConfig, ConfigError> {
        let file = path.display().to_string();
        let mut de = serde_json::Deserializer::from_str(text);
        let raw: RawFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let key = e.path().to_string();
            let inner = e.into_inner();
            ConfigError::Parse {
                path: file.clone(),
                line: inner.line(),
                column: inner.column(),
                key: if key == "." { String::new() } else { key },
                message: toolwright_core::__internal::strip_position(&inner),
            }
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut config = McpConfig::default();
        for (name, server) in raw.servers {
            for key in server.other.keys().filter(|k| !FOREIGN_KEYS.contains(&k.as_str())) {
                config.warnings.push(format!("{file}: mcpServers.{name}.{key}: unknown key, ignored"));
            }
            if let Some(Value::Object(oauth)) = &server.oauth {
                for key in oauth.keys().filter(|k| !OAUTH_KEYS.contains(&k.as_str())) {
                    config.warnings.push(format!("{file}: mcpServers.{name}.oauth.{key}: unknown key, ignored"));
                }
            }
            if server.disabled {
                continue;
            }
            // One entry that cannot be used is skipped, not the whole file.
            match server_config(server, base) {
                Ok(server) => {
                    config.servers.insert(name, server);
                }
                Err(message) => config.warnings.push(format!(
                    "{file}:{}: mcpServers.{name}: {message}; this server is skipped, the others mount",
                    line_of_key(text, &name)
                )),
            }
        }
        Ok(config)
    }
}

/// The `oauth` keys' values, checked as Claude Code checks them.
fn check_oauth(oauth: &OAuthSettings) -> Result<(), String> {
    if oauth.callback_port == Some(0) {
        return Err("oauth.callbackPort: must be a port number, 1 to 65535".into());
    }
    if let Some(url) = &oauth.auth_server_metadata_url
        && !url.starts_with("https://")
    {
        return Err(format!("oauth.authServerMetadataUrl: `{url}` must start with https://"));
    }
    if let Some(url) = &oauth.client_metadata_url
        && !url.starts_with("https://")
    {
        return Err(format!("oauth.clientMetadataUrl: `{url}` must start with https://"));
    }
    if oauth.scopes.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err("oauth.scopes: is empty; leave it out to ask for the server's scopes".into());
    }
    if oauth.client_id.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err("oauth.clientId: is empty".into());
    }
    if oauth.client_credentials && oauth.client_id.is_none() {
        return Err("oauth.clientCredentials: needs oauth.clientId".into());
    }
    Ok(())
}

/// One server entry, or why it cannot be used.
fn server_config(server: RawServer, base: &Path) -> Result<McpServerConfig, String> {
    let timeout = call_timeout("timeout", server.timeout)?;
    let transport = match (server.kind.as_deref(), server.command, server.url) {
        (Some("sse"), _, _) => {
            return Err(
                "type \"sse\": the legacy HTTP+SSE transport is not supported; use the server's streamable HTTP endpoint (type \"http\")".into(),
            );
        }
        (Some(kind), _, _) if !["stdio", "http", "streamable-http", "streamableHttp"].contains(&kind) => {
            return Err(format!("type: unknown transport `{kind}`; expected stdio or http"));
        }
        (_, Some(_), Some(_)) => return Err("has both `command` and `url`; give one".into()),
        (_, None, None) => return Err("needs `command` (stdio) or `url` (HTTP)".into()),
        (_, Some(command), None) => {
            check_command(&command)?;
            let cwd = anchored(server.cwd, base);
            let command = expanded("command", &command)?;
            let args = server.args.iter().map(|a| expanded("args", a)).collect::<Result<_, _>>()?;
            let env = server
                .env
                .iter()
                .map(|(k, v)| Ok((k.clone(), expanded(&format!("env.{k}"), v)?)))
                .collect::<Result<_, String>>()?;
            ServerTransport::Stdio { command, args, env, cwd }
        }
        (_, None, Some(url)) => {
            let url = expanded("url", &url)?;
            check_url(&url)?;
            let headers = server
                .headers
                .iter()
                .map(|(k, v)| Ok((k.clone(), expanded(&format!("headers.{k}"), v)?)))
                .collect::<Result<_, String>>()?;
            let headers_helper = match server.headers_helper {
                Some(command) if command.trim().is_empty() => return Err("headersHelper: is empty".into()),
                Some(command) => Some(HeadersHelper { command, cwd: base.to_path_buf() }),
                None => None,
            };
            let oauth = match server.oauth {
                None => OAuthSettings::default(),
                Some(value) => serde_json::from_value(value).map_err(|e| format!("oauth: {e}"))?,
            };
            check_oauth(&oauth)?;
            ServerTransport::Http { url, headers, headers_helper, oauth }
        }
    };
    let defer = match &server.defer {
        None => toolwright_core::Defer::Auto,
        Some(Value::Bool(true)) => toolwright_core::Defer::Always,
        Some(Value::Bool(false)) => toolwright_core::Defer::Never,
        Some(Value::String(text)) => toolwright_core::Defer::parse(text)
            .ok_or_else(|| format!("deferTools: `{text}` is not \"auto\", \"always\" or \"never\""))?,
        Some(other) => return Err(format!("deferTools: {other} is not \"auto\", \"always\", \"never\" or a boolean")),
    };
    Ok(McpServerConfig { transport, trusted: server.trusted, timeout, defer })
}

/// A stdio server's `command` must name something.
pub(crate) fn check_command(command: &str) -> Result<(), String> {
    if command.trim().is_empty() { Err("command: is empty".into()) } else { Ok(()) }
}

/// An HTTP server's `url` must be http:// or https://.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(())
    } else {
        Err(format!("url: `{url}` is not an http:// or https:// URL"))
    }
}

/// A server's `cwd`, relative ones taken from the config file's directory.
pub(crate) fn anchored(cwd: Option<PathBuf>, base: &Path) -> Option<PathBuf> {
    cwd.map(|c| if c.is_absolute() { c } else { base.join(c) })
}

/// A server's call timeout from `key`'s seconds (the default when absent).
pub(crate) fn call_timeout(key: &str, secs: Option<f64>) -> Result<Duration, String> {
    match secs {
        None => Ok(DEFAULT_CALL_TIMEOUT),
        Some(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => Ok(Duration::from_secs_f64(secs)),
        Some(secs) => Err(format!("{key}: {secs} is not a number of seconds in (0, 86400]")),
    }
}

/// A value with its `${VAR}`s expanded, or an error naming the key.
fn expanded(key: &str, value: &str) -> Result<String, String> {
    crate::expand::from_env(value).map_err(|e| format!("{key}: {e}"))
}

/// The 1-based line where `"name":` first appears, for errors about a server.
fn line_of_key(text: &str, name: &str) -> usize {
    let quoted = serde_json::to_string(name).unwrap_or_default();
    text.find(&quoted).map_or(1, |at| text[..at].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defer_tools_is_read_in_each_spelling_and_a_bad_value_names_the_key() {
        let config = parse(
            r#"{"mcpServers": {
                "a": {"command": "x", "deferTools": "always"},
                "b": {"command": "x", "defer_loading": false},
                "c": {"command": "x", "deferLoading": "Never"},
                "d": {"command": "x"},
                "e": {"command": "x", "deferTools": "sometimes"}
            }}"#,
        )
        .unwrap();
        let defer = |name: &str| config.servers[name].defer;
        assert_eq!(defer("a"), toolwright_core::Defer::Always);
        assert_eq!(defer("b"), toolwright_core::Defer::Never);
        assert_eq!(defer("c"), toolwright_core::Defer::Never);
        assert_eq!(defer("d"), toolwright_core::Defer::Auto);
        assert!(!config.servers.contains_key("e"));
        assert!(
            config.warnings.iter().any(|w| w.contains("mcpServers.e") && w.contains("deferTools: `sometimes`")),
            "{:?}",
            config.warnings
        );
    }

    fn parse(text: &str) -> Result<McpConfig, ConfigError> {
        McpConfig::parse(text, Path::new("/p/.mcp.json"))
    }

    #[test]
    fn both_transports_and_toolwright_keys() {
        let config = parse(
            r#"{"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}, "cwd": "sub", "trusted": true, "timeout": 2.5},
                "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}, "autoApprove": []}
            }}"#,
        )
        .unwrap();
        let files = &config.servers["files"];
        assert!(files.trusted);
        assert_eq!(files.timeout, Duration::from_millis(2500));
        match &files.transport {
            ServerTransport::Stdio { command, args, env, cwd } => {
                assert_eq!((command.as_str(), args.len(), env["A"].as_str()), ("npx", 2, "1"));
                assert_eq!(cwd.as_deref(), Some(Path::new("/p/sub")));
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&config.servers["web"].transport, ServerTransport::Http { headers, .. } if headers["X"] == "y")
        );
        assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    }

    #[test]
    fn oauth_keys_are_read_and_bad_ones_skip_the_server() {
        let config = parse(
            r#"{"mcpServers": {
  "a": {"type": "http", "url": "https://a.example/mcp", "oauth": {"clientId": "c1", "callbackPort": 8080, "scopes": "read write"}},
  "b": {"type": "http", "url": "https://b.example/mcp", "oauth": {"authServerMetadataUrl": "http://plain.example/meta"}},
  "c": {"type": "http", "url": "https://c.example/mcp", "oauth": {"clientCredentials": true}},
  "d": {"type": "http", "url": "https://d.example/mcp", "oauth": {"clientid": "typo", "callbackPort": "x"}}}}"#,
        )
        .unwrap();
        let ServerTransport::Http { oauth, .. } = &config.servers["a"].transport else { panic!() };
        assert_eq!((oauth.client_id.as_deref(), oauth.callback_port), (Some("c1"), Some(8080)));
        assert_eq!(oauth.scopes.as_deref(), Some("read write"));
        assert_eq!(config.servers.len(), 1, "{:?}", config.warnings);
        for (name, says) in [
            ("b", "must start with https://"),
            ("c", "needs oauth.clientId"),
            ("d", "oauth.clientid: unknown key"),
            ("d", "oauth: invalid type: string \"x\""),
        ] {
            assert!(
                config.warnings.iter().any(|w| w.contains(&format!("mcpServers.{name}")) && w.contains(says)),
                "{name}: {:?}",
                config.warnings
            );
        }
    }

    #[test]
    fn errors_name_file_line_and_key_and_a_bad_entry_is_skipped() {
        let err =
            parse("{\"mcpServers\": {\n  \"a\": {\"command\": \"x\", \"args\": \"-y\"}}}").unwrap_err().to_string();
        assert!(err.starts_with("/p/.mcp.json:2:"), "{err}");
        assert!(err.contains("mcpServers.a.args: invalid type: string \"-y\""), "{err}");
        // An entry that cannot be used is a warning naming it; the others stay.
        let config = parse(
            "{\"mcpServers\": {\n\n  \"b\": {\"args\": []},\n  \"c\": {\"type\": \"sse\", \"url\": \"http://x\"},\n  \"d\": {\"command\": \"ok\"}}}",
        )
        .unwrap();
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["d"]);
        assert_eq!(
            config.warnings[0],
            "/p/.mcp.json:3: mcpServers.b: needs `command` (stdio) or `url` (HTTP); this server is skipped, the others mount"
        );
        assert!(config.warnings[1].starts_with("/p/.mcp.json:4: mcpServers.c: type \"sse\""), "{:?}", config.warnings);
        let err = parse("{\"mcpServers\": ").unwrap_err().to_string();
        assert!(err.starts_with("/p/.mcp.json:1:"), "{err}");
    }

    #[test]
    fn unknown_keys_warn_and_disabled_servers_are_skipped() {
        let config =
            parse(r#"{"mcpServers": {"a": {"command": "x", "comand": "y"}, "b": {"command": "z", "disabled": true}}}"#)
                .unwrap();
        assert_eq!(config.warnings, ["/p/.mcp.json: mcpServers.a.comand: unknown key, ignored"]);
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["a"]);
    }
}

#[cfg(test)]
mod hints_tests {
    use super::McpConfig;

    #[test]
    fn search_hints_are_read_from_beside_the_config_and_a_bad_file_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".mcp.json");
        std::fs::write(&config, r#"{"mcpServers": {"crm": {"command": "crm-server"}}}"#).unwrap();
        assert_eq!(McpConfig::hints_path(&config), dir.path().join(".mcp.search.json"));
        assert_eq!(McpConfig::hints_path(&dir.path().join("config.toml")), dir.path().join("config.search.json"));
        let loaded = McpConfig::load(&config).unwrap();
        assert!(loaded.search_hints.is_empty() && loaded.warnings.is_empty());
        std::fs::write(
            dir.path().join(".mcp.search.json"),
            r#"{"servers": {"crm": {"summary": "Customers and deals.", "tools": {"upsert_contact": "add a customer"}}}}"#,
        )
        .unwrap();
        let loaded = McpConfig::load(&config).unwrap();
        assert_eq!(loaded.search_hints.summary("crm"), Some("Customers and deals."));
        assert_eq!(loaded.search_hints.keywords("mcp__crm__upsert_contact"), "add a customer");
        std::fs::write(dir.path().join(".mcp.search.json"), r#"{"servers": {"crm": {"tools": {"x": 5}}}}"#).unwrap();
        let loaded = McpConfig::load(&config).unwrap();
        assert!(loaded.search_hints.is_empty());
        let warning = loaded.warnings.join("\n");
        assert!(
            warning.contains(".mcp.search.json") && warning.contains("`servers.crm.tools.x` is not a string"),
            "{warning}"
        );
    }
}
