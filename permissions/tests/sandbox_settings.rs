//! Claude Code's `sandbox` settings key read from real settings files, and how a
//! confined command's permission differs (`autoAllowBashIfSandboxed`).
#![allow(missing_docs)]

mod support;

use serde_json::json;
use std::path::{Path, PathBuf};
use support::decide;
use toolwright_core::permission::PermissionDecision;
use toolwright_core::sandbox::SandboxMode;
use toolwright_permissions::RulePolicy;
use toolwright_permissions::rule::Source;
use toolwright_permissions::settings;

fn policy_with(dir: &Path, home: &Path, project: serde_json::Value, user: Option<serde_json::Value>) -> RulePolicy {
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::write(dir.join(".claude/settings.json"), project.to_string()).unwrap();
    let mut files = vec![];
    if let Some(user) = user {
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(home.join(".claude/settings.json"), user.to_string()).unwrap();
        files.push((Source::User, home.join(".claude/settings.json")));
    }
    files.push((Source::Project, dir.join(".claude/settings.json")));
    settings::Settings::new(dir)
        .with_home(Some(home.to_owned()))
        .with_managed(vec![])
        .with_trust(settings::Trust::Trusted)
        .policy()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let home = root.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    (root, ws, home)
}

#[test]
fn the_sandbox_key_is_read_merged_and_what_has_no_meaning_is_named() {
    let (_root, ws, home) = dirs();
    let policy = policy_with(
        &ws,
        &home,
        json!({
            "permissions": {"deny": ["Read(./secrets/**)", "Read(**/.env)", "Read(~/.ssh)"]},
            "sandbox": {
                "enabled": true,
                "failIfUnavailable": true,
                "excludedCommands": ["docker"],
                "allowUnsandboxedCommands": false,
                "filesystem": {"allowWrite": ["./out", "/tmp/build", "~/.kube"], "denyWrite": ["./locked"], "disabled": true},
                "network": {
                    "allowedDomains": ["github.com", "*.npmjs.org:443", "2001:db8::1:443", "ex*ample.com"],
                    "deniedDomains": ["uploads.github.com"],
                    "httpProxyPort": 8080,
                    "socksProxyPort": 0,
                    "allowAllUnixSockets": true,
                    "allowLocalBinding": true
                },
                "credentials": {"envVars": [{"name": "GITHUB_TOKEN", "mode": "deny"}]},
                "colour": "blue"
            }
        }),
        Some(json!({"sandbox": {"excludedCommands": ["podman"], "filesystem": {"allowWrite": ["cache"]}}})),
    );
    let sandbox = policy.sandbox_for(&ws).expect("configured");
    assert_eq!(sandbox.mode, SandboxMode::Required);
    assert!(sandbox.filesystem, "a project file cannot turn filesystem isolation off");
    assert!(sandbox.auto_allow && !sandbox.allow_unsandboxed && sandbox.unix_sockets);
    assert_eq!(sandbox.excluded_commands, ["podman", "docker"], "lists from every file add up");
    assert_eq!(
        sandbox.writable,
        [home.join(".claude/cache"), ws.join("out"), PathBuf::from("/tmp/build"), home.join(".kube")],
        "user paths are relative to ~/.claude, project paths to the project"
    );
    assert_eq!(sandbox.write_denied, [ws.join("locked")]);
    assert_eq!(sandbox.env_denied, ["GITHUB_TOKEN"]);
    // The rules' Read denials: a named path as it is, `**/.env` as what matches it now.
    assert!(sandbox.read_denied.contains(&ws.join("secrets")), "{:?}", sandbox.read_denied);
    assert!(sandbox.read_denied.contains(&home.join(".ssh")), "{:?}", sandbox.read_denied);
    assert_eq!(sandbox.read_denied.len(), 2, "no .env yet: {:?}", sandbox.read_denied);
    std::fs::create_dir_all(ws.join("app/deep")).unwrap();
    std::fs::write(ws.join("app/deep/.env"), "KEY=1").unwrap();
    std::fs::write(ws.join(".env"), "KEY=2").unwrap();
    let sandbox = policy.sandbox_for(&ws).unwrap();
    assert!(sandbox.read_denied.contains(&ws.join("app/deep/.env")), "{:?}", sandbox.read_denied);
    assert!(sandbox.read_denied.contains(&ws.join(".env")), "{:?}", sandbox.read_denied);
    let warnings = policy.warnings().join("\n");
    for key in [
        "sandbox.colour",
        "sandbox.network.socksProxyPort",
        "sandbox.network.allowLocalBinding",
        "sandbox.filesystem.disabled",
        "sandbox.network.allowedDomains[2]",
        "sandbox.network.allowedDomains[3]",
    ] {
        assert!(warnings.contains(&format!("`{key}`")), "no warning names {key}:\n{warnings}");
    }
    assert!(!warnings.contains("`sandbox.network.httpProxyPort`"), "{warnings}");
    // The domain lists: as written, an ambiguous IPv6 entry narrowed to its port reading.
    let allowed: Vec<String> = sandbox.allowed_domains.iter().map(ToString::to_string).collect();
    assert_eq!(allowed, ["github.com", "*.npmjs.org:443", "[2001:db8::1]:443"]);
    assert_eq!(sandbox.http_proxy_port, Some(8080));
    assert_eq!(sandbox.socks_proxy_port, None);
    let host = |h: &str| toolwright_core::sandbox::RequestedHost::parse(h).unwrap();
    assert!(sandbox.admits(&host("github.com"), 22));
    assert!(sandbox.admits(&host("registry.npmjs.org"), 443));
    assert!(!sandbox.admits(&host("registry.npmjs.org"), 80));
    assert!(!sandbox.admits(&host("uploads.github.com"), 443), "denied stays denied");
    assert!(!sandbox.admits(&host("example.com"), 443));
}

