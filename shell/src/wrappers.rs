//! Wrappers and hidden commands: `timeout cmd`, `sudo cmd`, `bash -c 'cmd'`, `xargs
//! cmd`, `find -exec`, `git -c alias.x=!cmd`; the command each runs is walked too.

use crate::command::{Command, Word};
use crate::walker::*;

/// What reading one wrapper found.
enum Next {
    /// The command it runs starts after this index of its words; `None`: it runs
    /// nothing more, and is recorded as it is.
    Skip(Option<usize>),
    /// Go on with this command (the wrapper itself is recorded).
    Then(Command),
    /// Everything is recorded, or the line is unknown.
    Done,
}

/// How a command that runs another command is read.
#[derive(Clone, Copy)]
enum Wrapper {
    /// Runs the words after its options (`nice -n 5 cmd`): `takes_value` lists the
    /// options whose value is the next word, `operands` counts its own words after
    /// them (`timeout 5 cmd`: one).
    Prefix { takes_value: &'static [&'static str], operands: usize },
    /// Runs the word right after it, whatever it looks like (`builtin rm`, `! rm`).
    Direct,
    /// An exec wrapper (`sudo`, `watch`): runs its argument as a command, which only
    /// an exact rule for the whole command approves.
    Exec,
    /// Read by a method of its own.
    Own(Own),
}

/// The commands read by a method of their own.
#[derive(Clone, Copy)]
enum Own {
    Busybox,
    Command,
    Env,
    Trap,
    Shell,
    Alias,
    Eval,
    Xargs,
    Find,
    Git,
    Source,
}

const fn prefix(takes_value: &'static [&'static str]) -> Wrapper {
    Wrapper::Prefix { takes_value, operands: 0 }
}

/// Every command that runs another, sorted by [`by_length_then_text`] for a binary
/// search. (`!` negates the status of what it runs, where the parser left it a word;
/// zsh's `nocorrect` is not stripped: Claude Code matches it as written.)
const WRAPPERS: &[(&str, Wrapper)] = &[
    ("!", Wrapper::Direct),
    (".", Wrapper::Own(Own::Source)),
    ("sh", Wrapper::Own(Own::Shell)),
    ("su", Wrapper::Exec),
    ("ash", Wrapper::Own(Own::Shell)),
    ("csh", Wrapper::Own(Own::Shell)),
    ("env", Wrapper::Own(Own::Env)),
    ("git", Wrapper::Own(Own::Git)),
    ("ksh", Wrapper::Own(Own::Shell)),
    ("zsh", Wrapper::Own(Own::Shell)),
    ("bash", Wrapper::Own(Own::Shell)),
    ("chrt", Wrapper::Exec),
    ("dash", Wrapper::Own(Own::Shell)),
    ("doas", Wrapper::Exec),
    ("eval", Wrapper::Own(Own::Eval)),
    ("exec", prefix(&["-a"])),
    ("find", Wrapper::Own(Own::Find)),
    ("fish", Wrapper::Own(Own::Shell)),
    ("mksh", Wrapper::Own(Own::Shell)),
    ("nice", prefix(&["-n", "--adjustment"])),
    ("posh", Wrapper::Own(Own::Shell)),
    ("sudo", Wrapper::Exec),
    ("tcsh", Wrapper::Own(Own::Shell)),
    ("time", prefix(&["-f", "--format", "-o", "--output"])),
    ("trap", Wrapper::Own(Own::Trap)),
    ("yash", Wrapper::Own(Own::Shell)),
    ("alias", Wrapper::Own(Own::Alias)),
    ("chpst", Wrapper::Exec),
    ("flock", Wrapper::Exec),
    ("nohup", prefix(&[])),
    ("proot", Wrapper::Exec),
    ("rbash", Wrapper::Own(Own::Shell)),
    ("watch", Wrapper::Exec),
    ("xargs", Wrapper::Own(Own::Xargs)),
    ("chroot", Wrapper::Exec),
    ("coproc", Wrapper::Direct),
    ("ionice", Wrapper::Exec),
    ("ltrace", Wrapper::Exec),
    ("noglob", Wrapper::Direct),
    ("pkexec", Wrapper::Exec),
    ("rlwrap", Wrapper::Exec),
    ("script", Wrapper::Exec),
    ("setsid", Wrapper::Exec),
    ("source", Wrapper::Own(Own::Source)),
    ("stdbuf", prefix(&["-i", "-o", "-e", "--input", "--output", "--error"])),
    ("strace", Wrapper::Exec),
    ("builtin", Wrapper::Direct),
    ("busybox", Wrapper::Own(Own::Busybox)),
    ("command", Wrapper::Own(Own::Command)),
    ("nsenter", Wrapper::Exec),
    ("prlimit", Wrapper::Exec),
    ("runuser", Wrapper::Exec),
    ("setpriv", Wrapper::Exec),
    ("taskset", Wrapper::Exec),
    ("timeout", Wrapper::Prefix { takes_value: &["-s", "--signal", "-k", "--kill-after"], operands: 1 }),
    ("unshare", Wrapper::Exec),
    ("fakeroot", Wrapper::Exec),
    ("firejail", Wrapper::Exec),
    ("parallel", Wrapper::Exec),
    ("unbuffer", Wrapper::Exec),
    ("xvfb-run", Wrapper::Exec),
    ("catchsegv", Wrapper::Exec),
    ("caffeinate", Wrapper::Exec),
    ("systemd-run", Wrapper::Exec),
    ("dbus-run-session", Wrapper::Exec),
];

