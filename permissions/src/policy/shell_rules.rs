//! Bash rules: every part of a command line against deny, ask and allow rules,
//! the paths its words name, what it writes, and the read-only classifier.

use super::forms::*;
use super::index::*;
use super::places::*;
use super::verdict::*;
use super::*;
use crate::mode::Mode;
use crate::pattern::CommandPattern;
use crate::rule::{CallNames, Effect, Kind, Rule};
use crate::shell::{self, Command, Word};
use smallvec::SmallVec;
use std::cell::OnceCell;
use std::path::{Component, Path};
use toolwright_core::access::CommandLine;

impl RulePolicy {
    /// A shell command: every part must be allowed; any denied part denies it.
    pub(crate) fn shell(&self, line: &CommandLine, call: &CallNames<'_>, cwd: &Path, confined: bool) -> Verdict {
        let command = line.text();
        let analysis = line.analysis(shell::analyze);
        if analysis.too_deep {
            let why = analysis.unknowns.first().map_or("", String::as_str);
            return Verdict::Deny(format!("`{}` cannot be checked: {why}", first_line(command)));
        }
        let set = self.read_rules();
        let line = ShellLine {
            command,
            analysis: &analysis,
            set: &set,
            index: set.shell_index(),
            call,
            cwd,
            home: self.anchors.home.as_deref(),
            places: OnceCell::new(),
            written: OnceCell::new(),
        };
        if let Some(verdict) = self.shell_denied_or_asked(&line, confined) {
            return verdict;
        }
        if let Some(verdict) = self.shell_needs_a_person(&line) {
            return verdict;
        }
        self.shell_allowed(&line)
    }

    /// Deny, then ask: each part, in every form it could be written, the paths its
    /// words name and the files it writes.
    fn shell_denied_or_asked(&self, line: &ShellLine<'_>, confined: bool) -> Option<Verdict> {
        let ShellLine { command, analysis, set, index, cwd, .. } = *line;
        let parts = &analysis.commands;
        // The distinct first words the parts' forms start with (as written, or without
        // the program's directory): only the patterns starting with one are tried, and
        // only on the parts that start with it.
        let mut starts: SmallVec<[&str; 8]> = SmallVec::new();
        let views: SmallVec<[([usize; 2], OnceCell<Forms>); 4]> = parts
            .iter()
            .map(|part| {
                let written = first_token(part.words.first().map_or("", Word::text));
                let base = first_token(part.base_name().unwrap_or(written));
                ([index_in(&mut starts, written), index_in(&mut starts, base)], OnceCell::new())
            })
            .collect();
        let tried = |pattern: &CommandPattern, start: Option<usize>| {
            parts.iter().zip(&views).any(|(part, (part_starts, forms))| {
                start.is_none_or(|s| part_starts.contains(&s))
                    && forms.get_or_init(|| loose_forms(part)).iter().any(|form| matches_loose(pattern, form))
            })
        };
        let unknown = !analysis.unknowns.is_empty();
        let starting: SmallVec<[_; 8]> = starts.iter().map(|word| index.starting_with(word)).collect();
        let mut candidates = Candidates::new();
        // An ask about the paths named waits until every deny has been looked for.
        let mut path_ask: Option<Verdict> = None;
        for effect in [Effect::Deny, Effect::Ask] {
            let list = index.list(effect);
            index.candidates(effect, &starting, unknown, &mut candidates);
            for &(i, start) in &candidates {
                let rule = &set.rules[i];
                if !line.applies(rule) {
                    continue;
                }
                let hit = match rule.specifier.as_ref().map(command_pattern) {
                    // A bare ask rule does not ask about a command that runs confined.
                    None => !(confined && effect == Effect::Ask),
                    Some(Some(pattern)) => tried(pattern, start) || (unknown && pattern.matches(command.trim())),
                    Some(None) => false,
                };
                if hit {
                    return Some(verdict_for(rule));
                }
            }
            // Arguments naming files a Read deny covers: `cat .env` reads `.env`.
            if effect == Effect::Deny && !index.read_denies.is_empty() {
                match self.shell_named_paths(line) {
                    Some(deny @ Verdict::Deny(_)) => return Some(deny),
                    other => path_ask = other,
                }
            }
            // Redirections write files: Edit (and Read) deny and ask rules apply.
            if !list.writes.is_empty() {
                for (write, target) in analysis.writes.iter().zip(line.written()) {
                    if let Some(rule) =
                        list.writes.iter().map(|&i| &set.rules[i]).find(|r| covers_write(r, target, effect, cwd))
                    {
                        let why = format!("{} (the command writes `{write}`)", reason_for(rule));
                        return Some(if effect == Effect::Deny { Verdict::Deny(why) } else { Verdict::AskRule(why) });
                    }
                }
            }
            if let Some(ask) = path_ask.take() {
                return Some(ask);
            }
        }
        None
    }

