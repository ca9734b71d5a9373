//! The environment variables a command may set and still be the command it names.

/// Environment variables an allow rule may look past (`LANG=C ls` is `ls`). Deny and
/// ask rules look past any assignment.
pub const SAFE_ENV_VARS: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_COLLATE",
    "TZ",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CI",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "PAGER",
    "GIT_PAGER",
    "COLUMNS",
    "LINES",
    "DEBUG",
    "NODE_ENV",
];
