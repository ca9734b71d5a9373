//! Definition files as users write them, and as they get them wrong: every documented
//! key, the precedence between places, trust, and a problem for every file that cannot
//! be used, with its path, its key and why.
#![allow(missing_docs)]

use serde_json::json;
use std::path::{Path, PathBuf};
use toolwright_agents::{
    AgentDefinition, Catalog, Format, Isolation, LoadOptions, McpServerRef, Memory, Severity, Source,
};
use toolwright_permissions::Mode;
use toolwright_permissions::trust::Trust;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository with a working directory below its root, a home and a managed
/// directory, all in one temporary directory.
struct Place {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    cwd: PathBuf,
    home: PathBuf,
    managed: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let cwd = repo.join("packages/api");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let home = dir.path().join("home");
    let managed = dir.path().join("managed");
    Place { repo, cwd, home, managed, _dir: dir }
}

fn options(p: &Place, trust: Trust) -> LoadOptions {
    LoadOptions::new().home(Some(p.home.clone())).managed_dir(Some(p.managed.clone())).trust(trust)
}

fn agent(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

#[test]
fn every_documented_key_is_read() {
    let p = place();
    write(
        &p.repo.join(".claude/agents/review/full.md"),
        "---\nname: full\ndescription: Every key\ntools: Read, Grep, Glob\ndisallowedTools: [Bash, mcp__github]\n\
         model: haiku\npermissionMode: acceptEdits\nmaxTurns: 7\nskills: [pdf]\nmcpServers:\n  - slack\n  - local:\n      \
         command: node\n      args: [server.js]\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: \
         command\n          command: ./check.sh\nmemory: project\nbackground: true\neffort: high\nisolation: worktree\n\
         color: cyan\ninitialPrompt: Start here\noutputSchema:\n  type: object\n---\n\nYou review everything.\n",
    );
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted));
    assert!(catalog.problems().is_empty(), "{:?}", catalog.problems());
    let full = catalog.get("full").unwrap();
    assert_eq!(full.tools.as_deref().unwrap(), ["Read", "Grep", "Glob"]);
    assert_eq!(full.disallowed_tools, ["Bash", "mcp__github"]);
    assert_eq!(full.model.as_deref(), Some("haiku"));
    assert_eq!(full.permission_mode, Some(Mode::AcceptEdits));
    assert_eq!(full.max_turns, Some(7));
    assert_eq!(full.skills, ["pdf"]);
    assert_eq!(full.mcp_servers[0], McpServerRef::Named("slack".into()));
    assert!(
        matches!(&full.mcp_servers[1], McpServerRef::Inline { name, config } if name == "local" && config["command"] == "node")
    );
    assert_eq!(full.hooks.as_ref().unwrap()["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(full.memory, Some(Memory::Project));
    assert!(full.background);
    assert_eq!(full.effort.as_deref(), Some("high"));
    assert_eq!(full.isolation, Some(Isolation::Worktree));
    assert_eq!(full.color.as_deref(), Some("cyan"));
    assert_eq!(full.initial_prompt.as_deref(), Some("Start here"));
    assert_eq!(full.output_schema, Some(json!({"type": "object"})));
    assert_eq!(full.prompt, "You review everything.");
    assert_eq!((full.source, full.format), (Source::Project, Format::ClaudeCode));
    assert!(full.path.as_ref().unwrap().ends_with("review/full.md"));
    // `inherit` and an omitted list mean the parent's.
    write(&p.repo.join(".claude/agents/plain.md"), "---\nname: plain\ndescription: d\nmodel: inherit\n---\nx");
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted));
    let plain = catalog.get("plain").unwrap();
    assert_eq!((plain.model.as_ref(), plain.tools.as_ref()), (None, None));
}

#[test]
fn precedence_is_managed_given_project_nearest_then_user() {
    let p = place();
    for (dir, who) in [
        (p.managed.join(".claude/agents"), "managed"),
        (p.cwd.join(".claude/agents"), "nearest"),
        (p.repo.join(".claude/agents"), "root"),
        (p.home.join(".claude/agents"), "user"),
    ] {
        for name in ["a", "b", "c", "d"] {
            write(&dir.join(format!("{name}.md")), &agent(name, who, who));
        }
    }
    // The managed one has only `a`, the nearest `a`-`c`, and so on down.
    std::fs::remove_file(p.managed.join(".claude/agents/b.md")).unwrap();
    for name in ["c", "d"] {
        std::fs::remove_file(p.managed.join(format!(".claude/agents/{name}.md"))).unwrap();
    }
    std::fs::remove_file(p.cwd.join(".claude/agents/c.md")).unwrap();
    std::fs::remove_file(p.cwd.join(".claude/agents/d.md")).unwrap();
    std::fs::remove_file(p.repo.join(".claude/agents/d.md")).unwrap();
    let given = AgentDefinition::new("b", "given", "given").unwrap();
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted).given([given]));
    let who = |name: &str| catalog.get(name).unwrap().description.clone();
    assert_eq!([who("a"), who("b"), who("c"), who("d")], ["managed", "given", "root", "user"]);
    assert_eq!(catalog.get("b").unwrap().source, Source::Given);
    // What each replaced is listed, with what replaced it.
    let shadowed: Vec<(String, Source)> =
        catalog.shadowed().iter().map(|s| (s.definition.description.clone(), s.by)).collect();
    assert!(shadowed.contains(&("nearest".to_owned(), Source::Managed)), "{shadowed:?}");
    assert!(shadowed.contains(&("user".to_owned(), Source::Project)), "{shadowed:?}");
}

