//! Claude Code plugins read from disk: a folder with an optional
//! `.claude-plugin/plugin.json` and its `skills/`, `commands/`, `agents/`,
//! `hooks/hooks.json`, `.mcp.json` and `.lsp.json`. What each part becomes is up to
//! its consumer: skills and commands named `plugin:name` ([`crate::skills`]), agents
//! named `plugin:agent` ([`crate::Catalog`]), hooks, and MCP servers named
//! `plugin_<plugin>_<server>`. Nothing is downloaded: a plugin is used where it lies.

use crate::problem::Problem;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The manifest's keys Claude Code documents.
const MANIFEST_KEYS: &[&str] = &[
    "$schema",
    "name",
    "displayName",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "metadata",
    "defaultEnabled",
    "skills",
    "commands",
    "agents",
    "workflows",
    "outputStyles",
    "hooks",
    "mcpServers",
    "lspServers",
    "experimental",
    "userConfig",
    "channels",
    "dependencies",
];

/// One plugin, read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Plugin {
    /// Its name: the manifest's, else its folder's. The namespace of its parts.
    pub name: String,
    /// Its folder (`${CLAUDE_PLUGIN_ROOT}`).
    pub root: PathBuf,
    /// The manifest's `version`.
    pub version: Option<String>,
    /// The manifest's `description`.
    pub description: Option<String>,
    /// Folders of skills (`skills/`, and the manifest's `skills` paths).
    pub skill_dirs: Vec<PathBuf>,
    /// Folders of command files (`commands/`, or the manifest's `commands`).
    pub command_dirs: Vec<PathBuf>,
    /// Folders of agent files (`agents/`, or the manifest's `agents`).
    pub agent_dirs: Vec<PathBuf>,
    /// Its hooks, in the settings' `hooks` shape, `${CLAUDE_PLUGIN_ROOT}` substituted.
    pub hooks: Option<Value>,
    /// Its MCP servers (`mcpServers` shape), `${CLAUDE_PLUGIN_ROOT}` substituted.
    pub mcp_servers: Option<Map<String, Value>>,
    /// Its language servers (`.lsp.json` shape), kept for the LSP tool.
    pub lsp_servers: Option<Map<String, Value>>,
}

impl Plugin {
    /// The name its MCP server `server` is mounted under (Claude Code's
    /// `plugin_<plugin>_<server>`, so its tools are `mcp__plugin_<plugin>_<server>__<tool>`).
    pub fn server_name(&self, server: &str) -> String {
        format!("plugin_{}_{server}", self.name)
    }

    /// Its data folder (`${CLAUDE_PLUGIN_DATA}`), kept across updates.
    pub fn data_dir(&self) -> PathBuf {
        self.root.join(".data")
    }
}

/// Plugins read from folders, with every problem met.
#[derive(Debug, Clone, Default)]
pub struct Plugins {
    plugins: Vec<Plugin>,
    problems: Vec<Problem>,
}

impl Plugins {
    /// Reads the plugin in each folder of `dirs` (a folder that is not one is a
    /// problem; two plugins of one name: the first is used).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let root = dir.path().join("review-kit");
    /// std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    /// std::fs::write(root.join(".claude-plugin/plugin.json"), r#"{"name": "review-kit", "version": "1.0.0"}"#).unwrap();
    /// std::fs::create_dir_all(root.join("skills/review")).unwrap();
    /// let plugins = toolwright_agents::plugins::Plugins::load(&[root]);
    /// assert_eq!(plugins.plugins()[0].name, "review-kit");
    /// assert!(plugins.problems().is_empty());
    /// ```
    pub fn load(dirs: &[PathBuf]) -> Plugins {
        let mut out = Plugins::default();
        for dir in dirs {
            if let Some(plugin) = read(dir, &mut out.problems) {
                if out.plugins.iter().any(|p| p.name == plugin.name) {
                    out.problems.push(Problem::warning(
                        dir,
                        Some("name"),
                        format!("a plugin named `{}` is loaded already; this one is not", plugin.name),
                    ));
                    continue;
                }
                out.plugins.push(plugin);
            }
        }
        out
    }

