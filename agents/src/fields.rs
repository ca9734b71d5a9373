//! A definition's keys, read one by one: each bad value is a problem naming its key;
//! an unknown key is a warning; a definition without a usable name or description is
//! not used.

use crate::definition::{AgentDefinition, Format, Isolation, McpServerRef, Memory, Source, name_problem};
use crate::problem::Problem;
use serde_json::{Map, Value};
use std::path::Path;
use toolwright_permissions::Mode;

/// Claude Code's frontmatter keys (and `prompt` for `--agents` JSON, `outputSchema`
/// for toolwright's typed results).
const CLAUDE_KEYS: &[&str] = &[
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "permissionMode",
    "maxTurns",
    "skills",
    "mcpServers",
    "hooks",
    "memory",
    "background",
    "effort",
    "isolation",
    "color",
    "initialPrompt",
    "outputSchema",
];

/// Cline's keys.
const CLINE_KEYS: &[&str] = &["name", "description", "modelId", "tools", "skills", "prompt", "systemPrompt"];

const EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
const COLORS: &[&str] = &["red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"];

/// The definition `fields` (with `body` as its prompt, if a file had one) describe, or
/// `None` when it cannot be used; `problems` gets every problem either way.
pub(crate) fn read(
    fields: &Map<String, Value>,
    body: Option<&str>,
    format: Format,
    source: Source,
    path: &Path,
    problems: &mut Vec<Problem>,
) -> Option<AgentDefinition> {
    let mut reader = Reader { path, problems, usable: true };
    let known = if format == Format::Cline { CLINE_KEYS } else { CLAUDE_KEYS };
    for key in fields.keys() {
        let allowed = known.contains(&key.as_str()) || (format == Format::Code && key == "prompt");
        if !allowed {
            let hint = suggestion(key, known).map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default();
            reader.warn(key, format!("is not a key of an agent definition{hint}; it is ignored"));
        }
    }
    let name = reader.name(fields.get("name"))?;
    let description = reader.text(fields, "description");
    let description = match description {
        Some(d) if !d.trim().is_empty() => d,
        _ => {
            reader.fail("description", "is missing: the model reads it to choose the agent, so the agent is not used");
            return None;
        }
    };
    let prompt = match format {
        Format::Code => reader.text(fields, "prompt").unwrap_or_default(),
        Format::Cline => body
            .filter(|b| !b.is_empty())
            .map(str::to_owned)
            .or_else(|| reader.text(fields, "prompt"))
            .or_else(|| reader.text(fields, "systemPrompt"))
            .unwrap_or_default(),
        Format::ClaudeCode => body.unwrap_or_default().to_owned(),
    };
    let mut definition = AgentDefinition::blank(
        name,
        description,
        prompt,
        source,
        format,
        (source != Source::Given).then(|| path.to_owned()),
    );
    definition.tools = reader.restriction(fields, "tools");
    if definition.tools.as_ref().is_some_and(Vec::is_empty) {
        reader.warn("tools", "is empty: the agent has no tools".to_owned());
    }
    definition.skills = reader.list(fields, "skills").unwrap_or_default();
    if format == Format::Cline {
        definition.model = reader.text(fields, "modelId");
    } else {
        definition.disallowed_tools = reader.restriction(fields, "disallowedTools").unwrap_or_default();
        definition.model = reader.text(fields, "model").filter(|m| m != "inherit");
        definition.permission_mode = reader.mode(fields.get("permissionMode"));
        definition.max_turns = reader.positive(fields.get("maxTurns"), "maxTurns");
        definition.mcp_servers = reader.mcp_servers(fields.get("mcpServers"));
        definition.hooks = reader.object(fields.get("hooks"), "hooks");
        definition.memory = reader.choice(fields, "memory", &["user", "project", "local"]).map(|m| match m.as_str() {
            "user" => Memory::User,
            "project" => Memory::Project,
            _ => Memory::Local,
        });
        definition.background = reader.flag(fields.get("background"), "background");
        definition.effort = reader.choice(fields, "effort", EFFORTS);
        definition.isolation = reader.choice(fields, "isolation", &["worktree"]).map(|_| Isolation::Worktree);
        definition.color = reader.choice(fields, "color", COLORS);
        definition.initial_prompt = reader.text(fields, "initialPrompt");
        definition.output_schema = reader.object(fields.get("outputSchema"), "outputSchema");
    }
    if definition.prompt.trim().is_empty() {
        reader.warn("prompt", "the agent has no system prompt (the file's body is empty)".to_owned());
    }
    reader.usable.then_some(definition)
}

struct Reader<'a> {
    path: &'a Path,
    problems: &'a mut Vec<Problem>,
    usable: bool,
}

