//! Read and Edit rules about the paths a call reads and writes, and protected paths.

use super::index::*;
use super::places::*;
use super::verdict::*;
use super::*;
use crate::mode::Mode;
use crate::rule::{CallNames, Effect, Kind, Rule, ToolName, kind_of_name};
use std::path::Path;

impl RulePolicy {
    /// The path rules of `kind` (and, for writes, Read denies) about `target`, deny,
    /// then ask, then allow; `None` if none matches.
    pub(crate) fn path_rules(&self, target: &Touched, call: &CallNames<'_>, cwd: &Path, kind: Kind) -> Option<Verdict> {
        let set = self.read_rules();
        for effect in [Effect::Deny, Effect::Ask, Effect::Allow] {
            for rule in set.rules.iter().filter(|r| r.effect == effect) {
                let applies = rule.tool.is_kind(kind)
                    || (kind == Kind::Edit && read_deny_blocks_edits(rule))
                    || (rule.tool.covers(call) && kind_of_rule(rule).is_none());
                let hit = match &rule.specifier {
                    // A bare `Read` or `Edit` covers every read or write; a bare rule
                    // naming the tool, all of its own.
                    None => rule.tool.is_kind(kind) || rule.tool.covers(call),
                    Some(specifier) => {
                        applies && path_pattern(specifier).is_some_and(|p| target.matches(p, effect, cwd))
                    }
                };
                if hit {
                    return Some(verdict_for(rule));
                }
            }
        }
        None
    }

    /// A file written: Edit and Read denies, Edit asks, protected paths, Edit allows,
    /// then acceptEdits inside the working directories.
    pub(crate) fn write(
        &self,
        target: &Touched,
        call: &CallNames<'_>,
        cwd: &Path,
        inside: bool,
        describe: impl Fn() -> String,
    ) -> Verdict {
        let ruled = self.path_rules(target, call, cwd, Kind::Edit);
        if let Some(verdict @ (Verdict::Deny(_) | Verdict::AskRule(_))) = &ruled {
            return verdict.clone();
        }
        // Allow rules do not pre-approve protected paths (Claude Code).
        if target.protected() {
            return Verdict::Undecided { what: What::Protected, reason: describe() };
        }
        if let Some(verdict) = ruled {
            return verdict;
        }
        if inside && call.mode == Mode::AcceptEdits {
            return Verdict::Allow;
        }
        Verdict::Undecided { what: What::Write, reason: describe() }
    }
}

/// The kind a rule's name stands for.
pub(crate) fn kind_of_rule(rule: &Rule) -> Option<Kind> {
    match &rule.tool {
        ToolName::Exact(name) => kind_of_name(name),
        _ => None,
    }
}