#[test]
fn enabled_false_turns_it_off_and_no_key_leaves_the_default() {
    let (_root, ws, home) = dirs();
    let off = policy_with(&ws, &home, json!({"sandbox": {"enabled": false}}), None);
    assert_eq!(off.sandbox_for(&ws).unwrap().mode, SandboxMode::Off);
    let none = policy_with(&ws, &home, json!({"permissions": {"allow": []}}), None);
    assert!(none.sandbox_for(&ws).is_none(), "the shell's default applies");
    let bad = policy_with(&ws, &home, json!({"sandbox": {"enabled": "yes", "excludedCommands": "docker"}}), None);
    let warnings = bad.warnings().join("\n");
    assert!(warnings.contains("`sandbox.enabled` is not true or false"), "{warnings}");
    assert!(warnings.contains("`sandbox.excludedCommands` is not a list"), "{warnings}");
}

/// The policy of a managed file and an untrusted (or trusted) project file.
fn managed_and_project(ws: &Path, managed: serde_json::Value, project: serde_json::Value, trusted: bool) -> RulePolicy {
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(ws.join("managed.json"), managed.to_string()).unwrap();
    std::fs::write(ws.join(".claude/settings.json"), project.to_string()).unwrap();
    let files = vec![(Source::Managed, ws.join("managed.json")), (Source::Project, ws.join(".claude/settings.json"))];
    let trust = if trusted { settings::Trust::Trusted } else { settings::Trust::Untrusted };
    settings::policy_from_files_with(ws, &files, trust).unwrap()
}

#[test]
fn an_untrusted_workspace_cannot_loosen_the_sandbox() {
    let (_root, ws, _home) = dirs();
    // A cloned repository turns the sandbox off and opens it up: none of it is used.
    let loose = json!({"sandbox": {
        "enabled": false, "failIfUnavailable": false, "allowUnsandboxedCommands": true,
        "autoAllowBashIfSandboxed": true, "excludedCommands": ["bash"],
        "filesystem": {"allowWrite": ["/"], "allowRead": ["/"], "denyWrite": ["./locked"]},
        "network": {"allowedDomains": ["evil.example"], "allowAllUnixSockets": true, "httpProxyPort": 8080}
    }});
    let policy = managed_and_project(&ws, json!({}), loose.clone(), false);
    let sandbox = policy.sandbox_for(&ws).expect("configured");
    assert_ne!(sandbox.mode, SandboxMode::Off, "the sandbox stays on");
    assert!(!sandbox.auto_allow && !sandbox.unix_sockets && sandbox.http_proxy_port.is_none());
    assert!(sandbox.writable.is_empty() && sandbox.read_allowed.is_empty() && sandbox.allowed_domains.is_empty());
    assert!(sandbox.excluded_commands.is_empty());
    assert_eq!(sandbox.write_denied, [ws.join("locked")], "what restricts applies");
    let held = policy.warnings().iter().filter(|w| w.contains("not used until this workspace is trusted")).count();
    assert_eq!(held, 10, "{:?}", policy.warnings());
    // Its `enabled: true` confines, but does not auto-allow its commands.
    let on = managed_and_project(&ws, json!({}), json!({"sandbox": {"enabled": true}}), false);
    let sandbox = on.sandbox_for(&ws).unwrap();
    assert!(sandbox.mode != SandboxMode::Off && !sandbox.auto_allow);
    // Trusted, they apply.
    let trusted = managed_and_project(&ws, json!({}), loose, true);
    assert_eq!(trusted.sandbox_for(&ws).unwrap().mode, SandboxMode::Off);
}

