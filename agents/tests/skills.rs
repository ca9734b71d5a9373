//! Skill discovery and checks, against the Agent Skills specification and Claude
//! Code's skills documentation, on real directories.

use std::path::Path;
use toolwright_agents::Severity;
use toolwright_agents::skills::{SkillCatalog, SkillOptions, SkillSource};
use toolwright_permissions::trust::Trust;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(root: &Path, place: &str, name: &str, front: &str) {
    write(&root.join(place).join(name).join("SKILL.md"), &format!("---\n{front}\n---\nBody of {name}.\n"));
}

fn trusted() -> SkillOptions {
    SkillOptions::new().trust(Trust::Trusted).no_user_or_managed()
}

#[test]
fn personal_skills_beat_project_skills_and_both_beat_commands() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    skill(home.path(), ".claude/skills", "deploy", "name: deploy\ndescription: The user's deploy");
    skill(work.path(), ".claude/skills", "deploy", "name: deploy\ndescription: The project's deploy");
    skill(work.path(), ".claude/skills", "lint", "name: lint\ndescription: Lints");
    write(&work.path().join(".claude/commands/lint.md"), "The old lint command.");
    write(&work.path().join(".claude/commands/review.md"), "Review the diff.\n\nCarefully.");
    let options = trusted().home(Some(home.path().to_owned()));
    let catalog = SkillCatalog::load(work.path(), &options);
    assert_eq!(catalog.get("deploy").unwrap().description, "The user's deploy");
    assert_eq!(catalog.get("deploy").unwrap().source, SkillSource::User);
    assert_eq!(catalog.get("lint").unwrap().source, SkillSource::Project);
    let review = catalog.get("/review").unwrap();
    assert_eq!((review.source, review.description.as_str()), (SkillSource::Command, "Review the diff."));
    assert_eq!(catalog.shadowed().len(), 2, "{:?}", catalog.shadowed());
}

#[test]
fn project_skills_wait_for_trust_and_each_is_reported() {
    let work = tempfile::tempdir().unwrap();
    skill(work.path(), ".claude/skills", "setup", "name: setup\ndescription: Sets up");
    let catalog = SkillCatalog::load(work.path(), &SkillOptions::new().no_user_or_managed());
    assert!(catalog.get("setup").is_none());
    let problem = &catalog.problems()[0];
    assert!(problem.path.ends_with("setup/SKILL.md") && problem.message.contains("trusted"), "{problem}");
}

#[test]
fn skills_are_found_up_to_the_repository_root_and_in_agents_folders() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join(".git")).unwrap();
    let sub = repo.path().join("crates/app");
    std::fs::create_dir_all(&sub).unwrap();
    skill(repo.path(), ".claude/skills", "root-skill", "name: root-skill\ndescription: At the root");
    skill(repo.path(), ".agents/skills", "shared", "name: shared\ndescription: The cross-agent folder");
    skill(&sub, ".claude/skills", "near", "name: near\ndescription: Nearest");
    let catalog = SkillCatalog::load(&sub, &trusted());
    for name in ["root-skill", "shared", "near"] {
        assert!(catalog.get(name).is_some(), "{name}: {:?}", catalog.problems());
    }
}

