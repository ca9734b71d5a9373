//! The permission rules, case by case, from Claude Code's documented semantics and the
//! known bypass shapes. Each row: rules, mode, tool, input, expected decision.
#![allow(missing_docs)]

mod support;

use serde_json::{Value, json};
use std::path::Path;
use toolwright_core::permission::PermissionDecision;
use toolwright_permissions::{Effect, Mode, RulePolicy, Source};

/// `a` allow, `d` deny, `q` ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    A,
    D,
    Q,
}
use Want::{A, D, Q};

const CWD: &str = "/work/proj";

/// Rules as `allow:Rule|deny:Rule|ask:Rule`.
fn policy(rules: &str, mode: Mode) -> RulePolicy {
    let mut policy = RulePolicy::new().with_mode(mode).with_project(CWD);
    for spec in rules.split('|').filter(|s| !s.is_empty()) {
        let (effect, text) = spec.split_once(':').unwrap();
        let effect = match effect {
            "allow" => Effect::Allow,
            "deny" => Effect::Deny,
            "ask" => Effect::Ask,
            other => panic!("bad effect {other}"),
        };
        policy.add(text, effect, Source::Project).unwrap_or_else(|e| panic!("{e}"));
    }
    policy
}

fn decide(rules: &str, mode: Mode, tool: &str, input: &Value, _read_only: bool) -> Want {
    match support::decide(&policy(rules, mode), tool, input, Path::new(CWD)) {
        PermissionDecision::Allow => A,
        PermissionDecision::Deny(_) => D,
        PermissionDecision::Ask(_) | PermissionDecision::AskRule(_) => Q,
    }
}

fn sh(command: &str) -> Value {
    json!({ "command": command })
}

fn p(path: &str) -> Value {
    json!({ "path": path })
}

