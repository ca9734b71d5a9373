//! Finding every skill for a working directory, by Claude Code's precedence.

use super::skill::{Skill, SkillSource};
use crate::problem::Problem;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolwright_permissions::trust::Trust;

/// The most skills read from one directory.
const MAX_SKILLS: usize = 1_000;
/// The largest `SKILL.md` read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Where to look, and what the workspace may supply.
#[derive(Debug, Clone)]
pub struct SkillOptions {
    home: Option<PathBuf>,
    managed: Option<PathBuf>,
    additional_dirs: Vec<PathBuf>,
    /// Each plugin's name, root, skill folders and command folders.
    plugins: Vec<(String, PathBuf, Vec<PathBuf>, Vec<PathBuf>)>,
    given: Vec<Skill>,
    touched: Vec<PathBuf>,
    trust: Trust,
}

impl Default for SkillOptions {
    fn default() -> Self {
        SkillOptions::new()
    }
}

impl SkillOptions {
    /// The user's skills under `$HOME`, the managed ones under `/etc/claude-code`, and
    /// a workspace that is not trusted (its skills wait, each reported).
    pub fn new() -> SkillOptions {
        SkillOptions {
            home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
            managed: Some(PathBuf::from("/etc/claude-code")),
            additional_dirs: Vec::new(),
            plugins: Vec::new(),
            given: Vec::new(),
            touched: Vec::new(),
            trust: Trust::Untrusted,
        }
    }

    /// Whether the workspace's own skills may be used.
    pub fn trust(mut self, trust: Trust) -> Self {
        self.trust = trust;
        self
    }

    /// The user's home (for `~/.claude/skills/`); `None`: no user skills.
    pub fn home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home;
        self
    }

    /// The managed settings directory (its `.claude/skills/`).
    pub fn managed_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.managed = dir;
        self
    }

    /// Neither the user's nor the managed skills (tests, examples).
    pub fn no_user_or_managed(self) -> Self {
        self.home(None).managed_dir(None)
    }

    /// Directories added to the session (`--add-dir`): their `.claude/skills/` and
    /// `.claude/commands/` too. A directory the user names is not gated on trust.
    pub fn additional_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        self.additional_dirs.extend(dirs);
        self
    }

    /// A plugin's skills (`<root>/skills/*/SKILL.md`, or a root `SKILL.md`), named
    /// `<plugin>:<skill>`.
    pub fn plugin(mut self, name: impl Into<String>, root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let (skills, commands) = (vec![root.join("skills")], vec![root.join("commands")]);
        self.plugins.push((name.into(), root, skills, commands));
        self
    }

    /// A plugin read from disk: its skills and commands, named `<plugin>:<name>`.
    pub fn plugins<'a>(mut self, plugins: impl IntoIterator<Item = &'a crate::plugins::Plugin>) -> Self {
        for plugin in plugins {
            let entry =
                (plugin.name.clone(), plugin.root.clone(), plugin.skill_dirs.clone(), plugin.command_dirs.clone());
            self.plugins.push(entry);
        }
        self
    }

    /// Skills given in code.
    pub fn given(mut self, skills: impl IntoIterator<Item = Skill>) -> Self {
        self.given.extend(skills);
        self
    }

    /// Files the session has read or edited: a `.claude/skills/` between one of them
    /// and the working directory is loaded too (Claude Code's nested skills).
    pub fn touched(mut self, files: impl IntoIterator<Item = PathBuf>) -> Self {
        self.touched.extend(files);
        self
    }
}

/// Every skill found, one per name, and every problem met.
#[derive(Debug, Clone, Default)]
pub struct SkillCatalog {
    skills: BTreeMap<String, Skill>,
    /// Names in precedence order of their sources, then by name: the listing's order.
    order: Vec<String>,
    shadowed: Vec<(Skill, SkillSource)>,
    problems: Vec<Problem>,
}

/// One directory of skills.
struct Place {
    dir: PathBuf,
    source: SkillSource,
    /// `plugin:` for a plugin's skills.
    prefix: Option<String>,
    /// Whether it waits for the workspace's trust.
    gated: bool,
    /// `.claude/commands/`: one `<name>.md` per command.
    commands: bool,
}

impl SkillCatalog {
    /// Reads every skill for the working directory `cwd`.
    ///
    /// ```
    /// use toolwright_agents::skills::{SkillCatalog, SkillOptions};
    /// use toolwright_permissions::trust::Trust;
    /// let dir = tempfile::tempdir().unwrap();
    /// let skill = dir.path().join(".claude/skills/changelog");
    /// std::fs::create_dir_all(&skill).unwrap();
    /// std::fs::write(skill.join("SKILL.md"), "---\nname: changelog\ndescription: Writes the changelog\n---\nSteps.\n").unwrap();
    /// let catalog = SkillCatalog::load(dir.path(), &SkillOptions::new().trust(Trust::Trusted).no_user_or_managed());
    /// assert_eq!(catalog.get("changelog").unwrap().description, "Writes the changelog");
    /// ```
    pub fn load(cwd: &Path, options: &SkillOptions) -> SkillCatalog {
        let mut catalog = SkillCatalog::default();
        let places = places(cwd, options);
        if let Some(managed) = &options.managed {
            catalog.read_place(&Place::skills(managed.join(".claude/skills"), SkillSource::Managed), options);
        }
        for skill in &options.given {
            catalog.offer(skill.clone());
        }
        for place in &places {
            catalog.read_place(place, options);
        }
        catalog.nested(cwd, options);
        catalog
    }

