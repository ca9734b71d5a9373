//! One skill: a `SKILL.md` (or a legacy command file) read and checked, or a skill
//! given in code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a skill came from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SkillSource {
    /// The managed directory (`/etc/claude-code/.claude/skills/`).
    Managed,
    /// Given in code ([`Skill::new`]).
    Given,
    /// The user's (`~/.claude/skills/`, `~/.agents/skills/`).
    User,
    /// The workspace's (`.claude/skills/` from the working directory up to the
    /// repository's root, `.agents/skills/`, and nested ones once a file below them
    /// is touched).
    Project,
    /// A directory added to the session (`--add-dir`).
    AddedDir,
    /// A plugin's `skills/` (named `plugin:skill`).
    Plugin,
    /// A legacy command file (`.claude/commands/<name>.md`).
    Command,
}

impl SkillSource {
    /// Its name in listings.
    pub fn name(self) -> &'static str {
        match self {
            SkillSource::Managed => "managed",
            SkillSource::Given => "given",
            SkillSource::User => "user",
            SkillSource::Project => "project",
            SkillSource::AddedDir => "added directory",
            SkillSource::Plugin => "plugin",
            SkillSource::Command => "command",
        }
    }
}

/// A skill, as the [`Skill` tool](crate::skills) and `toolwright skills` see it.
///
/// ```
/// use toolwright_agents::skills::Skill;
/// let skill = Skill::new("release-notes", "Writes release notes from the git log", "Read `git log` and ...")
///     .allowed_tools(["Bash(git log:*)"]);
/// assert_eq!(skill.listing_text(1536), "Writes release notes from the git log");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Skill {
    /// What the model calls it by: the directory's name (`plugin:skill` for a
    /// plugin's, `apps/web:deploy` for a nested one whose name is taken).
    pub name: String,
    /// The frontmatter's `name`, when it differs (a display label).
    pub display_name: Option<String>,
    /// What it does and when to use it.
    pub description: String,
    /// Claude Code's `when_to_use`, joined to the description in the listing.
    pub when_to_use: Option<String>,
    /// The instructions after the frontmatter.
    pub body: String,
    /// Its `SKILL.md` (or command file); `None` for one given in code.
    pub path: Option<PathBuf>,
    /// Its directory (`${CLAUDE_SKILL_DIR}`), where its supporting files are.
    pub dir: Option<PathBuf>,
    /// Where it came from.
    pub source: SkillSource,
    /// `disable-model-invocation`: only a person may invoke it; the model never sees it.
    pub disable_model_invocation: bool,
    /// `user-invocable` (default true): whether a person's `/` menu shows it.
    pub user_invocable: bool,
    /// `allowed-tools`: permission rules granted without asking while it is active.
    pub allowed_tools: Vec<String>,
    /// `disallowed-tools`: tools removed while it is active.
    pub disallowed_tools: Vec<String>,
    /// `context: fork`: runs as a subagent, its body the prompt.
    pub fork: bool,
    /// `agent`: the agent type of the fork (default `general-purpose`).
    pub agent: Option<String>,
    /// `model`: the model for the fork.
    pub model: Option<String>,
    /// `effort` (`${CLAUDE_EFFORT}`).
    pub effort: Option<String>,
    /// `argument-hint`, shown beside the name.
    pub argument_hint: Option<String>,
    /// `arguments`: names for `$name` substitution, in order.
    pub arguments: Vec<String>,
    /// `hooks`, as written (Claude Code's hook settings shape).
    pub hooks: Option<serde_json::Value>,
    /// `paths`: globs of the files it is for.
    pub paths: Vec<String>,
    /// `shell`: `bash` (default) or `powershell`, for its `!` commands.
    pub shell: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata`.
    pub metadata: BTreeMap<String, String>,
    /// The plugin's root, for a plugin's skill (`${CLAUDE_PLUGIN_ROOT}`).
    pub plugin_root: Option<PathBuf>,
}

impl Skill {
    /// A skill given in code.
    pub fn new(name: impl Into<String>, description: impl Into<String>, body: impl Into<String>) -> Skill {
        Skill {
            name: name.into(),
            display_name: None,
            description: description.into(),
            when_to_use: None,
            body: body.into(),
            path: None,
            dir: None,
            source: SkillSource::Given,
            disable_model_invocation: false,
            user_invocable: true,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            fork: false,
            agent: None,
            model: None,
            effort: None,
            argument_hint: None,
            arguments: Vec::new(),
            hooks: None,
            paths: Vec::new(),
            shell: None,
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            plugin_root: None,
        }
    }

    /// With these `allowed-tools` rules.
    pub fn allowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, rules: I) -> Skill {
        self.allowed_tools.extend(rules.into_iter().map(Into::into));
        self
    }

    /// Only a person may invoke it (`disable-model-invocation: true`).
    pub fn user_only(mut self) -> Skill {
        self.disable_model_invocation = true;
        self
    }

    /// Runs as a subagent of type `agent` (`context: fork`).
    pub fn forked(mut self, agent: Option<&str>) -> Skill {
        self.fork = true;
        self.agent = agent.map(str::to_owned);
        self
    }

    /// The model may invoke it.
    pub fn model_invocable(&self) -> bool {
        !self.disable_model_invocation
    }

    /// The description and `when_to_use` joined, cut at `max_chars` characters (Claude
    /// Code's `skillListingMaxDescChars`, 1,536).
    pub fn listing_text(&self, max_chars: usize) -> String {
        let mut text = self.description.trim().to_owned();
        if let Some(when) = self.when_to_use.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(when);
        }
        let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match text.char_indices().nth(max_chars) {
            Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
            None => text,
        }
    }

    /// The files beside its `SKILL.md` (scripts, references, assets), relative to its
    /// directory, at most `max` of them, sorted.
    pub fn supporting_files(&self, max: usize) -> Vec<PathBuf> {
        let Some(dir) = self.dir.as_deref().filter(|_| self.source != SkillSource::Command) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(next) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&next) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else { continue };
                if kind.is_dir() {
                    pending.push(path);
                } else if path.file_name().is_some_and(|n| n != "SKILL.md")
                    && let Ok(relative) = path.strip_prefix(dir)
                {
                    out.push(relative.to_path_buf());
                }
            }
            if out.len() > max * 4 {
                break;
            }
        }
        out.sort();
        out.truncate(max);
        out
    }

    /// Its directory's path as `Path`, if it has one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }
}
