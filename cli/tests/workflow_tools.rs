//! The workflow tools end to end: the real binary's `agent` command against a
//! scripted Anthropic server on 127.0.0.1, in a workspace with skills and settings,
//! checked against Claude Code's documentation and the Agent Skills specification.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::scripted::{Logged, Reply, serve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

struct Workspace {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Workspace {
    fn new(skills: &[(&str, &str)], settings: Value) -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        for (name, text) in skills {
            let skill = dir.path().join(".claude/skills").join(name);
            std::fs::create_dir_all(&skill).unwrap();
            std::fs::write(skill.join("SKILL.md"), text).unwrap();
        }
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), settings.to_string()).unwrap();
        Workspace { dir, home }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn run(&self, url: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"));
        command
            .args(["agent", "--provider", "anthropic", "--json", "--trust-workspace", "--workspace"])
            .arg(self.path())
            .args(extra)
            .arg("Do the task.")
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("ANTHROPIC_BASE_URL", url)
            .env("HOME", self.home.path())
            .env_remove("SLASH_COMMAND_TOOL_CHAR_BUDGET")
            .env_remove("CLAUDE_CONFIG_DIR");
        for (k, v) in env {
            command.env(k, v);
        }
        command.output().unwrap()
    }
}

fn skill(name: &str, front: &str, body: &str) -> String {
    format!("---\nname: {name}\n{front}---\n{body}\n")
}