/// `(rules, command, expected)` in default mode.
const SHELL: &[(&str, &str, Want)] = &[
    // Wildcards and word boundaries.
    ("allow:Bash(ls *)", "ls -la", A),
    ("allow:Bash(ls *)", "ls", A),
    // The word boundary holds: `lsof` is not `ls`, nor one of Claude Code's read-only
    // commands, so it asks.
    ("allow:Bash(ls *)", "lsof -i", Q),
    ("allow:Bash(ls *)", "lsof", Q),
    ("allow:Bash(ls*)", "lsof", A),
    ("allow:Bash(npm run *)", "npm run test", A),
    ("allow:Bash(npm run *)", "npm runx", Q),
    ("allow:Bash(npm run*)", "npm runx", A),
    ("allow:Bash(npm run:*)", "npm run build", A),
    ("allow:Bash(npm run:*)", "npm runx", Q),
    ("allow:Bash(npm test)", "npm test", A),
    ("allow:Bash(npm test)", "npm test --watch", Q),
    ("allow:Bash(git * main)", "git push origin main", A),
    ("allow:Bash(git * main)", "git push origin dev", Q),
    ("allow:Bash(* --version)", "node --version", A),
    ("allow:Bash(make)", "make", A),
    ("allow:Bash(make)", "make install", Q),
    ("allow:Bash", "rm -rf build", A),
    ("allow:Bash(*)", "anything goes", A),
    ("allow:shell(cargo test *)", "cargo test -p x", A),
    // Read-only commands run in default mode without a rule; others ask.
    ("", "ls -la", A),
    ("", "cat README.md | grep x | wc -l", A),
    ("", "git status", A),
    ("", "git log --oneline -5", A),
    // git in another directory runs that directory's hooks and config: it asks.
    ("", "git -C sub diff", Q),
    ("", "cd sub && git status", Q),
    ("", "cd sub && ls", A),
    ("", "git -c core.pager=evil log", Q),
    ("", "git --git-dir=/tmp/x/.git log", Q),
    // Read-only commands run without asking only inside the working directories.
    ("", "cat /etc/passwd", Q),
    ("", "ls ../other", Q),
    ("", "cd /tmp && ls", Q),
    ("", "head -5 ~/.ssh/id_rsa", Q),
    ("", "ls ../proj/src", A),
    ("", "grep -r TODO /", Q),
    ("", "rg TODO src", A),
    ("", "find . -name '*.rs'", A),
    ("", "rm x", Q),
    ("", "npm install", Q),
    ("", "git push", Q),
    ("", "git branch -D old", Q),
    ("", "touch new", Q),
    ("", "ls > listing.txt", Q),
    ("", "echo hi > /dev/null", A),
    // Precedence: deny, then ask, then allow; specificity does not matter.
    ("allow:Bash(git *)|deny:Bash(git push *)", "git push origin", D),
    ("allow:Bash(git push *)|deny:Bash(git *)", "git push origin", D),
    ("allow:Bash(git *)|ask:Bash(git push *)", "git push", Q),
    ("ask:Bash(git *)|allow:Bash(git status)", "git status", Q),
    ("deny:Bash(git push *)|ask:Bash(git *)", "git push", D),
    ("deny:Bash", "ls", D),
    ("deny:Bash(rm *)", "ls", A),
    // Compound commands: every part must be allowed; any denied part denies.
    ("allow:Bash(npm test)", "npm test && npm run lint", Q),
    ("allow:Bash(npm test)|allow:Bash(npm run lint)", "npm test && npm run lint", A),
    ("allow:Bash(npm test)", "npm test; rm -rf /", Q),
    ("allow:Bash(npm test)|deny:Bash(rm *)", "npm test; rm -rf /", D),
    ("deny:Bash(rm *)", "ls || rm x", D),
    ("deny:Bash(rm *)", "ls | rm x", D),
    ("deny:Bash(rm *)", "ls |& rm x", D),
    ("deny:Bash(rm *)", "sleep 1 & rm x", D),
    ("deny:Bash(rm *)", "ls\nrm x", D),
    ("deny:Bash(rm *)", "if true; then rm x; fi", D),
    ("deny:Bash(rm *)", "for f in a b; do rm $f; done", D),
    ("deny:Bash(rm *)", "while false; do :; done; (rm x)", D),
    ("deny:Bash(rm *)", "{ rm x; }", D),
    // Nesting at any depth: bash reads `( (` and an unclosed `((` as subshells.
    ("deny:Bash(rm *)", "( (rm x) )", D),
    ("deny:Bash(rm *)", "((rm x) )", D),
    ("deny:Bash(rm *)", "((rm x); (ls))", D),
    ("deny:Bash(rm *)", "( ( ( (rm x) ) ) )", D),
    ("deny:Bash(rm *)", "((rm x))", D),
    ("deny:Bash(rm *)", "{ { rm x; }; }", D),
    ("deny:Bash(rm *)", "if true; then (if true; then ( (rm x) ); fi); fi", D),
    ("deny:Bash(rm *)", "case a in a) ( (rm x) );; esac", D),
    ("deny:Bash(rm *)", "echo $( (rm x) )", D),
    ("deny:Bash(rm *)", "cat <( (rm x) )", D),
    ("deny:Bash(rm *)", "echo $(echo $(echo $(rm x)))", D),
    ("deny:Bash(rm *)", "f() { rm x; }; f", D),
    ("deny:Bash(rm *)", "f() { ( (rm x) ); }", D),
    ("", "( (ls) )", A),
    ("", "( ( ls -la ) ) && { { pwd; }; }", A),
    // Arithmetic evaluates variables, and a value like `a[$(cmd)]` runs cmd.
    ("", "echo $((1 + 2))", A),
    ("", "x='a[$(rm y)]'; echo $((x))", Q),
    ("deny:Bash(rm *)", "x='a[$(rm y)]'; echo $((x))", D),
    ("", "[[ $x -eq 1 ]] && ls", Q),
    ("", "x=$(cat f); ((x)) && ls", Q),
    ("", "for ((i = 0; i < n; i++)); do ls; done", Q),
    // Exec wrappers: the command they run is checked, and a prefix rule for the
    // wrapper allows nothing (Claude Code: they ask unless an exact rule names them).
    ("deny:Bash(rm *)", "watch rm x", D),
    ("deny:Bash(rm *)", "watch -n 1 rm x", D),
    ("deny:Bash(rm *)", "setsid rm x", D),
    ("deny:Bash(rm *)", "flock /tmp/lock rm x", D),
    ("deny:Bash(rm *)", "flock -c 'rm x' /tmp/lock", D),
    ("deny:Bash(rm *)", "ionice -c 3 rm x", D),
    ("deny:Bash(rm *)", "sudo -u root rm x", D),
    ("deny:Bash(rm *)", "su -c 'rm x'", D),
    ("deny:Bash(rm *)", "coproc rm x", D),
    ("deny:Bash(rm *)", "taskset 1 rm x", D),
    ("allow:Bash(watch *)", "watch make", Q),
    ("allow:Bash(setsid *)|allow:Bash(make)", "setsid make", Q),
    ("allow:Bash(watch -n 1 make)|allow:Bash(make)", "watch -n 1 make", A),
    // An exact rule naming the whole command allows what it runs too (Claude Code), a
    // prefix rule does not; a deny of what it runs still holds.
    ("allow:Bash(watch -n 1 make)", "watch -n 1 make", A),
    ("allow:Bash(find . -delete)", "find . -delete", A),
    ("allow:Bash(find . -name x -exec cat {} +)", "find . -name x -exec cat {} +", A),
    ("allow:Bash(find *)", "find . -delete", Q),
    ("allow:Bash(find . -delete)", "find . -delete; rm x", Q),
    ("allow:Bash(watch -n 1 rm x)|deny:Bash(rm *)", "watch -n 1 rm x", D),
    ("allow:Bash(echo *)", "echo a && echo b", A),
    // git -C and global options, reordered flags, paths to binaries.
    ("deny:Bash(git push *)", "git -C /elsewhere push origin", D),
    ("deny:Bash(git push *)", "git --no-pager push", D),
    ("deny:Bash(git push *)", "git -c user.name=x push", D),
    ("deny:Bash(rm -rf *)", "rm -fr /", D),
    ("deny:Bash(rm -rf *)", "rm -r -f /", D),
    ("deny:Bash(rm -rf *)", "rm -f -r /", D),
    ("deny:Bash(rm *)", "/bin/rm x", D),
    // Flags in any position.
    ("deny:Bash(git push --force *)", "git push origin main --force", D),
    ("deny:Bash(git push --force *)", "git push origin --force main", D),
    ("deny:Bash(rm -rf *)", "rm build -rf", D),
    ("deny:Bash(rm -rf *)", "rm build -r -f", D),
    ("deny:Bash(rm -rf *)", "rm build -fr", D),
    ("ask:Bash(npm publish --access public *)", "npm publish . --access public", Q),
    ("deny:Bash(git push --force *)", "git push origin main", Q),
    ("deny:Bash(rm -rf *)", "rm -- -rf", Q),
    ("deny:Bash(rm *)", "/usr/bin/rm -rf x", D),
    // git in another directory can run that directory's hooks and config: it asks.
    ("allow:Bash(git status)", "git -C /other status", Q),
    // Wrappers are stripped.
    ("deny:Bash(rm *)", "timeout 5 rm x", D),
    ("deny:Bash(rm *)", "timeout -s KILL 5 rm x", D),
    ("deny:Bash(rm *)", "time rm x", D),
    ("deny:Bash(rm *)", "nice -n 10 rm x", D),
    ("deny:Bash(rm *)", "nohup rm x", D),
    ("deny:Bash(rm *)", "stdbuf -oL rm x", D),
    ("deny:Bash(rm *)", "command rm x", D),
    ("deny:Bash(rm *)", "builtin rm x", D),
    ("deny:Bash(rm *)", "env rm x", D),
    ("deny:Bash(rm *)", "nice nohup timeout 3 rm x", D),
    ("allow:Bash(npm test)", "timeout 60 npm test", A),
    // Environment prefixes: allow skips only safe ones; deny and ask look past any.
    ("allow:Bash(npm test)", "NODE_ENV=test npm test", A),
    ("allow:Bash(npm test)", "LANG=C npm test", A),
    ("allow:Bash(npm test)", "LD_PRELOAD=/tmp/x.so npm test", Q),
    ("allow:Bash(npm test)", "PATH=/tmp/evil:$PATH npm test", Q),
    ("allow:Bash(npm test)", "env LD_PRELOAD=x.so npm test", Q),
    ("deny:Bash(rm *)", "FOO=1 rm x", D),
    ("deny:Bash(rm *)", "LD_PRELOAD=x env A=b rm x", D),
    ("ask:Bash(git push *)", "GIT_SSH_COMMAND=x git push", Q),
    // Command substitution and backticks are the commands they run.
    ("deny:Bash(rm *)", "echo $(rm -rf x)", D),
    ("deny:Bash(rm *)", "echo `rm -rf x`", D),
    ("deny:Bash(rm *)", "echo \"$(rm -rf x)\"", D),
    ("deny:Bash(rm *)", "cat <(rm x)", D),
    ("allow:Bash(echo *)", "echo $(rm x)", Q),
    ("allow:Bash(echo *)", "echo $(date)", A),
    ("allow:Bash(echo *)|allow:Bash(date)", "echo $(date)", A),
    ("allow:Bash(echo *)", "echo $HOME", A),
    // A computed path may be outside the working directories: it asks.
    ("allow:Bash(cat README.md)", "cat $FILE", Q),
    // Arguments that name denied files: the read-only classifier does not open a hole.
    ("deny:Read(./.env)", "cat .env", D),
    ("deny:Read(./.env)", "grep KEY .env", D),
    ("deny:Read(./.env)", "head -n 1 ./.env", D),
    ("deny:Read(./.env)|allow:Bash(cp *)", "cp .env /tmp/x", D),
    ("deny:Read(./.env)", "cat $FILE", Q),
    ("deny:Read(./.env)", "cat README.md", A),
    // After `cd`, relative paths are read from the new directory.
    ("deny:Read(./secrets/**)", "cd secrets && cat key", D),
    ("deny:Read(./secrets/**)", "cd a; cd ../secrets; head key", D),
    ("deny:Edit(./secrets/**)", "cd secrets && echo x > key", D),
    ("deny:Read(./secrets/**)", "cd docs && cat key", A),
    // A directory named to a command may be read through: `grep -r` reads what is in it.
    ("deny:Read(./secrets/**)", "grep -r key secrets", D),
    ("deny:Read(./secrets/**)", "cd secrets && ls", D),
    ("deny:Read(./secrets/**)", "git -C secrets log", D),
    ("deny:Read(./secrets/**)", "git diff secrets", D),
    // A link one command makes can be read through by the others.
    ("deny:Read(./.env)", "ln -s . x && cat x/.env", Q),
    ("deny:Read(./.env)", "cp -s README.md y; cat y", Q),
    ("deny:Read(./.env)", "ln -s README.md y", Q),
    ("", "ln -s . x && cat x/README.md", Q),
    // A `<rev>:<path>` object name reads that file as committed.
    ("deny:Read(./.env)", "git show HEAD:.env", D),
    ("deny:Read(./.env)", "git cat-file -p main:./.env", D),
    ("deny:Read(./secrets/**)", "git show :secrets/key", D),
    ("deny:Read(./.env)", "git show HEAD:README.md", A),
    ("deny:Read(./.env)", "git log HEAD~3..HEAD", A),
    ("deny:Read(./secrets/**)", "grep -r key src", A),
    // Where each part runs: `&&` after `cd`, `;`, subshells, a computed or bare `cd`.
    ("deny:Read(./.env)", "cd sub && cat .env", A),
    ("deny:Read(./.env)", "cd sub; cat .env", D),
    ("deny:Read(./.env)", "cd sub || cat .env", D),
    ("deny:Read(./.env)", "(cd sub && ls); cat .env", D),
    ("deny:Read(./.env)", "cd \"$D\" && cat .env", Q),
    ("deny:Read(./.env)", "cd \"$D\" && ls", Q),
    // A deny found after something that would ask still denies.
    ("deny:Read(./.env)", "cd \"$D\"; cat .env", D),
    ("deny:Read(./.env)", "cat $X .env", D),
    ("deny:Read(./.env)|deny:Edit(./out.txt)", "cat $X > out.txt", D),
    ("deny:Read(//etc/**)", "cd / && cat etc/passwd", D),
    ("deny:Read(~/.ssh/**)", "cd && cat .ssh/id_rsa", D),
    ("deny:Read(~/.ssh/**)", "cd ~/.ssh && ls", D),
    ("deny:Read(./secrets/**)", "cd src && cat ../secrets/key", D),
    // bash -c, sh -c, eval.
    ("deny:Bash(rm *)", "bash -c 'rm -rf x'", D),
    ("deny:Bash(rm *)", "sh -c \"rm -rf x\"", D),
    ("deny:Bash(rm *)", "bash -lc 'ls; rm x'", D),
    ("deny:Bash(rm *)", "zsh -c 'rm x'", D),
    ("deny:Bash(rm *)", "eval rm -rf x", D),
    ("deny:Bash(rm *)", "eval 'rm -rf x'", D),
    ("deny:Bash(rm *)", "bash -c 'bash -c \"rm x\"'", D),
    ("allow:Bash(ls *)", "bash -c 'ls -la'", A),
    ("", "bash -c \"$SCRIPT\"", Q),
    ("", "eval \"$CMD\"", Q),
    ("allow:Bash(*)", "eval \"$CMD\"", Q),
    // xargs and find.
    ("deny:Bash(rm *)", "ls | xargs rm", D),
    ("deny:Bash(rm *)", "ls | xargs -0 -n 1 rm -f", D),
    ("deny:Bash(rm *)", "find . -name '*.o' -exec rm {} \\;", D),
    ("deny:Bash(rm *)", "find . -name '*.o' -execdir rm {} +", D),
    ("deny:Bash(rm *)", "find . -delete", D),
    ("", "find . -exec touch {} +", Q),
    ("", "ls | xargs cat", Q),
    ("allow:Bash(xargs *)|allow:Bash(cat *)", "ls | xargs cat", A),
    ("allow:Bash(xargs *)|allow:Bash(cat README.md)", "ls | xargs cat README.md", Q),
    // Bare `xargs` is stripped for allow rules; with options it is a command of its own.
    ("allow:Bash(grep *)", "ls | xargs grep pattern", A),
    ("allow:Bash(grep pattern)", "ls | xargs grep pattern", Q),
    ("allow:Bash(grep *)", "ls | xargs -n1 grep pattern", Q),
    ("allow:Bash(grep *)|allow:Bash(xargs *)", "ls | xargs -n1 grep pattern", A),
    ("deny:Bash(xargs *)|allow:Bash(grep *)", "ls | xargs grep pattern", D),
    ("ask:Bash(xargs *)|allow:Bash(grep *)", "ls | xargs grep pattern", Q),
    // Redirections are writes to files.
    ("deny:Edit(./secrets/**)", "echo x > secrets/key", D),
    ("deny:Edit(//etc/**)", "echo x >> /etc/hosts", D),
    ("deny:Read(./.env)", "echo x > .env", D),
    ("allow:Bash(echo *)", "echo x > out.txt", Q),
    ("allow:Bash(echo *)|allow:Edit(./out.txt)", "echo x > out.txt", A),
    ("allow:Bash(echo *)", "echo x &> both.log", Q),
    ("allow:Bash(echo *)", "echo x 2>&1", A),
    ("allow:Bash(echo *)", "echo x > \"$OUT\"", Q),
    // Unparseable, dynamic and long commands ask.
    ("allow:Bash(*)", "echo 'unterminated", Q),
    ("allow:Bash(*)", "$CMD arg", Q),
    ("allow:Bash(*)", "f() { rm x; }; f", Q),
    ("deny:Bash(rm *)", "rm x; echo 'unterminated", D),
    // Read-only commands with a flag or an operand that writes, runs a program or
    // changes the system are not read-only in that form.
    ("", "sort -uo out in", Q),
    ("", "sort --compress-program=sh in", Q),
    ("", "uniq in out", Q),
    ("", "uniq -c in", A),
    ("", "xxd -r -p in .git/hooks/pre-commit", Q),
    ("", "xxd in", A),
    ("", "rg --pre ./x pattern", Q),
    ("", "rg --pretty pattern", A),
    ("", "git diff --output=out", Q),
    ("", "git grep -O x", Q),
    ("", "git reflog expire --expire=now --all", Q),
    ("", "git reflog", A),
    ("", "date -s 2020-01-01", Q),
    ("", "date -Iseconds", A),
    ("", "hostname evil", Q),
    ("", "file -m magic x", Q),
    ("", "file x", A),
    ("", "less -o log in", Q),
    // An option's own value names a file it opens, like an operand.
    ("deny:Read(./.env)", "diff --from-file=.env README.md", D),
    ("deny:Read(./.env)", "grep --file=.env README.md", D),
    ("deny:Read(./.env)", "grep -f.env README.md", D),
    ("", "diff --from-file=/etc/shadow README.md", Q),
    ("", "wc --files0-from=/etc/list", Q),
    ("", "git log --format=%H", A),
    ("", "ls --color=auto", A),
    // A bare `Edit` covers redirections: inside the working directories for an allow.
    ("allow:Bash(echo *)|allow:Edit", "echo x > out.txt", A),
    ("allow:Bash(echo *)|allow:Edit", "echo x > /tmp/out.txt", Q),
    ("allow:Bash(echo *)|allow:Edit", "echo x > .git/config", Q),
    ("allow:Bash(echo *)|deny:Edit", "echo x > out.txt", D),
    ("allow:Bash(echo *)|ask:Edit", "echo x > out.txt", Q),
    // A target starting with `~` needs approval (Claude Code), whatever the rules.
    ("allow:Bash(echo *)|allow:Edit", "echo x > ~/notes", Q),
    ("allow:Bash(echo *)|allow:Edit(~/notes)", "echo x > ~/notes", Q),
    // `cd` back to the call's own directory goes nowhere: git there is read-only.
    ("", "cd . && git status", A),
    ("", "cd sub && cd .. && git status", A),
    ("", "cd sub && cd . && git status", Q),
    // Commands run from a string another command takes, or from a shell's input.
    ("deny:Bash(rm *)", "script -c 'rm x'", D),
    ("deny:Bash(rm *)", "script -q -c 'rm x' /dev/null", D),
    ("deny:Bash(rm *)", "env -S 'rm x'", D),
    ("deny:Bash(rm *)", "env -S'rm x'", D),
    ("deny:Bash(rm *)", "env --split-string='rm x'", D),
    ("deny:Bash(rm *)", "trap 'rm x' EXIT", D),
    ("deny:Bash(rm *)", "trap -- 'rm x' EXIT", D),
    ("deny:Bash(rm *)", "busybox rm x", D),
    ("deny:Bash(rm *)", "echo rm x | sh", D),
    ("deny:Bash(rm *)", "sh <<< 'rm x'", D),
    ("deny:Bash(rm *)", "bash -s < script.sh", D),
    ("deny:Bash(rm *)", "git -c alias.x='!rm y' x", D),
    ("deny:Bash(rm *)", "git -c core.pager='rm y' log", D),
    ("deny:Bash(rm *)", "git -c Core.SshCommand='rm y' fetch", D),
    ("deny:Bash(rm *)", "git -c core.hooksPath=/tmp/h commit", D),
    ("deny:Bash(rm *)", "unbuffer rm x", D),
    ("deny:Bash(rm *)", "fakeroot rm x", D),
    ("deny:Bash(rm *)", "proot -r /srv/root rm x", D),
    ("deny:Bash(rm *)", "parallel rm ::: x", D),
    ("", "echo ls | sh", Q),
    ("", "bash ./build.sh", Q),
    ("", "trap - EXIT", Q),
    ("allow:Bash(npm test)", "nocorrect npm test", Q),
    // A command name bash expands: braces are words (the first runs), a glob is unknown.
    ("deny:Bash(rm *)", "{r,x}m -rf a", D),
    ("deny:Bash(rm *)", "{rm,} -rf a", D),
    ("deny:Bash(rm *)", "r{m,} -rf a", D),
    ("deny:Bash(rm *)", "sudo {r,x}m a", D),
    ("deny:Bash(rm *)", "r[m] -rf a", D),
    ("deny:Bash(rm *)", "/bin/r? -rf a", D),
    ("deny:Bash(rm *)", "echo {rm,-rf,a}", A),
    ("", "{l,}s", A),
    ("allow:Bash(ls *)", "{l,}s", A),
    ("allow:Bash(echo *)", r"echo $'a\tb'", A),
    ("", r"$'\x6c\x73'", A),
    ("", "source ./env.sh", Q),
    // More words than can be checked one by one reach what is below their directory.
    ("deny:Read(./.env)", "cat {.e,a}{n,a}{v,a}{a,}{a,}{a,}{a,}{a,}{a,}{a,}{a,}", D),
    ("deny:Read(./.env)", "cat src/{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", A),
    ("allow:Bash(npm test)", "noglob npm test", A),
    // A read-only command runs without a rule only as the system's program, with no
    // variable set but the known-safe ones (a variable can make it run other code).
    ("", "./ls", Q),
    ("", "cd bin; ./cat x", Q),
    ("", "/bin/ls -la", A),
    ("", "PATH=. ls", Q),
    ("", "PATH=.; ls", Q),
    ("", "LD_PRELOAD=./x.so cat README.md", Q),
    ("", "GIT_EXTERNAL_DIFF=./x git diff", Q),
    ("", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./x git status", Q),
    ("", "git -p log", Q),
    ("", "LANG=C ls", A),
    ("", "NO_COLOR=1 git log", A),
    ("", "PS4='$(touch y)' bash -x -c ls", Q),
    ("deny:Bash(rm *)", "PS4='$(rm y)' bash -x -c ls", D),
];

/// `(rules, mode, command, expected)`: modes against shell rules.
const SHELL_MODES: &[(&str, Mode, &str, Want)] = &[
    // Critical paths: no allow rule, hook or mode approves their removal; dontAsk denies.
    ("allow:Bash(rm *)", Mode::BypassPermissions, "rm -rf /", Q),
    ("allow:Bash(rm *)", Mode::BypassPermissions, "rm -rf ~", Q),
    ("allow:Bash", Mode::BypassPermissions, "rm -rf /usr", Q),
    ("allow:Bash(rm *)", Mode::Default, "rm -rf .", Q),
    ("allow:Bash(rm *)", Mode::Default, "rm -rf ..", Q),
    ("allow:Bash(rm *)", Mode::AcceptEdits, "rm -rf /work", Q),
    ("allow:Bash(rm *)", Mode::Default, "rm -rf \"$DIR\"/*", Q),
    ("allow:Bash(rm *)", Mode::BypassPermissions, "echo \"$(rm -rf ~)\"", Q),
    ("allow:Bash(rm *)", Mode::DontAsk, "rm -rf /", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "rm -rf /", D),
    ("allow:Bash(rm *)", Mode::Default, "rm -rf build", A),
    ("", Mode::AcceptEdits, "rm -rf build", A),
    ("", Mode::AcceptEdits, "mkdir build && touch build/x", A),
    ("", Mode::AcceptEdits, "rm -rf build", A),
    ("", Mode::AcceptEdits, "LANG=C timeout 5 cp a b", A),
    // Not the system's program: a file of that name, or one a variable redirects.
    ("", Mode::AcceptEdits, "./rm x", Q),
    ("", Mode::AcceptEdits, "PATH=. rm x", Q),
    ("", Mode::AcceptEdits, "LD_PRELOAD=./x.so touch y", Q),
    ("", Mode::AcceptEdits, "/bin/rm x", A),
    ("", Mode::AcceptEdits, "sed -i s/a/b/ src/x", A),
    // sed's commands that run, write or read are not edits: they ask.
    ("", Mode::AcceptEdits, "sed -i 'e touch /tmp/pwn' src/x", Q),
    ("", Mode::AcceptEdits, "sed -i 's/a/touch y/e' src/x", Q),
    ("", Mode::AcceptEdits, "sed -i 's/a/b/w /tmp/out' src/x", Q),
    ("", Mode::AcceptEdits, "sed -i 'r /etc/shadow' src/x", Q),
    ("", Mode::AcceptEdits, "sed -i -f script.sed src/x", Q),
    ("", Mode::AcceptEdits, "sed -i -e 's/a/b/' -e '/^#/d' src/x", A),
    ("", Mode::AcceptEdits, "cp -t/tmp a", Q),
    ("", Mode::AcceptEdits, "cp -tsrc a", A),
    ("", Mode::AcceptEdits, "rm -rf /tmp/x", Q),
    ("", Mode::AcceptEdits, "mv a ../outside", Q),
    ("", Mode::AcceptEdits, "touch .git/hooks/pre-commit", Q),
    ("", Mode::AcceptEdits, "find . -delete", Q),
    ("", Mode::AcceptEdits, "chmod 777 x", Q),
    ("", Mode::Default, "mkdir build", Q),
    // Redirections into protected paths: a person approves them, in every mode but bypass.
    ("", Mode::AcceptEdits, "echo x > .git/config", Q),
    ("allow:Bash(echo *)|allow:Edit", Mode::AcceptEdits, "echo x >> .bashrc", Q),
    ("allow:Bash(echo *)", Mode::BypassPermissions, "echo x > .bashrc", A),
    ("", Mode::DontAsk, "echo x > .claude/settings.json", D),
    ("", Mode::AcceptEdits, "echo x > out.txt", A),
    // An explicit ask rule asks in every mode, bypassPermissions included; dontAsk denies.
    ("ask:Bash(git push *)", Mode::BypassPermissions, "git push origin", Q),
    ("ask:Bash(git push *)", Mode::AcceptEdits, "git push origin", Q),
    ("ask:Bash(git push *)", Mode::DontAsk, "git push origin", D),
    ("ask:Bash(git push *)", Mode::Plan, "git push origin", Q),
    ("ask:Bash(git push *)", Mode::BypassPermissions, "( (git push origin) )", Q),
    ("", Mode::BypassPermissions, "git push origin", A),
    // Deny wins in every mode, however the command is nested.
    ("deny:Bash(rm *)", Mode::BypassPermissions, "( (rm x) )", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "f() { rm x; }; f", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "rm x; echo \"unterminated", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "$CMD x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "echo rm x | sh", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash <<EOF\nrm x\nEOF", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "script -c 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "env -S 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "trap 'rm x' EXIT", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "git -c alias.x='!rm y' x", D),
    ("deny:Read(./.env)", Mode::BypassPermissions, "diff --from-file=.env README.md", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "{r,x}m -rf a", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "/bin/r? -rf a", D),
    // Quoting, options and `--` in front of the command, shells, scripts from input.
    ("deny:Bash(rm *)", Mode::BypassPermissions, r"$'\x72\x6d' x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, r"$'\162\155' x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, r"$'\u0072m' x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "exec -a name rm x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "exec -cl rm x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "exec -- rm x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "nohup -- rm x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "time -- rm x", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "sh -c -- 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash -o posix -c 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash -c -x 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "fish -c 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "tcsh -c 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "source <(echo rm x)", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, ". /dev/stdin <<< 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash /dev/stdin <<< 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash -o errexit /dev/fd/0 <<< 'rm x'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash <(echo rm x)", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash -c 'shopt -s expand_aliases\nalias x=rm\nx y'", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "bash ./build.sh", A),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "alias ll='ls -l'", A),
    // Substitutions bash runs while it expands: case patterns, parameter expansions'
    // operands, array elements and subscripts.
    ("deny:Bash(rm *)", Mode::BypassPermissions, "case x in $(rm y)) ;; esac", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "echo ${x:-$(rm y)}", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "echo ${x/$(rm y)/z}", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "a=( $(rm y) )", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "a=([$(rm y)]=1)", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "a[$(rm y)]=1", D),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "case x in y) ;; esac", A),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "echo ${x:-default}", A),
    ("deny:Bash(rm *)", Mode::BypassPermissions, "a=(one two)", A),
    ("deny:Read(./.env)", Mode::BypassPermissions, "ln -s . x && cat x/.env", Q),
    ("deny:Read(./.env)", Mode::BypassPermissions, "ln -s . x", A),
    // Braces in arguments are words too.
    ("deny:Bash(git push *)", Mode::BypassPermissions, "git pu{sh,} origin", D),
    ("deny:Bash(git push --force *)", Mode::BypassPermissions, "git push --for{ce,} origin", D),
    ("deny:Bash(git push --force *)", Mode::BypassPermissions, "git push {--force,} origin", D),
    ("deny:Bash(git push --force *)", Mode::BypassPermissions, "git push origin {main,dev}", A),
    ("deny:Read(./.env)", Mode::BypassPermissions, "cat {.e,a}{n,a}{v,a}{a,}{a,}{a,}{a,}{a,}{a,}{a,}{a,}", D),
    ("deny:Read(./.env)", Mode::BypassPermissions, "X=.env; cat $X", Q),
    // A command that cannot be analysed asks; with ask rules, in every mode.
    ("", Mode::Default, "$CMD x", Q),
    ("", Mode::BypassPermissions, "$CMD x", A),
    ("ask:Bash(curl *)", Mode::BypassPermissions, "$CMD x", Q),
    ("", Mode::DontAsk, "$CMD x", D),
];

