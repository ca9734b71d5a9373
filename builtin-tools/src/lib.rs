//! toolwright's built-in coding tools, and the generated [`DefaultTool`] list.
//!
//! Each tool is one file in `src/tools/`. The build script finds every `#[tool]`
//! struct there and generates the module declarations, [`DefaultTool`],
//! [`DEFAULT_TOOL_NAMES`] and [`register_all`]; adding a tool means adding a file.
//!
//! ```
//! use toolwright_builtin::{DefaultTool, DEFAULT_TOOL_NAMES};
//! assert_eq!(DefaultTool::ReadFile.as_str(), "read_file");
//! assert!(DEFAULT_TOOL_NAMES.contains(&"glob"));
//! assert_eq!("glob".parse::<DefaultTool>(), Ok(DefaultTool::Glob));
//! ```

// `#[tool]` expands to `::toolwright::...`; inside the workspace that is the core crate.
extern crate toolwright_core as toolwright;

mod code_intelligence;
pub mod confined;
mod edit;
mod fsio;
#[doc(hidden)]
pub mod git;
mod notebook;
#[cfg(feature = "pdf")]
mod pdf;
#[cfg_attr(not(target_os = "linux"), path = "sandbox/unsupported.rs")]
mod sandbox;
pub mod schedules;
pub mod search_backends;
mod session;
pub mod tasks;
mod workspace;
mod worktree_session;

pub use session::{FileStamp, FileStates, session};
/// The language-server client behind the `lsp` tool and the edits' diagnostics.
pub use toolwright_lsp as lsp;
pub use workspace::{IGNORE_FILE, Workspace};
pub use worktree_session::WorktreeSession;

/// The built-in tools, one module per file in `src/tools/` (generated).
pub mod tools {
    include!(concat!(env!("OUT_DIR"), "/tool_modules.rs"));
}

include!(concat!(env!("OUT_DIR"), "/default_tool.rs"));

use std::fmt;
use std::str::FromStr;

impl fmt::Display for DefaultTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a built-in tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDefaultTool(pub String);

impl fmt::Display for UnknownDefaultTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a built-in tool; the built-in tools are: {}", self.0, DEFAULT_TOOL_NAMES.join(", "))
    }
}

impl std::error::Error for UnknownDefaultTool {}

impl FromStr for DefaultTool {
    type Err = UnknownDefaultTool;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DefaultTool::ALL.iter().copied().find(|t| t.as_str() == s).ok_or_else(|| UnknownDefaultTool(s.to_owned()))
    }
}

/// A registry of every built-in tool plus every other `#[tool]` linked into the binary.
///
/// The built-ins are registered explicitly as well, so they are present even where
/// `inventory` collects nothing.
pub fn registry() -> Result<toolwright_core::Registry, toolwright_core::RegistryError> {
    register_all(toolwright_core::Registry::builder().with_inventory()).build()
}