    /// The paths the line's words name against the Read denies: a deny, an ask about
    /// them, or nothing.
    fn shell_named_paths(&self, line: &ShellLine<'_>) -> Option<Verdict> {
        let ShellLine { command, analysis, set, index, cwd, home, .. } = *line;
        // The first Read deny whose pattern `hits` the path as named or as it finally
        // is (a deny needs either).
        let read_deny = |probe: &Probe, hits: fn(&crate::path::PathPattern, &Path, &Path) -> bool| {
            index.read_denies.iter().map(|&i| &set.rules[i]).find(|rule| {
                rule.specifier.as_ref().and_then(path_pattern).is_some_and(|pattern| {
                    hits(pattern, &probe.path, cwd)
                        || probe.real.as_deref().is_some_and(|real| hits(pattern, real, cwd))
                })
            })
        };
        let denied = |named: &Probe| read_deny(named, crate::path::PathPattern::matches_at_or_below);
        // A recursive read of a directory reaches whatever a deny could match below it.
        let reaches = |probe: &Probe| read_deny(probe, crate::path::PathPattern::may_match_below);
        let found = line.places().named_paths(analysis, command, home, denied, reaches);
        if found.is_some() {
            return found;
        }
        // A link made by one part (`ln -s . x && cat x/.env`) names paths the others
        // can read through, which do not exist yet where the rules look.
        let parts = &analysis.commands;
        (parts.len() > 1 && parts.iter().any(makes_link)).then(|| {
            Verdict::AskRule(format!(
                "`{}` makes a link that its other commands may read through, and some paths are denied; allow it?",
                first_line(command)
            ))
        })
    }

    /// What no rule may approve: a line that cannot be analysed, the removal of a
    /// critical path, a write to a protected path.
    fn shell_needs_a_person(&self, line: &ShellLine<'_>) -> Option<Verdict> {
        let ShellLine { command, analysis, index, cwd, home, .. } = *line;
        if let Some(why) = analysis.unknowns.first() {
            // What cannot be analysed might be what a deny rule is about: it is denied
            // where such rules exist, and always asks where ask rules do.
            if index.has_rules(Effect::Deny) {
                return Some(Verdict::Deny(format!(
                    "`{}` cannot be checked against the deny rules: {why}",
                    first_line(command)
                )));
            }
            let question = format!("Allow `{}`? {why}", first_line(command));
            return Some(if index.has_rules(Effect::Ask) {
                Verdict::AskRule(question)
            } else {
                Verdict::Ask(question)
            });
        }
        // Removing a critical path (`rm -rf /`, `~`, the working directory or a parent
        // of it) is approved by no rule and no mode: a person answers, every time.
        if let Some(why) =
            analysis.commands.iter().find_map(|part| self.critical_removal(part, line.places(), cwd, home))
        {
            return Some(Verdict::AskRule(format!("`{}` {why}; allow it?", first_line(command))));
        }
        // A redirection to a protected path is approved only by a person.
        let write =
            analysis.writes.iter().zip(line.written()).find(|(_, target)| target.protected()).map(|(w, _)| w)?;
        let reason = format!("`{}` writes `{write}`", first_line(command));
        Some(Verdict::Undecided { what: What::Protected, reason })
    }

