//! Tool names as models send them, and provider-safe names for MCP tools.

use crate::spec::MAX_TOOL_NAME_LEN;
use std::collections::HashMap;

/// Prefixes some models put before a tool name: OpenAI models sometimes answer
/// `functions.read_file`, Gemini `default_api.read_file`.
const QUIRK_PREFIXES: &[&str] = &["functions.", "default_api."];

/// The name a model meant: surrounding whitespace and known prefixes removed.
///
/// ```
/// use toolwright_core::names::normalize_called_name;
/// assert_eq!(normalize_called_name("  functions.read_file\n"), "read_file");
/// assert_eq!(normalize_called_name("default_api.glob"), "glob");
/// assert_eq!(normalize_called_name("read_file"), "read_file");
/// ```
pub fn normalize_called_name(name: &str) -> &str {
    let trimmed = name.trim();
    QUIRK_PREFIXES.iter().find_map(|p| trimmed.strip_prefix(p)).map(str::trim).unwrap_or(trimmed)
}

/// The prefix of every mounted MCP tool's name.
pub const MCP_PREFIX: &str = "mcp__";

/// Provider-safe names for MCP tools, `mcp__<server>__<tool>`, and the way back.
///
/// Server and tool names from MCP may hold dots, spaces and anything else, and be up
/// to 128 characters. They are sanitised to `[A-Za-z0-9_-]` (runs of `_` in the server
/// part collapse, so `mcp__<server>__` is an unambiguous prefix for rules). A name
/// that is too long, or that collides with one already given out, is shortened and
/// gets a hash suffix derived from the original names, so it is the same on every run.
/// Routing back to (server, tool) goes through the reverse table, never by splitting
/// the name.
#[derive(Debug, Default, Clone)]
pub struct McpNames {
    forward: HashMap<(String, String), String>,
    reverse: HashMap<String, (String, String)>,
}

impl McpNames {
    /// An empty table.
    pub fn new() -> Self {
        McpNames::default()
    }

    /// The provider-safe name for `tool` on `server`, reserving it.
    ///
    /// ```
    /// use toolwright_core::names::McpNames;
    /// let mut names = McpNames::new();
    /// assert_eq!(names.qualify("github", "create_issue"), "mcp__github__create_issue");
    /// assert_eq!(names.qualify("my.server", "files/read"), "mcp__my_server__files_read");
    /// assert_eq!(names.original("mcp__my_server__files_read"), Some(("my.server", "files/read")));
    /// // A different original that sanitises to the same name gets a suffix.
    /// let other = names.qualify("my server", "files.read");
    /// assert!(other.starts_with("mcp__my_server__files_read_") && other.len() <= 63);
    /// ```
    pub fn qualify(&mut self, server: &str, tool: &str) -> String {
        let key = (server.to_owned(), tool.to_owned());
        if let Some(name) = self.forward.get(&key) {
            return name.clone();
        }
        let base = format!("{MCP_PREFIX}{}__{}", sanitize(server, true), sanitize(tool, false));
        let mut name = base.clone();
        let mut salt = 0u32;
        while name.len() > MAX_TOOL_NAME_LEN || self.reverse.contains_key(&name) {
            let hash = fnv1a(&format!("{server}\u{0}{tool}\u{0}{salt}"));
            let suffix = format!("_{:08x}", hash as u32);
            let keep = floor_char_boundary(&base, MAX_TOOL_NAME_LEN - suffix.len());
            name = format!("{}{suffix}", &base[..keep]);
            salt += 1;
        }
        self.forward.insert(key.clone(), name.clone());
        self.reverse.insert(name.clone(), key);
        name
    }

    /// The original (server, tool) behind a qualified name.
    pub fn original(&self, qualified: &str) -> Option<(&str, &str)> {
        self.reverse.get(qualified).map(|(s, t)| (s.as_str(), t.as_str()))
    }

    /// Forgets a qualified name (when its tool is unmounted).
    pub fn release(&mut self, qualified: &str) -> bool {
        match self.reverse.remove(qualified) {
            Some(key) => {
                self.forward.remove(&key);
                true
            }
            None => false,
        }
    }

    /// How many names are reserved.
    pub fn len(&self) -> usize {
        self.reverse.len()
    }

    /// Whether no names are reserved.
    pub fn is_empty(&self) -> bool {
        self.reverse.is_empty()
    }
}

fn sanitize(name: &str, collapse_underscores: bool) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' };
        if collapse_underscores && c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    if out.is_empty() { "_".to_owned() } else { out }
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// FNV-1a as a `Hasher`, for tables keyed by tool names: the keys are short and come
/// from the registry, so a keyed hash's flood resistance buys nothing, and SipHash
/// showed up in the per-call profile.
#[derive(Default)]
#[doc(hidden)]
pub struct FnvHasher(u64);

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let start = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        self.0 = fnv1a_bytes(start, bytes);
    }
}

/// Builds [`FnvHasher`]s.
#[doc(hidden)]
pub type FnvBuild = std::hash::BuildHasherDefault<FnvHasher>;

/// FNV-1a: tiny, and stable across Rust versions and runs (unlike `DefaultHasher`).
pub(crate) fn fnv1a(text: &str) -> u64 {
    fnv1a_bytes(0xcbf2_9ce4_8422_2325, text.as_bytes())
}

/// FNV-1a over `bytes`, continuing from `hash`.
pub fn fnv1a_bytes(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::is_portable_tool_name;

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let mut a = McpNames::new();
        let long_tool = "x".repeat(120);
        let name = a.qualify("server.with.a.rather.long.name", &long_tool);
        assert!(is_portable_tool_name(&name), "{name}");
        assert_eq!(name.len(), 63);
        let mut b = McpNames::new();
        assert_eq!(b.qualify("server.with.a.rather.long.name", &long_tool), name, "same on every run");
        assert_eq!(a.original(&name), Some(("server.with.a.rather.long.name", long_tool.as_str())));
    }

    #[test]
    fn server_underscores_collapse_so_the_prefix_is_unambiguous() {
        let mut names = McpNames::new();
        assert_eq!(names.qualify("a__b", "c"), "mcp__a_b__c");
        assert_eq!(names.qualify("", "☃"), "mcp______");
        assert!(is_portable_tool_name("mcp______"));
    }

    #[test]
    fn release_frees_both_directions() {
        let mut names = McpNames::new();
        let n = names.qualify("s", "t");
        assert!(names.release(&n));
        assert!(names.is_empty() && names.forward.is_empty());
        assert!(!names.release(&n));
    }
}