#[test]
fn a_managed_sandbox_value_wins_over_a_projects() {
    let (_root, ws, _home) = dirs();
    let managed = json!({"sandbox": {"enabled": true, "allowUnsandboxedCommands": false, "failIfUnavailable": true}});
    let project = json!({"sandbox": {"enabled": false, "allowUnsandboxedCommands": true, "failIfUnavailable": false}});
    let policy = managed_and_project(&ws, managed, project, true);
    let sandbox = policy.sandbox_for(&ws).unwrap();
    assert_eq!(sandbox.mode, SandboxMode::Required, "managed failIfUnavailable");
    assert!(!sandbox.allow_unsandboxed && sandbox.auto_allow, "managed enabled, no unsandboxed commands");
}

#[test]
fn a_confined_command_is_allowed_where_an_unconfined_one_would_ask() {
    let (_root, ws, home) = dirs();
    let ask = |decision: &PermissionDecision| matches!(decision, PermissionDecision::Ask(_));
    let command = |c: &str| json!({"command": c});
    // Without the sandbox enabled: asks.
    let plain = policy_with(&ws, &home, json!({}), None);
    assert!(ask(&decide(&plain, "shell", &command("touch made.txt"), &ws)));
    let enabled = policy_with(
        &ws,
        &home,
        json!({
            "permissions": {"deny": ["Bash(curl *)"], "ask": ["Bash(git push *)"]},
            "sandbox": {"enabled": true, "excludedCommands": ["docker"]}
        }),
        None,
    );
    assert_eq!(decide(&enabled, "shell", &command("touch made.txt"), &ws), PermissionDecision::Allow);
    // Deny rules and content-specific ask rules still hold.
    assert!(matches!(decide(&enabled, "shell", &command("curl https://x"), &ws), PermissionDecision::Deny(_)));
    assert!(matches!(decide(&enabled, "shell", &command("git push origin"), &ws), PermissionDecision::AskRule(_)));
    // An excluded command, and one asking to run unconfined, go through the rules.
    assert!(ask(&decide(&enabled, "shell", &command("docker run x"), &ws)));
    let unconfined = json!({"command": "touch made.txt", "dangerously_disable_sandbox": true});
    assert!(ask(&decide(&enabled, "shell", &unconfined, &ws)));
    // autoAllowBashIfSandboxed: false keeps the questions.
    let asking =
        policy_with(&ws, &home, json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": false}}), None);
    assert!(ask(&decide(&asking, "shell", &command("touch made.txt"), &ws)));
    // A bare `Bash` ask rule is skipped for a confined command.
    let bare = policy_with(&ws, &home, json!({"permissions": {"ask": ["Bash"]}, "sandbox": {"enabled": true}}), None);
    assert_eq!(decide(&bare, "shell", &command("touch made.txt"), &ws), PermissionDecision::Allow);
    // With the escape hatch closed, asking to run unconfined is ignored: still confined, still allowed.
    let strict =
        policy_with(&ws, &home, json!({"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}), None);
    assert_eq!(decide(&strict, "shell", &unconfined, &ws), PermissionDecision::Allow);
}

#[test]
fn a_read_deny_rule_holds_inside_the_sandbox_where_the_rules_cannot_see_the_path() {
    use std::sync::Arc;
    use toolwright_core::{Executor, ToolCall, TurnContext};
    let (_root, ws, home) = dirs();
    std::fs::create_dir_all(ws.join("deep")).unwrap();
    std::fs::write(ws.join("deep/.env"), "API_KEY=hunter2").unwrap();
    let policy = policy_with(
        &ws,
        &home,
        json!({"permissions": {"deny": ["Read(**/.env)"], "defaultMode": "bypassPermissions"}}),
        None,
    );
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let executor = Executor::builder(registry).policy(policy).build();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    // The path is built at run time: no rule can see it in the command line.
    let command = "python3 -c \"print(open('deep/' + '.e' + 'nv').read())\"";
    let call = ToolCall::new("1", "shell", json!({"command": command}).to_string());
    let turn = TurnContext::new(&ws).with_extensions(toolwright_builtin::session());
    let result = rt.block_on(executor.execute(&call, &turn));
    let text = result.output.text_content();
    assert!(!text.contains("hunter2"), "the sandbox let the denied file be read: {text}");
    assert!(text.contains("Blocked by the sandbox"), "{text}");
}

#[test]
fn webfetch_domain_rules_feed_the_sandbox_network_lists() {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use toolwright_core::{Executor, ToolCall, TurnContext};
    let (_root, ws, home) = dirs();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.read(&mut [0u8; 4096]);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        }
    });
    let policy = policy_with(
        &ws,
        &home,
        json!({
            "permissions": {
                "allow": ["WebFetch(domain:localhost)", "WebFetch(domain:example.*)", "Bash"],
                "deny": ["WebFetch(domain:evil.example.com)"]
            },
            "sandbox": {"enabled": true}
        }),
        None,
    );
    let sandbox = policy.sandbox_for(&ws).unwrap();
    let allowed: Vec<String> = sandbox.allowed_domains.iter().map(ToString::to_string).collect();
    assert_eq!(allowed, ["localhost"], "a pattern the lists cannot spell joins neither");
    let denied: Vec<String> = sandbox.denied_domains.iter().map(ToString::to_string).collect();
    assert_eq!(denied, ["evil.example.com"]);
    // A confined command reaches the host the WebFetch rule allows, through the proxy.
    let registry = Arc::new(toolwright_builtin::registry().unwrap());
    let executor = Executor::builder(registry).policy(policy).build();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let turn = TurnContext::new(&ws).with_extensions(toolwright_builtin::session());
    let fetch = |url: String| {
        let call =
            ToolCall::new("1", "shell", json!({"command": format!("curl -fsS --max-time 10 {url}")}).to_string());
        rt.block_on(executor.execute(&call, &turn)).output.text_content()
    };
    let text = fetch(format!("http://localhost:{port}/"));
    assert!(text.contains("hello"), "{text}");
    let text = fetch(format!("http://127.0.0.1:{port}/"));
    assert!(text.contains("Blocked by the sandbox") && !text.contains("hello"), "{text}");
}

#[test]
fn allow_managed_domains_only_keeps_the_managed_allow_list_and_every_deny() {
    use toolwright_permissions::sandbox::SandboxSettings;
    let (_root, ws, home) = dirs();
    let mut settings = SandboxSettings::default();
    let managed = json!({"network": {"allowManagedDomainsOnly": true, "allowedDomains": ["github.com"]}});
    let user = json!({"network": {"allowedDomains": ["evil.example"], "deniedDomains": ["gist.github.com"]}});
    let project = json!({"network": {"allowManagedDomainsOnly": false, "allowedDomains": ["npmjs.org"]}});
    settings.add(&managed, Source::Managed, Path::new("managed.json"), &ws, Some(&home));
    settings.add(&user, Source::User, Path::new("user.json"), &ws, Some(&home));
    settings.add(&project, Source::Project, Path::new("project.json"), &ws, Some(&home));
    let sandbox = settings.resolve(Vec::new()).unwrap();
    let allowed: Vec<String> = sandbox.allowed_domains.iter().map(ToString::to_string).collect();
    assert_eq!(allowed, ["github.com"], "only managed settings widen the list");
    let denied: Vec<String> = sandbox.denied_domains.iter().map(ToString::to_string).collect();
    assert_eq!(denied, ["gist.github.com"], "anyone may narrow it");
    let warnings = settings.warnings.join("\n");
    assert!(
        warnings.contains("project.json: `sandbox.network.allowManagedDomainsOnly` is honoured only from managed"),
        "{warnings}"
    );
}
