//! One permission rule: `Tool` or `Tool(specifier)`, parsed once.

use globset::{Glob, GlobMatcher};
use std::fmt;

/// The agent tool's parameter that `Agent(Explore)` rules match.
pub(crate) const AGENT_TYPE_PARAM: &str = "subagent_type";
/// The skill tool's parameter that `Skill(name)` and `Skill(name *)` rules match (with
/// the call's `args` after a space).
pub(crate) const SKILL_PARAM: &str = "skill";
/// The agent type a call without `subagent_type` starts.
pub const DEFAULT_AGENT_TYPE: &str = "general-purpose";

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

impl Source {
    /// Its level in Claude Code's settings precedence: a value from a higher level
    /// wins over one from a lower (managed, then local, then project, then user; code
    /// and the command line are the host's to order, and rank with the user here).
    pub fn precedence(self) -> u8 {
        match self {
            Source::User | Source::Session => 1,
            Source::Project => 2,
            Source::Local => 3,
            Source::Managed => 4,
        }
    }
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
    /// A domain pattern (`WebFetch(domain:*.example.com)`).
    Domain(crate::domain::DomainPattern),
    /// `Tool(param:value)`: a top-level parameter set to a value (`*` wildcards), in
    /// deny and ask rules. When the call has no such parameter, `otherwise` is the
    /// rule's reading in the tool's own syntax (`Bash(ls:*)` is a command pattern).
    Param {
        /// The parameter's name.
        name: String,
        /// Its value.
        value: crate::pattern::CommandPattern,
        /// The other reading, if the text has one.
        otherwise: Option<Box<Specifier>>,
    },
    /// A rule for a tool with no syntax of its own (a toolwright or custom tool name):
    /// read as whatever the call touches.
    Any {
        /// Read as a command pattern, for commands.
        command: Option<crate::pattern::CommandPattern>,
        /// Read as a path pattern, for files.
        path: Option<crate::path::PathPattern>,
        /// Read as `domain:...`, for fetches.
        domain: Option<crate::domain::DomainPattern>,
    },
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

/// The rule names whose specifiers have a syntax of their own: what a call touches
/// of that kind is governed by them, whichever tool touches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Bash`: commands.
    Shell,
    /// `Read`: files read, directories searched.
    Read,
    /// `Edit`: files written.
    Edit,
    /// `WebFetch`: URLs fetched.
    Fetch,
}

/// The kind a rule name stands for, if it is one of Claude Code's kind names.
pub fn kind_of_name(name: &str) -> Option<Kind> {
    match name {
        "Bash" => Some(Kind::Shell),
        "Read" => Some(Kind::Read),
        "Edit" => Some(Kind::Edit),
        "WebFetch" => Some(Kind::Fetch),
        _ => None,
    }
}

/// Claude Code names whose path rules are accepted but never consulted: use `Edit` or
/// `Read` instead (a rule for the tool as a whole still applies).
const UNCONSULTED_PATH_RULES: &[(&str, &str)] = &[
    ("Write", "Edit"),
    ("MultiEdit", "Edit"),
    ("NotebookEdit", "Edit"),
    ("Glob", "Read"),
    ("Grep", "Read"),
    ("LS", "Read"),
];

/// A tool's primary field, which `Tool(param:value)` rules may not match (a compound
/// command or another spelling of the path would walk around it).
const PRIMARY_FIELDS: &[(&str, &str)] = &[
    ("Bash", "command"),
    ("Read", "file_path"),
    ("Read", "path"),
    ("Edit", "file_path"),
    ("Edit", "path"),
    ("Write", "file_path"),
    ("Write", "path"),
    ("Grep", "path"),
    ("Glob", "path"),
    ("WebFetch", "url"),
    ("NotebookEdit", "notebook_path"),
];

/// The names a call is known by, for rules that name tools.
#[derive(Debug, Clone, Copy)]
pub struct CallNames<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// Its rule name (Claude Code's name), if it declares one.
    pub rule_name: Option<&'a str>,
    /// The MCP server and tool it calls, by their own names.
    pub mcp: Option<(&'a str, &'a str)>,
    /// The permission mode the call is decided in (a subagent's may differ from the
    /// policy's own; see [`crate::mode::ModeOverride`]).
    pub mode: crate::mode::Mode,
}

