//! One permission rule: `Tool` or `Tool(specifier)`, parsed once.

use globset::{Glob, GlobMatcher};
use std::fmt;

/// Where a rule came from. A deny from any source beats an allow from any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// Set by the organisation (`/etc/claude-code/managed-settings.json`).
    Managed,
    /// The user's own (`~/.claude/settings.json`).
    User,
    /// The project's, shared (`.claude/settings.json`).
    Project,
    /// The project's, this machine only (`.claude/settings.local.json`).
    Local,
    /// Given in code or on the command line.
    Session,
}

/// Which list a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// `permissions.allow`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`.
    Deny,
}

/// The tool part of a rule.
#[derive(Debug, Clone)]
pub enum ToolName {
    /// One name (Claude Code's `Bash`, `Read`, `Edit`, ... or a toolwright name).
    Exact(String),
    /// Every tool of an MCP server: `mcp__server` or `mcp__server__*`.
    McpServer(String),
    /// A glob over tool names (`mcp__*`, `mcp__github__get_*`).
    Glob(String, GlobMatcher),
}

/// The specifier: what inside the tool's input the rule is about.
#[derive(Debug, Clone)]
pub enum Specifier {
    /// A shell command pattern (`Bash(npm run *)`).
    Command(crate::pattern::CommandPattern),
    /// A path pattern in gitignore syntax (`Read(./src/**)`), with its anchor.
    Path(crate::path::PathPattern),
    /// A host, or with `wildcard` its subdomains (`WebFetch(domain:*.example.com)`).
    Domain {
        /// The host, lower-case, without `*.`.
        host: String,
        /// `*.host`: subdomains at any depth, not the host itself.
        wildcard: bool,
    },
    /// Anything else, matched against the whole input text with `*` wildcards.
    Other(crate::pattern::CommandPattern),
}

/// A parsed rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// As written.
    pub text: String,
    /// Its list.
    pub effect: Effect,
    /// Its source.
    pub source: Source,
    /// The tool part.
    pub tool: ToolName,
    /// The specifier, if any.
    pub specifier: Option<Specifier>,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The category of tool a rule name stands for: Claude Code's names reach the
/// matching toolwright tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Bash`: the shell.
    Shell,
    /// `Read`: tools that read files (read_file, glob, grep, list_dir).
    Read,
    /// `Edit`: tools that change files (write_file, edit_file, multi_edit, replace_in_file).
    Edit,
    /// `WebFetch`.
    Fetch,
    /// Anything else.
    Other,
}

/// The category of a toolwright tool.
pub fn kind_of_tool(tool: &str) -> Kind {
    match tool {
        "shell" => Kind::Shell,
        "read_file" | "glob" | "grep" | "list_dir" => Kind::Read,
        "write_file" | "edit_file" | "multi_edit" | "replace_in_file" => Kind::Edit,
        "web_fetch" => Kind::Fetch,
        _ => Kind::Other,
    }
}

/// Whether the rule name `name` covers the toolwright tool `tool`.
pub fn name_covers(name: &str, tool: &str) -> bool {
    if name == tool {
        return true;
    }
    match name {
        "Bash" => tool == "shell",
        "Read" => matches!(tool, "read_file" | "glob" | "grep" | "list_dir"),
        "Edit" => matches!(tool, "write_file" | "edit_file" | "multi_edit" | "replace_in_file"),
        "Write" => tool == "write_file",
        "MultiEdit" => tool == "multi_edit",
        "Glob" => tool == "glob",
        "Grep" => tool == "grep",
        "LS" => tool == "list_dir",
        "WebFetch" => tool == "web_fetch",
        "TodoWrite" => tool == "todo_write",
        "BashOutput" | "KillShell" | "KillBash" => tool == "shell_output",
        _ => false,
    }
}

/// The category a rule name stands for (for its specifier's syntax).
fn kind_of_name(name: &str) -> Kind {
    match name {
        "Bash" => Kind::Shell,
        "Read" | "Glob" | "Grep" | "LS" => Kind::Read,
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => Kind::Edit,
        "WebFetch" => Kind::Fetch,
        other => kind_of_tool(other),
    }
}

