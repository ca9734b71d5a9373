//! A `SKILL.md`'s frontmatter checked against the Agent Skills specification and
//! Claude Code's extras, one small check per key. What cannot be used is an error
//! (the skill is not used); what is only unusual is a warning.

use super::skill::{Skill, SkillSource};
use crate::problem::Problem;
use serde_json::{Map, Value};
use std::path::Path;

/// The specification's keys.
const SPEC_KEYS: &[&str] = &["name", "description", "license", "compatibility", "metadata", "allowed-tools"];
/// Claude Code's extras.
const CLAUDE_CODE_KEYS: &[&str] = &[
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "background",
    "hooks",
    "paths",
    "shell",
    "version",
];

/// The longest name and description the specification allows, and compatibility.
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
const MAX_COMPATIBILITY: usize = 500;

/// Reads the frontmatter `fields` (already JSON) and `body` of the skill in `file`,
/// called `name` (its directory's name). `None` when it cannot be used.
pub(crate) fn read(
    fields: &Map<String, Value>,
    body: &str,
    name: &str,
    source: SkillSource,
    file: &Path,
    problems: &mut Vec<Problem>,
) -> Option<Skill> {
    let mut reader = Reader { file, problems, fatal: false };
    let mut skill = Skill::new(name, "", body);
    skill.source = source;
    skill.path = Some(file.to_path_buf());
    skill.dir = file.parent().map(Path::to_path_buf);
    reader.unknown_keys(fields);
    if let Some(given) = reader.text(fields, "name") {
        check_name(&mut reader, &given, name, source);
        if given != name {
            skill.display_name = Some(given);
        }
    }
    skill.description = reader.text(fields, "description").unwrap_or_default();
    check_description(&mut reader, &skill.description, body);
    if skill.description.trim().is_empty() {
        skill.description = first_paragraph(body);
    }
    skill.when_to_use = reader.text(fields, "when_to_use");
    skill.license = reader.text(fields, "license");
    skill.compatibility = reader.text(fields, "compatibility");
    if let Some(compatibility) = &skill.compatibility
        && compatibility.chars().count() > MAX_COMPATIBILITY
    {
        reader.warn("compatibility", format!("is over {MAX_COMPATIBILITY} characters (the specification's limit)"));
    }
    skill.metadata = reader.metadata(fields);
    // A grant or a hidden skill read wrongly would widen what runs: those are errors.
    skill.allowed_tools = reader.rules(fields, "allowed-tools", true);
    skill.disallowed_tools = reader.rules(fields, "disallowed-tools", false);
    skill.disable_model_invocation = reader.boolean(fields, "disable-model-invocation", true).unwrap_or(false);
    skill.user_invocable = reader.boolean(fields, "user-invocable", false).unwrap_or(true);
    let _background = reader.boolean(fields, "background", false);
    skill.fork = reader.context(fields);
    skill.agent = reader.text(fields, "agent");
    if skill.agent.is_some() && !skill.fork {
        reader.warn("agent", "is used only with `context: fork`; this skill runs in the conversation");
    }
    skill.model = reader.text(fields, "model");
    skill.effort = reader.text(fields, "effort");
    skill.argument_hint = match fields.get("argument-hint") {
        // `argument-hint: [issue]`, as Claude Code's documentation writes it, is a
        // YAML list: shown as written.
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|i| format!("[{}]", i.as_str().map_or_else(|| i.to_string(), str::to_owned)))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => reader.text(fields, "argument-hint"),
    };
    skill.arguments = reader.words(fields, "arguments");
    skill.paths = reader.words(fields, "paths");
    skill.shell = reader.text(fields, "shell");
    if let Some(shell) = skill.shell.as_deref()
        && !matches!(shell, "bash" | "powershell")
    {
        reader.error("shell", format!("is `bash` or `powershell`, not `{shell}`"));
    }
    skill.hooks = match fields.get("hooks") {
        None | Some(Value::Null) => None,
        Some(value @ Value::Object(_)) => Some(value.clone()),
        Some(other) => {
            reader.error("hooks", format!("is a mapping of hook events (as in settings), not {}", kind(other)));
            None
        }
    };
    (!reader.fatal).then_some(skill)
}

/// The specification's name rules: 1 to 64 characters, `a-z`, `0-9` and `-`, no `-`
/// at either end nor `--`, equal to the directory's name. Claude Code takes the
/// command from the directory, so a mismatch is a warning.
fn check_name(reader: &mut Reader<'_>, given: &str, dir_name: &str, source: SkillSource) {
    if given.is_empty() || given.chars().count() > MAX_NAME {
        reader.warn("name", format!("is 1 to {MAX_NAME} characters (the specification's rule)"));
    }
    if let Some(bad) = given.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')) {
        reader.warn("name", format!("`{given}` has `{bad}`: a name is lowercase letters, digits and `-`"));
    } else if given.starts_with('-') || given.ends_with('-') || given.contains("--") {
        reader.warn("name", format!("`{given}` starts or ends with `-` or has `--`, which the specification forbids"));
    }
    let own = dir_name.rsplit(':').next().unwrap_or(dir_name);
    if given != own && source != SkillSource::Command {
        reader.warn(
            "name",
            format!("`{given}` differs from its directory's name `{own}`; it is invoked as `{dir_name}`"),
        );
    }
}

/// A description is what the model matches on: 1 to 1,024 characters, no XML tags.
fn check_description(reader: &mut Reader<'_>, description: &str, body: &str) {
    if description.trim().is_empty() {
        let instead = if first_paragraph(body).is_empty() { "nothing" } else { "the body's first paragraph" };
        reader.warn("description", format!("is missing: the model sees {instead} and may not know when to use it"));
    } else if description.chars().count() > MAX_DESCRIPTION {
        reader.warn("description", format!("is over {MAX_DESCRIPTION} characters (the specification's limit)"));
    }
    if looks_like_xml(description) {
        reader.warn("description", "has XML tags, which the Claude API refuses in a skill");
    }
}

