//! One subagent definition, whatever file or code it came from.

use serde_json::Value;
use std::path::PathBuf;
use toolwright_permissions::Mode;

/// Where a definition came from, highest precedence first (Claude Code's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Source {
    /// The organisation's managed directory.
    Managed,
    /// Given in code or on the command line (`--agents`).
    Given,
    /// The workspace's own (`.claude/agents/`, `.cline/agents/`, and those of the
    /// additional directories): used only once the workspace is trusted.
    Project,
    /// The user's (`~/.claude/agents/`, `~/.cline/agents/`).
    User,
    /// Built into toolwright ([`crate::builtin`]): `general-purpose`, `Explore` and
    /// `Plan`, as Claude Code has them; any definition of the same name wins.
    BuiltIn,
}

impl Source {
    /// The name the listing shows.
    pub fn name(self) -> &'static str {
        match self {
            Source::Managed => "managed",
            Source::Given => "given",
            Source::Project => "project",
            Source::User => "user",
            Source::BuiltIn => "built-in",
        }
    }
}

/// Which tool's file format a definition was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Claude Code's agent file: Markdown with YAML frontmatter, the body the prompt.
    ClaudeCode,
    /// Cline's: `name`, `description`, `modelId`, `tools`, `skills`; the body (or a
    /// `prompt` key) the prompt.
    Cline,
    /// Given in code, or as Claude Code's `--agents` JSON.
    Code,
}

/// `isolation`: where the child works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// A temporary git worktree, removed when the child changed nothing.
    Worktree,
}

/// `memory`: where a child's persistent memory lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Memory {
    /// `~/.claude/agent-memory/<name>/`.
    User,
    /// `.claude/agent-memory/<name>/`.
    Project,
    /// `.claude/agent-memory-local/<name>/`.
    Local,
}

/// An entry of `mcpServers`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpServerRef {
    /// A server already configured for the session, by name.
    Named(String),
    /// A server defined for this child only: its name and its configuration (the
    /// `.mcp.json` shape).
    Inline {
        /// The server's name.
        name: String,
        /// Its configuration.
        config: Value,
    },
}

/// A subagent definition. Build one in code with [`AgentDefinition::new`] and the
/// `with_*` methods; files are read by [`Catalog`](crate::Catalog).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentDefinition {
    /// Lowercase letters, digits and hyphens (the agent type hooks see).
    pub name: String,
    /// When to delegate to it: what the model reads to choose it.
    pub description: String,
    /// The child's system prompt (a file's body).
    pub prompt: String,
    /// The tools it may use; `None`: every tool a subagent may have.
    pub tools: Option<Vec<String>>,
    /// Tools it may not use, taken away first (`mcp__server`, `mcp__server__*` too).
    pub disallowed_tools: Vec<String>,
    /// A model alias or id; `None` (or `inherit` in a file): the parent's.
    pub model: Option<String>,
    /// Its permission mode (`manual` reads as `default`); `None`: the parent's.
    pub permission_mode: Option<Mode>,
    /// The most turns before it stops.
    pub max_turns: Option<u32>,
    /// Skills loaded into its context at start.
    pub skills: Vec<String>,
    /// MCP servers for it alone.
    pub mcp_servers: Vec<McpServerRef>,
    /// Hooks for it alone (Claude Code's `hooks` shape; a `Stop` there is its
    /// `SubagentStop`).
    pub hooks: Option<Value>,
    /// Where its persistent memory lives, if it has one.
    pub memory: Option<Memory>,
    /// Always runs in the background.
    pub background: bool,
    /// `low`, `medium`, `high`, `xhigh` or `max`.
    pub effort: Option<String>,
    /// Where it works, when not in the parent's working directory.
    pub isolation: Option<Isolation>,
    /// Its display colour.
    pub color: Option<String>,
    /// The first user turn when it runs as the main agent.
    pub initial_prompt: Option<String>,
    /// A JSON Schema its final answer must satisfy (toolwright's `outputSchema` key).
    pub output_schema: Option<Value>,
    /// Where it came from.
    pub source: Source,
    /// The format it was read from.
    pub format: Format,
    /// The file it was read from.
    pub path: Option<PathBuf>,
}