    /// Allow: every part by a rule, or by the read-only classifier, and every file
    /// written by an Edit rule; otherwise what needs approval.
    fn shell_allowed(&self, line: &ShellLine<'_>) -> Verdict {
        let ShellLine { command, analysis, set, index, call, cwd, home, .. } = *line;
        let parts = &analysis.commands;
        let allow = index.list(Effect::Allow);
        let mut candidates = Candidates::new();
        // What no rule allows: parts, then files written.
        let mut open: SmallVec<[&Command; 4]> = SmallVec::new();
        let mut open_writes: SmallVec<[&str; 2]> = SmallVec::new();
        let mut all_read_only = true;
        // Whether an allow rule allows a part as written; with `exact`, only a rule
        // without `*` naming it whole: an exec wrapper needs one, and one naming a whole
        // wrapper or find (`Bash(watch -n 1 make)`, `Bash(find . -delete)`) allows what
        // runs within it too (Claude Code).
        let allowed_by_rule = |part: &Command, exact: bool, found: &mut Candidates| -> bool {
            let text = strict_form(part);
            let starting = [text.as_deref().and_then(|text| index.starting_with(first_token(text)))];
            index.candidates(Effect::Allow, &starting, false, found);
            found.iter().filter(|&&(i, _)| line.applies(&set.rules[i])).any(|&(i, _)| {
                match set.rules[i].specifier.as_ref().map(command_pattern) {
                    None => !exact,
                    Some(Some(pattern)) => {
                        (!exact || pattern.is_exact()) && text.as_deref().is_some_and(|t| pattern.matches(t))
                    }
                    Some(None) => false,
                }
            })
        };
        for part in parts.iter().filter(|part| !part.stripped) {
            // `cd` changes no file (the shell tool keeps the directory inside the
            // working directory), but it is not read-only for scheduling: later calls
            // depend on it, so the classifier leaves it out and only the rules let it
            // through. A read-only part is harmless only where it stays inside the
            // working directories, and `git` only in the call's own directory (another
            // directory's hooks and config could run commands).
            let read_only = part.read_only || part.base_name() == Some("cd");
            let stays = || self.part_stays_inside(part, line.places(), cwd, home);
            let harmless = read_only && stays();
            all_read_only &= harmless;
            if harmless && self.read_only_shell_runs {
                continue;
            }
            // acceptEdits: the filesystem commands Claude Code lists, on paths inside
            // the working directories (none of them protected).
            if call.mode == Mode::AcceptEdits
                && part.base_name().is_some_and(|name| crate::protected::ACCEPT_EDITS_COMMANDS.contains(&name))
                && crate::shell::runs_the_system_program(part)
                // sed's `e`, `w` and `r` run commands and touch other files.
                && (part.base_name() != Some("sed") || crate::sed::only_edits(part))
                && !part.exact_only
                && stays()
                && !self.part_touches_protected(part, line.places(), home)
            {
                continue;
            }
            let allowed = allowed_by_rule(part, part.exact_only, &mut candidates);
            if !allowed
                && !part.within.and_then(|at| parts.get(at)).is_some_and(|w| allowed_by_rule(w, true, &mut candidates))
            {
                open.push(part);
            }
        }
        for (write, target) in analysis.writes.iter().zip(line.written()) {
            // A target starting with `~` needs approval (Claude Code); a bare `Edit`
            // approves writes inside the working directories, a path rule where it names.
            let inside = target.inside(cwd, &self.additional_dirs);
            let allowed = !write.starts_with('~')
                && (allow.writes.iter().any(|&i| {
                    let rule = &set.rules[i];
                    covers_write(rule, target, Effect::Allow, cwd) && (rule.specifier.is_some() || inside)
                }) || (call.mode == Mode::AcceptEdits && inside));
            all_read_only = false;
            if !allowed {
                open_writes.push(write);
            }
        }
        if open.is_empty() && open_writes.is_empty() {
            return Verdict::Allow;
        }
        let mut reason = String::with_capacity(2 * command.len() + 32);
        for piece in [call.tool, ": `", first_line(command), "` needs approval for "] {
            reason.push_str(piece);
        }
        let mut separator = "";
        for part in open {
            reason.push_str(separator);
            display_form(part, &mut reason);
            separator = ", ";
        }
        for write in open_writes {
            for piece in [separator, "writing `", write, "`"] {
                reason.push_str(piece);
            }
            separator = ", ";
        }
        Verdict::Undecided { what: What::Command { read_only: all_read_only && self.read_only_shell_runs }, reason }
    }

