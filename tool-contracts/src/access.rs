//! What a call touches, as data. A prepared call states its [`Accesses`]: the files it
//! reads and writes, the directories it searches, the command it runs, the URL it
//! fetches, the MCP tool it calls. A permission policy decides on these facts and on
//! the tool's declared rule name, never on the tool's name alone nor by reading its
//! input again, so a new tool that declares what it touches is governed by the rules
//! with no edit anywhere else.
//!
//! `#[tool]` generates the declaration from field attributes:
//!
//! ```
//! # extern crate toolwright_core as toolwright;
//! use toolwright_core::access::Access;
//! use toolwright_core::{tool, DynTool, Registry, Tool, ToolContext, ToolError};
//!
//! /// Copy a file.
//! #[tool(rule_name = "Edit")]
//! pub struct CopyFile {
//!     /// What to copy.
//!     #[access(read)]
//!     pub from: String,
//!     /// Where to put it.
//!     #[access(write)]
//!     pub to: String,
//! }
//!
//! impl Tool for CopyFile {
//!     type Output = String;
//!     async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
//!         Ok(format!("copied {} to {}", self.from, self.to))
//!     }
//! }
//!
//! let registry = Registry::builder().register::<CopyFile>().build().unwrap();
//! let tool = registry.resolve("copy_file").unwrap();
//! let prepared = tool.tool().prepare(br#"{"from": "a.txt", "to": "b.txt"}"#).unwrap();
//! let access = prepared.access();
//! let facts: Vec<&Access> = access.iter().collect();
//! assert_eq!(facts, [&Access::Read("a.txt".into()), &Access::Write("b.txt".into())]);
//! assert_eq!(tool.tool().spec().rule_name.as_deref(), Some("Edit"));
//! ```
//!
//! `#[tool(pure)]` declares that a tool touches nothing outside its input (no files,
//! processes or network): it needs no permission. A tool that declares nothing is
//! [`Accesses::undeclared`], and a policy decides it by its name and the mode alone
//! (Claude Code's default asks). Being `read_only` is a scheduling fact (the call may
//! run beside others and changes nothing); it says nothing about where a call reads or
//! whom it sends data to, so it never makes a call "need no permission".

use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// One thing a call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// Reads the file at this path, as the model named it (relative to the working
    /// directory, or absolute).
    Read(String),
    /// Creates or changes the file at this path.
    Write(String),
    /// Lists or searches the directory at this path and what is below it. A tool that
    /// walks skips what the policy's [read filter](crate::permission::ReadFilter)
    /// denies.
    Search(String),
    /// Runs this shell command line.
    Command(CommandLine),
    /// Fetches this URL: parsed once, by the parser the fetch uses, and fetched from
    /// this very value.
    Fetch(url::Url),
    /// Calls `tool` of the MCP server `server`, by their own names.
    Mcp {
        /// The server's name as configured.
        server: String,
        /// The tool's name on that server.
        tool: String,
    },
    /// Touches something that cannot be stated (a URL that does not parse, a runtime
    /// tool that says only that it acts): decided like an undeclared tool.
    Opaque(String),
}

/// Everything a call touches: a list of [`Access`] facts, or nothing declared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Accesses {
    facts: Vec<Access>,
    declared: bool,
}

impl Accesses {
    /// The tool says nothing about what it touches: a policy decides by its name and
    /// the mode (asking, by default).
    pub const fn undeclared() -> Accesses {
        Accesses { facts: Vec::new(), declared: false }
    }

    /// The call touches nothing outside its input: it needs no permission.
    pub const fn none() -> Accesses {
        Accesses { facts: Vec::new(), declared: true }
    }

    /// These facts.
    pub fn of(facts: impl IntoIterator<Item = Access>) -> Accesses {
        Accesses { facts: facts.into_iter().collect(), declared: true }
    }

    /// Adds a fact (an undeclared set becomes declared).
    pub fn with(mut self, fact: Access) -> Accesses {
        self.push(fact);
        self
    }

    /// Adds a fact (an undeclared set becomes declared).
    pub fn push(&mut self, fact: Access) {
        self.declared = true;
        self.facts.push(fact);
    }

    /// Whether the tool declared what it touches.
    pub fn is_declared(&self) -> bool {
        self.declared
    }