    fn read_place(&mut self, place: &Place, options: &SkillOptions) {
        let found =
            if place.commands { command_files(&place.dir) } else { skill_files(&place.dir, &mut self.problems) };
        if place.gated && !options.trust.is_trusted() {
            for (_, file) in found {
                self.problems.push(Problem::warning(
                    &file,
                    None,
                    "not used until the workspace is trusted (a cloned repository's skills could otherwise run \
                     commands and grant themselves tools)",
                ));
            }
            return;
        }
        for (name, file) in found {
            let name = match &place.prefix {
                Some(prefix) => format!("{prefix}:{name}"),
                None => name,
            };
            let source = if place.commands { SkillSource::Command } else { place.source };
            if let Some(mut skill) = read_skill(&file, &name, source, &mut self.problems) {
                if place.source == SkillSource::Plugin {
                    let root =
                        options.plugins.iter().find(|p| Some(&p.0) == place.prefix.as_ref()).map(|p| p.1.clone());
                    skill.plugin_root = root;
                }
                self.offer(skill);
            }
        }
    }

    /// Nested `.claude/skills/` below the working directory, for the touched files:
    /// named `<dir>:<skill>` when their own name is taken.
    fn nested(&mut self, cwd: &Path, options: &SkillOptions) {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for file in &options.touched {
            let Ok(relative) = file.strip_prefix(cwd) else { continue };
            let mut here = cwd.to_path_buf();
            for part in relative.parent().into_iter().flat_map(Path::components) {
                here.push(part);
                let skills = here.join(".claude/skills");
                if !dirs.contains(&skills) && skills.is_dir() {
                    dirs.push(skills);
                }
            }
        }
        for dir in dirs {
            let qualifier = dir
                .parent()
                .and_then(Path::parent)
                .and_then(|d| d.strip_prefix(cwd).ok())
                .map(|d| d.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            if !options.trust.is_trusted() {
                self.read_place(&Place { gated: true, ..Place::skills(dir, SkillSource::Project) }, options);
                continue;
            }
            for (name, file) in skill_files(&dir, &mut self.problems) {
                let name = if self.skills.contains_key(&name) { format!("{qualifier}:{name}") } else { name };
                if let Some(skill) = read_skill(&file, &name, SkillSource::Project, &mut self.problems) {
                    self.offer(skill);
                }
            }
        }
    }

    /// Adds `skill` unless one of higher precedence has its name.
    fn offer(&mut self, skill: Skill) {
        match self.skills.get(&skill.name) {
            Some(kept) => {
                let by = kept.source;
                if let Some(path) = &skill.path {
                    let used = kept.path.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "code".into());
                    self.problems.push(Problem::warning(
                        path,
                        None,
                        format!("`{}` is also a {} skill ({used}), which is used", skill.name, by.name()),
                    ));
                }
                self.shadowed.push((skill, by));
            }
            None => {
                self.order.push(skill.name.clone());
                self.skills.insert(skill.name.clone(), skill);
            }
        }
    }

    /// The skill called `name` (a leading `/` is ignored).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.get(name.trim().trim_start_matches('/'))
    }

    /// Every skill in use, in precedence order (managed, given, user, project, added
    /// directories, plugins, commands), by name within each.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.order.iter().filter_map(|name| self.skills.get(name))
    }

    /// The skills the model may invoke.
    pub fn model_invocable(&self) -> impl Iterator<Item = &Skill> {
        self.skills().filter(|s| s.model_invocable())
    }

    /// The skills a higher-precedence one of the same name replaced, with the source
    /// of the one used.
    pub fn shadowed(&self) -> &[(Skill, SkillSource)] {
        &self.shadowed
    }

    /// Every problem met.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The names closest to `name`, for an error.
    pub fn closest(&self, name: &str) -> Option<&str> {
        self.order
            .iter()
            .map(|n| (strsim::jaro_winkler(n, name), n))
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| n.as_str())
    }
}

impl Place {
    fn skills(dir: PathBuf, source: SkillSource) -> Place {
        Place { dir, source, prefix: None, gated: false, commands: false }
    }
}