#[test]
fn shell_rules_in_every_mode() {
    for (rules, mode, command, want) in SHELL_MODES {
        let got = decide(rules, *mode, "shell", &sh(command), false);
        assert_eq!(got, *want, "rules `{rules}` in {mode:?}: `{command}`");
    }
}

#[test]
fn commands_nested_deeper_than_the_checker_reads_are_denied() {
    for depth in [65, 200, 2_000] {
        let nested = format!("{}rm x{}", "( ".repeat(depth), " )".repeat(depth));
        assert_eq!(decide("", Mode::BypassPermissions, "shell", &sh(&nested), false), D, "depth {depth}");
        let braces = format!("{}rm x;{}", "{ ".repeat(depth), " };".repeat(depth));
        assert_eq!(decide("allow:Bash", Mode::Default, "shell", &sh(&braces), false), D, "depth {depth}");
    }
}

#[test]
fn a_word_of_two_thousand_brace_groups_is_checked_without_a_deep_recursion() {
    // 9,950 bytes, under the length that is analysed: the expansion's recursion, one level
    // a group, overflowed the stack and aborted the process.
    // Its 2^1990 words are too many to check: they reach what is below `.`.
    let command = format!("cat {}", "{a,b}".repeat(1990));
    assert_eq!(decide("deny:Read(./.env)", Mode::Default, "shell", &sh(&command), true), D);
    assert_eq!(decide("", Mode::Default, "shell", &sh(&command), true), A);
}