fn show(out: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn skill_description(request: &Logged) -> String {
    request.body["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "skill"))
        .and_then(|t| t["description"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// Runs a main agent that makes `calls` one response at a time, then stops; the log.
fn script(ws: &Workspace, calls: Vec<Value>, extra: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Logged>) {
    let (url, log) = serve(move |req| {
        let step = req.messages().len() / 2;
        match calls.get(step) {
            Some(call) => Reply::calls(vec![(call["name"].as_str().unwrap(), call["input"].clone())]),
            None => Reply::text("Done."),
        }
    });
    let out = ws.run(&url, extra, env);
    let log = log.lock().unwrap().clone();
    (out, log)
}

fn call(name: &str, input: Value) -> Value {
    json!({"name": name, "input": input})
}

#[test]
fn the_listing_shows_model_invocable_skills_and_a_call_renders_the_body_once() {
    let ws = Workspace::new(
        &[
            (
                "fix-issue",
                &skill(
                    "fix-issue",
                    "description: Fixes a GitHub issue by number\nargument-hint: [issue]\n",
                    "Fix issue $0 in ${CLAUDE_PROJECT_DIR}: $ARGUMENTS.",
                ),
            ),
            (
                "deploy",
                &skill("deploy", "description: Deploys to production\ndisable-model-invocation: true\n", "Deploy it."),
            ),
        ],
        json!({"permissions": {"allow": ["Skill"]}}),
    );
    std::fs::write(ws.path().join(".claude/skills/fix-issue/checklist.md"), "- tests\n").unwrap();
    let calls = vec![
        call("Skill", json!({"skill": "fix-issue", "args": "123 urgent"})),
        call("Skill", json!({"skill": "/fix-issue", "args": "123 urgent"})),
        call("Skill", json!({"skill": "deploy"})),
        call("Skill", json!({"skill": "fix-isue"})),
    ];
    let (out, log) = script(&ws, calls, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let description = skill_description(&log[0]);
    assert!(description.contains("- fix-issue [issue]: Fixes a GitHub issue by number"), "{description}");
    assert!(!description.contains("deploy"), "a user-only skill is listed: {description}");
    let (_, first, error) = log[1].results().remove(0);
    assert!(!error, "{first}");
    let root = ws.path();
    assert!(first.contains(&format!("Fix issue 123 in {}: 123 urgent.", root.display())), "{first}");
    assert!(first.contains("checklist.md") && first.contains("Base directory for this skill"), "{first}");
    let (_, again, _) = log[2].results().remove(0);
    assert!(again.contains("already loaded"), "{again}");
    let (_, user_only, error) = log[3].results().remove(0);
    assert!(error && user_only.contains("only be invoked by the user"), "{user_only}");
    let (_, missing, error) = log[4].results().remove(0);
    assert!(error && missing.contains("Did you mean `fix-issue`?"), "{missing}");
}

#[test]
fn bang_commands_run_only_when_a_rule_or_allowed_tools_allows_them_never_asked() {
    let ws = Workspace::new(
        &[
            ("unasked", &skill("unasked", "description: Touches a file\n", "Made: !`touch by-unasked && echo made`")),
            (
                "granted",
                &skill(
                    "granted",
                    "description: Touches a file it may\nallowed-tools: Bash(touch:*)\n",
                    "Made: !`touch by-granted`\nBlock:\n```!\necho from-block\n```\nDone.",
                ),
            ),
            ("fails", &skill("fails", "description: Fails\nallowed-tools: Bash(false)\n", "x !`false`")),
        ],
        json!({"permissions": {"allow": ["Skill"]}}),
    );
    let calls = vec![
        call("Skill", json!({"skill": "unasked"})),
        call("Skill", json!({"skill": "granted"})),
        call("Skill", json!({"skill": "fails"})),
        call("shell", json!({"command": "touch after-skill"})),
    ];
    // `--deny`: the grant must not outlive nothing else asking; a question would be
    // answered no (and the `!` commands are never put to it).
    let (out, log) = script(&ws, calls, &["--deny"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (_, unasked, error) = log[1].results().remove(0);
    assert!(
        error && unasked.contains("Shell command failed for pattern \"!`touch by-unasked && echo made`\""),
        "{unasked}"
    );
    assert!(unasked.contains("never asked"), "{unasked}");
    assert!(!ws.path().join("by-unasked").exists(), "an unallowed `!` command ran");
    let (_, granted, error) = log[2].results().remove(0);
    assert!(!error, "{granted}");
    assert!(granted.contains("Made: \nBlock:\nfrom-block\nDone.") || granted.contains("from-block"), "{granted}");
    assert!(ws.path().join("by-granted").exists());
    let (_, fails, error) = log[3].results().remove(0);
    assert!(error && fails.contains("Shell command failed for pattern \"!`false`\""), "{fails}");
    // The skill's grant holds for the run: `touch` runs without a question.
    let (_, after, error) = log[4].results().remove(0);
    assert!(!error, "{after}");
    assert!(ws.path().join("after-skill").exists());
}

#[test]
fn skill_rules_decide_which_skills_run() {
    let ws = Workspace::new(
        &[
            ("commit", &skill("commit", "description: Commits\n", "Commit.")),
            ("review", &skill("review", "description: Reviews\n", "Review $ARGUMENTS.")),
            ("secret", &skill("secret", "description: Not for the model\n", "Secret.")),
        ],
        json!({"permissions": {"allow": ["Skill(commit)", "Skill(review *)"], "deny": ["Skill(secret)"]}}),
    );
    let calls = vec![
        call("Skill", json!({"skill": "commit"})),
        call("Skill", json!({"skill": "review", "args": "PR 7"})),
        call("Skill", json!({"skill": "secret"})),
    ];
    let (out, log) = script(&ws, calls, &["--deny"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(!log[1].results()[0].2, "{:?}", log[1].results());
    let (_, review, error) = log[2].results().remove(0);
    assert!(!error && review.contains("Review PR 7."), "{review}");
    let (_, secret, error) = log[3].results().remove(0);
    assert!(error && secret.contains("denied"), "{secret}");
}

#[test]
fn the_listing_keeps_every_name_within_its_budget() {
    let mut files = Vec::new();
    for i in 0..12 {
        let name = format!("skill-{i:02}");
        files.push((
            name.clone(),
            skill(&name, &format!("description: {}\n", "A long description. ".repeat(20)), "Body."),
        ));
    }
    let skills: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let ws = Workspace::new(&skills, json!({}));
    let (out, log) = script(&ws, Vec::new(), &[], &[("SLASH_COMMAND_TOOL_CHAR_BUDGET", "1500")]);
    assert!(out.status.success(), "{}", show(&out));
    let description = skill_description(&log[0]);
    for i in 0..12 {
        assert!(description.contains(&format!("- skill-{i:02}")), "{description}");
    }
    assert!(description.contains("listed by name only"), "{description}");
    let listing = description.split("Available skills:\n").nth(1).unwrap();
    let listed: usize = listing.lines().filter(|l| l.starts_with("- ")).map(|l| l.chars().count() + 1).sum();
    assert!(listed <= 1500, "{listed} characters listed");
}

#[test]
fn skills_lists_what_is_found_and_fails_on_a_file_that_cannot_be_used() {
    let ws = Workspace::new(
        &[
            ("good", &skill("good", "description: Good\n", "Body.")),
            ("bad", &skill("bad", "description: Bad\ncontext: thread\n", "Body.")),
        ],
        json!({}),
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["skills", "--trust-workspace", "--cwd"])
        .arg(ws.path())
        .env("HOME", ws.home.path())
        .output()
        .unwrap();
    let text = show(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("good (project)"), "{text}");
    assert!(text.contains("bad/SKILL.md: `context`"), "{text}");
    // Untrusted: nothing of the workspace's, each one said.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["skills", "--cwd"])
        .arg(ws.path())
        .env("HOME", ws.home.path())
        .output()
        .unwrap();
    let text = show(&out);
    assert!(text.starts_with("0 skills") && text.contains("not used until the workspace is trusted"), "{text}");
    let _ = Path::new("");
}

#[test]
fn ask_user_question_is_answered_by_a_hook_or_says_no_one_is_there() {
    let question = json!({"questions": [{
        "question": "Which date library should we use?", "header": "Library", "multiSelect": false,
        "options": [{"label": "chrono", "description": "The usual one"}, {"label": "time", "description": "Smaller"}]
    }]});
    // Headless: nobody to ask.
    let ws = Workspace::new(&[], json!({}));
    let (out, log) = script(&ws, vec![call("AskUserQuestion", question.clone())], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (_, text, error) = log[1].results().remove(0);
    assert!(error && text.contains("no one is there to answer"), "{text}");
    // A PreToolUse hook answers, as Claude Code's hosts do (`updatedInput` with
    // `answers`).
    let answered = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": {"questions": question["questions"], "answers": {"Which date library should we use?": "time"}}
    }});
    let hook = format!("printf '%s' '{}'", answered.to_string().replace('\'', "'\\''"));
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": hook}]}]}});
    let ws = Workspace::new(&[], settings);
    let bad = json!({"questions": [{"question": "Pick?", "header": "A header too long", "options": [{"label": "a", "description": ""}, {"label": "Other", "description": ""}]}]});
    let (out, log) = script(&ws, vec![call("AskUserQuestion", question), call("AskUserQuestion", bad)], &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (_, text, error) = log[1].results().remove(0);
    assert!(!error, "{text}");
    assert!(text.contains(r#""Which date library should we use?"="time""#), "{text}");
    let (_, text, error) = log[2].results().remove(0);
    assert!(error && text.contains("`header` is 1 to 12 characters"), "{text}");
}

/// A main agent for plan mode: enters it, tries an edit, writes the plan where it is
/// told, presents it, then edits.
fn plan_script() -> impl Fn(&Logged) -> Reply + Send + Sync + 'static {
    move |req: &Logged| {
        let results = req.results();
        match req.messages().len() / 2 {
            0 => Reply::calls(vec![("EnterPlanMode", json!({}))]),
            1 => Reply::calls(vec![("Write", json!({"file_path": "src.txt", "content": "too early"}))]),
            2 => {
                let earlier = &req.messages()[2];
                let text =
                    earlier["content"][0]["content"].as_str().map(str::to_owned).unwrap_or_else(|| earlier.to_string());
                let path = text
                    .split("Markdown to ")
                    .nth(1)
                    .and_then(|rest| rest.split(", then").next())
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                Reply::calls(vec![("Write", json!({"file_path": path, "content": "# Plan\n1. Write src.txt"}))])
            }
            3 => Reply::calls(vec![("ExitPlanMode", json!({}))]),
            4 => Reply::calls(vec![("Write", json!({"file_path": "src.txt", "content": "after the plan"}))]),
            _ => Reply::text(format!("Done: {results:?}")),
        }
    }
}

#[test]
fn plan_mode_blocks_edits_until_the_plan_is_approved() {
    // Hooks see the plan and its file, as Claude Code injects them.
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "ExitPlanMode", "hooks": [{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/hook-input.json\""}]}]}});
    let ws = Workspace::new(&[], settings);
    let (url, log) = serve(plan_script());
    let out = ws.run(&url, &["--yes"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let (_, early, error) = log[2].results().remove(0);
    assert!(error && early.contains("plan mode does not change files"), "{early}");
    let (_, plan_write, error) = log[3].results().remove(0);
    assert!(!error, "the plan file is writable in plan mode: {plan_write}");
    let (_, approved, error) = log[4].results().remove(0);
    assert!(!error && approved.contains("1. Write src.txt") && approved.contains("default mode"), "{approved}");
    let (_, after, error) = log[5].results().remove(0);
    assert!(!error, "{after}");
    assert_eq!(std::fs::read_to_string(ws.path().join("src.txt")).unwrap(), "after the plan");
    let hook: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path().join("hook-input.json")).unwrap()).unwrap();
    assert_eq!(hook["tool_input"]["plan"], "# Plan\n1. Write src.txt", "{hook}");
    assert!(hook["tool_input"]["planFilePath"].as_str().unwrap().ends_with(".md"), "{hook}");
    assert_eq!(hook["permission_mode"], "plan", "{hook}");
}

#[test]
fn a_plan_not_approved_keeps_plan_mode() {
    let ws = Workspace::new(&[], json!({}));
    let (url, log) = serve(plan_script());
    let out = ws.run(&url, &["--deny"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let (_, refused, error) = log[4].results().remove(0);
    assert!(error && refused.contains("exit_plan_mode") && refused.contains("no"), "{refused}");
    let (_, still, error) = log[5].results().remove(0);
    assert!(error && still.contains("plan mode does not change files"), "{still}");
    assert!(!ws.path().join("src.txt").exists());
    // Outside plan mode there is nothing to approve.
    let (out, log) = script(&ws, vec![call("ExitPlanMode", json!({"plan": "x"}))], &["--yes"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (_, text, error) = log[1].results().remove(0);
    assert!(error && text.contains("not in plan mode"), "{text}");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn repo(ws: &Workspace) {
    let root = ws.path();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("README.md"), "hello\n").unwrap();
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "add", "README.md"]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first"]);
}

#[test]
fn worktrees_move_the_session_and_are_removed_only_when_clean() {
    let ws = Workspace::new(&[], json!({"permissions": {"allow": ["Edit", "Bash(git commit:*)", "Bash(git add:*)"]}}));
    repo(&ws);
    let calls = vec![
        call("EnterWorktree", json!({"name": "feature/x"})),
        call("Write", json!({"file_path": "new.txt", "content": "in the worktree"})),
        call("ExitWorktree", json!({"action": "remove"})),
        call("ExitWorktree", json!({"action": "keep"})),
        call("EnterWorktree", json!({"name": "scratch"})),
        call("ExitWorktree", json!({"action": "remove"})),
        call("ExitWorktree", json!({"action": "remove"})),
    ];
    let (out, log) = script(&ws, calls, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let root = ws.path();
    let worktree = root.join(".claude/worktrees/feature/x");
    let (_, entered, error) = log[1].results().remove(0);
    assert!(!error && entered.contains("worktree-feature-x"), "{entered}");
    // The write went to the worktree, not the main checkout.
    assert_eq!(std::fs::read_to_string(worktree.join("new.txt")).unwrap(), "in the worktree");
    assert!(!root.join("new.txt").exists());
    // Work in it: removal refused, listing what would be lost.
    let (_, refused, error) = log[3].results().remove(0);
    assert!(error && refused.contains("uncommitted: new.txt") && refused.contains("discard_changes"), "{refused}");
    assert!(worktree.exists());
    let (_, kept, error) = log[4].results().remove(0);
    assert!(!error && kept.contains("kept"), "{kept}");
    assert!(worktree.join("new.txt").exists());
    // A clean one is removed with its branch.
    let (_, removed, error) = log[6].results().remove(0);
    assert!(!error && removed.contains("Removed the worktree"), "{removed}");
    assert!(!root.join(".claude/worktrees/scratch").exists());
    assert!(!git(&root, &["branch", "--list"]).contains("worktree-scratch"));
    // After leaving, there is nothing to leave.
    let (_, nothing, error) = log[7].results().remove(0);
    assert!(!error && nothing.contains("nothing to do"), "{nothing}");
}

#[test]
fn a_worktree_needs_a_repository_and_a_good_name() {
    let ws = Workspace::new(&[], json!({}));
    let calls = vec![call("EnterWorktree", json!({})), call("EnterWorktree", json!({"name": "../escape"}))];
    let (out, log) = script(&ws, calls, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let (_, text, error) = log[1].results().remove(0);
    assert!(error && text.contains("not in a git repository"), "{text}");
    let (_, text, error) = log[2].results().remove(0);
    assert!(error && text.contains("is not a worktree name"), "{text}");
}

#[test]
fn scheduled_prompts_fire_between_turns_and_durable_ones_are_kept() {
    let ws = Workspace::new(&[], json!({}));
    // A one-shot at the next whole minute (local time, as Claude Code's are).
    let out = std::process::Command::new("date").arg("+%M %H").output().unwrap();
    let now = String::from_utf8_lossy(&out.stdout);
    let (minute, hour): (u32, u32) = {
        let mut parts = now.split_whitespace().map(|p| p.parse::<u32>().unwrap());
        (parts.next().unwrap(), parts.next().unwrap())
    };
    let (minute, hour) = if minute == 59 { (0, (hour + 1) % 24) } else { (minute + 1, hour) };
    let once = format!("{minute} {hour} * * *");
    let (url, log) = serve(move |req: &Logged| {
        let last = req.last_user_text();
        if last.contains("Time to check the build") {
            return Reply::text("Checked the build.");
        }
        match req.messages().len() {
            1 => Reply::calls(vec![
                ("CronCreate", json!({"cron": once, "prompt": "Time to check the build", "recurring": false})),
                ("CronCreate", json!({"cron": "0 9 * * 1-5", "prompt": "Standup notes", "durable": true})),
                ("CronCreate", json!({"cron": "0 9 * * MON", "prompt": "bad"})),
            ]),
            3 => Reply::calls(vec![("CronList", json!({}))]),
            _ => Reply::text("Scheduled."),
        }
    });
    let started = std::time::Instant::now();
    let out = ws.run(&url, &["--schedule-window", "90"], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let log = log.lock().unwrap().clone();
    let results = log[1].results();
    assert!(!results[0].2 && results[0].1.contains("once"), "{:?}", results[0]);
    assert!(!results[1].2 && results[1].1.contains("Kept in"), "{:?}", results[1]);
    assert!(results[2].2 && results[2].1.contains("no names"), "{:?}", results[2]);
    let (_, listed, _) = log[2].results().remove(0);
    assert!(listed.contains("Time to check the build") && listed.contains("Standup notes"), "{listed}");
    // The fire came after the model's last turn ended, as a user message of its own.
    let fired: Vec<&Logged> = log.iter().filter(|l| l.last_user_text() == "Time to check the build").collect();
    assert_eq!(fired.len(), 1, "{}", show(&out));
    let before = &fired[0].messages()[fired[0].messages().len() - 2];
    assert_eq!(before["role"], "assistant");
    assert!(started.elapsed() < std::time::Duration::from_secs(80));
    // The durable one is in the workspace, for later sessions.
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path().join(".claude/scheduled_tasks.json")).unwrap())
            .unwrap();
    assert_eq!(kept[0]["prompt"], "Standup notes");
}

/// A plugin folder with a skill, a command, an agent, a hook and an MCP server.
fn plugin(dir: &Path) -> PathBuf {
    let root = dir.join("kit");
    let write = |path: &str, text: &str| {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(".claude-plugin/plugin.json", r#"{"name": "kit", "version": "1.2.0", "description": "A test kit"}"#);
    write(
        "skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews the diff\n---\nReview it from ${CLAUDE_PLUGIN_ROOT}.\n",
    );
    write("commands/lint.md", "Run the linter.");
    write(
        "agents/checker.md",
        "---\nname: checker\ndescription: Checks things\npermissionMode: bypassPermissions\n---\nYou check.\n",
    );
    write(
        "hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Skill", "hooks": [{"type": "command", "command": "touch \"$CLAUDE_PROJECT_DIR/hooked\" && test -d ${CLAUDE_PLUGIN_ROOT}/skills"}]}]}}"#,
    );
    let server =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/peers/raw_server.py")).unwrap();
    write("server.py", &server);
    write(
        ".mcp.json",
        r#"{"mcpServers": {"raw": {"command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}}}"#,
    );
    root
}

#[test]
fn a_plugin_brings_its_skills_commands_agents_hooks_and_mcp_servers() {
    let ws = Workspace::new(&[], json!({"permissions": {"allow": ["Skill", "mcp__plugin_kit_raw"]}}));
    let root = plugin(ws.home.path());
    let dir = root.to_string_lossy().into_owned();
    let calls = vec![
        call("Skill", json!({"skill": "kit:review"})),
        call("mcp__plugin_kit_raw__echo", json!({"text": "from the plugin"})),
    ];
    let (out, log) = script(&ws, calls, &["--plugin-dir", &dir], &[]);
    assert!(out.status.success(), "{}", show(&out));
    let description = skill_description(&log[0]);
    assert!(
        description.contains("- kit:review: Reviews the diff") && description.contains("- kit:lint"),
        "{description}"
    );
    let agent = log[0].body["tools"].as_array().unwrap().iter().find(|t| t["name"] == "agent").unwrap().to_string();
    assert!(agent.contains("kit:checker"), "{agent}");
    let (_, skill, error) = log[1].results().remove(0);
    assert!(
        !error && skill.contains(&format!("Review it from {}.", root.canonicalize().unwrap().display())),
        "{skill}"
    );
    assert!(ws.path().join("hooked").exists(), "the plugin's hook did not run");
    let (_, echoed, error) = log[2].results().remove(0);
    assert!(!error && echoed.contains("from the plugin"), "{echoed}");
    // The agent's permissionMode is not a plugin agent's to set.
    let listing = std::process::Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agents", "--plugin-dir", &dir, "--cwd"])
        .arg(ws.path())
        .env("HOME", ws.home.path())
        .output()
        .unwrap();
    let text = show(&listing);
    assert!(
        text.contains("kit:checker") && text.contains("`permissionMode`: is not allowed in a plugin's agent"),
        "{text}"
    );
}

#[test]
fn a_skills_hooks_run_once_it_is_invoked() {
    let front = "description: Guards the shell\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo seen >> \"$CLAUDE_PROJECT_DIR/guarded\"\n";
    let ws = Workspace::new(
        &[("guard", &skill("guard", front, "Guarding."))],
        json!({"permissions": {"allow": ["Skill", "Bash(echo:*)"]}}),
    );
    let calls = vec![
        call("Bash", json!({"command": "echo before"})),
        call("Skill", json!({"skill": "guard"})),
        call("Bash", json!({"command": "echo after"})),
    ];
    let (out, _) = script(&ws, calls, &[], &[]);
    assert!(out.status.success(), "{}", show(&out));
    // The hook ran for the call after the skill, not the one before.
    assert_eq!(std::fs::read_to_string(ws.path().join("guarded")).unwrap_or_default(), "seen\n", "{}", show(&out));
}