impl ToolName {
    /// Whether this names `tool` (a toolwright name, `mcp__server__tool` for MCP).
    pub fn covers(&self, tool: &str) -> bool {
        match self {
            ToolName::Exact(name) => name_covers(name, tool),
            ToolName::McpServer(server) => tool
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .is_some_and(|rest| rest.starts_with("__")),
            ToolName::Glob(_, glob) => glob.is_match(tool),
        }
    }
}

/// Where a rule's relative paths are anchored.
#[derive(Debug, Clone, Default)]
pub struct Anchors {
    /// The project the settings file belongs to (`/path` rules).
    pub project: Option<std::path::PathBuf>,
    /// The user's home (`~/path` rules).
    pub home: Option<std::path::PathBuf>,
}

/// Parses one rule. The error says what is wrong with it.
pub fn parse(text: &str, effect: Effect, source: Source, anchors: &Anchors) -> Result<Rule, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the rule is empty".into());
    }
    let (name, spec) = match trimmed.find('(') {
        Some(open) => {
            let Some(inner) = trimmed[open + 1..].strip_suffix(')') else {
                return Err("the specifier's `(` is not closed by a final `)`".into());
            };
            (&trimmed[..open], Some(inner))
        }
        None => (trimmed, None),
    };
    if !name.is_ascii() {
        return Err(format!("the tool name `{name}` has non-ASCII characters (a look-alike of a real name?)"));
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '?')) {
        return Err(format!("`{name}` is not a tool name"));
    }
    let tool = tool_name(name, effect)?;
    let specifier = match spec {
        None => None,
        Some(s) if s.trim().is_empty() || s.trim() == "*" => None,
        Some(s) => Some(specifier(name, s, anchors)?),
    };
    Ok(Rule { text: trimmed.to_owned(), effect, source, tool, specifier })
}

fn tool_name(name: &str, effect: Effect) -> Result<ToolName, String> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.split_once("__") {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        };
        if server.is_empty() {
            return Err("`mcp__` needs a server name: `mcp__<server>`".into());
        }
        if !server.contains(['*', '?']) {
            return Ok(match tool {
                None | Some("*") => ToolName::McpServer(server.to_owned()),
                Some(t) if !t.contains(['*', '?']) => ToolName::Exact(name.to_owned()),
                Some(_) => glob_name(name)?,
            });
        }
    }
    if name.contains(['*', '?']) {
        // In allow, a glob must not reach beyond one named MCP server.
        if effect == Effect::Allow {
            return Err(format!(
                "`{name}`: a tool-name wildcard in an allow rule must come after a literal `mcp__<server>__`"
            ));
        }
        return glob_name(name);
    }
    Ok(ToolName::Exact(name.to_owned()))
}

fn glob_name(name: &str) -> Result<ToolName, String> {
    let glob = Glob::new(name).map_err(|e| format!("`{name}`: {e}"))?;
    Ok(ToolName::Glob(name.to_owned(), glob.compile_matcher()))
}

fn specifier(name: &str, spec: &str, anchors: &Anchors) -> Result<Specifier, String> {
    match kind_of_name(name) {
        Kind::Shell => Ok(Specifier::Command(crate::pattern::CommandPattern::new(spec)?)),
        Kind::Read | Kind::Edit => Ok(Specifier::Path(crate::path::PathPattern::new(spec, anchors)?)),
        Kind::Fetch => {
            let Some(domain) = spec.strip_prefix("domain:") else {
                return Err(format!("`{spec}`: WebFetch rules take `domain:<host>` or `domain:*.<host>`"));
            };
            let domain = domain.trim().to_ascii_lowercase();
            let (host, wildcard) = match domain.strip_prefix("*.") {
                Some(host) => (host.to_owned(), true),
                None => (domain, false),
            };
            if host.is_empty() || host.contains(['/', '*', ' ']) {
                return Err(format!("`{spec}`: `{host}` is not a host name"));
            }
            Ok(Specifier::Domain { host, wildcard })
        }
        Kind::Other => Ok(Specifier::Other(crate::pattern::CommandPattern::new(spec)?)),
    }
}