fn looks_like_xml(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(2).any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/')) && text.contains('>')
}

/// The body's first paragraph, without Markdown headings: Claude Code's listing text
/// for a skill without a description.
pub(crate) fn first_paragraph(body: &str) -> String {
    body.split("\n\n")
        .map(|p| p.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" "))
        .map(|p| p.trim().to_owned())
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

struct Reader<'a> {
    file: &'a Path,
    problems: &'a mut Vec<Problem>,
    fatal: bool,
}

impl Reader<'_> {
    fn warn(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push(Problem::warning(self.file, Some(key), message));
    }

    fn error(&mut self, key: &str, message: impl Into<String>) {
        self.fatal = true;
        let message = format!("{}; the skill is not used", message.into());
        self.problems.push(Problem::error(self.file, Some(key), message));
    }

    fn unknown_keys(&mut self, fields: &Map<String, Value>) {
        for key in fields.keys() {
            if !SPEC_KEYS.contains(&key.as_str()) && !CLAUDE_CODE_KEYS.contains(&key.as_str()) {
                let close = SPEC_KEYS
                    .iter()
                    .chain(CLAUDE_CODE_KEYS)
                    .find(|k| strsim::jaro_winkler(k, key) > 0.85)
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                self.warn(key, format!("is not a skill key and is ignored{close}"));
            }
        }
    }

    /// A text value; numbers and booleans read as their text.
    fn text(&mut self, fields: &Map<String, Value>, key: &str) -> Option<String> {
        match fields.get(key)? {
            Value::Null => None,
            Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            other => {
                self.warn(key, format!("is text, not {}; ignored", kind(other)));
                None
            }
        }
    }

    /// Claude Code's booleans: `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`.
    /// `strict`: a value that is none of them stops the skill being used.
    fn boolean(&mut self, fields: &Map<String, Value>, key: &str, strict: bool) -> Option<bool> {
        let value = fields.get(key)?;
        let read = match value {
            Value::Null => return None,
            Value::Bool(b) => Some(*b),
            Value::Number(n) => n.as_i64().and_then(|n| match n {
                1 => Some(true),
                0 => Some(false),
                _ => None,
            }),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Some(true),
                "false" | "no" | "off" | "0" => Some(false),
                _ => None,
            },
            _ => None,
        };
        if read.is_none() {
            let message = format!("is true or false (or yes/no, on/off, 1/0), not `{value}`");
            if strict { self.error(key, message) } else { self.warn(key, format!("{message}; ignored")) }
        }
        read
    }

    /// `context`: `fork`, or absent.
    fn context(&mut self, fields: &Map<String, Value>) -> bool {
        match fields.get("context") {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) if s.trim() == "fork" => true,
            Some(other) => {
                self.error("context", format!("is `fork` or absent, not `{other}`"));
                false
            }
        }
    }

    /// Permission rules: the specification's space-separated text (`Bash(git:*) Read`,
    /// spaces inside parentheses kept), Claude Code's commas, or a list.
    fn rules(&mut self, fields: &Map<String, Value>, key: &str, strict: bool) -> Vec<String> {
        match fields.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => split_rules(s),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).flat_map(split_rules).collect()
            }
            Some(other) => {
                let message = format!("is a list of tools or rules (`Bash(git:*) Read`), not {}", kind(other));
                if strict {
                    self.error(key, message);
                } else {
                    self.warn(key, format!("{message}; ignored"));
                }
                Vec::new()
            }
        }
    }

    /// Words: text split at spaces and commas, or a list.
    fn words(&mut self, fields: &Map<String, Value>, key: &str) -> Vec<String> {
        let split = |s: &str| -> Vec<String> {
            s.split([' ', ',']).map(str::trim).filter(|w| !w.is_empty()).map(str::to_owned).collect()
        };
        match fields.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => split(s),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).flat_map(split).collect(),
            Some(other) => {
                self.warn(key, format!("is text or a list, not {}; ignored", kind(other)));
                Vec::new()
            }
        }
    }

    /// `metadata`: a mapping of text to text.
    fn metadata(&mut self, fields: &Map<String, Value>) -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        match fields.get("metadata") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (key, value) in map {
                    match value {
                        Value::String(s) => {
                            out.insert(key.clone(), s.clone());
                        }
                        Value::Number(_) | Value::Bool(_) => {
                            out.insert(key.clone(), value.to_string());
                        }
                        other => self.warn("metadata", format!("`{key}` is text, not {}; ignored", kind(other))),
                    }
                }
            }
            Some(other) => self.warn("metadata", format!("is a mapping of text to text, not {}; ignored", kind(other))),
        }
        out
    }
}

/// Splits rules at spaces and commas outside parentheses.
pub(crate) fn split_rules(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            ' ' | ',' | '\n' | '\t' if depth == 0 => {
                if !current.trim().is_empty() {
                    out.push(current.trim().to_owned());
                }
                current.clear();
            }
            _ => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_split_outside_parentheses() {
        assert_eq!(split_rules("Bash(git log:*) Read, Grep"), ["Bash(git log:*)", "Read", "Grep"]);
        assert_eq!(split_rules(""), Vec::<String>::new());
    }

    #[test]
    fn the_first_paragraph_skips_headings() {
        assert_eq!(first_paragraph("# Title\n\nDoes a thing.\nWell.\n\nMore."), "Does a thing. Well.");
    }
}
