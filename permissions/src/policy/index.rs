//! The rule set and its index: which rules can decide a shell call, by list and by
//! the first word their pattern starts with, so a command tries only those.

use super::verdict::*;
use crate::pattern::CommandPattern;
use crate::rule::{CallNames, Effect, Kind, Rule, Specifier};
use crate::shell::{self};
use smallvec::SmallVec;
use std::sync::Arc;
use std::sync::OnceLock;

/// The rules, with an index of those that can decide a shell call, built when first
/// needed after a change.
#[derive(Debug, Default)]
pub(crate) struct RuleSet {
    pub(crate) rules: Vec<Rule>,
    pub(crate) shell: OnceLock<ShellIndex>,
    /// The rules about a tool as a whole or one of its parameters (no specifier, or a
    /// parameter one), deny then ask, as positions: the first step of every decision.
    pub(crate) whole: OnceLock<Vec<usize>>,
    /// The `Read` deny path patterns, for the read filter every allowed call gets.
    pub(crate) read_denies: OnceLock<Arc<[(crate::path::PathPattern, String)]>>,
}

impl RuleSet {
    pub(crate) fn extend(&mut self, rules: impl IntoIterator<Item = Rule>) {
        self.rules.extend(rules);
        self.shell = OnceLock::new();
        self.whole = OnceLock::new();
        self.read_denies = OnceLock::new();
    }

    /// Whether a bare allow rule names the call's tool.
    pub(crate) fn allows_whole_tool(&self, call: &CallNames<'_>) -> bool {
        self.rules.iter().any(|r| r.effect == Effect::Allow && r.specifier.is_none() && r.tool.covers(call))
    }

    pub(crate) fn read_deny_patterns(&self) -> Arc<[(crate::path::PathPattern, String)]> {
        Arc::clone(self.read_denies.get_or_init(|| {
            self.rules
                .iter()
                .filter(|r| r.effect == Effect::Deny && r.tool.is_kind(Kind::Read))
                .filter_map(|r| r.specifier.as_ref().and_then(path_pattern).map(|p| (p.clone(), r.text.clone())))
                .collect()
        }))
    }

    pub(crate) fn whole_tool_rules(&self) -> &[usize] {
        self.whole.get_or_init(|| {
            let mut found: Vec<usize> = Vec::new();
            for effect in [Effect::Deny, Effect::Ask] {
                found.extend(
                    self.rules
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| {
                            r.effect == effect && matches!(r.specifier, None | Some(Specifier::Param { .. }))
                        })
                        .map(|(i, _)| i),
                );
            }
            found
        })
    }

    pub(crate) fn shell_index(&self) -> &ShellIndex {
        self.shell.get_or_init(|| ShellIndex::new(&self.rules))
    }
}