/// The options of `xargs` whose value is the next word.
const XARGS_TAKE_VALUE: &[&str] = &[
    "-n",
    "-L",
    "-P",
    "-s",
    "-d",
    "-a",
    "-E",
    "-I",
    "-i",
    "--max-args",
    "--max-lines",
    "--max-procs",
    "--delimiter",
    "--arg-file",
    "--replace",
    "--max-chars",
];

/// How `name` runs another command, if it does.
fn wrapper(name: &str) -> Option<Wrapper> {
    WRAPPERS.binary_search_by(|(w, _)| crate::by_length_then_text(w, name)).ok().map(|i| WRAPPERS[i].1)
}

/// Braces are words, as bash makes them before anything runs: `git pu{sh,}` is `git
/// push pu`, and `{r,x}m -rf a` runs `rm` (the first word is the command). A word
/// with more than can be listed stays as it is (the paths it names reach what is
/// below its directory); a glob stays a pattern. `false` if no word is left.
fn expand_braces(command: &mut Command) -> bool {
    if !command.words.iter().any(|w| matches!(w, Word::Pattern(p) if crate::expand::has_braces(p))) {
        return true;
    }
    let mut words = Vec::with_capacity(command.words.len());
    for word in std::mem::take(&mut command.words) {
        let expanded = match &word {
            Word::Pattern(p) if crate::expand::has_braces(p) => crate::expand::braces(p),
            _ => None,
        };
        match expanded {
            Some(expanded) => words.extend(
                expanded
                    .into_iter()
                    .filter(|w| !w.is_empty())
                    .map(|w| if crate::expand::has_glob(&w) { Word::Pattern(w) } else { Word::Literal(w) }),
            ),
            None => words.push(word),
        }
    }
    command.words = words;
    !command.words.is_empty()
}