    /// Why `part` is an `rm`/`rmdir` of a critical path, if it is (Claude Code's list):
    /// the root, a top-level directory, the home directory, the working directory or a
    /// parent of it, a glob directly under an additional directory, or a glob or
    /// trailing slash directly under a variable (`"$DIR"/*` is `/*` when it is empty).
    pub(crate) fn critical_removal(
        &self,
        part: &Command,
        places: &Places,
        cwd: &Path,
        home: Option<&Path>,
    ) -> Option<String> {
        if !matches!(part.base_name(), Some("rm" | "rmdir")) {
            return None;
        }
        for word in part.words.iter().skip(1) {
            let text = word.text();
            if text.starts_with('-') && matches!(word, Word::Literal(_)) {
                continue;
            }
            if let Word::Dynamic(raw) = word
                && (raw.ends_with("/*") || raw.ends_with('/') || raw.ends_with("/.*"))
            {
                return Some(format!("removes `{raw}`, which is the root's contents if the variable is empty"));
            }
            let glob = matches!(word, Word::Pattern(_));
            let target = if glob { literal_dirs(text) } else { text.to_owned() };
            for dir in places.of(part).flatten() {
                let probe = places.resolve(&target, dir, home);
                for path in [probe.path.as_path(), probe.real()] {
                    let depth = path.components().filter(|c| matches!(c, Component::Normal(_))).count();
                    let critical = depth <= 1
                        || home.is_some_and(|h| path == h)
                        || cwd.starts_with(path)
                        || (glob && self.additional_dirs.iter().any(|d| d.starts_with(path)));
                    if critical {
                        return Some(format!("removes `{text}`, a critical path (`{}`)", path.display()));
                    }
                }
            }
        }
        None
    }

    /// Whether a literal argument of `part` names a protected path.
    pub(crate) fn part_touches_protected(&self, part: &Command, places: &Places, home: Option<&Path>) -> bool {
        places.of(part).flatten().any(|dir| {
            part.words.iter().skip(1).filter_map(Word::literal).filter(|arg| !arg.starts_with('-')).any(|arg| {
                let probe = places.resolve(arg, dir, home);
                crate::protected::is_protected(&probe.path) || crate::protected::is_protected(probe.real())
            })
        })
    }