#[test]
fn the_frontmatter_is_checked_key_by_key() {
    let work = tempfile::tempdir().unwrap();
    let skills = ".claude/skills";
    skill(
        work.path(),
        skills,
        "good",
        "name: good\ndescription: Fine\nallowed-tools: Bash(git log:*) Read\ndisable-model-invocation: yes\ncontext: fork\nagent: Explore\narguments: [issue, branch]",
    );
    skill(work.path(), skills, "Bad_Name", "name: Bad_Name\ndescription: Has a bad name");
    skill(work.path(), skills, "mismatch", "name: other\ndescription: Named otherwise");
    skill(work.path(), skills, "nodesc", "name: nodesc");
    skill(work.path(), skills, "grant", "name: grant\ndescription: x\nallowed-tools: {Bash: yes}");
    skill(work.path(), skills, "hidden", "name: hidden\ndescription: x\ndisable-model-invocation: maybe");
    skill(work.path(), skills, "fork", "name: fork\ndescription: x\ncontext: thread");
    skill(work.path(), skills, "typo", "name: typo\ndescription: x\nallowed_tools: Read");
    skill(work.path(), skills, "colon", "name: colon\ndescription: Use when: the user asks");
    skill(work.path(), skills, "long", &format!("name: long\ndescription: {}", "d".repeat(1100)));
    let catalog = SkillCatalog::load(work.path(), &trusted());
    let good = catalog.get("good").unwrap();
    assert_eq!(good.allowed_tools, ["Bash(git log:*)", "Read"]);
    assert!(good.disable_model_invocation && good.fork && good.agent.as_deref() == Some("Explore"));
    assert_eq!(good.arguments, ["issue", "branch"]);
    let problem = |name: &str, key: &str| {
        catalog
            .problems()
            .iter()
            .find(|p| p.path.to_string_lossy().contains(&format!("/{name}/")) && p.key.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("no problem for {name} `{key}`: {:#?}", catalog.problems()))
            .clone()
    };
    // Unusable: a grant, a hidden flag or a context that cannot be read.
    for (name, key) in [("grant", "allowed-tools"), ("hidden", "disable-model-invocation"), ("fork", "context")] {
        assert_eq!(problem(name, key).severity, Severity::Error);
        assert!(catalog.get(name).is_none(), "{name} is used");
    }
    // Usable, with a warning.
    for (name, key) in [
        ("Bad_Name", "name"),
        ("mismatch", "name"),
        ("nodesc", "description"),
        ("typo", "allowed_tools"),
        ("long", "description"),
    ] {
        assert_eq!(problem(name, key).severity, Severity::Warning);
        assert!(catalog.get(name).is_some(), "{name} is not used");
    }
    assert!(problem("typo", "allowed_tools").message.contains("allowed-tools"));
    assert_eq!(catalog.get("mismatch").unwrap().display_name.as_deref(), Some("other"));
    assert_eq!(catalog.get("colon").unwrap().description, "Use when: the user asks");
    assert!(!catalog.model_invocable().any(|s| s.name == "good"));
}

#[test]
fn unparseable_yaml_keeps_the_body_with_a_warning_on_its_line() {
    let work = tempfile::tempdir().unwrap();
    skill(work.path(), ".claude/skills", "broken", "name: broken\ndescription: [unclosed");
    let catalog = SkillCatalog::load(work.path(), &trusted());
    let broken = catalog.get("broken").unwrap();
    assert_eq!(broken.body, "Body of broken.");
    let problem = catalog.problems().iter().find(|p| p.path.ends_with("broken/SKILL.md")).unwrap();
    assert!(problem.line.is_some() && problem.message.contains("does not parse"), "{problem}");
}

#[test]
fn nested_skills_load_once_a_file_below_them_is_touched() {
    let work = tempfile::tempdir().unwrap();
    skill(work.path(), ".claude/skills", "deploy", "name: deploy\ndescription: Top deploy");
    let web = work.path().join("apps/web");
    skill(&web, ".claude/skills", "deploy", "name: deploy\ndescription: Web deploy");
    skill(&web, ".claude/skills", "storybook", "name: storybook\ndescription: Runs storybook");
    let untouched = SkillCatalog::load(work.path(), &trusted());
    assert!(untouched.get("storybook").is_none());
    let touched = SkillCatalog::load(work.path(), &trusted().touched([web.join("src/index.ts")]));
    assert_eq!(touched.get("storybook").unwrap().description, "Runs storybook");
    assert_eq!(touched.get("apps/web:deploy").unwrap().description, "Web deploy");
    assert_eq!(touched.get("deploy").unwrap().description, "Top deploy");
}

#[test]
fn plugin_skills_are_named_by_their_plugin() {
    let plugin = tempfile::tempdir().unwrap();
    skill(plugin.path(), "skills", "review", "name: review\ndescription: Reviews");
    let work = tempfile::tempdir().unwrap();
    let catalog = SkillCatalog::load(work.path(), &trusted().plugin("acme", plugin.path()));
    let review = catalog.get("acme:review").unwrap();
    assert_eq!(review.source, SkillSource::Plugin);
    assert_eq!(review.plugin_root.as_deref(), Some(plugin.path()));
}