impl Walker<'_> {
    /// Strips wrappers and brings out hidden commands, then records what runs.
    pub(crate) fn unwrap(&mut self, command: Command) {
        // What an exec wrapper runs is within it only while the wrapper is walked.
        let outer = self.within;
        self.unwrap_command(command);
        self.within = outer;
    }

    pub(crate) fn unwrap_command(&mut self, mut command: Command) {
        loop {
            // `time -- cmd` leaves the `--` to the command's words.
            if command.words.len() > 1 && command.words.first().and_then(Word::literal) == Some("--") {
                command.words.remove(0);
            }
            if !expand_braces(&mut command) {
                return;
            }
            // A command name that is still a pattern (`/bin/r?`, too many braces) is known
            // only when it runs.
            if let Some(Word::Pattern(raw)) = command.words.first() {
                let raw = raw.clone();
                return self.unknown(format!("the command name `{raw}` is a pattern bash expands when it runs"));
            }
            let Some(name) = command.base_name().map(str::to_owned) else {
                if let Some(Word::Dynamic(raw)) = command.words.first() {
                    self.unknown(format!("the command name `{raw}` is computed when it runs"));
                }
                return self.record(command);
            };
            let args = &command.words[1..];
            let next = match wrapper(&name) {
                Some(Wrapper::Prefix { takes_value, operands }) => {
                    Next::Skip(skip_options(args, takes_value).map(|i| i + operands))
                }
                Some(Wrapper::Direct) => Next::Skip(Some(0)),
                Some(Wrapper::Exec) => self.exec_wrapper(&name, &command),
                Some(Wrapper::Own(own)) => self.own(own, &name, &mut command),
                None => Next::Skip(None),
            };
            match next {
                // A wrapper with a command after it: go on with that command.
                Next::Skip(Some(at)) if at < command.words.len() - 1 => {
                    command.words.drain(..=at);
                }
                // Not a wrapper, or one with nothing to run (`env` alone prints).
                Next::Skip(_) => return self.record(command),
                Next::Then(inner) => command = inner,
                Next::Done => return,
            }
        }
    }

    /// Exec wrappers run their argument as a command, but a prefix rule for the
    /// wrapper must not approve whatever it runs (Claude Code: they always ask unless
    /// an exact rule names the whole command). The inner command is checked as well.
    fn exec_wrapper(&mut self, wrapper: &str, command: &Command) -> Next {
        let args = &command.words[1..];
        let inner = exec_wrapper_command(wrapper, args);
        let wrapper_at = self.out.commands.len();
        self.record(Command { exact_only: true, ..command.clone() });
        self.within = Some(wrapper_at);
        let Some(at) = inner.filter(|&at| at < args.len()) else { return Next::Done };
        let inner = Command { env: command.env.clone(), words: args[at..].to_vec(), ..Command::default() };
        // A script given as one word (`su -c 'rm x'`, `script -c`, `watch 'rm x'`).
        if inner.words.len() == 1
            && let Some(Word::Literal(text)) = inner.words.first()
            && text.contains(' ')
        {
            let text = text.clone();
            self.subshell(|walker| walker.script(&text));
            return Next::Done;
        }
        Next::Then(inner)
    }

    /// The commands read by a method of their own.
    fn own(&mut self, own: Own, name: &str, command: &mut Command) -> Next {
        let args = &command.words[1..];
        match own {
            // `busybox rm x` runs its applet `rm`.
            Own::Busybox => {
                Next::Skip(args.first().and_then(Word::literal).is_some_and(|a| !a.starts_with('-')).then_some(0))
            }
            // `command -v x` only looks `x` up.
            Own::Command => Next::Skip(
                if args.first().and_then(Word::literal).is_some_and(|a| a.starts_with("-v") || a.starts_with("-V")) {
                    None
                } else {
                    skip_options(args, &[])
                },
            ),
            Own::Env => self.env(command),
            Own::Trap => self.trap(command),
            Own::Shell => self.shell(name, command),
            Own::Alias => self.alias(command),
            Own::Eval => {
                match args.iter().map(Word::literal).collect::<Option<Vec<&str>>>() {
                    Some(parts) => self.script(&parts.join(" ")),
                    None => self.unknown("`eval` runs computed text"),
                }
                Next::Done
            }
            Own::Xargs => self.xargs(command),
            Own::Find => {
                // What `-exec` and `-delete` run is within the find, recorded next.
                let before = self.out.commands.len();
                self.find_actions(command);
                let find_at = self.out.commands.len();
                for action in &mut self.out.commands[before..] {
                    action.within.get_or_insert(find_at);
                }
                Next::Skip(None)
            }
            Own::Git => {
                self.git_config_commands(&command.words[1..]);
                Next::Skip(None)
            }
            // A script from a file is not read (as Claude Code does not); one from its
            // input or a substitution is text known only when it runs.
            Own::Source => match args.first() {
                Some(Word::Literal(file)) if !is_input(file) => Next::Skip(None),
                Some(word) => {
                    let what = word.text().to_owned();
                    self.unknown(format!("`{name}` runs a script known only when it runs (`{what}`)"));
                    Next::Done
                }
                None => Next::Skip(None),
            },
        }
    }

    /// `trap 'cmd' EXIT` runs its text later, as a script.
    fn trap(&mut self, command: &Command) -> Next {
        match command.words[1..].iter().find(|w| w.literal() != Some("--")) {
            Some(Word::Literal(text)) if !text.starts_with('-') => {
                let text = text.clone();
                self.subshell(|walker| walker.script(&text));
                Next::Done
            }
            Some(Word::Dynamic(raw) | Word::Pattern(raw)) => {
                self.unknown(format!("`trap` runs a computed command `{raw}`"));
                Next::Done
            }
            _ => Next::Skip(None),
        }
    }

    /// `env VAR=x cmd` sets variables for `cmd`; `env -S 'rm x' y` splits its string
    /// into the command: `rm x y`.
    fn env(&mut self, command: &mut Command) -> Next {
        let args = &command.words[1..];
        let splits = args.iter().any(|a| {
            a.literal()
                .is_some_and(|a| a == "-S" || a.starts_with("--split-string") || (a.starts_with("-S") && a.len() > 2))
        });
        if splits {
            let Some(words) = args.iter().map(Word::literal).collect::<Option<Vec<&str>>>() else {
                self.unknown("`env -S` runs a computed command");
                return Next::Done;
            };
            let mut text = Vec::with_capacity(words.len());
            let mut i = 0;
            while let Some(word) = words.get(i) {
                match *word {
                    "-S" | "--split-string" => {}
                    w if w.starts_with("--split-string=") => text.push(&w["--split-string=".len()..]),
                    w if w.starts_with("-S") => text.push(&w[2..]),
                    "-u" | "--unset" | "-C" | "--chdir" => i += 1,
                    w if w.starts_with('-') && text.is_empty() => {}
                    w => text.push(w),
                }
                i += 1;
            }
            let script = text.join(" ");
            self.subshell(|walker| walker.script(&script));
            return Next::Done;
        }
        let mut i =
            skip_options(args, &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]).unwrap_or(args.len());
        let mut env = Vec::new();
        while let Some(Word::Literal(a)) = args.get(i)
            && let Some((k, v)) = a.split_once('=')
        {
            env.push((k.to_owned(), v.to_owned()));
            i += 1;
        }
        command.env.extend(env);
        Next::Skip(Some(i))
    }

    /// `bash -c 'cmd'` runs its script; `bash` with no script file runs what it reads.
    fn shell(&mut self, name: &str, command: &Command) -> Next {
        let args = &command.words[1..];
        if let Some(at) = args.iter().position(|a| {
            a.literal().is_some_and(|a| a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.contains('c')))
        }) {
            // The script is the first operand after the options (`bash -c -x 'cmd'`,
            // `sh -c -- 'cmd'`).
            match args.get(shell_operand(args, at + 1)) {
                Some(Word::Literal(script)) => {
                    let script = script.clone();
                    self.subshell(|walker| walker.script(&script));
                }
                Some(Word::Dynamic(raw) | Word::Pattern(raw)) => {
                    self.unknown(format!("`{name} -c` runs a computed script `{raw}`"));
                }
                None => self.unknown(format!("`{name} -c` without a script")),
            }
            return Next::Done;
        }
        // Without a script file it runs what it reads (`... | sh`, `sh <<< text`), and
        // so it does with `/dev/stdin` or a substitution (`bash <(...)`) for one: known
        // only when it runs. (A script file is not read.)
        let why = match args.get(shell_operand(args, 0)) {
            None => format!("`{name}` runs the script it reads from its input"),
            Some(Word::Literal(file)) if is_input(file) => {
                format!("`{name} {file}` runs the script it reads from its input")
            }
            Some(Word::Dynamic(raw)) => format!("`{name}` runs a script known only when it runs (`{raw}`)"),
            Some(_) => return Next::Skip(None),
        };
        self.unknown(why);
        Next::Done
    }

    /// `alias x=rm` makes `x` run `rm` (a script's aliases expand with `shopt -s
    /// expand_aliases`): the value is checked as a command.
    fn alias(&mut self, command: &Command) -> Next {
        for arg in &command.words[1..] {
            match arg {
                Word::Literal(definition) => {
                    if let Some((_, value)) = definition.split_once('=') {
                        let value = value.to_owned();
                        self.subshell(|walker| walker.script(&value));
                    }
                }
                other => self.unknown(format!("`alias` defines a computed command `{}`", other.text())),
            }
        }
        Next::Skip(None)
    }

    /// `xargs cmd` runs `cmd` with more arguments. Bare `xargs` is stripped for allow
    /// rules (`Bash(grep *)` allows `xargs grep x`); with options it is a command of
    /// its own (Claude Code). Deny and ask rules see it either way.
    fn xargs(&mut self, command: &Command) -> Next {
        let args = &command.words[1..];
        let at = skip_options(args, XARGS_TAKE_VALUE);
        let inner: Vec<Word> = match at {
            Some(at) if at < args.len() => args[at..].to_vec(),
            _ => vec![Word::Literal("echo".into())],
        };
        let stripped = at == Some(0);
        self.record(Command { words: vec![command.words[0].clone()], stripped, ..Command::default() });
        Next::Then(Command { env: command.env.clone(), words: inner, more_args: true, ..Command::default() })
    }

    /// `git -c key=value` with a key whose value git runs as a command (an alias
    /// `!cmd`, the pager, the editor, a diff or filter driver, ...): the value is a
    /// script of its own. A hooks directory set this way runs what is in it.
    pub(crate) fn git_config_commands(&mut self, args: &[Word]) {
        let mut i = 0;
        while let Some(word) = args.get(i) {
            let Some(arg) = word.literal() else { break };
            match arg {
                "-c" => {
                    match args.get(i + 1) {
                        Some(Word::Literal(setting)) => {
                            if let Some((key, value)) = setting.split_once('=') {
                                self.git_setting(&key.to_ascii_lowercase(), value);
                            }
                        }
                        Some(other) => self.unknown(format!("`git -c` sets a computed value `{}`", other.text())),
                        None => {}
                    }
                    i += 2;
                }
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" | "--config-env" => i += 2,
                a if a.starts_with('-') => i += 1,
                _ => break,
            }
        }
    }

    pub(crate) fn git_setting(&mut self, key: &str, value: &str) {
        let (section, name) = (key.split('.').next().unwrap_or(""), key.rsplit('.').next().unwrap_or(""));
        let runs = match section {
            "alias" | "credential" => value.strip_prefix('!'),
            "core" if matches!(name, "pager" | "editor" | "sshcommand" | "fsmonitor" | "askpass") => Some(value),
            "core" if name == "hookspath" => {
                return self.unknown(format!("`git -c {key}` runs the hooks in `{value}`"));
            }
            "sequence" if name == "editor" => Some(value),
            "pager" => Some(value),
            "gpg" if name == "program" => Some(value),
            "diff" if matches!(name, "external" | "command" | "textconv") => Some(value),
            "merge" | "mergetool" | "difftool" if matches!(name, "driver" | "cmd") => Some(value),
            "filter" if matches!(name, "clean" | "smudge" | "process") => Some(value),
            "uploadpack" if name == "packobjectshook" => Some(value),
            _ => None,
        };
        if let Some(script) = runs {
            let script = script.to_owned();
            self.subshell(|walker| walker.script(&script));
        }
    }

    /// `find -exec cmd {} ;` runs `cmd`; `-delete` removes what it finds.
    pub(crate) fn find_actions(&mut self, find: &Command) {
        let words = &find.words;
        let mut i = 1;
        while i < words.len() {
            match words[i].literal() {
                Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                    let end = words[i + 1..]
                        .iter()
                        .position(|w| matches!(w.literal(), Some(";" | "+")))
                        .map_or(words.len(), |p| i + 1 + p);
                    let inner: Vec<Word> =
                        words[i + 1..end].iter().filter(|w| w.literal() != Some("{}")).cloned().collect();
                    if inner.is_empty() {
                        self.unknown("`find -exec` without a command");
                    } else {
                        self.unwrap(Command { words: inner, more_args: true, ..Command::default() });
                    }
                    i = end + 1;
                }
                Some("-delete") => {
                    let rm = vec![Word::Literal("rm".into()), Word::Literal("-f".into())];
                    self.record(Command { words: rm, more_args: true, ..Command::default() });
                    i += 1;
                }
                Some("-fprint" | "-fprint0" | "-fprintf" | "-fls") => {
                    if let Some(Word::Literal(path)) = words.get(i + 1) {
                        self.out.writes.push(path.clone());
                    }
                    i += 2;
                }
                _ => i += 1,
            }
        }
    }
}