    /// The folders of the plugins a settings file enables (`enabledPlugins`:
    /// `{"name@marketplace": true}`) that are installed under `home`'s
    /// `.claude/plugins/cache/<marketplace>/<name>/<version>/` (the newest version),
    /// and a problem for each enabled one that is not there.
    pub fn enabled_in(settings: &Value, home: &Path, file: &Path) -> (Vec<PathBuf>, Vec<Problem>) {
        let mut dirs = Vec::new();
        let mut problems = Vec::new();
        let Some(enabled) = settings.get("enabledPlugins").and_then(Value::as_object) else { return (dirs, problems) };
        for (id, on) in enabled {
            if on != &Value::Bool(true) {
                continue;
            }
            let (name, market) = id.split_once('@').unwrap_or((id.as_str(), ""));
            let base = home.join(".claude/plugins/cache").join(market).join(name);
            let newest = std::fs::read_dir(&base)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
            match newest.or_else(|| base.join(".claude-plugin").is_dir().then(|| base.clone())) {
                Some(dir) => dirs.push(dir),
                None => problems.push(Problem::warning(
                    file,
                    Some("enabledPlugins"),
                    format!(
                        "`{id}` is enabled but not installed in {} (toolwright does not download plugins)",
                        base.display()
                    ),
                )),
            }
        }
        (dirs, problems)
    }

    /// The plugins, in the order given.
    pub fn plugins(&self) -> &[Plugin] {
        &self.plugins
    }

    /// Every problem met.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }
}

/// The plugin in `dir`, or `None` with the problem.
fn read(dir: &Path, problems: &mut Vec<Problem>) -> Option<Plugin> {
    let root = match dir.canonicalize() {
        Ok(root) if root.is_dir() => root,
        _ => {
            problems.push(Problem::error(dir, None, "is not a folder; no plugin is read from it"));
            return None;
        }
    };
    let manifest_path = root.join(".claude-plugin/plugin.json");
    let manifest: Map<String, Value> = if manifest_path.is_file() {
        let text = crate::catalog::read_limited(&manifest_path, 1024 * 1024, problems)?;
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                problems.push(Problem::error(&manifest_path, None, "is not a JSON object; the plugin is not used"));
                return None;
            }
            Err(e) => {
                let problem =
                    Problem::error(&manifest_path, None, format!("is not JSON ({e}); the plugin is not used"));
                problems.push(problem.at_line(e.line()));
                return None;
            }
        }
    } else {
        Map::new()
    };
    for key in manifest.keys().filter(|k| !MANIFEST_KEYS.contains(&k.as_str())) {
        problems.push(Problem::warning(&manifest_path, Some(key), "is not a plugin manifest key and is ignored"));
    }
    let folder = root.file_name().and_then(|n| n.to_str()).unwrap_or("plugin").to_owned();
    let name = match manifest.get("name") {
        None if manifest_path.is_file() => {
            problems.push(Problem::error(&manifest_path, Some("name"), "is required; the plugin is not used"));
            return None;
        }
        None => folder,
        Some(Value::String(name)) if is_kebab(name) => name.clone(),
        Some(other) => {
            problems.push(Problem::error(
                &manifest_path,
                Some("name"),
                format!("is kebab-case text (`review-kit`), not {other}; the plugin is not used"),
            ));
            return None;
        }
    };
    let text = |key: &str| manifest.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut reader = Paths { root: &root, manifest: &manifest_path, problems };
    // `skills` adds to `skills/`; the others replace their default folder.
    let mut skill_dirs = vec![root.join("skills")];
    skill_dirs.extend(reader.paths(manifest.get("skills"), "skills"));
    let command_dirs = reader.paths_or(manifest.get("commands"), "commands", root.join("commands"));
    let agent_dirs = reader.paths_or(manifest.get("agents"), "agents", root.join("agents"));
    let substitute = |value: Value| substitute(value, &root);
    let hooks = match manifest.get("hooks") {
        Some(Value::Object(inline)) => Some(inline.get("hooks").cloned().unwrap_or(Value::Object(inline.clone()))),
        Some(Value::String(path)) => reader.json_file(path, "hooks").map(|v| v.get("hooks").cloned().unwrap_or(v)),
        _ => json_at(&root.join("hooks/hooks.json"), reader.problems).map(|v| v.get("hooks").cloned().unwrap_or(v)),
    }
    .map(substitute);
    let mcp_servers = match manifest.get("mcpServers") {
        Some(Value::Object(inline)) => Some(Value::Object(inline.clone())),
        Some(Value::String(path)) => {
            reader.json_file(path, "mcpServers").map(|v| v.get("mcpServers").cloned().unwrap_or(v))
        }
        _ => json_at(&root.join(".mcp.json"), reader.problems).map(|v| v.get("mcpServers").cloned().unwrap_or(v)),
    }
    .map(substitute)
    .and_then(|v| v.as_object().cloned());
    // `lspServers`: a path, an inline map, or a list of either (merged in order).
    let lsp_servers = match manifest.get("lspServers") {
        Some(Value::Object(inline)) => Some(Value::Object(inline.clone())),
        Some(Value::String(path)) => reader.json_file(path, "lspServers"),
        Some(Value::Array(items)) => {
            let mut merged = Map::new();
            for item in items {
                let found = match item {
                    Value::Object(inline) => Some(Value::Object(inline.clone())),
                    Value::String(path) => reader.json_file(path, "lspServers"),
                    _ => None,
                };
                if let Some(Value::Object(map)) = found {
                    merged.extend(map);
                }
            }
            Some(Value::Object(merged))
        }
        _ => json_at(&root.join(".lsp.json"), reader.problems),
    }
    .map(substitute)
    .and_then(|v| v.as_object().cloned());
    Some(Plugin {
        name,
        version: text("version"),
        description: text("description"),
        skill_dirs,
        command_dirs,
        agent_dirs,
        hooks,
        mcp_servers,
        lsp_servers,
        root,
    })
}

fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` in every string of `value`.
fn substitute(value: Value, root: &Path) -> Value {
    let root_text = root.display().to_string();
    let data = root.join(".data").display().to_string();
    match value {
        Value::String(s) => {
            Value::String(s.replace("${CLAUDE_PLUGIN_ROOT}", &root_text).replace("${CLAUDE_PLUGIN_DATA}", &data))
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| substitute(v, root)).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, substitute(v, root))).collect()),
        other => other,
    }
}

/// The JSON in `file`, if there is one (a file that does not parse is a problem).
fn json_at(file: &Path, problems: &mut Vec<Problem>) -> Option<Value> {
    if !file.is_file() {
        return None;
    }
    let text = crate::catalog::read_limited(file, 1024 * 1024, problems)?;
    match serde_json::from_str(&text) {
        Ok(value) => Some(value),
        Err(e) => {
            problems.push(Problem::error(file, None, format!("is not JSON ({e}); left out")).at_line(e.line()));
            None
        }
    }
}

/// The manifest's component paths: `./` relative, inside the plugin.
struct Paths<'a> {
    root: &'a Path,
    manifest: &'a Path,
    problems: &'a mut Vec<Problem>,
}

impl Paths<'_> {
    fn paths(&mut self, value: Option<&Value>, key: &str) -> Vec<PathBuf> {
        let items: Vec<&str> = match value {
            None => return Vec::new(),
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(other) => {
                self.problems.push(Problem::warning(
                    self.manifest,
                    Some(key),
                    format!("is a path or a list of paths, not {other}; ignored"),
                ));
                return Vec::new();
            }
        };
        items.into_iter().filter_map(|p| self.inside(p, key)).collect()
    }

    fn paths_or(&mut self, value: Option<&Value>, key: &str, default: PathBuf) -> Vec<PathBuf> {
        let given = self.paths(value, key);
        if given.is_empty() { vec![default] } else { given }
    }

    /// `path` in the plugin: it must start with `./` and stay inside.
    fn inside(&mut self, path: &str, key: &str) -> Option<PathBuf> {
        let Some(relative) = path.strip_prefix("./") else {
            self.problems.push(Problem::warning(
                self.manifest,
                Some(key),
                format!("`{path}` must start with `./`; ignored"),
            ));
            return None;
        };
        if Path::new(relative).components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            self.problems.push(Problem::warning(
                self.manifest,
                Some(key),
                format!("`{path}` leaves the plugin; ignored"),
            ));
            return None;
        }
        Some(self.root.join(relative))
    }

    fn json_file(&mut self, path: &str, key: &str) -> Option<Value> {
        let file = self.inside(path, key)?;
        json_at(&file, self.problems)
    }
}