/// The command pattern a rule's specifier holds, if it has one.
pub(crate) fn command_pattern(specifier: &Specifier) -> Option<&CommandPattern> {
    match specifier {
        Specifier::Command(pattern) | Specifier::Any { command: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => command_pattern(other),
        _ => None,
    }
}

/// The path pattern a rule's specifier holds, if it has one.
pub(crate) fn path_pattern(specifier: &Specifier) -> Option<&crate::path::PathPattern> {
    match specifier {
        Specifier::Path(pattern) | Specifier::Any { path: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => path_pattern(other),
        _ => None,
    }
}

/// The domain pattern a rule's specifier holds, if it has one.
pub(crate) fn domain_pattern(specifier: &Specifier) -> Option<&crate::domain::DomainPattern> {
    match specifier {
        Specifier::Domain(pattern) | Specifier::Any { domain: Some(pattern), .. } => Some(pattern),
        Specifier::Param { otherwise: Some(other), .. } => domain_pattern(other),
        _ => None,
    }
}

/// Programs whose first argument names a subcommand (`git diff`, `npm test`), not a file.
pub(crate) fn has_subcommands(program: &str) -> bool {
    // (A `match`: compiled to a switch on the length, asked for every part.)
    matches!(
        program,
        "git"
            | "npm"
            | "pnpm"
            | "yarn"
            | "cargo"
            | "docker"
            | "podman"
            | "kubectl"
            | "go"
            | "gh"
            | "pip"
            | "pip3"
            | "uv"
            | "poetry"
    )
}

/// The rules that can decide a shell call, by list, as positions in the rule set: a
/// call tries only the patterns whose literal first word starts one of its commands.
#[derive(Debug, Default)]
pub(crate) struct ShellIndex {
    /// Deny, ask and allow.
    pub(crate) lists: [ListIndex; 3],
    /// Patterns by their literal first word, for each list, sorted by the word's length,
    /// then by it (most comparisons end at the length).
    pub(crate) by_first_word: Vec<(String, [Vec<usize>; 3])>,
    /// `Read` denies with a path: arguments naming what they cover are denied.
    pub(crate) read_denies: Vec<usize>,
}

/// One list's shell rules.
#[derive(Debug, Default)]
pub(crate) struct ListIndex {
    /// A bare `Bash`, and patterns without a literal first word: tried on every call.
    pub(crate) any_command: Vec<usize>,
    /// Every command pattern, for a command that could not be fully analysed (it is
    /// matched as written, whatever its first word).
    pub(crate) patterns: Vec<usize>,
    /// The rules about files a redirection writes.
    pub(crate) writes: Vec<usize>,
}

impl ShellIndex {
    pub(crate) fn new(rules: &[Rule]) -> ShellIndex {
        let mut index = ShellIndex::default();
        for (i, rule) in rules.iter().enumerate() {
            let slot = list_slot(rule.effect);
            let list = &mut index.lists[slot];
            // `Bash` rules govern every command; a rule naming a tool governs that
            // tool's commands (checked against the call's names when it decides).
            // (A bare rule may name the tool whose command it is.)
            let about_commands = match &rule.specifier {
                None => true,
                Some(specifier) => command_pattern(specifier).is_some(),
            };
            if about_commands {
                match rule.specifier.as_ref().and_then(command_pattern) {
                    None => list.any_command.push(i),
                    Some(pattern) => {
                        list.patterns.push(i);
                        match pattern.first_word() {
                            Some(word) => match index.by_first_word.iter_mut().find(|(w, _)| w == word) {
                                Some((_, lists)) => lists[slot].push(i),
                                None => {
                                    let mut lists: [Vec<usize>; 3] = Default::default();
                                    lists[slot].push(i);
                                    index.by_first_word.push((word.to_owned(), lists));
                                }
                            },
                            None => list.any_command.push(i),
                        }
                    }
                }
            }
            let path = rule.specifier.as_ref().and_then(path_pattern).is_some();
            let edits = rule.tool.is_kind(Kind::Edit) || read_deny_blocks_edits(rule);
            // A bare `Edit` is about every file written, a redirection's included.
            if (path && edits) || (rule.specifier.is_none() && rule.tool.is_kind(Kind::Edit)) {
                list.writes.push(i);
            }
            if path && rule.effect == Effect::Deny && rule.tool.is_kind(Kind::Read) {
                index.read_denies.push(i);
            }
        }
        index.by_first_word.sort_unstable_by(|a, b| shell::by_length_then_text(&a.0, &b.0));
        index
    }

    pub(crate) fn list(&self, effect: Effect) -> &ListIndex {
        &self.lists[list_slot(effect)]
    }

    /// Whether any rule of the list can decide something about a shell call.
    pub(crate) fn has_rules(&self, effect: Effect) -> bool {
        let list = self.list(effect);
        !list.patterns.is_empty()
            || !list.any_command.is_empty()
            || !list.writes.is_empty()
            || (effect == Effect::Deny && !self.read_denies.is_empty())
    }

    /// The patterns of each list starting with `word`.
    pub(crate) fn starting_with(&self, word: &str) -> Option<&[Vec<usize>; 3]> {
        // The words of that length (integer comparisons), then the few of them.
        let words = &self.by_first_word;
        let from = words.partition_point(|(w, _)| w.len() < word.len());
        words[from..].iter().take_while(|(w, _)| w.len() == word.len()).find(|(w, _)| w == word).map(|(_, lists)| lists)
    }

    /// Into `found`, the rules of the `effect` list to try, in the order they were
    /// given, for commands starting with the words `starting` was made for, each with
    /// the index of its word (`None`: any); with `every_pattern`, all of them.
    pub(crate) fn candidates(
        &self,
        effect: Effect,
        starting: &[Option<&[Vec<usize>; 3]>],
        every_pattern: bool,
        found: &mut Candidates,
    ) {
        let list = self.list(effect);
        found.clear();
        found.extend(list.any_command.iter().map(|&i| (i, None)));
        // Each source is in rule order: only more than one needs sorting.
        let mut sources = usize::from(!found.is_empty());
        if every_pattern {
            found.extend(list.patterns.iter().map(|&i| (i, None)));
            sources += 1;
        } else {
            for (s, lists) in starting.iter().enumerate() {
                if let Some(lists) = lists.filter(|lists| !lists[list_slot(effect)].is_empty()) {
                    found.extend(lists[list_slot(effect)].iter().map(|&i| (i, Some(s))));
                    sources += 1;
                }
            }
        }
        if sources > 1 {
            found.sort_unstable_by_key(|&(i, _)| i);
            found.dedup_by_key(|&mut (i, _)| i);
        }
    }
}

/// The rules to try for a call, each with the index of the first word it was found
/// by (`None`: any). (Inline: a call tries a few.)
pub(crate) type Candidates = SmallVec<[(usize, Option<usize>); 16]>;

/// A part's forms for the deny and ask rules; most parts have one.
pub(crate) type Forms = SmallVec<[String; 2]>;

pub(crate) fn list_slot(effect: Effect) -> usize {
    match effect {
        Effect::Deny => 0,
        Effect::Ask => 1,
        Effect::Allow => 2,
    }
}

/// Where `word` is in `list`, added if it is not.
pub(crate) fn index_in<'a>(list: &mut SmallVec<[&'a str; 8]>, word: &'a str) -> usize {
    list.iter().position(|w| *w == word).unwrap_or_else(|| {
        list.push(word);
        list.len() - 1
    })
}

/// The first space-separated token of a command text.
pub(crate) fn first_token(text: &str) -> &str {
    text.bytes().position(|b| b == b' ').map_or(text, |space| &text[..space])
}