#[test]
fn a_workspace_supplies_definitions_only_once_trusted() {
    let p = place();
    write(&p.repo.join(".claude/agents/evil.md"), &agent("evil", "Grants itself everything", "x"));
    write(&p.repo.join(".cline/agents/evil2.yaml"), "name: evil2\ndescription: d\nprompt: x\n");
    write(&p.home.join(".claude/agents/mine.md"), &agent("mine", "the user's", "x"));
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Untrusted));
    assert!(catalog.get("evil").is_none() && catalog.get("evil2").is_none());
    assert!(catalog.get("mine").is_some(), "the user's own agents need no trust");
    let waiting: Vec<&Path> = catalog.problems().iter().map(|p| p.path.as_path()).collect();
    assert_eq!(waiting.len(), 2, "{:?}", catalog.problems());
    assert!(catalog.problems().iter().all(|p| p.message.contains("until the workspace is trusted")));
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted));
    assert!(catalog.get("evil").is_some() && catalog.get("evil2").is_some());
}

#[test]
fn every_file_that_cannot_be_used_says_where_and_why() {
    let p = place();
    let dir = p.repo.join(".claude/agents");
    write(&dir.join("upper.md"), &agent("Code Reviewer", "d", "x"));
    write(&dir.join("colon.md"), &agent("plugin:thing", "d", "x"));
    write(&dir.join("dash.md"), &agent("-lead", "d", "x"));
    write(&dir.join("nodesc.md"), "---\nname: nodesc\n---\nbody");
    write(&dir.join("yaml.md"), "---\nname: yaml\ndescription: [unclosed\n---\nbody");
    write(&dir.join("readme.md"), "# Our agents\n\nNotes for the team.");
    write(&dir.join("noname.md"), "---\ndescription: a note\n---\n");
    write(
        &dir.join("typos.md"),
        "---\nname: typos\ndescription: d\ndisallowed_tools: [Bash]\nmaxTurns: five\npermissionMode: yolo\n\
         background: sometimes\ncolor: mauve\nmodelId: x\n---\nbody",
    );
    write(&dir.join("auto.md"), "---\nname: auto\ndescription: d\npermissionMode: auto\n---\nbody");
    // A restriction that cannot be read is not ignored: that would give the agent more.
    write(&dir.join("tools-map.md"), "---\nname: tools-map\ndescription: d\ntools: {Read: true}\n---\nbody");
    write(&dir.join("deny-item.md"), "---\nname: deny-item\ndescription: d\ndisallowedTools: [Bash, 3]\n---\nbody");
    write(&dir.join("a/dup.md"), &agent("dup", "first", "x"));
    write(&dir.join("b/dup.md"), &agent("dup", "second", "x"));
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted));
    let about = |file: &str| -> Vec<String> {
        catalog.problems().iter().filter(|p| p.path.ends_with(file)).map(ToString::to_string).collect()
    };
    let one = |file: &str, key: &str, text: &str, severity: Severity| {
        let found = catalog
            .problems()
            .iter()
            .find(|p| p.path.ends_with(file) && p.key.as_deref() == Some(key) && p.message.contains(text));
        assert!(found.is_some_and(|p| p.severity == severity), "{file} `{key}` {text}: {:?}", about(file));
    };
    one("upper.md", "name", "lowercase letters, digits and hyphens (such as `code-reviewer`)", Severity::Error);
    one("colon.md", "name", "reserved for plugins", Severity::Error);
    one("dash.md", "name", "starts with `-`", Severity::Error);
    one("nodesc.md", "description", "is missing", Severity::Error);
    one("noname.md", "name", "read as documentation", Severity::Warning);
    one("typos.md", "disallowed_tools", "did you mean `disallowedTools`", Severity::Warning);
    one("typos.md", "maxTurns", "a whole number of at least 1, not the text `five`", Severity::Warning);
    one("typos.md", "permissionMode", "`yolo` is not a mode", Severity::Warning);
    one("typos.md", "background", "`true` or `false`", Severity::Warning);
    one("typos.md", "color", "`mauve` is not one of", Severity::Warning);
    one("typos.md", "modelId", "is not a key", Severity::Warning);
    one("auto.md", "permissionMode", "`auto` needs Claude Code's classifier", Severity::Warning);
    one("b/dup.md", "name", "also defined in", Severity::Warning);
    one("tools-map.md", "tools", "not a mapping; the agent is not used", Severity::Error);
    one("deny-item.md", "disallowedTools", "the agent is not used", Severity::Error);
    let yaml = catalog.problems().iter().find(|p| p.path.ends_with("yaml.md")).unwrap();
    assert!(yaml.message.contains("does not parse") && yaml.line.is_some(), "{yaml}");
    assert!(yaml.to_string().starts_with(&format!("error: {}:", dir.join("yaml.md").display())), "{yaml}");
    let readme = about("readme.md");
    assert!(readme.len() == 1 && readme[0].contains("no frontmatter"), "{readme:?}");
    // What is used, is used without what was wrong.
    let typos = catalog.get("typos").unwrap();
    assert_eq!((typos.max_turns, typos.permission_mode, typos.background), (None, None, false));
    assert!(typos.disallowed_tools.is_empty(), "an unknown key is not read as another");
    assert_eq!(catalog.get("dup").unwrap().description, "first");
    for unused in ["Code Reviewer", "plugin:thing", "-lead", "nodesc", "yaml", "tools-map", "deny-item"] {
        assert!(catalog.get(unused).is_none(), "{unused}");
    }
    assert!(catalog.has_errors());
}

