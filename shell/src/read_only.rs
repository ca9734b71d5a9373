//! Which shell commands only read: the classifier behind the read-only commands that
//! run without a rule (Claude Code's built-in set) and the shell tool's scheduling.
//!
//! Most listed commands are judged by name. The ones with a flag or an operand that
//! writes a file, runs a program or changes the system (`sort -o`, `uniq in out`,
//! `rg --pre`, `git diff --output`, `date -s`, `file -C`) are read word by word: short
//! options clustered or with their value attached (`-uo out`), and GNU long options
//! abbreviated (`--compress=prog`), the way the programs themselves read them.

use crate::command::{Command, Word};

/// Commands that only read, whatever their arguments (besides the exceptions in
/// [`is_read_only`]). Sorted by [`by_length_then_text`]: looked up by binary search.
const READ_ONLY_COMMANDS: &[&str] = &[
    "[",
    "ag",
    "df",
    "du",
    "id",
    "jq",
    "ls",
    "nl",
    "od",
    "ps",
    "rg",
    "wc",
    "cat",
    "cmp",
    "cut",
    "env",
    "pwd",
    "rev",
    "seq",
    "tac",
    "tty",
    "xxd",
    "arch",
    "comm",
    "date",
    "diff",
    "echo",
    "file",
    "find",
    "fold",
    "free",
    "grep",
    "head",
    "less",
    "more",
    "stat",
    "tail",
    "test",
    "tree",
    "true",
    "type",
    "uniq",
    "b2sum",
    "cksum",
    "egrep",
    "false",
    "fgrep",
    "nproc",
    "uname",
    "which",
    "column",
    "expand",
    "groups",
    "locale",
    "md5sum",
    "printf",
    "uptime",
    "whoami",
    "dirname",
    "hexdump",
    "sha1sum",
    "strings",
    "whereis",
    "basename",
    "hostname",
    "printenv",
    "readlink",
    "realpath",
    "sha256sum",
];

/// `git` subcommands that only read. Sorted by [`by_length_then_text`].
const READ_ONLY_GIT: &[&str] = &[
    "log",
    "diff",
    "grep",
    "show",
    "blame",
    "reflog",
    "status",
    "ls-tree",
    "cat-file",
    "describe",
    "ls-files",
    "name-rev",
    "shortlog",
    "show-ref",
    "rev-parse",
    "merge-base",
    "whatchanged",
    "count-objects",
];

/// Whether one command, as flattened, only reads.
pub fn is_read_only(command: &Command) -> bool {
    let Some(name) = command.base_name() else { return false };
    if !runs_the_system_program(command) {
        return false;
    }
    // An unquoted glob could expand to a flag (`-delete`, `-o`, `-i`): commands with
    // write- or exec-capable flags are not read-only with one (Claude Code).
    if matches!(name, "find" | "sort" | "sed" | "git" | "tree" | "xargs" | "env" | "uniq" | "xxd" | "file" | "less")
        && command.words.iter().any(|w| matches!(w, Word::Pattern(_)))
    {
        return false;
    }
    let listed = |list: &[&str], name: &str| list.binary_search_by(|w| by_length_then_text(w, name)).is_ok();
    match name {
        // Most commands are judged by name alone: no need to look at the arguments.
        other if !READ_BY_ARGS.contains(&other) => listed(READ_ONLY_COMMANDS, other) && !command.more_args,
        _ => is_read_only_by_args(command, name, listed),
    }
}

/// Whether the command runs the system's program of its name, as the lists that judge
/// by name assume: not `./ls` or `bin/cat` (whatever file has that name), and with no
/// variable set but the known-safe ones (`PATH=. ls`, `LD_PRELOAD=x.so cat`,
/// `GIT_EXTERNAL_DIFF=x git diff` make it run other code).
pub fn runs_the_system_program(command: &Command) -> bool {
    let from_path = command.name().is_none_or(|written| !written.contains('/') || in_system_dir(written));
    from_path && command.env.iter().all(|(var, _)| crate::env::SAFE_ENV_VARS.contains(&var.as_str()))
}

/// Whether a program path is in a directory of the system's own programs.
fn in_system_dir(path: &str) -> bool {
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    matches!(dir, "/bin" | "/usr/bin" | "/usr/local/bin" | "/sbin" | "/usr/sbin" | "/usr/local/sbin")
}

/// The listed commands (and `command`, `git`) whose arguments decide whether they
/// only read.
const READ_BY_ARGS: &[&str] = &[
    "find", "sort", "tree", "env", "printenv", "command", "git", "echo", "rg", "ag", "uniq", "xxd", "date", "hostname",
    "file", "less", "more",
];