impl ToolName {
    /// Whether this names the tool of a call: by its own name, its rule name, or the
    /// MCP server and tool it calls.
    pub fn covers(&self, call: &CallNames<'_>) -> bool {
        let names = std::iter::once(call.tool).chain(call.rule_name);
        match self {
            ToolName::Exact(name) => {
                names.into_iter().any(|n| n == name)
                    || call.mcp.is_some_and(|(server, tool)| {
                        name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) == Some((server, tool))
                    })
            }
            ToolName::McpServer(server) => {
                call.tool
                    .strip_prefix("mcp__")
                    .and_then(|rest| rest.strip_prefix(server.as_str()))
                    .is_some_and(|rest| rest.starts_with("__"))
                    || call.mcp.is_some_and(|(s, _)| s == server)
            }
            ToolName::Glob(_, glob) => {
                names.into_iter().any(|n| glob.is_match(n))
                    || call.mcp.is_some_and(|(server, tool)| glob.is_match(format!("mcp__{server}__{tool}")))
            }
        }
    }

    /// Whether this is the kind name `kind` (`Bash`, `Read`, `Edit`, `WebFetch`).
    pub fn is_kind(&self, kind: Kind) -> bool {
        matches!(self, ToolName::Exact(name) if kind_of_name(name) == Some(kind))
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
        Some(s) => Some(specifier(name, s, effect, anchors)?),
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
    // `Task` is the agent tool's former name: its rules are `Agent` rules.
    if name == "Task" {
        return Ok(ToolName::Exact("Agent".to_owned()));
    }
    Ok(ToolName::Exact(name.to_owned()))
}

fn glob_name(name: &str) -> Result<ToolName, String> {
    let glob = Glob::new(name).map_err(|e| format!("`{name}`: {e}"))?;
    Ok(ToolName::Glob(name.to_owned(), glob.compile_matcher()))
}

fn specifier(name: &str, spec: &str, effect: Effect, anchors: &Anchors) -> Result<Specifier, String> {
    use crate::domain::DomainPattern;
    use crate::path::PathPattern;
    use crate::pattern::CommandPattern;
    let own = match kind_of_name(name) {
        Some(Kind::Shell) => Some(Specifier::Command(CommandPattern::new(spec)?)),
        Some(Kind::Read | Kind::Edit) => Some(Specifier::Path(PathPattern::new(spec, anchors, effect)?)),
        Some(Kind::Fetch) => match spec.trim().strip_prefix("domain:") {
            Some(domain) => Some(Specifier::Domain(DomainPattern::new(domain)?)),
            None => None,
        },
        None => None,
    };
    // `Tool(param:value)`: a top-level parameter, in deny and ask rules.
    if let Some((param, value)) = spec.split_once(':')
        && let param = param.trim()
        && !param.is_empty()
        && param.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !(kind_of_name(name) == Some(Kind::Fetch) && param == "domain")
    {
        if PRIMARY_FIELDS.iter().any(|(tool, field)| *tool == name && *field == param) {
            return Err(format!(
                "`{name}({param}:...)` matches the tool's primary field, which a rule cannot match this way (a compound command or another spelling would walk around it); use the tool's own syntax"
            ));
        }
        let value = CommandPattern::new(value.trim()).map_err(|e| format!("`{spec}`: {e}"))?;
        return match (effect, own) {
            (Effect::Allow, Some(own)) => Ok(own),
            (Effect::Allow, None) => Err(format!(
                "`{name}({spec})`: allow rules cannot match a parameter value (it would not show the call is safe); use a deny or ask rule"
            )),
            (_, own) => Ok(Specifier::Param { name: param.to_owned(), value, otherwise: own.map(Box::new) }),
        };
    }
    if let Some((_, instead)) = UNCONSULTED_PATH_RULES.iter().find(|(n, _)| *n == name) {
        return Err(format!(
            "path rules for `{name}` are never consulted (Claude Code checks files against `Edit` and `Read` rules only); write `{instead}({spec})`"
        ));
    }
    // `Agent(Explore)`: the agent tool's rules name the agent type it starts.
    if matches!(name, "Agent" | "Task") {
        let value = CommandPattern::new(spec.trim()).map_err(|e| format!("`{spec}`: {e}"))?;
        let name = AGENT_TYPE_PARAM.to_owned();
        return Ok(Specifier::Param { name, value, otherwise: None });
    }
    // `Skill(commit)`, `Skill(review-pr *)`: the skill's name, and its arguments.
    if name == "Skill" {
        let value = CommandPattern::new(spec.trim().trim_start_matches('/')).map_err(|e| format!("`{spec}`: {e}"))?;
        return Ok(Specifier::Param { name: SKILL_PARAM.to_owned(), value, otherwise: None });
    }
    match own {
        Some(own) => Ok(own),
        None if kind_of_name(name) == Some(Kind::Fetch) => {
            Err(format!("`{spec}`: WebFetch rules take `domain:<host>`, `domain:*.<host>` or `domain:*`"))
        }
        None => Ok(Specifier::Any {
            command: CommandPattern::new(spec).ok(),
            path: PathPattern::new(spec, anchors, effect).ok(),
            domain: spec.trim().strip_prefix("domain:").and_then(|d| DomainPattern::new(d).ok()),
        }),
    }
}