    /// Whether a part's literal path arguments, and the directories it runs in, stay
    /// inside the working directories, and a `git` part runs where the call does.
    pub(crate) fn part_stays_inside(&self, part: &Command, places: &Places, cwd: &Path, home: Option<&Path>) -> bool {
        let name = part.base_name();
        // Arguments known only when it runs (`xargs`, `find -exec`, `find -delete`).
        if part.more_args {
            return false;
        }
        let mut dirs = places.of(part);
        // git elsewhere (`cd dir && git`, `git -C dir`) or with its config changed
        // (`git -c core.pager=..`) can run commands from that directory or option.
        // (A `cd` back to the call's own directory, `cd .`, goes nowhere.)
        let elsewhere = || places.of(part).any(|dir| dir.is_none_or(|dir| dir.real() != places.cwd.real()));
        if name == Some("git")
            && (elsewhere()
                || part.words.iter().skip(1).any(|w| {
                    w.literal().is_none_or(|w| {
                        matches!(w, "-C" | "-c" | "--git-dir" | "--work-tree" | "--exec-path" | "--config-env")
                            || w.starts_with("--git-dir=")
                            || w.starts_with("--work-tree=")
                            || w.starts_with("--exec-path=")
                            || w.starts_with("--config-env=")
                    })
                }))
        {
            return false;
        }
        // Commands whose arguments are never paths.
        if matches!(
            name,
            Some(
                "echo"
                    | "printf"
                    | "true"
                    | "false"
                    | "pwd"
                    | "date"
                    | "seq"
                    | "whoami"
                    | "id"
                    | "uname"
                    | "type"
                    | "which"
                    | "test"
                    | "["
            )
        ) {
            return dirs.all(|dir| dir.is_some_and(|d| d.inside(cwd, &self.additional_dirs)));
        }
        let subcommand = name.is_some_and(has_subcommands);
        // sed's scripts are not paths (`/^#/d` is an address).
        let scripts: Vec<usize> = match name {
            Some("sed") => crate::sed::scripts(part).unwrap_or_default().into_iter().map(|(i, _)| i).collect(),
            _ => Vec::new(),
        };
        dirs.all(|dir| {
            let Some(dir) = dir else { return false };
            if !dir.inside(cwd, &self.additional_dirs) {
                return false;
            }
            part.words.iter().enumerate().skip(1).filter(|(i, _)| !scripts.contains(i)).map(|(i, w)| (i - 1, w)).all(
                |(k, word)| match word {
                    // `--file=/etc/x` opens its value like an operand.
                    Word::Literal(arg) if arg.starts_with('-') => option_path(name, arg)
                        .is_none_or(|value| places.resolve(value, dir, home).inside(cwd, &self.additional_dirs)),
                    Word::Literal(_) if k == 0 && subcommand => true,
                    Word::Literal(arg) => places.resolve(arg, dir, home).inside(cwd, &self.additional_dirs),
                    // A pattern stays inside when its literal directories do and it does not
                    // climb out (`*/../..`); what it matches is below them.
                    Word::Pattern(arg) => {
                        !arg.split('/').any(|c| c == "..")
                            && places.resolve(&literal_dirs(arg), dir, home).inside(cwd, &self.additional_dirs)
                    }
                    Word::Dynamic(_) => false,
                },
            )
        })
    }
}

/// One command line being checked, with what its steps share: the rules, and the
/// directories its parts may run in and the files it writes, each looked at on disk
/// once (symlinks) and only when a rule or a check needs them.
struct ShellLine<'a> {
    command: &'a str,
    analysis: &'a shell::Analysis,
    set: &'a RuleSet,
    index: &'a ShellIndex,
    call: &'a CallNames<'a>,
    cwd: &'a Path,
    home: Option<&'a Path>,
    places: OnceCell<Places<'a>>,
    written: OnceCell<Vec<Touched>>,
}

impl<'a> ShellLine<'a> {
    /// `cd dir && cat key` reads `dir/key`: paths are checked from the directories a
    /// part may run in.
    fn places(&self) -> &Places<'a> {
        self.places.get_or_init(|| Places::new(self.analysis, self.cwd, self.home))
    }

    /// The files redirections write, each looked at once for every list.
    fn written(&self) -> &[Touched] {
        self.written.get_or_init(|| self.analysis.writes.iter().map(|w| self.places().written(w, self.home)).collect())
    }

    /// `Bash` rules govern every command; others only the tools they name.
    fn applies(&self, rule: &Rule) -> bool {
        rule.tool.is_kind(Kind::Shell) || rule.tool.covers(self.call)
    }
}