impl Reader<'_> {
    fn warn(&mut self, key: &str, message: String) {
        self.problems.push(Problem::warning(self.path, Some(key), message));
    }

    fn fail(&mut self, key: &str, message: &str) {
        self.usable = false;
        self.problems.push(Problem::error(self.path, Some(key), message));
    }

    /// A value of the wrong kind: the key is ignored (the definition is still used).
    fn wrong(&mut self, key: &str, expected: &str, value: &Value) {
        self.warn(key, format!("should be {expected}, not {}; it is ignored", describe(value)));
    }

    fn name(&mut self, value: Option<&Value>) -> Option<String> {
        let Some(value) = value else {
            // Claude Code reads a file without a name as documentation kept beside the
            // agents; it is said, not skipped silently.
            self.problems.push(Problem::warning(
                self.path,
                Some("name"),
                "is missing, so this is not an agent definition (read as documentation)",
            ));
            self.usable = false;
            return None;
        };
        let Some(name) = value.as_str() else {
            self.fail("name", &format!("should be text, not {}", describe(value)));
            return None;
        };
        if let Some(why) = name_problem(name) {
            self.fail("name", &format!("`{name}` {why}; the agent is not used"));
            return None;
        }
        Some(name.to_owned())
    }

    fn text(&mut self, fields: &Map<String, Value>, key: &str) -> Option<String> {
        match fields.get(key)? {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            other => {
                self.wrong(key, "text", other);
                None
            }
        }
    }

    /// A list of names: a YAML list, or text separated by commas (Claude Code's
    /// `tools: Read, Grep`).
    fn list(&mut self, fields: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
        let split = |s: &str| s.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect();
        match fields.get(key)? {
            Value::Null => None,
            Value::String(s) => Some(split(s)),
            Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item.as_str() {
                        Some(s) => out.extend(split(s)),
                        None => {
                            self.wrong(key, "a list of names", item);
                        }
                    }
                }
                Some(out)
            }
            other => {
                self.wrong(key, "a list of names or text separated by commas", other);
                None
            }
        }
    }

    /// A list that limits the agent (`tools`, `disallowedTools`): a value that cannot
    /// be read fails the definition, since ignoring it would give the agent more than
    /// its author allowed.
    fn restriction(&mut self, fields: &Map<String, Value>, key: &str) -> Option<Vec<String>> {
        let before = self.problems.len();
        let list = self.list(fields, key);
        if self.problems[before..].iter().any(|p| p.key.as_deref() == Some(key)) {
            self.problems.truncate(before);
            let shown = fields.get(key).map_or_else(String::new, describe);
            self.fail(
                key,
                &format!(
                    "should be a list of tool names or text separated by commas, not {shown}; the agent is not \
                     used, since ignoring it would give the agent tools its author did not"
                ),
            );
        }
        list
    }

    fn choice(&mut self, fields: &Map<String, Value>, key: &str, choices: &[&str]) -> Option<String> {
        let value = self.text(fields, key)?;
        if choices.contains(&value.as_str()) {
            return Some(value);
        }
        let list = choices.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
        self.warn(key, format!("`{value}` is not one of {list}; it is ignored"));
        None
    }

    fn mode(&mut self, value: Option<&Value>) -> Option<Mode> {
        let value = value?;
        let Some(text) = value.as_str() else {
            self.wrong("permissionMode", "text", value);
            return None;
        };
        let text = if text == "manual" { "default" } else { text };
        match serde_json::from_value::<Mode>(Value::String(text.to_owned())) {
            Ok(mode) => Some(mode),
            Err(_) if text == "auto" => {
                self.warn(
                    "permissionMode",
                    "`auto` needs Claude Code's classifier, which toolwright does not have; the agent takes its \
                     parent's mode"
                        .to_owned(),
                );
                None
            }
            Err(_) => {
                self.warn(
                    "permissionMode",
                    format!(
                        "`{text}` is not a mode (`default`, `acceptEdits`, `plan`, `dontAsk`, `bypassPermissions`, \
                         `manual`); the agent takes its parent's mode"
                    ),
                );
                None
            }
        }
    }

    fn positive(&mut self, value: Option<&Value>, key: &str) -> Option<u32> {
        let value = value?;
        match value.as_u64() {
            Some(n) if n >= 1 && n <= u64::from(u32::MAX) => Some(n as u32),
            _ => {
                self.wrong(key, "a whole number of at least 1", value);
                None
            }
        }
    }

    fn flag(&mut self, value: Option<&Value>, key: &str) -> bool {
        match value {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.wrong(key, "`true` or `false`", other);
                false
            }
        }
    }

    fn object(&mut self, value: Option<&Value>, key: &str) -> Option<Value> {
        match value? {
            Value::Null => None,
            object @ Value::Object(_) => Some(object.clone()),
            other => {
                self.wrong(key, "a mapping", other);
                None
            }
        }
    }

    fn mcp_servers(&mut self, value: Option<&Value>) -> Vec<McpServerRef> {
        let items: Vec<&Value> = match value {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items.iter().collect(),
            // One name, or one mapping of several inline servers read as its entries.
            Some(single @ (Value::Object(_) | Value::String(_))) => vec![single],
            Some(other) => {
                self.wrong("mcpServers", "a list of server names or inline server definitions", other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for item in items {
            match item {
                Value::String(name) => out.push(McpServerRef::Named(name.clone())),
                Value::Object(servers) => {
                    for (name, config) in servers {
                        if config.is_object() {
                            out.push(McpServerRef::Inline { name: name.clone(), config: config.clone() });
                        } else {
                            self.wrong("mcpServers", "a server's configuration (a mapping)", config);
                        }
                    }
                }
                other => {
                    self.wrong("mcpServers", "a server name or an inline definition", other);
                }
            }
        }
        out
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text `{s}`"),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a mapping".to_owned(),
    }
}

/// A known key close to `key` (a typo, or another case).
fn suggestion<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = key.to_lowercase().replace(['-', '_'], "");
    known.iter().copied().find(|k| k.to_lowercase() == lower).or_else(|| {
        known
            .iter()
            .copied()
            .map(|k| (k, strsim::levenshtein(&lower, &k.to_lowercase())))
            .filter(|(_, d)| *d <= 2)
            .min_by_key(|(_, d)| *d)
            .map(|(k, _)| k)
    })
}
