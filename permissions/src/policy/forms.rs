//! The forms of a command that rules match: strict (what an allow rule must name)
//! and loose (every way a deny or ask rule could be written for it).

use super::index::*;
use super::verdict::*;
use crate::pattern::{CommandPattern, canonical_flags};
use crate::shell::SAFE_ENV_VARS;
use crate::shell::{self, Command, Word};

/// The text an allow rule must match: literal words, safe assignments skipped, any
/// other assignment kept in front, a computed word as a placeholder no literal
/// pattern matches. `None` if nothing can be said.
pub(crate) fn strict_form(command: &Command) -> Option<String> {
    const UNKNOWN: &str = "\u{1}";
    let mut text = String::with_capacity(command.words.iter().map(|w| w.text().len() + 1).sum::<usize>() + 8);
    let mut pieces = 0;
    let mut add = |piece: &[&str]| {
        if pieces > 0 {
            text.push(' ');
        }
        pieces += 1;
        piece.iter().for_each(|p| text.push_str(p));
    };
    for (name, value) in &command.env {
        if !SAFE_ENV_VARS.contains(&name.as_str()) {
            add(&[name, "=", value]);
        }
    }
    for word in &command.words {
        add(&[word.literal().unwrap_or(UNKNOWN)]);
    }
    if command.more_args {
        add(&[UNKNOWN]);
    }
    (pieces > 0).then_some(text)
}

/// The part as written, in backquotes, added to `text`.
pub(crate) fn display_form(command: &Command, text: &mut String) {
    text.push('`');
    for (i, word) in command.words.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(word.text());
    }
    text.push('`');
}

/// The forms a deny or ask rule is matched against: past any assignment; as written,
/// with the name's directory dropped, with `git`'s global options dropped, and with
/// short flags merged and sorted (`rm -r -f` is `rm -fr`).
pub(crate) fn loose_forms(command: &Command) -> Forms {
    let Some(name) = command.words.first().map(Word::text) else { return Forms::new() };
    let mut forms = Forms::new();
    forms.push(joined(command.words.iter().map(Word::text)));
    let base = command.base_name().unwrap_or(name);
    if base != name {
        let named = concat(&[base, &forms[0][name.len()..]]);
        forms.push(named);
    }
    // Global options before the subcommand (`git -C dir push`): the form without them.
    if base == "git" && command.words.get(1).is_some_and(|w| w.text().starts_with('-')) {
        let args: Vec<&str> = command.words[1..].iter().map(Word::text).collect();
        if let Some((sub, rest)) = shell::git_subcommand(&args)
            && rest.len() + 1 < args.len()
        {
            forms.push(joined(["git", sub].into_iter().chain(rest.iter().copied())));
        }
    }
    // Flags anywhere (`git push origin --force`, `rm x -rf`): the form with every flag
    // moved to just after the command, or its subcommand, in the order written.
    // (The words are the same in every form: most commands have no flag after an
    // operand, and skip this.)
    let skip = if has_subcommands(base) { 2 } else { 1 };
    let args = command.words.iter().skip(skip).map(Word::text).take_while(|w| *w != "--");
    let misplaced = args
        .scan(false, |operand, w| {
            let flag = w.starts_with('-') && w.len() > 1;
            let late = flag && *operand;
            *operand |= !flag;
            Some(late)
        })
        .any(|late| late);
    for i in 0..forms.len() {
        if !misplaced {
            break;
        }
        if let Some(moved) = flags_first(&forms[i]) {
            forms.push(moved);
        }
    }
    for i in 0..forms.len() {
        if let Some(canonical) = canonical_flags(&forms[i]) {
            forms.push(canonical);
        }
    }
    if command.more_args {
        for i in 0..forms.len() {
            let with_more = concat(&[&forms[i], " \u{1}"]);
            forms.push(with_more);
        }
    }
    forms
}

/// `form` with its flags moved right after the command name (after the subcommand
/// for programs that have one), if that changes it. `--` ends the flags.
pub(crate) fn flags_first(form: &str) -> Option<String> {
    // Most commands have no flag after an operand: nothing to move, nothing allocated.
    let mut seen_operand = false;
    let mut misplaced = false;
    let skip = if form.split(' ').next().is_some_and(has_subcommands) { 2 } else { 1 };
    for word in form.split(' ').skip(skip) {
        if word == "--" {
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            if seen_operand {
                misplaced = true;
                break;
            }
        } else {
            seen_operand = true;
        }
    }
    if !misplaced {
        return None;
    }
    let words: Vec<&str> = form.split(' ').collect();
    let head = skip;
    if words.len() <= head + 1 {
        return None;
    }
    let rest = &words[head..];
    let end = rest.iter().position(|w| *w == "--").unwrap_or(rest.len());
    let (flags, operands): (Vec<&str>, Vec<&str>) = rest[..end].iter().partition(|w| w.starts_with('-') && w.len() > 1);
    let moved = words[..head].iter().chain(&flags).chain(&operands).chain(&rest[end..]).copied();
    let moved = joined(moved);
    (moved != form).then_some(moved)
}

/// Words joined by spaces, allocated once.
pub(crate) fn joined<'a>(words: impl Iterator<Item = &'a str> + Clone) -> String {
    let mut text = String::with_capacity(words.clone().map(|w| w.len() + 1).sum());
    for (i, word) in words.enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(word);
    }
    text
}

pub(crate) fn matches_loose(pattern: &CommandPattern, form: &str) -> bool {
    pattern.matches(form) || pattern.canonical().is_some_and(|p| p.matches(form))
}
