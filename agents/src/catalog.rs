//! Finding every definition for a working directory, by Claude Code's precedence.

use crate::definition::{AgentDefinition, Format, Source};
use crate::problem::Problem;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolwright_permissions::trust::Trust;

/// The most files read from one agents directory (with its subdirectories).
const MAX_FILES: usize = 2_000;
/// The largest definition file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Where to look, and what the workspace may supply.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    home: Option<PathBuf>,
    managed: Option<PathBuf>,
    additional_dirs: Vec<PathBuf>,
    given: Vec<AgentDefinition>,
    /// Each plugin's name and agent folders.
    plugins: Vec<(String, Vec<PathBuf>)>,
    trust: Trust,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions::new()
    }
}

impl LoadOptions {
    /// The user's definitions under `$HOME`, the managed ones under
    /// `/etc/claude-code`, and a workspace that is not trusted (its own definitions
    /// wait, each reported).
    pub fn new() -> LoadOptions {
        LoadOptions {
            home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
            managed: Some(PathBuf::from("/etc/claude-code")),
            additional_dirs: Vec::new(),
            given: Vec::new(),
            plugins: Vec::new(),
            trust: Trust::Untrusted,
        }
    }

    /// Whether the workspace's own definitions may be used.
    pub fn trust(mut self, trust: Trust) -> Self {
        self.trust = trust;
        self
    }

    /// The user's home (for `~/.claude/agents/`); `None`: no user definitions.
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// The managed settings directory (its `.claude/agents/`, and `agents/`).
    pub fn managed_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.managed = dir;
        self
    }

    /// Neither the user's nor the managed definitions: only the workspace's and the
    /// given ones (tests, examples).
    pub fn no_user_or_managed(self) -> Self {
        self.home(None).managed_dir(None)
    }

    /// Directories added to the workspace (`--add-dir`): their `.claude/agents/` too.
    pub fn additional_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        self.additional_dirs.extend(dirs);
        self
    }

    /// Plugins' agents (`agents/*.md`), named `<plugin>:<agent>`; as in Claude Code
    /// they may not set `hooks`, `mcpServers` or `permissionMode`.
    pub fn plugins<'a>(mut self, plugins: impl IntoIterator<Item = &'a crate::plugins::Plugin>) -> Self {
        self.plugins.extend(plugins.into_iter().map(|p| (p.name.clone(), p.agent_dirs.clone())));
        self
    }

    /// Definitions given in code or on the command line.
    pub fn given(mut self, definitions: impl IntoIterator<Item = AgentDefinition>) -> Self {
        self.given.extend(definitions);
        self
    }
}

/// A definition that a higher-precedence one of the same name replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct Shadowed {
    /// The definition not used.
    pub definition: AgentDefinition,
    /// Where the one in use came from.
    pub by: Source,
    /// The file of the one in use, if it came from one.
    pub by_path: Option<PathBuf>,
}

/// Every definition found, one per name, and every problem met.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    definitions: BTreeMap<String, AgentDefinition>,
    shadowed: Vec<Shadowed>,
    problems: Vec<Problem>,
}

/// One directory to read, with what it is.
struct Place {
    dir: PathBuf,
    source: Source,
    format: Format,
    /// `plugin` for a plugin's agents (named `plugin:agent`).
    prefix: Option<String>,
}

impl Catalog {
    /// Reads every definition for the working directory `cwd`.
    pub fn load(cwd: &Path, options: &LoadOptions) -> Catalog {
        let mut catalog = Catalog::default();
        for definition in &options.given {
            catalog.offer(definition.clone());
        }
        for place in places(cwd, options) {
            if place.source == Source::Project && !options.trust.is_trusted() {
                for file in files(&place.dir, place.format, &mut catalog.problems) {
                    catalog.problems.push(Problem::warning(
                        &file,
                        None,
                        "not used until the workspace is trusted (a cloned repository's agents could otherwise \
                         grant themselves tools and modes)",
                    ));
                }
                continue;
            }
            // Within one directory tree, the first file (by path) of a name is used.
            let mut here: BTreeMap<String, PathBuf> = BTreeMap::new();
            for file in files(&place.dir, place.format, &mut catalog.problems) {
                let Some(mut definition) = read_file(&file, place.format, place.source, &mut catalog.problems) else {
                    continue;
                };
                if let Some(plugin) = &place.prefix {
                    plugin_agent(&mut definition, plugin, &file, &mut catalog.problems);
                }
                if let Some(first) = here.get(&definition.name) {
                    catalog.problems.push(Problem::warning(
                        &file,
                        Some("name"),
                        format!("`{}` is also defined in {}, which is used", definition.name, first.display()),
                    ));
                    continue;
                }
                here.insert(definition.name.clone(), file);
                catalog.offer(definition);
            }
        }
        catalog
    }

    /// Adds `definition` unless one of higher precedence has its name.
    fn offer(&mut self, definition: AgentDefinition) {
        match self.definitions.get(&definition.name) {
            Some(kept) => self.shadowed.push(Shadowed { by: kept.source, by_path: kept.path.clone(), definition }),
            None => {
                self.definitions.insert(definition.name.clone(), definition);
            }
        }
    }

    /// The definition named `name`, or the built-in of that name
    /// ([`crate::builtin`]).
    pub fn resolve(&self, name: &str) -> Option<AgentDefinition> {
        self.get(name).cloned().or_else(|| crate::builtin().into_iter().find(|d| d.name == name))
    }

    /// Every agent type that can be started: the catalog's, then the built-ins no
    /// definition replaces, by name.
    pub fn available(&self) -> Vec<AgentDefinition> {
        let mut all: Vec<AgentDefinition> = self.definitions().cloned().collect();
        all.extend(crate::builtin().into_iter().filter(|b| self.get(&b.name).is_none()));
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    }

