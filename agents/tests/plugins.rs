//! Claude Code plugin folders read from disk (its plugins reference): the manifest,
//! the default folders, `${CLAUDE_PLUGIN_ROOT}`, and a problem for each bad part.

use std::path::Path;
use toolwright_agents::Severity;
use toolwright_agents::plugins::Plugins;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_manifest_names_the_plugin_and_its_paths_stay_inside() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("folder-name");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "deploy-kit", "commands": ["./cmds", "../outside", "cmds2"], "mcpServers": "./servers.json", "colour": "red"}"#,
    );
    write(&root.join("servers.json"), r#"{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db"}}}"#);
    let plugins = Plugins::load(std::slice::from_ref(&root));
    let plugin = &plugins.plugins()[0];
    let root = root.canonicalize().unwrap();
    assert_eq!(plugin.name, "deploy-kit");
    assert_eq!(plugin.command_dirs, [root.join("cmds")]);
    assert_eq!(plugin.agent_dirs, [root.join("agents")]);
    assert_eq!(plugin.mcp_servers.as_ref().unwrap()["db"]["command"], format!("{}/bin/db", root.display()));
    assert_eq!(plugin.server_name("db"), "plugin_deploy-kit_db");
    let keys: Vec<_> = plugins.problems().iter().map(|p| (p.key.clone().unwrap_or_default(), p.severity)).collect();
    assert!(keys.contains(&("commands".into(), Severity::Warning)), "{keys:?}");
    assert!(keys.contains(&("colour".into(), Severity::Warning)), "{keys:?}");
}

#[test]
fn a_plugin_that_cannot_be_used_is_an_error_naming_why() {
    let dir = tempfile::tempdir().unwrap();
    let bad_name = dir.path().join("a");
    write(&bad_name.join(".claude-plugin/plugin.json"), r#"{"name": "Not Kebab"}"#);
    let no_name = dir.path().join("b");
    write(&no_name.join(".claude-plugin/plugin.json"), r#"{"version": "1"}"#);
    let broken = dir.path().join("c");
    write(&broken.join(".claude-plugin/plugin.json"), "{not json");
    let missing = dir.path().join("nowhere");
    let plugins = Plugins::load(&[bad_name, no_name, broken, missing]);
    assert!(plugins.plugins().is_empty());
    assert_eq!(
        plugins.problems().iter().filter(|p| p.severity == Severity::Error).count(),
        4,
        "{:?}",
        plugins.problems()
    );
    // Without a manifest, the folder names the plugin.
    let bare = dir.path().join("bare-kit");
    std::fs::create_dir_all(bare.join("skills")).unwrap();
    assert_eq!(Plugins::load(&[bare]).plugins()[0].name, "bare-kit");
}
