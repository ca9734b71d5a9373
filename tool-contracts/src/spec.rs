//! The static description of a tool: name, aliases, description, flags and origin.
//!
//! `#[tool]` builds a [`ToolSpec`] in a `static`; runtime tools (MCP, config-defined)
//! build one with owned strings. Both go through the same registry and renderers.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// Capability flags. They drive scheduling, permission defaults and MCP annotations.
///
/// The defaults are conservative: a tool is neither read-only nor concurrency-safe
/// unless it says so, so nothing runs in parallel or skips a permission prompt by
/// accident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags {
    /// The tool does not change its environment (files, processes, remote state).
    pub read_only: bool,
    /// Calls may run at the same time as other concurrency-safe calls.
    pub concurrency_safe: bool,
    /// The tool may make irreversible changes (delete, overwrite without backup).
    pub destructive: bool,
    /// Calling it twice with the same input has no further effect.
    pub idempotent: bool,
    /// The tool talks to an open world (the web, external services).
    pub open_world: bool,
}

impl Flags {
    /// No flags set: the conservative default.
    pub const NONE: Flags =
        Flags { read_only: false, concurrency_safe: false, destructive: false, idempotent: false, open_world: false };

    /// The names of the flags that are set, in declaration order.
    pub fn names(&self) -> Vec<&'static str> {
        let all = [
            (self.read_only, "read_only"),
            (self.concurrency_safe, "concurrency_safe"),
            (self.destructive, "destructive"),
            (self.idempotent, "idempotent"),
            (self.open_world, "open_world"),
        ];
        all.into_iter().filter(|(on, _)| *on).map(|(_, n)| n).collect()
    }
}

/// Where a tool was defined: `file:line` for `#[tool]` structs, or a free-form origin
/// (`mcp server "github"`, `config`) for runtime tools.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolOrigin {
    /// A `#[tool]` struct in Rust source.
    Source {
        /// The file, as `file!()` gives it.
        file: Cow<'static, str>,
        /// The line of the `#[tool]` attribute.
        line: u32,
    },
    /// A tool created at run time.
    Runtime(Cow<'static, str>),
}

impl fmt::Display for ToolOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolOrigin::Source { file, line } => write!(f, "{file}:{line}"),
            ToolOrigin::Runtime(what) => f.write_str(what),
        }
    }
}

/// Another name for a tool, routed to the same handler.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Alias {
    /// The alias.
    pub name: Cow<'static, str>,
    /// Whether the model is shown the alias as a tool of its own (same schema and
    /// description), for models trained on an older name. Hidden aliases only route.
    pub advertised: bool,
}

impl Alias {
    /// A hidden alias.
    pub const fn hidden(name: &'static str) -> Self {
        Alias { name: Cow::Borrowed(name), advertised: false }
    }

    /// An advertised alias.
    pub const fn advertised(name: &'static str) -> Self {
        Alias { name: Cow::Borrowed(name), advertised: true }
    }
}

/// Whether a tool's definition is sent up front or found through the tool search
/// (see the core's `deferred` module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Defer {
    /// Always sent (the default of `#[tool]`).
    Never,
    /// Deferred when the pool's definitions would exceed the session's budget (the
    /// default of runtime and MCP tools).
    #[default]
    Auto,
    /// Always deferred (`#[tool(defer)]`, an MCP server's `deferTools: "always"`).
    Always,
}

impl Defer {
    /// Reads `"auto"`, `"always"` or `"never"` (also `true` and `false` as text).
    pub fn parse(text: &str) -> Option<Defer> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Defer::Auto),
            "always" | "true" => Some(Defer::Always),
            "never" | "false" => Some(Defer::Never),
            _ => None,
        }
    }
}

/// Everything static about a tool.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolSpec {
    /// The name the model calls, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
    pub name: Cow<'static, str>,
    /// Further names that route to the same handler.
    pub aliases: Cow<'static, [Alias]>,
    /// A short human title (MCP `title`).
    pub title: Option<Cow<'static, str>>,
    /// Icons a client may show (MCP `icons`): `https` URLs or `data:image/` URIs.
    pub icons: Cow<'static, [Cow<'static, str>]>,
    /// What the model reads: the doc comment unless overridden.
    pub description: Cow<'static, str>,
    /// The declared capability flags (a tool may refine them per input).
    pub flags: Flags,
    /// Where the tool was defined.
    pub origin: ToolOrigin,
    /// How long one call may run; `None` uses the executor's default.
    pub timeout: Option<Duration>,
    /// How much output reaches the model; `None` uses the executor's default.
    pub output_limit: Option<OutputLimit>,
    /// The name permission rules and hook matchers also know the tool by: Claude
    /// Code's name for the tool it stands in for (`Read`, `Edit`, `Bash`,
    /// `WebFetch`, ...). Rules name either this or [`name`](Self::name).
    pub rule_name: Option<Cow<'static, str>>,
    /// Sent up front or found through the tool search.
    pub defer: Defer,
}

impl ToolSpec {
    /// A spec for a runtime tool: no aliases, no title, no flags, executor defaults.
    pub fn runtime(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        origin: impl Into<Cow<'static, str>>,
    ) -> Self {
        ToolSpec {
            name: name.into(),
            aliases: Cow::Borrowed(&[]),
            title: None,
            icons: Cow::Borrowed(&[]),
            description: description.into(),
            flags: Flags::NONE,
            origin: ToolOrigin::Runtime(origin.into()),
            timeout: None,
            output_limit: None,
            rule_name: None,
            defer: Defer::Auto,
        }
    }

    /// The same spec with this rule name (see [`rule_name`](Self::rule_name)).
    pub fn with_rule_name(mut self, rule_name: impl Into<Cow<'static, str>>) -> Self {
        self.rule_name = Some(rule_name.into());
        self
    }

    /// The same spec with these flags.
    pub fn with_flags(mut self, flags: Flags) -> Self {
        self.flags = flags;
        self
    }
}

/// The most output a result may carry to the model; longer output keeps its head and
/// tail and says how much was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputLimit {
    /// At most this many bytes of text.
    Bytes(usize),
    /// At most about this many tokens, estimated as 4 bytes a token.
    Tokens(usize),
}

impl OutputLimit {
    /// The limit in bytes.
    pub const fn bytes(self) -> usize {
        match self {
            OutputLimit::Bytes(b) => b,
            OutputLimit::Tokens(t) => t.saturating_mul(4),
        }
    }
}

/// The longest tool name every provider accepts: Gemini's older API allows 63
/// (`^[A-Za-z_][A-Za-z0-9_-]{0,62}$`), the others 64.
pub const MAX_TOOL_NAME_LEN: usize = 63;

/// Whether `name` is accepted by every provider: `^[A-Za-z_][A-Za-z0-9_-]{0,62}$`.
///
/// `#[tool]` checks the same rule at compile time; this is the check for names that
/// arrive at run time.
///
/// ```
/// use toolwright_core::is_portable_tool_name;
/// assert!(is_portable_tool_name("read_file"));
/// assert!(!is_portable_tool_name("9lives"));
/// assert!(!is_portable_tool_name("fs.read"));
/// assert!(is_portable_tool_name(&"a".repeat(63)));
/// assert!(!is_portable_tool_name(&"a".repeat(64)), "one past Gemini's limit");
/// ```
pub const fn is_portable_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TOOL_NAME_LEN {
        return false;
    }
    if !(bytes[0].is_ascii_alphabetic() || bytes[0] == b'_') {
        return false;
    }
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            return false;
        }
        i += 1;
    }
    true
}