/// The places below the managed one, highest precedence first: the user's, the
/// project's from the working directory up to its repository's root (nearest first),
/// the added directories', the plugins', then the command files.
fn places(cwd: &Path, options: &SkillOptions) -> Vec<Place> {
    let mut out = Vec::new();
    let home = options.home.as_deref();
    if let Some(home) = home {
        out.push(Place::skills(home.join(".claude/skills"), SkillSource::User));
        out.push(Place::skills(home.join(".agents/skills"), SkillSource::User));
    }
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(cwd);
    let mut project = Vec::new();
    for dir in cwd.ancestors() {
        if Some(dir) != home {
            project.push(dir);
        }
        if dir == root {
            break;
        }
    }
    for sub in [".claude/skills", ".agents/skills"] {
        for dir in &project {
            out.push(Place { gated: true, ..Place::skills(dir.join(sub), SkillSource::Project) });
        }
    }
    for dir in &options.additional_dirs {
        out.push(Place::skills(dir.join(".claude/skills"), SkillSource::AddedDir));
    }
    for (name, root, skill_dirs, command_dirs) in &options.plugins {
        let plugin = |dir: PathBuf| Place { prefix: Some(name.clone()), ..Place::skills(dir, SkillSource::Plugin) };
        // A root `SKILL.md` with no `skills/` is a one-skill plugin.
        if !skill_dirs.iter().any(|d| d.is_dir()) && root.join("SKILL.md").is_file() {
            out.push(plugin(root.clone()));
        }
        out.extend(skill_dirs.iter().cloned().map(plugin));
        out.extend(command_dirs.iter().map(|dir| Place { commands: true, ..plugin(dir.clone()) }));
    }
    if let Some(home) = home {
        out.push(Place { commands: true, ..Place::skills(home.join(".claude/commands"), SkillSource::User) });
    }
    for dir in &project {
        out.push(Place {
            commands: true,
            gated: true,
            ..Place::skills(dir.join(".claude/commands"), SkillSource::Project)
        });
    }
    for dir in &options.additional_dirs {
        out.push(Place { commands: true, ..Place::skills(dir.join(".claude/commands"), SkillSource::AddedDir) });
    }
    out
}

/// `<dir>/<name>/SKILL.md` for each skill directory (links followed), by name; a
/// plugin root's own `SKILL.md` is one skill named after the root.
fn skill_files(dir: &Path, problems: &mut Vec<Problem>) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
        // `synced/` is reserved; hidden folders are not skills.
        if name == "synced" || name.starts_with('.') || !path.is_dir() {
            continue;
        }
        let file = path.join("SKILL.md");
        if file.is_file() {
            out.push((name, file));
        } else if path.join("skill.md").is_file() {
            problems.push(Problem::warning(path.join("skill.md"), None, "is named `SKILL.md` in capitals; not read"));
        }
    }
    if out.is_empty()
        && let Some(name) = dir.file_name().and_then(|n| n.to_str())
        && dir.join("SKILL.md").is_file()
    {
        out.push((name.to_owned(), dir.join("SKILL.md")));
    }
    out.sort();
    if out.len() > MAX_SKILLS {
        problems.push(Problem::warning(dir, None, format!("has over {MAX_SKILLS} skills; only the first are read")));
        out.truncate(MAX_SKILLS);
    }
    out
}

/// `<dir>/<name>.md` command files, by name.
fn command_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md")
            && path.is_file()
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            out.push((stem.to_owned(), path));
        }
    }
    out.sort();
    out.truncate(MAX_SKILLS);
    out
}

/// The skill in `file`, or `None` (with the problems) when it cannot be used.
fn read_skill(file: &Path, name: &str, source: SkillSource, problems: &mut Vec<Problem>) -> Option<Skill> {
    let text = crate::catalog::read_limited(file, MAX_FILE_BYTES, problems)?;
    let Some((front, body, first_line)) = crate::frontmatter::split(&text) else {
        // No frontmatter: the whole file is the body (a command file, or a bare skill).
        let body = text.trim_start_matches('\u{feff}').trim();
        let mut skill = Skill::new(name, super::fields::first_paragraph(body), body);
        skill.source = source;
        skill.path = Some(file.to_path_buf());
        skill.dir = file.parent().map(Path::to_path_buf);
        if source != SkillSource::Command {
            problems.push(Problem::warning(
                file,
                None,
                "has no frontmatter (`---` lines around `name:` and `description:`); the model sees its first paragraph",
            ));
        }
        return Some(skill);
    };
    let body = body.trim();
    let fields = match crate::frontmatter::yaml_object(front, first_line)
        .or_else(|first| crate::frontmatter::yaml_object(&quote_colons(front), first_line).map_err(|_| first))
    {
        Ok(fields) => fields,
        Err(unreadable) => {
            // Claude Code loads the body with no metadata: invocable by name, with
            // nothing for the model to match on.
            let problem = Problem::warning(
                file,
                None,
                format!("{}; the skill is used without its frontmatter", unreadable.message),
            );
            problems.push(match unreadable.line {
                Some(line) => problem.at_line(line),
                None => problem,
            });
            serde_json::Map::new()
        }
    };
    super::fields::read(&fields, body, name, source, file, problems)
}

/// The frontmatter with each `key: value` whose value has `: ` in it quoted: the
/// Agent Skills guidance's retry for hand-written YAML.
fn quote_colons(front: &str) -> String {
    front
        .lines()
        .map(|line| match line.split_once(": ") {
            Some((key, value))
                if !key.starts_with([' ', '\t', '-'])
                    && value.contains(": ")
                    && !value.trim_start().starts_with(['"', '\'', '[', '{', '|', '>']) =>
            {
                format!("{key}: \"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
            }
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