fn is_read_only_by_args(command: &Command, name: &str, listed: impl Fn(&[&str], &str) -> bool) -> bool {
    let args: Vec<&str> = command.words[1..].iter().map(|w| w.literal().unwrap_or("")).collect();
    let any = |hit: &dyn Fn(&str) -> bool| args.iter().any(|a| hit(a));
    if command.more_args && name != "echo" {
        return false;
    }
    match name {
        "find" => !args.iter().any(|a| {
            matches!(
                *a,
                "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
            )
        }),
        // `-o FILE` writes; `--compress-program` runs a program.
        "sort" => !any(&|a| short(a, "kStTo", 'o') || long(a, &["--output", "--compress-program"])),
        "tree" => !any(&|a| short(a, "LPIoH", 'o') || long(a, &["--output"])),
        // A second operand is the file written.
        "uniq" => operands(&args, &["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"]) <= 1,
        "xxd" => operands(&args, &["-c", "-g", "-l", "-o", "-s", "-n"]) <= 1,
        // `--pre` and `--hostname-bin` run a program; ag's pager too.
        "rg" => !any(&|a| long(a, &["--pre", "--hostname-bin"])),
        "ag" => !any(&|a| long(a, &["--pager"])),
        // Setting the clock or the host name changes the system.
        "date" => !any(&|a| short(a, "dfIrs", 's') || long(a, &["--set"])),
        "hostname" => {
            operands(&args, &[]) == 0
                && !any(&|a| short(a, "F", 'F') || short(a, "F", 'b') || long(a, &["--file", "--boot"]))
        }
        // Path-opening flags (Claude Code asks) and `-C`, which writes a compiled file.
        "file" => !any(&|a| {
            ['m', 'f', 'C'].iter().any(|&c| short(a, "efFmP", c))
                || long(a, &["--magic-file", "--files-from", "--compile"])
        }),
        // A log file is written; `+cmd` runs a pager command at start.
        "less" | "more" => {
            !any(&|a| a.starts_with('+') || short(a, "bhjkoOpPtTxyz#", 'o') || short(a, "bhjkoOpPtTxyz#", 'O'))
                && !any(&|a| long(a, &["--log-file", "--LOG-FILE"]))
        }
        "env" | "printenv" => command.words.len() == 1 || name == "printenv",
        "command" => args.first().is_some_and(|a| *a == "-v" || *a == "-V"),
        // `-p`/`--paginate` runs the pager even without a terminal.
        "git" if args.iter().take_while(|a| a.starts_with('-')).any(|a| matches!(*a, "-p" | "--paginate")) => false,
        "git" => {
            let sub = git_subcommand(&args);
            match sub {
                Some(("branch", rest)) => rest
                    .iter()
                    .all(|a| matches!(*a, "-a" | "-r" | "-v" | "-vv" | "--list" | "--all" | "--show-current")),
                Some(("tag", rest)) => rest.is_empty() || rest.iter().all(|a| matches!(*a, "-l" | "--list")),
                Some(("remote", rest)) => rest.is_empty() || rest == ["-v"],
                Some(("stash", rest)) => rest.first().is_some_and(|a| *a == "list" || *a == "show"),
                Some(("config", rest)) => rest.iter().any(|a| matches!(*a, "--get" | "--list" | "-l" | "--get-all")),
                // `reflog expire` and `reflog delete` drop history.
                Some(("reflog", rest)) => {
                    rest.first().is_none_or(|a| a.starts_with('-') || matches!(*a, "show" | "exists" | "list"))
                }
                // `--output` writes a file; `grep -O` opens the matches in a pager it runs.
                Some(("grep", rest)) => {
                    !rest.iter().any(|a| short(a, "efABCm", 'O') || long(a, &["--open-files-in-pager", "--output"]))
                }
                Some((sub, rest)) => listed(READ_ONLY_GIT, sub) && !rest.iter().any(|a| long(a, &["--output"])),
                None => false,
            }
        }
        other => listed(READ_ONLY_COMMANDS, other) || other == "echo",
    }
}

/// Whether `arg` is a cluster of short options (`-uo`) holding `letter`, read as
/// getopt does: up to and including the first letter of `with_value`, which takes
/// the rest of the word as its value (`-t,` is `-t` with `,`).
fn short(arg: &str, with_value: &str, letter: char) -> bool {
    let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty() && !l.starts_with('-')) else {
        return false;
    };
    for c in letters.chars() {
        if c == letter {
            return true;
        }
        if with_value.contains(c) {
            return false;
        }
    }
    false
}

