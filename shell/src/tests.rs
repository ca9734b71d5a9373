use super::*;

fn names(command: &str) -> Vec<String> {
    analyze(command)
        .commands
        .iter()
        .map(|c| c.words.iter().map(|w| w.literal().unwrap_or("?").to_owned()).collect::<Vec<_>>().join(" "))
        .collect()
}

/// Each command's directories, as `.` (the call's) or the `cd` targets' paths.
fn dirs(command: &str) -> Vec<String> {
    let analysis = analyze(command);
    let name = |dir: &Option<usize>| match dir {
        None => ".".to_owned(),
        Some(i) => analysis.dirs[*i].to.clone().unwrap_or_else(|| "?".into()),
    };
    analysis.commands.iter().map(|c| c.dirs.iter().map(name).collect::<Vec<_>>().join("|")).collect()
}

#[test]
fn commands_know_the_directories_they_may_run_in() {
    // After `cd src &&`, only src; after `;` or `||`, wherever the shell may be.
    assert_eq!(dirs("cd src && git diff x | head; npm test"), [".", "src", "src", "src|."]);
    assert_eq!(dirs("cd a || ls"), [".", ".|a"]);
    assert_eq!(dirs("cd a && cd b && ls"), [".", "a", "b"]);
    // Subshells, pipelines and child shells do not move the shell outside them.
    assert_eq!(dirs("(cd a && ls); cat x"), [".", "a", "."]);
    assert_eq!(dirs("cd a | cat x; ls"), [".", ".", "."]);
    assert_eq!(dirs("bash -c 'cd a && ls'; ls"), [".", "a", "."]);
    assert_eq!(dirs("echo $(cd a); ls"), [".", ".", "."]);
    // `eval` and brace groups run in the shell itself.
    assert_eq!(dirs("eval cd a; ls"), [".", "a|."]);
    assert_eq!(dirs("{ cd a; }; ls"), [".", "a|."]);
    // A bare `cd` goes home; a computed one, or `cd -`, is not known.
    assert_eq!(dirs("cd; ls"), [".", "~|."]);
    assert_eq!(dirs("cd \"$D\" && ls; cd - && ls"), [".", "?", "?|.", "?|?"]);
    let analysis = analyze("cd a; cd b");
    assert_eq!(analysis.dirs[1], DirChange { from: Some(0), to: Some("b".into()) });
    assert_eq!(analysis.dirs[2], DirChange { from: None, to: Some("b".into()) });
}

#[test]
fn lists_pipelines_and_compounds_are_flattened() {
    assert_eq!(names("ls -la && rm -rf x; echo ok | wc -l"), ["ls -la", "rm -rf x", "echo ok", "wc -l"]);
    assert_eq!(names("a |& b & c\nd || e"), ["a", "b", "c", "d", "e"]);
    assert_eq!(names("if test -f x; then cat x; else touch x; fi"), ["test -f x", "cat x", "touch x"]);
    assert_eq!(names("for f in *.rs; do wc -l \"$f\"; done"), ["wc -l ?"]);
    assert_eq!(names("(cd a && make) > log"), ["cd a", "make"]);
    assert_eq!(analyze("(cd a && make) > log").writes, ["log"]);
}

#[test]
fn hidden_commands_come_out() {
    assert_eq!(names("echo $(rm -rf /) `touch y`"), ["rm -rf /", "touch y", "echo ? ?"]);
    assert_eq!(names("bash -c 'rm -rf x && ls'"), ["rm -rf x", "ls"]);
    assert_eq!(names("sh -lc \"git push\""), ["git push"]);
    assert_eq!(names("eval rm -rf x"), ["rm -rf x"]);
    assert_eq!(names("find . -name '*.o' -exec rm {} \\;"), ["rm", "find . -name *.o -exec rm {} ;"]);
    assert_eq!(names("find . -delete"), ["rm -f", "find . -delete"]);
    assert_eq!(names("ls | xargs -n 1 rm -f"), ["ls", "xargs", "rm -f"]);
    assert_eq!(names("timeout -s KILL 5 nice -n 10 nohup rm x"), ["rm x"]);
    assert_eq!(names("env -u X A=1 B=2 git push"), ["git push"]);
    let a = analyze("FOO=1 LD_PRELOAD=x.so ls");
    assert_eq!(a.commands[0].env, [("FOO".to_owned(), "1".to_owned()), ("LD_PRELOAD".to_owned(), "x.so".to_owned())]);
}

#[test]
fn what_cannot_be_known_asks() {
    assert!(!analyze("$CMD -rf x").unknowns.is_empty());
    assert!(!analyze("bash -c \"$SCRIPT\"").unknowns.is_empty());
    assert!(!analyze("echo hi > \"$OUT\"").unknowns.is_empty());
    assert!(!analyze("f() { rm -rf x; }; f").unknowns.is_empty());
    assert!(!analyze("echo 'unterminated").unknowns.is_empty());
    assert!(!analyze(&"a".repeat(MAX_COMMAND_LEN + 1)).unknowns.is_empty());
    assert!(analyze("echo hi > /dev/null 2>&1").unknowns.is_empty());
    assert!(analyze("echo hi > /dev/null 2>&1").writes.is_empty());
}

#[test]
fn the_read_only_classifier() {
    for ro in [
        "ls -la",
        "cat a | grep x | wc -l",
        "git status",
        "git -C sub log --oneline",
        "find . -name '*.rs'",
        "rg TODO src",
        "git diff HEAD~1",
        "echo $(pwd)",
    ] {
        assert!(analysis_is_read_only(&analyze(ro)), "{ro}");
    }
    for rw in [
        "rm x",
        "ls > out.txt",
        "find . -delete",
        "find . -exec touch {} +",
        "git push",
        "git branch -D x",
        "sort -o f f",
        "cat x | tee y",
        "echo $(rm x)",
        "$X",
        "sed -i s/a/b/ f",
    ] {
        assert!(!analysis_is_read_only(&analyze(rw)), "{rw}");
    }
}
