//! What a program meets when it names a part whose feature is off: the entry points
//! of `agent`, `builtin`, `mcp` and `subagents` stand here as placeholders whose
//! first diagnostic names the feature to add (a deprecation note, since Rust has no
//! custom message for an unresolved path), instead of a wall of unresolved imports.

/// Placeholders in module `$module`, each deprecated with `$note`.
macro_rules! placeholders {
    ($feature:literal, $module:ident, $note:literal, $($item:ident),+) => {
        #[cfg(not(feature = $feature))]
        #[doc(hidden)]
        pub mod $module {
            $(
                #[deprecated(note = $note)]
                #[doc(hidden)]
                pub struct $item;
            )+
        }
    };
}

placeholders!(
    "agent",
    agent,
    "`toolwright::agent` needs toolwright's `agent` feature: `features = [\"agent\"]` on toolwright in Cargo.toml",
    Agent,
    HttpModel,
    AgentObserver,
    RetryPolicy,
    Model
);
placeholders!(
    "builtin",
    builtin,
    "`toolwright::builtin` needs toolwright's `builtin` feature: `features = [\"builtin\"]` on toolwright in Cargo.toml",
    FileStates,
    Workspace,
    DefaultTool
);
placeholders!(
    "builtin",
    rules,
    "`toolwright::rules` needs toolwright's `builtin` feature: `features = [\"builtin\"]` on toolwright in Cargo.toml",
    RulePolicy,
    Mode
);
placeholders!(
    "mcp-stdio",
    mcp,
    "`toolwright::mcp` needs toolwright's `mcp` feature: `features = [\"mcp\"]` on toolwright in Cargo.toml",
    McpServer,
    McpMounts,
    McpConfig,
    MountOptions
);
placeholders!(
    "subagents",
    subagents,
    "`toolwright::subagents` needs toolwright's `subagents` feature: `features = [\"subagents\"]` on toolwright in Cargo.toml",
    Subagents,
    AgentDefinition
);
placeholders!(
    "subagents",
    skills,
    "`toolwright::skills` needs toolwright's `subagents` feature: `features = [\"subagents\"]` on toolwright in Cargo.toml",
    Skills
);

/// Without the `builtin` feature: the registry of the tools linked in, yours only.
#[cfg(not(feature = "builtin"))]
#[deprecated(note = "`toolwright::registry()` without toolwright's `builtin` feature has no built-in tools: \
                     use `Registry::from_inventory()` for your own, or add `features = [\"builtin\"]`")]
#[doc(hidden)]
pub fn registry() -> Result<toolwright_core::Registry, toolwright_core::RegistryError> {
    toolwright_core::Registry::from_inventory()
}

/// Without the `builtin` feature.
#[cfg(not(feature = "builtin"))]
#[deprecated(
    note = "`toolwright::WorkspaceSettings` needs toolwright's `builtin` feature: `features = [\"builtin\"]` \
                     on toolwright in Cargo.toml"
)]
#[doc(hidden)]
pub struct WorkspaceSettings;
