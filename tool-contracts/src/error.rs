//! Error types. Each names what was wrong and where.

use std::fmt;

/// Why a tool's input could not be parsed into its struct.
///
/// The message names the field path, the expected type and what was received, so a
/// model can correct its next call: `offset: invalid type: string "ten", expected u32`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The bytes are not JSON.
    #[error("invalid JSON{}: {message} (line {line}, column {column})", at_path(path))]
    Syntax {
        /// The field path to where the text broke off (`edits[2].old_string`), as far
        /// as the text before it tells; empty at the root.
        path: String,
        /// What the JSON parser said.
        message: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// The JSON does not fit the tool's parameters.
    #[error("{}{message}", path_prefix(path))]
    Data {
        /// Dotted field path (`edits[2].old_string`), empty at the root.
        path: String,
        /// What was wrong: expected type and received value, missing or unknown field.
        message: String,
    },
}

fn at_path(path: &str) -> String {
    if path.is_empty() { String::new() } else { format!(" at `{path}`") }
}

fn path_prefix(path: &str) -> String {
    if path.is_empty() { String::new() } else { format!("{path}: ") }
}

/// A failure inside a tool, or one of the pipeline's reasons for not running it.
///
/// Every variant becomes an error tool result that the model reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool ran and failed; the message is for the model.
    #[error("{0}")]
    Failed(String),
    /// The input did not parse or did not pass the tool's own checks.
    #[error("invalid input: {0}")]
    InvalidInput(#[from] InputError),
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What the tool was doing (`reading src/main.rs`).
        context: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The tool timed its own wait and it ran out (an MCP server that did not answer
    /// within its timeout, not counting the wait to reach the server); the pipeline
    /// reports it as it reports its own timeouts.
    #[error("timed out after {after:?}")]
    TimedOut {
        /// How long was waited.
        after: std::time::Duration,
    },
}

impl ToolError {
    /// A failure with a message for the model.
    pub fn msg(message: impl fmt::Display) -> Self {
        ToolError::Failed(message.to_string())
    }

    /// An I/O error with what was being done when it happened.
    pub fn io(context: impl fmt::Display, source: std::io::Error) -> Self {
        ToolError::Io { context: context.to_string(), source }
    }
}

/// The registry could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools (or a tool and an alias) claim the same name. Every clash is listed.
    #[error("{}", describe_duplicates(.0))]
    DuplicateNames(Vec<DuplicateName>),
    /// A runtime tool's name or alias is not accepted by every provider.
    #[error(
        "tool name `{name}` ({origin}) is not accepted by every provider: names must match ^[A-Za-z_][A-Za-z0-9_-]{{0,62}}$ (at most 63 characters: Gemini's limit)"
    )]
    InvalidName {
        /// The offending name.
        name: String,
        /// Where the tool came from.
        origin: String,
    },
}

/// One name claimed twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateName {
    /// The contested name.
    pub name: String,
    /// The first claimant: `tool `x` at file:line` or `alias of `y` at file:line`.
    pub first: String,
    /// The second claimant.
    pub second: String,
}

fn describe_duplicates(dups: &[DuplicateName]) -> String {
    let mut out = String::new();
    for (i, d) in dups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("duplicate tool name `{}`: {} and {}", d.name, d.first, d.second));
    }
    out
}

/// A tool's schema cannot be expressed for a provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be rendered for {provider}: {location}{message}", location = at(path))]
#[non_exhaustive]
pub struct SchemaError {
    /// The tool whose schema failed.
    pub tool: String,
    /// The provider, as a human name (`OpenAI chat (strict)`).
    pub provider: String,
    /// Where in the input the problem is: a field path such as `edits[].range`.
    pub path: String,
    /// What the provider cannot express, and what to do about it.
    pub message: String,
}

impl SchemaError {
    /// A schema problem of `tool` for `provider` at `path` (empty for the root).
    pub fn new(
        tool: impl Into<String>,
        provider: impl Into<String>,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> SchemaError {
        SchemaError { tool: tool.into(), provider: provider.into(), path: path.into(), message: message.into() }
    }
}

fn at(path: &str) -> String {
    if path.is_empty() { String::new() } else { format!("field `{path}`: ") }
}
