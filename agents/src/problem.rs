//! What was wrong with a definition, and where.

use std::path::PathBuf;

/// How bad a [`Problem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// The file's definition is not used.
    Error,
    /// The definition is used, without what the problem names; or the file is not a
    /// definition at all (documentation beside the agents).
    Warning,
}

/// One problem with a definition file (or a definition given in code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, or `<given>` for a definition given in code or on a command line.
    pub path: PathBuf,
    /// The frontmatter key the problem is about, if one.
    pub key: Option<String>,
    /// The line in the file, where the parser knows it.
    pub line: Option<usize>,
    /// Whether the definition is used.
    pub severity: Severity,
    /// What is wrong, and what to do.
    pub message: String,
}

impl Problem {
    pub(crate) fn error(path: impl Into<PathBuf>, key: Option<&str>, message: impl Into<String>) -> Problem {
        Problem {
            path: path.into(),
            key: key.map(str::to_owned),
            line: None,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    pub(crate) fn warning(path: impl Into<PathBuf>, key: Option<&str>, message: impl Into<String>) -> Problem {
        Problem { severity: Severity::Warning, ..Problem::error(path, key, message) }
    }

    pub(crate) fn at_line(mut self, line: usize) -> Problem {
        self.line = Some(line);
        self
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{level}: {}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}