#[test]
fn cline_files_are_read_in_their_own_format() {
    let p = place();
    let dir = p.repo.join(".cline/agents");
    write(
        &dir.join("researcher.yaml"),
        "name: researcher\ndescription: Finds things\nmodelId: claude-haiku\ntools: [read_file, search]\nprompt: You research.\n",
    );
    write(
        &dir.join("writer.md"),
        "---\nname: writer\ndescription: Writes\nskills: [docs]\ndisallowedTools: [x]\n---\nYou write.\n",
    );
    let catalog = Catalog::load(&p.cwd, &options(&p, Trust::Trusted));
    let researcher = catalog.get("researcher").unwrap();
    assert_eq!(researcher.format, Format::Cline);
    assert_eq!(researcher.model.as_deref(), Some("claude-haiku"));
    assert_eq!(researcher.tools.as_deref().unwrap(), ["read_file", "search"]);
    assert_eq!(researcher.prompt, "You research.");
    let writer = catalog.get("writer").unwrap();
    assert_eq!((writer.prompt.as_str(), writer.skills.as_slice()), ("You write.", &["docs".to_owned()][..]));
    let warned = catalog.problems().iter().any(|p| p.key.as_deref() == Some("disallowedTools"));
    assert!(warned, "a Claude Code key in a Cline file is a warning: {:?}", catalog.problems());
}

#[test]
fn claude_codes_agents_json_and_definitions_in_code() {
    let (definitions, problems) = AgentDefinition::from_agents_json(&json!({
        "code-reviewer": {"description": "Reviews", "prompt": "You review.", "tools": ["Read", "Grep"], "model": "sonnet"},
        "Bad Name": {"description": "x", "prompt": "y"},
        "no-description": {"prompt": "y"},
        "not-an-object": 3,
    }));
    assert_eq!(definitions.len(), 1, "{problems:?}");
    assert_eq!(definitions[0].prompt, "You review.");
    assert_eq!(definitions[0].source, Source::Given);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems.iter().all(|p| p.path == Path::new("<given>")));
    let (none, problems) = AgentDefinition::from_agents_json(&json!(["x"]));
    assert!(none.is_empty() && problems[0].message.contains("takes a JSON object"));
    assert!(AgentDefinition::new("Not Valid", "d", "p").unwrap_err().to_string().contains("`Not Valid`"));
    assert!(AgentDefinition::new("ok", " ", "p").unwrap_err().to_string().contains("no description"));
    let built =
        AgentDefinition::new("worker", "Edits", "You edit.").unwrap().with_tools(["Read", "Edit"]).with_max_turns(3);
    assert_eq!((built.tools.unwrap().len(), built.max_turns), (2, Some(3)));
}

#[test]
fn a_changed_or_removed_file_is_seen_at_the_next_load() {
    let p = place();
    let file = p.repo.join(".claude/agents/x.md");
    write(&file, &agent("x", "first", "x"));
    let trusted = options(&p, Trust::Trusted);
    assert_eq!(Catalog::load(&p.cwd, &trusted).get("x").unwrap().description, "first");
    write(&file, &agent("x", "second", "x"));
    assert_eq!(Catalog::load(&p.cwd, &trusted).get("x").unwrap().description, "second");
    std::fs::remove_file(&file).unwrap();
    assert!(Catalog::load(&p.cwd, &trusted).get("x").is_none());
}