/// A definition given in code that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DefinitionError {
    /// The name breaks Claude Code's rule.
    #[error("agent name `{name}`: {why}")]
    Name {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// No description: the model could not know when to use it.
    #[error("agent `{name}` has no description: the model reads it to choose the agent")]
    NoDescription {
        /// The agent's name.
        name: String,
    },
}

/// Why `name` is not a valid agent name, if it is not: lowercase letters, digits and
/// hyphens, not starting with a hyphen, no `:` (reserved for plugins' scoped names).
pub(crate) fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_owned());
    }
    if name.contains(':') {
        return Some("contains `:`, which is reserved for plugins' scoped names (`plugin:agent`)".to_owned());
    }
    if name.starts_with('-') {
        return Some("starts with `-`".to_owned());
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')) {
        let suggestion: String = name
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
            .split('-')
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("-");
        return Some(format!("has `{bad}`; a name is lowercase letters, digits and hyphens (such as `{suggestion}`)"));
    }
    None
}

impl AgentDefinition {
    /// A definition given in code: every tool a subagent may have, the parent's model
    /// and mode, until the `with_*` methods say otherwise.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Result<AgentDefinition, DefinitionError> {
        let name = name.into();
        if let Some(why) = name_problem(&name) {
            return Err(DefinitionError::Name { name, why });
        }
        let description = description.into();
        if description.trim().is_empty() {
            return Err(DefinitionError::NoDescription { name });
        }
        Ok(AgentDefinition::blank(name, description, prompt.into(), Source::Given, Format::Code, None))
    }

    pub(crate) fn blank(
        name: String,
        description: String,
        prompt: String,
        source: Source,
        format: Format,
        path: Option<PathBuf>,
    ) -> AgentDefinition {
        AgentDefinition {
            name,
            description,
            prompt,
            tools: None,
            disallowed_tools: Vec::new(),
            model: None,
            permission_mode: None,
            max_turns: None,
            skills: Vec::new(),
            mcp_servers: Vec::new(),
            hooks: None,
            memory: None,
            background: false,
            effort: None,
            isolation: None,
            color: None,
            initial_prompt: None,
            output_schema: None,
            source,
            format,
            path,
        }
    }

    /// Only these tools (Claude Code names or toolwright's).
    pub fn with_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Never these tools.
    pub fn with_disallowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.disallowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// This model instead of the parent's.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// This permission mode (see Claude Code's precedence between parent and child).
    pub fn with_permission_mode(mut self, mode: Mode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// At most this many turns.
    pub fn with_max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Always in the background.
    pub fn in_background(mut self) -> Self {
        self.background = true;
        self
    }

    /// Its final answer must satisfy this JSON Schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Definitions in Claude Code's `--agents` JSON (`{"name": {"description": ..,
    /// "prompt": .., "tools": [..], ..}}`), with the problems of those that cannot be
    /// used (reported at `<given>`).
    pub fn from_agents_json(json: &Value) -> (Vec<AgentDefinition>, Vec<crate::Problem>) {
        let here = PathBuf::from("<given>");
        let mut problems = Vec::new();
        let Some(map) = json.as_object() else {
            problems.push(crate::Problem::error(
                &here,
                None,
                "`--agents` takes a JSON object: {\"name\": {\"description\": ..., \"prompt\": ...}}",
            ));
            return (Vec::new(), problems);
        };
        let mut definitions = Vec::new();
        for (name, fields) in map {
            let Some(fields) = fields.as_object() else {
                problems.push(crate::Problem::error(&here, Some(name), "is not an object of the agent's fields"));
                continue;
            };
            let mut fields = fields.clone();
            fields.insert("name".into(), Value::String(name.clone()));
            let read = crate::fields::read(&fields, None, Format::Code, Source::Given, &here, &mut problems);
            definitions.extend(read);
        }
        (definitions, problems)
    }
}
