//! What a rule or a fact decides, before the mode has its say, and the words the
//! questions and refusals use.

use super::index::*;
use super::places::Touched;
use crate::rule::{Effect, Rule, ToolName};
use std::path::Path;

/// How a fact of a call was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Deny(String),
    /// Ask whatever the mode: an explicit ask rule matched, or what the call touches
    /// cannot be known and some rule might be about it.
    AskRule(String),
    /// Ask, unless the mode decides otherwise.
    Ask(String),
    Allow,
    /// No rule said anything: the mode decides, by what the fact is.
    Undecided {
        what: What,
        reason: String,
    },
}

/// What an undecided fact is, for the mode to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// A read or search outside the working directories.
    Read,
    /// A write no rule or mode allows.
    Write,
    /// A write to a protected path: only a person (or bypassPermissions) approves it.
    Protected,
    /// A command no rule allows.
    Command { read_only: bool },
    /// A fetch no rule allows.
    Fetch,
    /// Anything else (an MCP tool, an undeclared or opaque tool).
    Other { read_only: bool },
}

/// Whether a rule of a list's `writes` covers a file a redirection writes: a bare
/// `Edit` covers every one, a path rule the ones its pattern matches.
pub(crate) fn covers_write(rule: &Rule, target: &Touched, effect: Effect, cwd: &Path) -> bool {
    match &rule.specifier {
        None => true,
        Some(specifier) => path_pattern(specifier).is_some_and(|p| target.matches(p, effect, cwd)),
    }
}

/// A `Read` deny also blocks edits and writes of what it covers.
pub(crate) fn read_deny_blocks_edits(rule: &Rule) -> bool {
    rule.effect == Effect::Deny && matches!(&rule.tool, ToolName::Exact(n) if n == "Read")
}

pub(crate) fn verdict_for(rule: &Rule) -> Verdict {
    match rule.effect {
        Effect::Deny => Verdict::Deny(reason_for(rule)),
        Effect::Ask => Verdict::AskRule(format!("{}; allow it?", reason_for(rule))),
        Effect::Allow => Verdict::Allow,
    }
}

pub(crate) fn reason_for(rule: &Rule) -> String {
    let list = match rule.effect {
        Effect::Deny => "denied",
        Effect::Ask => "asked for",
        Effect::Allow => "allowed",
    };
    format!("{list} by the rule `{}` ({:?} settings)", rule.text, rule.source)
}

/// The pieces joined, allocated once (the question of every call that asks is built
/// this way).
pub(crate) fn concat(pieces: &[&str]) -> String {
    let mut text = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    pieces.iter().for_each(|p| text.push_str(p));
    text
}

pub(crate) fn first_line(command: &str) -> &str {
    let line = memchr::memchr(b'\n', command.as_bytes()).map_or(command, |end| &command[..end]);
    let line = line.strip_suffix('\r').unwrap_or(line);
    line.get(..200).unwrap_or(line)
}