/// Where the command an exec wrapper runs starts in `args`.
pub(crate) fn exec_wrapper_command(wrapper: &str, args: &[Word]) -> Option<usize> {
    let with_value: &[&str] = match wrapper {
        "watch" => &["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
        "flock" => &["-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"],
        "ionice" => &["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"],
        "sudo" | "doas" => {
            &["-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host", "-p", "-r", "-t", "-U"]
        }
        "taskset" | "chrt" | "prlimit" | "setpriv" => &["-p", "--pid"],
        "runuser" | "su" => &["-u", "-g", "-G", "--user", "--group", "-s", "--shell"],
        "script" => &["-c", "--command", "-O", "-I", "-B", "-T", "-E"],
        "systemd-run" => &["-p", "--property", "-u", "--unit", "--slice", "-E", "--setenv"],
        "proot" => &["-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-q", "--qemu", "-k"],
        "parallel" => &["-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "-N", "-n"],
        "xvfb-run" => &["-n", "--server-num", "-s", "--server-args", "-f", "--auth-file", "-e", "--error-file"],
        _ => &[],
    };
    // `su -c 'cmd'`, `flock -c 'cmd'`, `script -c 'cmd'`: the script is an option's
    // value (looked for first: skipping the options would skip it too).
    if let Some(c) = args.iter().position(|w| matches!(w.literal(), Some("-c" | "--command")))
        && matches!(wrapper, "su" | "runuser" | "flock" | "script")
    {
        return Some(c + 1);
    }
    // `flock FILE cmd`, `taskset MASK cmd`, `chroot DIR cmd`: a first operand precedes the command.
    let at = skip_options(args, with_value)?;
    match wrapper {
        "flock" | "taskset" | "chroot" | "chrt" | "nsenter" if at + 1 < args.len() => Some(at + 1),
        _ => Some(at),
    }
}

/// The index in `args`, from `from`, of a shell's first operand: past its options and
/// the values of those that take one (`-o posix`, `--rcfile f`), and past `--`.
pub(crate) fn shell_operand(args: &[Word], from: usize) -> usize {
    let mut i = from;
    while let Some(arg) = args.get(i).and_then(Word::literal) {
        match arg {
            "--" => return i + 1,
            "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file" => i += 2,
            a if a.starts_with('-') || a.starts_with('+') => i += 1,
            _ => break,
        }
    }
    i
}

/// Whether a file a script is read from is the process's input (`/dev/stdin`,
/// `/dev/fd/0`, `/proc/self/fd/0`): its text is known only when it runs.
pub(crate) fn is_input(file: &str) -> bool {
    file == "/dev/stdin" || file.starts_with("/dev/fd/") || file.starts_with("/proc/")
}

/// The index (into `args`) of the first word after the options, where `with_value`
/// lists the options that take the next word as their value. `None` if only options.
pub(crate) fn skip_options(args: &[Word], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(arg) = word.literal() else { return Some(i) };
        if arg == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        if !arg.starts_with('-') || arg == "-" {
            return Some(i);
        }
        // `-n 5` takes the next word; `-n5` and `--opt=v` carry their value.
        let takes_next = with_value.contains(&arg) && !arg.contains('=');
        // `nice -5` is an option too.
        i += if takes_next { 2 } else { 1 };
    }
    None
}

#[cfg(test)]
mod table {
    use super::WRAPPERS;

    #[test]
    fn the_wrappers_are_sorted_for_the_binary_search() {
        for pair in WRAPPERS.windows(2) {
            assert_eq!(
                crate::by_length_then_text(pair[0].0, pair[1].0),
                std::cmp::Ordering::Less,
                "{} must come before {}",
                pair[0].0,
                pair[1].0
            );
        }
    }
}