    /// Whether the call is declared to touch nothing.
    pub fn is_none(&self) -> bool {
        self.declared && self.facts.is_empty()
    }

    /// The facts, in the order declared.
    pub fn iter(&self) -> std::slice::Iter<'_, Access> {
        self.facts.iter()
    }
}

impl<'a> IntoIterator for &'a Accesses {
    type Item = &'a Access;
    type IntoIter = std::slice::Iter<'a, Access>;
    fn into_iter(self) -> Self::IntoIter {
        self.facts.iter()
    }
}

/// A shell command line, with a slot for its analysis: the tool that runs it analyses
/// it once (for its flags) and the policy reads the same analysis, with nothing shared
/// between calls.
#[derive(Clone)]
pub struct CommandLine {
    text: Arc<str>,
    analysis: Arc<OnceLock<Arc<dyn Any + Send + Sync>>>,
}

impl CommandLine {
    /// A command line, not analysed yet.
    pub fn new(text: impl Into<Arc<str>>) -> CommandLine {
        CommandLine { text: text.into(), analysis: Arc::new(OnceLock::new()) }
    }

    /// A command line whose analysis is already made (by the tool that runs it).
    pub fn with_analysis<T: Any + Send + Sync>(text: impl Into<Arc<str>>, analysis: Arc<T>) -> CommandLine {
        let line = CommandLine::new(text);
        let _ = line.analysis.set(analysis as Arc<dyn Any + Send + Sync>);
        line
    }

    /// The command as the model wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The analysis of type `T`, made by `analyse` the first time it is asked for and
    /// kept with this command line (and its clones). If an analysis of another type
    /// is kept, `analyse` runs each time and its result is not kept.
    pub fn analysis<T: Any + Send + Sync>(&self, analyse: impl FnOnce(&str) -> T) -> Arc<T> {
        if let Some(kept) = self.analysis.get() {
            return Arc::clone(kept).downcast::<T>().unwrap_or_else(|_| Arc::new(analyse(&self.text)));
        }
        let made = Arc::new(analyse(&self.text));
        let _ = self.analysis.set(Arc::clone(&made) as Arc<dyn Any + Send + Sync>);
        made
    }
}

impl fmt::Debug for CommandLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CommandLine").field(&self.text).finish()
    }
}

impl PartialEq for CommandLine {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for CommandLine {}

/// A field's value as paths a call touches: what `#[access(read)]` and friends accept
/// (`String`, `PathBuf`, their `Option`s and `Vec`s).
#[diagnostic::on_unimplemented(
    message = "`#[access(..)]` needs a field of paths, URLs or commands, not `{Self}`",
    label = "this field's type",
    note = "use `String`, `PathBuf`, or an `Option` or `Vec` of them"
)]
pub trait AccessPaths {
    /// Calls `each` with every path in the value.
    fn each_path(&self, each: &mut dyn FnMut(&str));
}

impl AccessPaths for String {
    fn each_path(&self, each: &mut dyn FnMut(&str)) {
        each(self)
    }
}

impl AccessPaths for str {
    fn each_path(&self, each: &mut dyn FnMut(&str)) {
        each(self)
    }
}

impl AccessPaths for std::path::PathBuf {
    fn each_path(&self, each: &mut dyn FnMut(&str)) {
        each(&self.to_string_lossy())
    }
}

impl<T: AccessPaths> AccessPaths for Option<T> {
    fn each_path(&self, each: &mut dyn FnMut(&str)) {
        if let Some(value) = self {
            value.each_path(each)
        }
    }
}

impl<T: AccessPaths> AccessPaths for Vec<T> {
    fn each_path(&self, each: &mut dyn FnMut(&str)) {
        self.iter().for_each(|value| value.each_path(each))
    }
}

/// The URL a call fetches, as an access fact: the parsed URL, or an opaque fact
/// naming why it does not parse.
pub fn fetch_of(url: &str) -> Access {
    match url::Url::parse(url.trim()) {
        Ok(url) => Access::Fetch(url),
        Err(e) => {
            Access::Opaque(format!("the URL `{}` does not parse: {e}", url.chars().take(200).collect::<String>()))
        }
    }
}