    /// The definition named `name`.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.definitions.get(name)
    }

    /// The definitions in use, by name.
    pub fn definitions(&self) -> impl Iterator<Item = &AgentDefinition> {
        self.definitions.values()
    }

    /// The definitions a higher-precedence one of the same name replaced.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.shadowed
    }

    /// Every problem met, in the order the files were read.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Whether any file's definition could not be used.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == crate::Severity::Error)
    }
}

/// The directories to read, highest precedence first: managed, then the project's from
/// the working directory up to its repository's root (nearest first), the additional
/// directories', then the user's; Claude Code's, then Cline's, at each.
fn places(cwd: &Path, options: &LoadOptions) -> Vec<Place> {
    let mut out = Vec::new();
    let both = |dir: &Path, source: Source, out: &mut Vec<Place>| {
        out.push(Place { dir: dir.join(".claude/agents"), source, format: Format::ClaudeCode, prefix: None });
        out.push(Place { dir: dir.join(".cline/agents"), source, format: Format::Cline, prefix: None });
    };
    if let Some(managed) = &options.managed {
        out.push(Place {
            dir: managed.join(".claude/agents"),
            source: Source::Managed,
            format: Format::ClaudeCode,
            prefix: None,
        });
        out.push(Place {
            dir: managed.join("agents"),
            source: Source::Managed,
            format: Format::ClaudeCode,
            prefix: None,
        });
    }
    let home = options.home.as_deref();
    // Up to the repository's root; outside a repository, the working directory alone.
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(cwd);
    for dir in cwd.ancestors() {
        // The home's own agents are the user's, not a project's.
        if Some(dir) != home {
            both(dir, Source::Project, &mut out);
        }
        if dir == root {
            break;
        }
    }
    for dir in &options.additional_dirs {
        both(dir, Source::Project, &mut out);
    }
    if let Some(home) = home {
        both(home, Source::User, &mut out);
    }
    for (name, dirs) in &options.plugins {
        for dir in dirs {
            out.push(Place {
                dir: dir.clone(),
                source: Source::User,
                format: Format::ClaudeCode,
                prefix: Some(name.clone()),
            });
        }
    }
    out
}

/// The definition files under `dir`, sorted by path: `*.md` for Claude Code; `*.md`,
/// `*.yaml` and `*.yml` for Cline.
fn files(dir: &Path, format: Format, problems: &mut Vec<Problem>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
            let wanted = match format {
                Format::Cline => matches!(extension, "md" | "yaml" | "yml"),
                _ => extension == "md",
            };
            if wanted {
                out.push(path);
            }
        }
        if out.len() > MAX_FILES {
            problems.push(Problem::warning(dir, None, format!("has over {MAX_FILES} files; only the first are read")));
            out.truncate(MAX_FILES);
            break;
        }
    }
    out.sort();
    out
}

/// The definition in `file`, or `None` (with the problems) when it cannot be used.
fn read_file(file: &Path, format: Format, source: Source, problems: &mut Vec<Problem>) -> Option<AgentDefinition> {
    let text = read_limited(file, MAX_FILE_BYTES, problems)?;
    let yaml_file = file.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let parsed = if yaml_file && crate::frontmatter::split(&text).is_none() {
        // A Cline file that is all YAML (its prompt under `prompt`).
        crate::frontmatter::yaml_object(&text, 1)
            .map(|fields| Some(crate::frontmatter::Parsed { fields, body: String::new() }))
    } else {
        crate::frontmatter::parse(&text)
    };
    match parsed {
        Ok(Some(parsed)) => crate::fields::read(&parsed.fields, Some(&parsed.body), format, source, file, problems),
        Ok(None) => {
            problems.push(Problem::warning(
                file,
                None,
                "has no frontmatter (`---` lines around `name:` and `description:`), so it is not an agent \
                 definition (read as documentation)",
            ));
            None
        }
        Err(unreadable) => {
            let problem = Problem::error(file, None, format!("{}; the agent is not used", unreadable.message));
            problems.push(match unreadable.line {
                Some(line) => problem.at_line(line),
                None => problem,
            });
            None
        }
    }
}

/// The text of `file` if it is at most `max` bytes and readable; else `None`, with the
/// problem.
pub(crate) fn read_limited(file: &Path, max: u64, problems: &mut Vec<Problem>) -> Option<String> {
    let read = match std::fs::metadata(file) {
        Ok(meta) if meta.len() > max => {
            problems.push(Problem::error(file, None, format!("is over {max} bytes; not read")));
            return None;
        }
        Ok(_) => std::fs::read_to_string(file),
        Err(e) => Err(e),
    };
    read.map_err(|e| problems.push(Problem::error(file, None, format!("cannot be read: {e}")))).ok()
}

/// A plugin's agent: named `plugin:agent`, without what a plugin's agent may not set.
fn plugin_agent(definition: &mut AgentDefinition, plugin: &str, file: &Path, problems: &mut Vec<Problem>) {
    definition.name = format!("{plugin}:{}", definition.name);
    let mut dropped = Vec::new();
    if definition.hooks.take().is_some() {
        dropped.push("hooks");
    }
    if !definition.mcp_servers.is_empty() {
        definition.mcp_servers.clear();
        dropped.push("mcpServers");
    }
    if definition.permission_mode.take().is_some() {
        dropped.push("permissionMode");
    }
    for key in dropped {
        problems.push(Problem::warning(
            file,
            Some(key),
            "is not allowed in a plugin's agent (Claude Code's rule) and is ignored",
        ));
    }
}