/// Whether `arg` is one of the long options `names`, as written or abbreviated (GNU
/// getopt takes any unambiguous prefix: `--compress=gzip`), with or without `=value`.
fn long(arg: &str, names: &[&str]) -> bool {
    let Some(key) = arg.strip_prefix("--").map(|k| k.split_once('=').map_or(k, |(k, _)| k)) else {
        return false;
    };
    !key.is_empty() && names.iter().any(|name| name.strip_prefix("--").is_some_and(|n| n.starts_with(key)))
}

/// How many operands `args` has, past options (`with_value` lists those that take the
/// next word as their value); everything after `--` is an operand.
fn operands(args: &[&str], with_value: &[&str]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if *arg == "--" {
            return count + args.len() - i - 1;
        }
        if arg.starts_with('-') && *arg != "-" {
            i += if with_value.contains(arg) { 2 } else { 1 };
        } else {
            count += 1;
            i += 1;
        }
    }
    count
}

/// Orders names by length, then text: a binary search over them mostly compares
/// lengths, not bytes.
pub fn by_length_then_text(a: &str, b: &str) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// `git`'s subcommand and its arguments, past global options (`-C dir`, `-c k=v`,
/// `--no-pager`, `--git-dir=..`).
pub fn git_subcommand<'a>(args: &'a [&'a str]) -> Option<(&'a str, &'a [&'a str])> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => i += 2,
            a if a.starts_with('-') => i += 1,
            sub => return Some((sub, &args[i + 1..])),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze;

    fn read(command: &str) -> bool {
        is_read_only(&analyze(command).commands[0])
    }

    #[test]
    fn command_lists_are_sorted_for_binary_search() {
        for list in [READ_ONLY_COMMANDS, READ_ONLY_GIT] {
            assert!(list.windows(2).all(|w| by_length_then_text(w[0], w[1]).is_lt()), "{list:?}");
        }
        assert!(read("cat x") && read("wc -l") && read("git -C a log") && read("find . -name x"));
        assert!(!read("rm x") && !read("git push") && !read("find . -delete") && !read("sort -o out x"));
    }

    #[test]
    fn flags_that_write_run_or_change_the_system_are_not_read_only() {
        for command in [
            "sort -uo out in",
            "sort -oout in",
            "sort --out=x in",
            "sort --compress-program=sh in",
            "sort --compress=sh in",
            "tree -o out",
            "uniq in out",
            "uniq -c in out",
            "uniq -- in out",
            "xxd in out",
            "xxd -r -p in .git/hooks/pre-commit",
            "rg --pre ./x pattern",
            "rg --pre=./x pattern",
            "rg --hostname-bin=./x pattern",
            "ag --pager ./x pattern",
            "date -s 2020-01-01",
            "date -us 2020-01-01",
            "date --set=2020-01-01",
            "hostname evil",
            "hostname -F /etc/x",
            "hostname --file=/etc/x",
            "file -m /etc/magic x",
            "file -f list",
            "file --files-from=list",
            "file -C -m magic",
            "file -zm magic x",
            "less -o log in",
            "./ls",
            "bin/cat x",
            "PATH=. ls",
            "LD_PRELOAD=./x.so cat README",
            "GIT_EXTERNAL_DIFF=./x git diff",
            "git -p log",
            "git --paginate log",
            "less -Olog in",
            "less --log-file=log in",
            "less +!sh in",
            "more +/x in",
            "git diff --output=out",
            "git log --output out",
            "git show --out=x HEAD",
            "git grep -O x",
            "git grep -Ovim x",
            "git grep --open-files-in-pager=sh x",
            "git reflog expire --expire=now --all",
            "git reflog delete HEAD@{1}",
        ] {
            assert!(!read(command), "{command} was read-only");
        }
    }

    #[test]
    fn their_read_only_forms_still_are() {
        for command in [
            "sort -t o -k 2 in",
            "sort -to in",
            "sort -r in",
            "uniq -c in",
            "uniq -f 1 in",
            "uniq",
            "xxd in",
            "xxd -c 16 -g 1 in",
            "xxd -r -p in",
            "rg --pretty pattern",
            "rg -p pattern src",
            "date",
            "date -Iseconds",
            "date -d yesterday +%s",
            "date -u",
            "hostname",
            "hostname -f",
            "hostname --fqdn",
            "file x",
            "file -b --mime-type x",
            "less in",
            "less -R -p pattern in",
            "git diff",
            "git diff --stat HEAD~1",
            "git grep -n x",
            "git grep -e O x",
            "git reflog",
            "git reflog show main",
            "git reflog -n 5",
            "/bin/ls -la",
            "/usr/bin/git status",
            "LANG=C ls",
            "NO_COLOR=1 git log",
        ] {
            assert!(read(command), "{command} was not read-only");
        }
    }
}