#[test]
fn shell_rules() {
    let mut failures = Vec::new();
    for (rules, command, want) in SHELL {
        let got = decide(rules, Mode::Default, "shell", &sh(command), false);
        if got != *want {
            failures.push(format!("[{rules}] `{command}`: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), SHELL.len(), failures.join("\n"));
}

/// `(rules, mode, tool, input path, read_only, expected)`.
const PATHS: &[(&str, Mode, &str, &str, bool, Want)] = &[
    ("", Mode::Default, "read_file", "src/main.rs", true, A),
    ("", Mode::Default, "edit_file", "src/main.rs", false, Q),
    ("deny:Read(./.env)", Mode::Default, "read_file", ".env", true, D),
    ("deny:Read(./.env)", Mode::Default, "read_file", "./.env", true, D),
    ("deny:Read(./.env)", Mode::Default, "read_file", "src/../.env", true, D),
    ("deny:Read(./.env)", Mode::Default, "read_file", "/work/proj/.env", true, D),
    ("deny:Read(./.env)", Mode::Default, "read_file", "sub/.env", true, A),
    ("deny:Read(*.env)", Mode::Default, "read_file", "deep/down/prod.env", true, D),
    ("deny:Read(./secrets/**)", Mode::Default, "read_file", "secrets/a/b.txt", true, D),
    ("deny:Read(./secrets/**)", Mode::Default, "grep", "secrets", true, D),
    ("deny:Read(./secrets/**)", Mode::Default, "glob", "secrets/x", true, D),
    ("deny:Read(./secrets/**)", Mode::Default, "list_dir", "secrets/inner", true, D),
    ("deny:Read(./.env)", Mode::Default, "edit_file", ".env", false, D),
    ("deny:Read(./.env)", Mode::Default, "write_file", ".env", false, D),
    ("deny:Read(./.env)", Mode::BypassPermissions, "write_file", ".env", false, D),
    ("deny:Edit(./src/**)", Mode::Default, "edit_file", "src/lib.rs", false, D),
    ("deny:Edit(./src/**)", Mode::Default, "multi_edit", "src/lib.rs", false, D),
    ("deny:Edit(./src/**)", Mode::Default, "replace_in_file", "src/lib.rs", false, D),
    ("deny:Edit(./src/**)", Mode::Default, "write_file", "src/new.rs", false, D),
    ("deny:Edit(./src/**)", Mode::Default, "read_file", "src/lib.rs", true, A),
    ("allow:Edit(./src/**)", Mode::Default, "edit_file", "src/lib.rs", false, A),
    ("allow:Edit(./src/**)", Mode::Default, "edit_file", "src/../Cargo.toml", false, Q),
    ("allow:Edit(./src/**)", Mode::Default, "edit_file", "../proj/src/lib.rs", false, A),
    ("allow:Edit(./src/**)", Mode::Default, "edit_file", "../other/src/lib.rs", false, Q),
    ("allow:Edit(./docs/**)", Mode::Default, "write_file", "docs/a.md", false, A),
    ("allow:Write", Mode::Default, "write_file", "docs/a.md", false, A),
    ("allow:Write", Mode::Default, "edit_file", "docs/a.md", false, Q),
    ("allow:edit_file(./docs/**)", Mode::Default, "edit_file", "docs/a.md", false, A),
    ("allow:Edit(/src/**)", Mode::Default, "edit_file", "/work/proj/src/a.rs", false, A),
    ("allow:Edit(//tmp/**)", Mode::Default, "write_file", "/tmp/scratch.txt", false, A),
    ("allow:Edit(//tmp/**)", Mode::Default, "write_file", "/tmpx/scratch.txt", false, Q),
    ("ask:Read(./docs/**)", Mode::Default, "read_file", "docs/a.md", true, Q),
    ("ask:Edit", Mode::AcceptEdits, "edit_file", "a.txt", false, Q),
    // Modes.
    ("", Mode::AcceptEdits, "edit_file", "src/lib.rs", false, A),
    // Plan mode changes no files, whatever the rules allow.
    ("allow:Edit", Mode::Plan, "edit_file", "src/lib.rs", false, D),
    ("allow:Edit(./src/**)", Mode::Plan, "write_file", "src/new.rs", false, D),
    ("allow:Write", Mode::Plan, "write_file", "docs/a.md", false, D),
    ("allow:edit_file", Mode::Plan, "edit_file", "docs/a.md", false, D),
    ("allow:Read", Mode::Plan, "read_file", "src/lib.rs", true, A),
    ("", Mode::AcceptEdits, "write_file", "/etc/passwd", false, Q),
    ("", Mode::AcceptEdits, "write_file", "../outside.txt", false, Q),
    ("", Mode::Plan, "edit_file", "src/lib.rs", false, D),
    ("", Mode::Plan, "read_file", "src/lib.rs", true, A),
    ("", Mode::DontAsk, "edit_file", "src/lib.rs", false, D),
    ("allow:Edit(./src/**)", Mode::DontAsk, "edit_file", "src/lib.rs", false, A),
    ("", Mode::BypassPermissions, "edit_file", "src/lib.rs", false, A),
    // Reads without a rule: inside the working directory only, however it is spelled.
    ("", Mode::Default, "read_file", "/etc/passwd", true, Q),
    ("", Mode::Default, "read_file", "../proj2/x", true, Q),
    ("", Mode::Default, "read_file", "../proj/src/a.rs", true, A),
    ("", Mode::Default, "read_file", "src/../../proj/a", true, A),
    ("", Mode::Default, "read_file", "src/../../x", true, Q),
    ("", Mode::Default, "read_file", "~/.ssh/id_rsa", true, Q),
    ("", Mode::Default, "grep", "/", true, Q),
    ("", Mode::Default, "glob", "..", true, Q),
    ("", Mode::Default, "list_dir", "/work", true, Q),
    ("", Mode::DontAsk, "read_file", "/etc/passwd", true, D),
    ("", Mode::DontAsk, "read_file", "src/a.rs", true, A),
    ("", Mode::Plan, "read_file", "/etc/passwd", true, Q),
    ("", Mode::BypassPermissions, "read_file", "/etc/passwd", true, A),
    ("allow:Read(//etc/**)", Mode::Default, "read_file", "/etc/passwd", true, A),
    ("allow:Read", Mode::Default, "read_file", "/etc/passwd", true, A),
    ("allow:Read", Mode::Default, "grep", "/etc", true, A),
    // Protected paths: never written on an allow rule or a mode but bypassPermissions.
    ("", Mode::AcceptEdits, "write_file", ".git/config", false, Q),
    ("allow:Edit", Mode::AcceptEdits, "write_file", ".git/hooks/pre-commit", false, Q),
    ("allow:Edit(./.claude/**)", Mode::Default, "edit_file", ".claude/settings.json", false, Q),
    ("", Mode::AcceptEdits, "write_file", "sub/.mcp.json", false, Q),
    ("", Mode::AcceptEdits, "edit_file", ".vscode/settings.json", false, Q),
    ("", Mode::AcceptEdits, "write_file", ".claude/worktrees/x/a.rs", false, A),
    ("", Mode::AcceptEdits, "write_file", ".gitignore", false, A),
    ("", Mode::BypassPermissions, "write_file", ".git/config", false, A),
    ("", Mode::DontAsk, "write_file", ".bashrc", false, D),
    ("deny:Edit(./.git/**)", Mode::BypassPermissions, "write_file", ".git/config", false, D),
    // Depth: a bare single-directory pattern matches at any depth in deny and ask
    // rules, only at the top in allow rules; other shapes the same in every list.
    ("deny:Read(secrets/**)", Mode::Default, "read_file", "a/b/secrets/key", true, D),
    ("deny:Read(secrets/**)", Mode::Default, "read_file", "secrets/key", true, D),
    ("ask:Read(build/)", Mode::Default, "read_file", "x/build/out.txt", true, Q),
    ("allow:Edit(src/**)", Mode::Default, "edit_file", "src/app.ts", false, A),
    ("allow:Edit(src/**)", Mode::Default, "edit_file", "vendor/pkg/src/lib.js", false, Q),
    ("deny:Edit(src/**)", Mode::Default, "edit_file", "vendor/pkg/src/lib.js", false, D),
    ("deny:Edit(/src/**)", Mode::AcceptEdits, "edit_file", "vendor/pkg/src/lib.js", false, A),
    ("deny:Edit(src/components/**)", Mode::AcceptEdits, "edit_file", "x/src/components/a.ts", false, A),
    ("allow:Edit(**/src/**)", Mode::Default, "edit_file", "vendor/pkg/src/lib.js", false, A),
    ("deny:Read(.env)", Mode::Default, "read_file", "deep/down/.env", true, D),
    ("deny:Read(//**/.env)", Mode::Default, "read_file", "/elsewhere/.env", true, D),
    ("deny:Edit", Mode::BypassPermissions, "edit_file", "src/lib.rs", false, D),
];

#[test]
fn a_question_names_each_part_and_file_no_rule_allows() {
    let policy = RulePolicy::new().allow("Bash(npm run *)");
    let ask = |command: &str| match support::decide(&policy, "shell", &sh(command), Path::new(CWD)) {
        PermissionDecision::Ask(question) => question,
        other => panic!("{command}: {other:?}"),
    };
    assert_eq!(
        ask("npm run build && npm test > out.txt 2>&1 | tee log"),
        "Allow shell: `npm run build && npm test > out.txt 2>&1 | tee log` needs approval for `npm test`, `tee log`, \
         writing `out.txt`?"
    );
    assert_eq!(ask("echo x > a.txt"), "Allow shell: `echo x > a.txt` needs approval for writing `a.txt`?");
}

#[test]
fn path_rules_and_modes() {
    let mut failures = Vec::new();
    for (rules, mode, tool, path, read_only, want) in PATHS {
        let got = decide(rules, *mode, tool, &p(path), *read_only);
        if got != *want {
            failures.push(format!("[{rules}] {mode:?} {tool}({path}): want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), PATHS.len(), failures.join("\n"));
}

/// `(rules, mode, tool, input, read_only, expected)` for web, MCP and other tools.
#[test]
fn web_mcp_and_other_tools() {
    let fetch = |url: &str| json!({ "url": url });
    let cases: Vec<(&str, Mode, &str, Value, bool, Want)> = vec![
        ("allow:WebFetch(domain:example.com)", Mode::Default, "web_fetch", fetch("https://example.com/a"), false, A),
        ("allow:WebFetch(domain:example.com)", Mode::Default, "web_fetch", fetch("https://EXAMPLE.com/a"), false, A),
        (
            "allow:WebFetch(domain:example.com)",
            Mode::Default,
            "web_fetch",
            fetch("https://docs.example.com/"),
            false,
            Q,
        ),
        (
            "allow:WebFetch(domain:example.com)",
            Mode::Default,
            "web_fetch",
            fetch("https://example.com.evil.io/"),
            false,
            Q,
        ),
        (
            "allow:WebFetch(domain:example.com)",
            Mode::Default,
            "web_fetch",
            fetch("https://user@evil.io/?example.com"),
            false,
            Q,
        ),
        (
            "allow:WebFetch(domain:*.example.com)",
            Mode::Default,
            "web_fetch",
            fetch("https://a.b.example.com/"),
            false,
            A,
        ),
        ("allow:WebFetch(domain:*.example.com)", Mode::Default, "web_fetch", fetch("https://example.com/"), false, Q),
        (
            "allow:WebFetch(domain:*.example.com)",
            Mode::Default,
            "web_fetch",
            fetch("https://badexample.com/"),
            false,
            Q,
        ),
        (
            "deny:WebFetch(domain:evil.io)",
            Mode::BypassPermissions,
            "web_fetch",
            fetch("http://evil.io:8080/x"),
            false,
            D,
        ),
        ("deny:WebFetch", Mode::Default, "web_fetch", fetch("https://example.com/"), true, D),
        // A fetch is read-only for scheduling, and still asks: it can send data anywhere.
        ("", Mode::Default, "web_fetch", fetch("https://example.com/"), true, Q),
        ("", Mode::AcceptEdits, "web_fetch", fetch("https://example.com/"), true, Q),
        ("", Mode::Plan, "web_fetch", fetch("https://example.com/"), true, Q),
        ("", Mode::DontAsk, "web_fetch", fetch("https://example.com/"), true, D),
        ("", Mode::BypassPermissions, "web_fetch", fetch("https://example.com/"), true, A),
        // The host is the one the request will reach, however it is written.
        ("deny:WebFetch(domain:evil.io)", Mode::BypassPermissions, "web_fetch", fetch("https://EVIL.io./x"), true, D),
        ("deny:WebFetch(domain:evil.io)", Mode::BypassPermissions, "web_fetch", fetch("https://%65vil.io/"), true, D),
        (
            "deny:WebFetch(domain:evil.io)",
            Mode::BypassPermissions,
            "web_fetch",
            fetch("https://evil.io\t:443/"),
            true,
            D,
        ),
        ("deny:WebFetch(domain:evil.io)", Mode::BypassPermissions, "web_fetch", fetch("https://a\\@evil.io/"), true, A),
        ("deny:WebFetch(domain:evil.io)", Mode::BypassPermissions, "web_fetch", fetch("https://u:p@evil.io/"), true, D),
        ("deny:WebFetch(domain:127.0.0.1)", Mode::BypassPermissions, "web_fetch", fetch("http://0x7f.1:8/"), true, D),
        ("deny:WebFetch(domain:127.0.0.1)", Mode::BypassPermissions, "web_fetch", fetch("http://2130706433/"), true, D),
        (
            "deny:WebFetch(domain:127.0.0.1)",
            Mode::BypassPermissions,
            "web_fetch",
            fetch("http://[::ffff:127.0.0.1]:8080/"),
            true,
            D,
        ),
        ("deny:WebFetch(domain:localhost)", Mode::BypassPermissions, "web_fetch", fetch("http://LOCALHOST/"), true, D),
        ("allow:WebFetch(domain:*)", Mode::Default, "web_fetch", fetch("https://x.y/"), true, A),
        ("allow:WebFetch(domain:example.*)", Mode::Default, "web_fetch", fetch("https://example.org/"), true, A),
        ("allow:WebFetch(domain:example.*)", Mode::Default, "web_fetch", fetch("https://example.evil.com/"), true, Q),
        // Tool-name globs see the tool's own name and its rule name.
        ("deny:Web*", Mode::Default, "web_fetch", fetch("https://example.com/"), true, D),
        ("deny:web_*", Mode::Default, "web_fetch", fetch("https://example.com/"), true, D),
        ("deny:*", Mode::Default, "read_file", p("a.txt"), true, D),
        ("deny:B*", Mode::Default, "shell", sh("ls"), true, D),
        ("ask:*Edit", Mode::AcceptEdits, "multi_edit", json!({"path": "a.txt"}), false, Q),
        // Parameter rules, in deny and ask.
        (
            "deny:Bash(run_in_background:true)",
            Mode::Default,
            "shell",
            json!({"command": "ls", "run_in_background": true}),
            true,
            D,
        ),
        (
            "deny:Bash(run_in_background:true)",
            Mode::Default,
            "shell",
            json!({"command": "ls", "run_in_background": false}),
            true,
            A,
        ),
        ("deny:Bash(run_in_background:true)", Mode::Default, "shell", sh("ls"), true, A),
        ("ask:Bash(timeout:*)", Mode::BypassPermissions, "shell", json!({"command": "ls", "timeout": 5}), true, Q),
        ("deny:Bash(ls:*)", Mode::Default, "shell", sh("ls -la"), true, D),
        (
            "deny:Grep(output_mode:count)",
            Mode::Default,
            "grep",
            json!({"pattern": "x", "output_mode": "count"}),
            true,
            D,
        ),
        ("deny:Grep(output_mode:count)", Mode::Default, "grep", json!({"pattern": "x"}), true, A),
        ("deny:Read(limit : 1*)", Mode::Default, "read_file", json!({"path": "a", "limit": 100}), true, D),
        ("allow:mcp__github", Mode::Default, "mcp__github__create_issue", json!({}), false, A),
        ("allow:mcp__github__*", Mode::Default, "mcp__github__create_issue", json!({}), false, A),
        ("allow:mcp__github__get_issue", Mode::Default, "mcp__github__create_issue", json!({}), false, Q),
        ("allow:mcp__github", Mode::Default, "mcp__githubx__create_issue", json!({}), false, Q),
        ("allow:mcp__git", Mode::Default, "mcp__github__create_issue", json!({}), false, Q),
        ("allow:mcp__github__get_*", Mode::Default, "mcp__github__get_issue", json!({}), false, A),
        ("allow:mcp__github__get_*", Mode::Default, "mcp__github__delete_repo", json!({}), false, Q),
        ("deny:mcp__*", Mode::Default, "mcp__github__get_issue", json!({}), true, D),
        ("ask:mcp__*", Mode::Default, "mcp__fs__read", json!({}), true, Q),
        ("deny:mcp__github", Mode::BypassPermissions, "mcp__github__x", json!({}), false, D),
        ("allow:todo_write", Mode::Default, "todo_write", json!({"todos": []}), false, A),
        ("allow:TodoWrite", Mode::Default, "todo_write", json!({"todos": []}), false, A),
        // The todo list and background output touch nothing outside the session.
        ("", Mode::Default, "todo_write", json!({"todos": []}), false, A),
        ("deny:read_file", Mode::Default, "read_file", p("a.txt"), true, D),
        ("deny:Read", Mode::Default, "grep", p("."), true, D),
        ("", Mode::Default, "shell_output", json!({"id": "x"}), false, A),
        ("allow:BashOutput", Mode::Default, "shell_output", json!({"id": "x"}), false, A),
        // Unicode look-alikes never match ASCII rules (and look-alike rules are refused).
        ("deny:Bash", Mode::Default, "shell", sh("ls"), true, D),
        ("allow:Bash(ls *)", Mode::Default, "shell", sh("ｌｓ -la"), false, Q),
        ("allow:Bash(ls *)", Mode::Default, "shell", sh("l\u{0455} -la"), false, Q),
    ];
    let mut failures = Vec::new();
    for (rules, mode, tool, input, read_only, want) in &cases {
        let got = decide(rules, *mode, tool, input, *read_only);
        if got != *want {
            failures.push(format!("[{rules}] {mode:?} {tool} {input}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn malformed_and_misplaced_rules_are_refused_with_a_reason() {
    let mut policy = RulePolicy::new();
    for (rule, effect, why) in [
        ("Bash(ls *", Effect::Allow, "not closed"),
        ("", Effect::Deny, "empty"),
        ("Ваsh(ls)", Effect::Deny, "non-ASCII"),
        ("mcp__*", Effect::Allow, "after a literal `mcp__<server>__`"),
        ("*", Effect::Allow, "after a literal `mcp__<server>__`"),
        ("WebFetch(example.com)", Effect::Allow, "domain:"),
        ("Write(./docs/**)", Effect::Allow, "never consulted"),
        ("Glob(./src/**)", Effect::Deny, "never consulted"),
        ("Bash(command:rm *)", Effect::Deny, "primary field"),
        ("Agent(model:opus)", Effect::Allow, "allow rules cannot match a parameter"),
        ("mcp__", Effect::Deny, "server name"),
        ("Bad Name", Effect::Deny, "is not a tool name"),
    ] {
        let err = policy.add(rule, effect, Source::User).unwrap_err();
        assert!(err.contains(&format!("`{rule}`")) && err.contains(why), "{rule}: {err}");
    }
    assert_eq!(policy.warnings().len(), 12);
    assert!(policy.add("mcp__*", Effect::Deny, Source::User).is_ok());
    assert!(policy.add("mcp__github__*", Effect::Allow, Source::User).is_ok());
}

#[test]
fn a_bare_deny_removes_the_tool_a_scoped_one_does_not() {
    let policy = RulePolicy::new().deny("WebFetch").deny("Bash(rm *)").deny("mcp__github");
    assert!(policy.removes("web_fetch", Some("WebFetch")));
    assert!(!policy.removes("shell", Some("Bash")));
    assert!(policy.removes("mcp__github__create_issue", None));
    assert!(!policy.removes("read_file", Some("Read")));
}
