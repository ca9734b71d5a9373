//! `mcpCallers` in the settings: each authenticated caller of `serve --http` is
//! offered the tools of its profile and runs under its rules on top of the
//! workspace's, by its name or by a scope of its token.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/issuer.rs"]
mod issuer;
#[path = "support/serve.rs"]
mod serve;

use common::stateless::request;
use serde_json::{Value, json};
use serve::HttpServe;

const CI: &str = "ci-secret-0123456789abcdef";
const ALICE: &str = "alice-secret-0123456789abcdef";

fn names(listed: &Value) -> Vec<String> {
    listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn text(result: &Value) -> String {
    result["result"]["content"].to_string()
}

#[test]
fn each_caller_gets_the_tools_and_rules_of_its_profile() {
    let (ws, home) = common::workspace();
    std::fs::write(ws.path().join("secret.txt"), "the secret\n").unwrap();
    std::fs::create_dir_all(ws.path().join(".toolwright")).unwrap();
    let settings = json!({
        "permissions": {"allow": ["Read"]},
        "mcpCallers": {
            "ci": {"tools": ["read_file", "grep"]},
            "*": {"permissions": {"deny": ["Read(secret.txt)"]}},
        }
    });
    std::fs::write(ws.path().join(".toolwright/settings.json"), settings.to_string()).unwrap();
    let serve = HttpServe::start_with_env(
        ws.path(),
        home.path(),
        &["--no-mcp", "--token-env", "ci=CI_TOKEN", "--token-env", "alice=ALICE_TOKEN"],
        &[("CI_TOKEN", CI), ("ALICE_TOKEN", ALICE)],
    );
    let as_ci = format!("Bearer {CI}");
    let as_alice = format!("Bearer {ALICE}");
    let ci = [("Authorization", as_ci.as_str())];
    let alice = [("Authorization", as_alice.as_str())];

    // ci is offered its two tools, alice everything.
    let (_, listed) = request(&serve.addr, "tools/list", json!({}), &ci);
    assert_eq!(names(&listed), ["grep", "read_file"], "{listed}");
    let (_, listed) = request(&serve.addr, "tools/list", json!({}), &alice);
    assert!(names(&listed).len() > 5 && names(&listed).contains(&"write_file".to_owned()), "{listed}");

    // ci cannot call another tool; the refusal names the profile.
    let write = json!({"name": "write_file", "arguments": {"path": "new.txt", "content": "x"}});
    let (_, refused) = request(&serve.addr, "tools/call", write, &ci);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(text(&refused).contains("mcpCallers.ci"), "{refused}");
    assert!(!ws.path().join("new.txt").exists());

    // ci (named) is not under `*`: it reads the secret; alice (`*`) may not.
    let read = json!({"name": "read_file", "arguments": {"path": "secret.txt"}});
    let (_, by_ci) = request(&serve.addr, "tools/call", read.clone(), &ci);
    assert!(text(&by_ci).contains("the secret"), "{by_ci}");
    let (_, by_alice) = request(&serve.addr, "tools/call", read, &alice);
    assert_eq!(by_alice["result"]["isError"], true, "{by_alice}");
    assert!(!text(&by_alice).contains("the secret"), "{by_alice}");
    let (_, hello) =
        request(&serve.addr, "tools/call", json!({"name": "read_file", "arguments": {"path": "hello.txt"}}), &alice);
    assert!(text(&hello).contains("hello from the workspace"), "{hello}");
}

#[test]
fn a_token_scope_selects_a_profile() {
    let issuer = issuer::Issuer::start();
    let (ws, home) = common::workspace();
    std::fs::create_dir_all(ws.path().join(".toolwright")).unwrap();
    let settings = json!({"mcpCallers": {"scope:tools:read": {"tools": ["read_file", "list_dir"]}}});
    std::fs::write(ws.path().join(".toolwright/settings.json"), settings.to_string()).unwrap();
    let serve = HttpServe::start(ws.path(), home.path(), &["--no-mcp", "--oauth-issuer", &issuer.url]);
    let reader = issuer.es256(&issuer.claims(&serve.url(), "tools:read"), Some("ec-1"));
    let other = issuer.es256(&issuer.claims(&serve.url(), "tools:all"), Some("ec-1"));
    let (status, listed) =
        request(&serve.addr, "tools/list", json!({}), &[("Authorization", &format!("Bearer {reader}"))]);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(names(&listed), ["list_dir", "read_file"]);
    let (_, listed) = request(&serve.addr, "tools/list", json!({}), &[("Authorization", &format!("Bearer {other}"))]);
    assert!(names(&listed).contains(&"shell".to_owned()), "{listed}");
}

#[test]
fn a_malformed_profile_is_an_error_naming_the_file_and_key() {
    let (ws, home) = common::workspace();
    std::fs::create_dir_all(ws.path().join(".toolwright")).unwrap();
    std::fs::write(ws.path().join(".toolwright/settings.json"), r#"{"mcpCallers": {"ci": {"tool": ["x"]}}}"#).unwrap();
    let stderr = serve::refused(ws.path(), home.path(), "127.0.0.1:0", &["--no-mcp"], &[]);
    assert!(stderr.contains("settings.json") && stderr.contains("mcpCallers.ci"), "{stderr}");
}
