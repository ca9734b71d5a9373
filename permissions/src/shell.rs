//! Shell commands as the rules see them.
//!
//! A command is parsed with `brush-parser`, a maintained parser of bash's own grammar:
//! the shell tool runs `bash -c`, so the rules must read a command the way bash will,
//! including bash-only syntax (`|&`, `[[ ]]`, `$'..'`, process substitution). The tree
//! is flattened into the simple commands that would run: the parts of compound
//! commands, pipelines and lists; the commands inside `$(...)`, backticks and process
//! substitutions; and the commands hidden behind `bash -c`, `eval`, `xargs` and
//! `find -exec`, with wrappers (`timeout`, `nice`, ...) stripped. Redirections to files
//! are collected as writes, and each command records the directories it may run in
//! (after `cd src &&`, `src`; a `cd` in a subshell does not leak out of it). What cannot be known statically is collected as a reason
//! to ask.

pub(crate) use crate::read_only::by_length_then_text;
pub use crate::read_only::{git_subcommand, is_read_only};
use brush_parser::ast;
use brush_parser::word::{self, WordPiece};
use brush_parser::{ParserOptions, SourceInfo};

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

/// Commands longer than this are not analysed: they ask.
pub const MAX_COMMAND_LEN: usize = 10_000;

/// How deep `bash -c 'bash -c ...'` and substitutions are followed before asking.
const MAX_DEPTH: usize = 8;

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Known before the command runs (quotes removed).
    Literal(String),
    /// Computed when it runs (`$VAR`, `$(...)`); the source text.
    Dynamic(String),
    /// Expanded by bash against the file system (an unquoted glob `*.rs`, a brace
    /// expansion `{a,b}`); the text with quotes removed.
    Pattern(String),
}

impl Word {
    /// The literal text, if known.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(s) | Word::Pattern(s) => Some(s),
            Word::Dynamic(_) => None,
        }
    }

    /// The literal text, or the source text of a computed word.
    pub fn text(&self) -> &str {
        match self {
            Word::Literal(s) | Word::Dynamic(s) | Word::Pattern(s) => s,
        }
    }
}

/// One simple command that would run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Command {
    /// `NAME=value` assignments before the command (or given to `env`), as written.
    pub env: Vec<(String, String)>,
    /// The command's words, wrappers removed.
    pub words: Vec<Word>,
    /// The command gets further arguments that are not known (`xargs`, `find -exec`).
    pub more_args: bool,
    /// Whether it only reads, as [`is_read_only`] says: decided once, when the command
    /// is analysed (the shell tool's flags and the policy both ask).
    pub read_only: bool,
    /// The directories it may run in: `None` is the call's own, `Some(i)` is
    /// [`Analysis::dirs`]`[i]` (after `cd src && ...`, only `src`; after `cd src; ...`,
    /// either).
    pub dirs: Vec<Option<usize>>,
    /// An exec wrapper (`watch`, `setsid`, `flock`, ...): only a rule without `*`
    /// naming the whole command allows it.
    pub exact_only: bool,
    /// A wrapper allow rules look past (bare `xargs`): deny and ask rules match it,
    /// and it needs no allow of its own; the command it runs does.
    pub stripped: bool,
    /// The part (in [`Analysis::commands`]) it runs within: an exec wrapper's command
    /// (`make` in `watch -n 1 make`), or what `find -exec`/`-delete` runs. An exact rule
    /// naming that whole part allows it too (Claude Code).
    pub within: Option<usize>,
}

/// A directory a `cd` changes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirChange {
    /// The directory it changes from: `None` is the call's own, `Some(i)` an earlier change.
    pub from: Option<usize>,
    /// The argument as written (`~` for a bare `cd`); `None` if it is known only when the
    /// command runs (`cd "$DIR"`, `cd -`).
    pub to: Option<String>,
}

impl Command {
    /// The command name, if literal.
    pub fn name(&self) -> Option<&str> {
        self.words.first().and_then(Word::literal)
    }

    /// The name without a directory (`/bin/rm` → `rm`).
    pub fn base_name(&self) -> Option<&str> {
        // (A byte loop: names are short, and this is asked often.)
        self.name().map(|n| n.bytes().rposition(|b| b == b'/').map_or(n, |slash| &n[slash + 1..]))
    }
}

/// A command line, flattened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Analysis {
    /// Every simple command that would run, in order.
    pub commands: Vec<Command>,
    /// Files written by redirections (`>`, `>>`, `&>`), as written.
    pub writes: Vec<String>,
    /// Files read by redirections (`<`, `<>`).
    pub reads: Vec<Word>,
    /// Why the command cannot be fully known; non-empty means "ask".
    pub unknowns: Vec<String>,
    /// The directories `cd` changes to, in order.
    pub dirs: Vec<DirChange>,
    /// The command nests deeper than [`MAX_NESTING`] and was not read at all.
    pub too_deep: bool,
}

/// Parses and flattens `command`. Never fails: what cannot be parsed or known
/// becomes an entry in [`Analysis::unknowns`].
pub fn analyze(command: &str) -> Analysis {
    let mut analysis = Analysis::default();
    if let Some(depth) = too_deep(command) {
        analysis.too_deep = true;
        analysis
            .unknowns
            .push(format!("the command nests {depth} levels deep, more than the {MAX_NESTING} that are checked"));
        return analysis;
    }
    if command.len() > MAX_COMMAND_LEN {
        analysis.unknowns.push(format!("the command is longer than {MAX_COMMAND_LEN} characters"));
        return analysis;
    }
    Walker { out: &mut analysis, depth: 0, here: vec![None], source: String::new(), within: None }.script(command);
    analysis
}

/// How deep brackets may nest before a command is refused unread: a parser walking
/// thousands of levels could exhaust the stack, and no real command nests this deep.
pub const MAX_NESTING: usize = 64;

/// The nesting depth of `command`'s brackets, if it is over [`MAX_NESTING`]. Counts
/// every `(`, `{` and `` ` `` whatever quotes it is in: an over-count only refuses more.
fn too_deep(command: &str) -> Option<usize> {
    let (mut depth, mut deepest, mut backquoted) = (0usize, 0usize, false);
    for b in command.bytes() {
        match b {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth = depth.saturating_sub(1),
            b'`' => {
                backquoted = !backquoted;
                if backquoted {
                    depth += 1;
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            _ => continue,
        }
        deepest = deepest.max(depth);
    }
    (deepest > MAX_NESTING).then_some(deepest)
}

/// Adds to `dirs` those of `more` it does not have (see [`Command::dirs`]).
fn add_dirs(dirs: &mut Vec<Option<usize>>, more: &[Option<usize>]) {
    for dir in more {
        if !dirs.contains(dir) {
            dirs.push(*dir);
        }
    }
}

fn options() -> ParserOptions {
    ParserOptions { tilde_expansion: false, ..ParserOptions::default() }
}

struct Walker<'a> {
    out: &'a mut Analysis,
    depth: usize,
    /// The directories the shell may be in at this point (see [`Command::dirs`]).
    here: Vec<Option<usize>>,
    /// The text of the script being walked (the parser's locations index into it).
    source: String,
    /// The exec wrapper whose command is being walked (see [`Command::within`]).
    within: Option<usize>,
}

impl Walker<'_> {
    fn unknown(&mut self, why: impl Into<String>) {
        self.out.unknowns.push(why.into());
    }

    /// Records a command that runs; a `cd` moves the shell for what follows.
    fn record(&mut self, mut command: Command) {
        command.dirs = self.here.clone();
        command.within = command.within.or(self.within);
        command.read_only = is_read_only(&command);
        if let Some(name @ ("cd" | "pushd" | "popd")) = command.base_name() {
            // `cd -L dir`, `cd -- dir`: the last word names the directory.
            let to = match command.words.iter().skip(1).rfind(|w| !w.text().starts_with('-') || w.text() == "-") {
                _ if name == "popd" => None,
                None => Some("~".to_owned()),
                Some(Word::Literal(dir)) if dir != "-" => Some(dir.clone()),
                Some(_) => None,
            };
            let mut next = Vec::with_capacity(self.here.len());
            for from in &self.here {
                self.out.dirs.push(DirChange { from: *from, to: to.clone() });
                next.push(Some(self.out.dirs.len() - 1));
            }
            // As if it succeeded; the lists keep what holds if it failed.
            self.here = next;
        }
        self.out.commands.push(command);
    }

    /// Runs `walk` in a subshell: a `cd` inside does not move the shell outside.
    fn subshell(&mut self, walk: impl FnOnce(&mut Self)) {
        let here = self.here.clone();
        walk(self);
        self.here = here;
    }

    /// A whole script: `bash -c` text, `eval` text, a substitution's body.
    fn script(&mut self, text: &str) {
        if self.depth > MAX_DEPTH {
            return self.unknown("commands are nested too deeply");
        }
        let mut parser = brush_parser::Parser::new(text.as_bytes(), &options(), &SourceInfo::default());
        match parser.parse_program() {
            Ok(program) => {
                let outer = std::mem::replace(&mut self.source, text.to_owned());
                self.depth += 1;
                for list in &program.complete_commands {
                    self.list(list);
                }
                self.depth -= 1;
                self.source = outer;
            }
            Err(e) => self.unknown(format!("the command cannot be parsed: {e}")),
        }
    }

    /// `(( ... ))`. The parser reads every `((` as arithmetic, but bash reads `( (`, and
    /// a `((` not closed by `))`, as nested subshells, which run commands. So the text
    /// inside the outer parentheses is also walked as a subshell's script: whatever bash
    /// may run is checked. Real arithmetic is a sink too: evaluating a variable runs the
    /// command substitutions hidden in its value (`x='a[$(rm -rf ~)]'; ((x))`).
    fn arithmetic(&mut self, expr: &str, loc: &brush_parser::TokenLocation) {
        // (The parser's positions count characters.)
        let raw: Option<String> = (loc.end.index > loc.start.index)
            .then(|| self.source.chars().skip(loc.start.index).take(loc.end.index - loc.start.index).collect());
        match raw.as_deref().and_then(|raw| raw.strip_prefix('(')?.strip_suffix(')')) {
            Some(inner) => {
                // (Real arithmetic read as a script is a command that asks, or a parse
                // error that asks: both no looser than the arithmetic itself.)
                let inner = inner.to_owned();
                self.subshell(|walker| walker.script(&inner));
            }
            None => self.unknown("an arithmetic command could not be located in the text"),
        }
        // Only `((` closed by `))` can be arithmetic in bash.
        let arithmetic = raw.as_deref().is_none_or(|raw| raw.starts_with("((") && raw.ends_with("))"));
        if arithmetic && arithmetic_runs_code(expr) {
            self.unknown(format!("the arithmetic `{}` evaluates variables, whose values can run commands", clip(expr)));
        }
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            // `a && b` runs b only where a succeeded (after `cd src && b`, b runs in
            // src); `a || b` may run b wherever the list has been so far; after the
            // list, the shell may be anywhere it has been.
            let mut seen = self.here.clone();
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                add_dirs(&mut seen, &self.here);
                let pipeline = match next {
                    ast::AndOr::And(p) => p,
                    ast::AndOr::Or(p) => {
                        self.here = seen.clone();
                        p
                    }
                };
                self.pipeline(pipeline);
            }
            add_dirs(&mut self.here, &seen);
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) {
        if pipeline.seq.len() == 1 {
            return self.command(&pipeline.seq[0]);
        }
        // Each command of a pipeline runs in a subshell of its own.
        for command in &pipeline.seq {
            self.subshell(|walker| walker.command(command));
        }
    }

    fn command(&mut self, command: &ast::Command) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound);
                for redirect in redirects.iter().flat_map(|r| &r.0) {
                    self.redirect(redirect);
                }
            }
            ast::Command::Function(function) => {
                // The body may run (the function can be called by any later word):
                // its commands are checked, and the call still asks.
                self.subshell(|walker| walker.compound(&function.body.0));
                self.unknown("the command defines a shell function");
            }
            ast::Command::ExtendedTest(test) => {
                // `[[ ... ]]` only tests, but its operands may hold substitutions, and
                // its numeric comparisons evaluate their operands as arithmetic.
                let text = test.to_string();
                if text.contains("$(") || text.contains('`') || text.contains("<(") || text.contains(">(") {
                    self.unknown("a `[[ ]]` test runs a command substitution");
                }
                let numeric = [" -eq ", " -ne ", " -lt ", " -le ", " -gt ", " -ge "];
                if numeric.iter().any(|op| text.contains(op)) && text.contains('$') {
                    self.unknown("a `[[ ]]` numeric test evaluates variables, whose values can run commands");
                }
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand) {
        match compound {
            ast::CompoundCommand::BraceGroup(group) => self.list(&group.list),
            ast::CompoundCommand::Subshell(sub) => self.subshell(|walker| walker.list(&sub.list)),
            ast::CompoundCommand::ForClause(f) => {
                for value in f.values.iter().flatten() {
                    self.word(&value.value);
                }
                self.list(&f.body.list);
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for expr in [&f.initializer, &f.condition, &f.updater].into_iter().flatten() {
                    if arithmetic_runs_code(&expr.value) {
                        self.unknown(format!(
                            "the arithmetic `{}` evaluates variables, whose values can run commands",
                            clip(&expr.value)
                        ));
                    }
                }
                self.list(&f.body.list)
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value);
                for item in &c.cases {
                    // A pattern is expanded before it is matched (`$(cmd))` runs cmd).
                    for pattern in &item.patterns {
                        self.word(&pattern.value);
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list);
                    }
                }
            }
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for other in i.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition);
                    }
                    self.list(&other.body);
                }
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            ast::CompoundCommand::Arithmetic(a) => self.arithmetic(&a.expr.value, &a.loc),
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand) {
        let mut command = Command::default();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, raw) => {
                    match &assignment.value {
                        ast::AssignmentValue::Scalar(value) => {
                            self.word(&value.value);
                        }
                        // `a=( $(cmd) )`, `a=([$(cmd)]=1)`: each element and key is expanded.
                        ast::AssignmentValue::Array(items) => {
                            for (key, value) in items {
                                if let Some(key) = key {
                                    self.subscript(&key.value);
                                }
                                self.word(&value.value);
                            }
                        }
                    }
                    // `a[$(cmd)]=1`: the subscript is expanded and evaluated.
                    if let ast::AssignmentName::ArrayElementName(_, index) = &assignment.name {
                        self.subscript(index);
                    }
                    let name = assignment.name.to_string();
                    let value = raw.value.split_once('=').map(|(_, v)| v.to_owned()).unwrap_or_default();
                    command.env.push((name, value));
                }
                other => self.item(other, &mut command),
            }
        }
        if let Some(name) = &simple.word_or_name {
            let word = self.word(&name.value);
            command.words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            self.item(item, &mut command);
        }
        // A prompt string is expanded when bash shows it (`PS4='$(cmd)' bash -x`), and
        // PROMPT_COMMAND runs: their text is a command substitution or a command.
        for (name, value) in &command.env {
            if matches!(name.as_str(), "PS1" | "PS2" | "PS3" | "PS4" | "PROMPT_COMMAND")
                && (name == "PROMPT_COMMAND" || value.contains("$(") || value.contains('`'))
            {
                self.unknown(format!("`{name}` runs `{}` when bash expands it", clip(value)));
            }
        }
        if command.words.is_empty() {
            // Only assignments (`A=1`) or redirections: nothing runs now, but a variable
            // other than the known-safe ones changes what later commands run (`PATH=.;
            // ls`): it is a part that needs a rule.
            if let Some((name, value)) = command.env.iter().find(|(name, _)| !SAFE_ENV_VARS.contains(&name.as_str())) {
                let assignment =
                    Command { words: vec![Word::Literal(format!("{name}={value}"))], ..Command::default() };
                self.record(assignment);
            }
            return;
        }
        self.unwrap(command);
    }

    fn item(&mut self, item: &ast::CommandPrefixOrSuffixItem, command: &mut Command) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect),
            ast::CommandPrefixOrSuffixItem::Word(w) => {
                let word = self.word(&w.value);
                command.words.push(word);
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                let word = self.word(&w.value);
                command.words.push(word);
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                self.subshell(|walker| walker.list(&sub.list));
                command.words.push(Word::Dynamic("<(...)".into()));
            }
        }
    }

    fn redirect(&mut self, redirect: &ast::IoRedirect) {
        use ast::{IoFileRedirectKind as Kind, IoFileRedirectTarget as Target};
        match redirect {
            ast::IoRedirect::File(_, kind, target) => match target {
                Target::Filename(w) => {
                    let word = self.word(&w.value);
                    if matches!(kind, Kind::Read | Kind::ReadAndWrite) {
                        self.out.reads.push(word.clone());
                    }
                    if matches!(kind, Kind::Write | Kind::Append | Kind::Clobber | Kind::ReadAndWrite) {
                        self.write_target(word);
                    }
                }
                Target::ProcessSubstitution(_, sub) => self.subshell(|walker| walker.list(&sub.list)),
                Target::Fd(_) | Target::Duplicate(_) => {}
            },
            ast::IoRedirect::OutputAndError(w, _) => {
                let word = self.word(&w.value);
                self.write_target(word);
            }
            ast::IoRedirect::HereString(_, w) => {
                self.word(&w.value);
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion && (doc.doc.value.contains("$(") || doc.doc.value.contains('`')) {
                    self.unknown("a here-document runs a command substitution");
                }
            }
        }
    }

    fn write_target(&mut self, word: Word) {
        match word {
            Word::Literal(path) if path == "/dev/null" || path == "/dev/stdout" || path == "/dev/stderr" => {}
            Word::Literal(path) => self.out.writes.push(path),
            Word::Dynamic(raw) => self.unknown(format!("output is redirected to a computed path `{raw}`")),
            Word::Pattern(raw) => self.unknown(format!("output is redirected to a pattern `{raw}`")),
        }
    }

    /// A word's value: literal if nothing in it is computed. Substitutions inside are
    /// analysed as commands of their own.
    fn word(&mut self, raw: &str) -> Word {
        // The tokenizer has split the word; one with no quoting or expansion character
        // in it is its own value, and need not go through the word parser.
        if !raw
            .bytes()
            .any(|b| matches!(b, b'$' | b'`' | b'\'' | b'"' | b'\\' | b'~' | b'{' | b'[' | b'*' | b'?' | b'(' | b'!'))
        {
            return Word::Literal(raw.to_owned());
        }
        // `~-` (the previous directory) and `~user` are known only when it runs.
        if let Some(rest) = raw.strip_prefix('~')
            && !(rest.is_empty() || rest.starts_with('/') || rest == "+" || rest.starts_with("+/"))
        {
            return Word::Dynamic(raw.to_owned());
        }
        match word::parse(raw, &options()) {
            Ok(pieces) => {
                let mut text = String::new();
                let literal = self.pieces(raw, &pieces, &mut text);
                // Unquoted glob or brace characters: bash expands the word.
                let expands = pieces.iter().any(|piece| match &piece.piece {
                    WordPiece::Text(t) => crate::expand::has_glob(t) || crate::expand::has_braces(t),
                    _ => false,
                });
                match (literal, expands) {
                    (true, false) => Word::Literal(text),
                    (true, true) => Word::Pattern(text),
                    (false, _) => Word::Dynamic(raw.to_owned()),
                }
            }
            Err(_) => {
                self.unknown(format!("the word `{raw}` cannot be parsed"));
                Word::Dynamic(raw.to_owned())
            }
        }
    }

    /// `pieces` of the word `raw` (their indices are into it) into `text`; whether all
    /// of it is known before it runs.
    fn pieces(&mut self, raw: &str, pieces: &[word::WordPieceWithSource], text: &mut String) -> bool {
        let mut literal = true;
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => text.push_str(s),
                // `$'\x72m'` is `rm`: the escapes are read as bash reads them.
                WordPiece::AnsiCQuotedText(s) => match ansi_c(s) {
                    Some(decoded) => text.push_str(&decoded),
                    None => {
                        text.push_str(s);
                        literal = false;
                    }
                },
                WordPiece::EscapeSequence(s) => text.push_str(s.strip_prefix('\\').unwrap_or(s)),
                WordPiece::TildePrefix(s) => {
                    // `~` and `~+` (the current directory) are known; `~-` and `~user`
                    // only when the command runs.
                    if !(s.is_empty() || s == "+") {
                        literal = false;
                    }
                    text.push('~');
                    text.push_str(s);
                }
                WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    literal &= self.pieces(raw, inner, text);
                }
                WordPiece::CommandSubstitution(body) | WordPiece::BackquotedCommandSubstitution(body) => {
                    self.subshell(|walker| walker.script(body));
                    literal = false;
                }
                WordPiece::ArithmeticExpression(expr) => {
                    if arithmetic_runs_code(&expr.value) {
                        self.unknown(format!(
                            "the arithmetic `{}` evaluates variables, whose values can run commands",
                            clip(&expr.value)
                        ));
                    }
                    literal = false;
                }
                WordPiece::ParameterExpansion(expansion) => {
                    // A substitution in an operand (`${x:-$(cmd)}`, `${x/$(cmd)/y}`) runs
                    // when the expansion is made: not read here, so not known.
                    let source = raw.get(piece.start_index..piece.end_index).unwrap_or(raw);
                    if ["$(", "`", "<(", ">("].iter().any(|s| source.contains(s)) {
                        self.unknown(format!("the expansion `{}` runs a command substitution", clip(source)));
                    }
                    // An array subscript is arithmetic (`${a[$i]}`).
                    // (Read through its debug form: the expression type has no display.)
                    let text = format!("{expansion:?}");
                    let mut rest = text.as_str();
                    while let Some(at) = rest.find("index: \"") {
                        rest = &rest[at + 8..];
                        let index = rest.split('"').next().unwrap_or("");
                        if arithmetic_runs_code(index) {
                            self.unknown(format!("the array subscript `{}` evaluates variables", clip(index)));
                            break;
                        }
                    }
                    literal = false;
                }
            }
        }
        literal
    }

    /// An array subscript as written: its substitutions are commands, and as
    /// arithmetic it evaluates the variables it names (`a[$i]`, whose value may be
    /// `a[$(cmd)]`).
    fn subscript(&mut self, index: &str) {
        self.word(index);
        if arithmetic_runs_code(index) {
            self.unknown(format!("the array subscript `{}` evaluates variables", clip(index)));
        }
    }

    /// Strips wrappers and brings out hidden commands, then records what runs.
    fn unwrap(&mut self, command: Command) {
        // What an exec wrapper runs is within it only while the wrapper is walked.
        let outer = self.within;
        self.unwrap_command(command);
        self.within = outer;
    }

    fn unwrap_command(&mut self, mut command: Command) {
        loop {
            // `time -- cmd` leaves the `--` to the command's words.
            if command.words.len() > 1 && command.words.first().and_then(Word::literal) == Some("--") {
                command.words.remove(0);
            }
            // Braces are words, as bash makes them before anything runs: `git pu{sh,}`
            // is `git push pu`, and `{r,x}m -rf a` runs `rm` (the first word is the
            // command). A word with more than can be listed stays as it is (the paths it
            // names reach what is below its directory); a glob stays a pattern.
            if command.words.iter().any(|w| matches!(w, Word::Pattern(p) if crate::expand::has_braces(p))) {
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
                if words.is_empty() {
                    return;
                }
                command.words = words;
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
            let rest = match name.as_str() {
                "timeout" => skip_options(args, &["-s", "--signal", "-k", "--kill-after"]).map(|i| i + 1),
                "time" => skip_options(args, &["-f", "--format", "-o", "--output"]),
                "nice" => skip_options(args, &["-n", "--adjustment"]),
                // (`!` negates the status of what it runs, where the parser left it a word.)
                // (zsh's `nocorrect` is not stripped: Claude Code matches it as written.)
                "builtin" | "coproc" | "noglob" | "!" => Some(0),
                // `nohup -- cmd`; `exec -a name -cl cmd`.
                "nohup" => skip_options(args, &[]),
                "exec" => skip_options(args, &["-a"]),
                // `busybox rm x` runs its applet `rm`.
                "busybox" if args.first().and_then(Word::literal).is_some_and(|a| !a.starts_with('-')) => Some(0),
                // `trap 'cmd' EXIT` runs its text later, as a script.
                "trap" => match args.iter().find(|w| w.literal() != Some("--")) {
                    Some(Word::Literal(text)) if !text.starts_with('-') => {
                        let text = text.clone();
                        return self.subshell(|walker| walker.script(&text));
                    }
                    Some(Word::Dynamic(raw) | Word::Pattern(raw)) => {
                        return self.unknown(format!("`trap` runs a computed command `{raw}`"));
                    }
                    _ => None,
                },
                // Exec wrappers: they run their argument as a command, but a prefix rule
                // for the wrapper must not approve whatever it runs (Claude Code: they
                // always ask unless an exact rule names the whole command). The inner
                // command is checked as well.
                wrapper @ ("watch" | "setsid" | "ionice" | "flock" | "sudo" | "doas" | "chroot" | "unshare"
                | "nsenter" | "taskset" | "chrt" | "strace" | "ltrace" | "prlimit" | "runuser" | "su"
                | "firejail" | "systemd-run" | "script" | "caffeinate" | "chpst" | "setpriv" | "pkexec"
                | "unbuffer" | "rlwrap" | "catchsegv" | "xvfb-run" | "dbus-run-session" | "fakeroot"
                | "proot" | "parallel") => {
                    let inner = exec_wrapper_command(wrapper, args);
                    let wrapper_at = self.out.commands.len();
                    self.record(Command { exact_only: true, ..command.clone() });
                    self.within = Some(wrapper_at);
                    match inner {
                        Some(at) if at < args.len() => {
                            command =
                                Command { env: command.env.clone(), words: args[at..].to_vec(), ..Command::default() };
                            // A script given as one word (`su -c 'rm x'`, `script -c`, `watch 'rm x'`).
                            if command.words.len() == 1
                                && let Some(Word::Literal(text)) = command.words.first()
                                && text.contains(' ')
                            {
                                let text = text.clone();
                                return self.subshell(|walker| walker.script(&text));
                            }
                            continue;
                        }
                        _ => return,
                    }
                }
                "stdbuf" => skip_options(args, &["-i", "-o", "-e", "--input", "--output", "--error"]),
                "command"
                    if !args
                        .first()
                        .and_then(Word::literal)
                        .is_some_and(|a| a.starts_with("-v") || a.starts_with("-V")) =>
                {
                    skip_options(args, &[])
                }
                "env"
                    if args.iter().any(|a| {
                        a.literal().is_some_and(|a| {
                            a == "-S" || a.starts_with("--split-string") || (a.starts_with("-S") && a.len() > 2)
                        })
                    }) =>
                {
                    // `env -S 'rm x' y` splits its string into the command: `rm x y`.
                    let words: Option<Vec<&str>> = args.iter().map(Word::literal).collect();
                    let Some(words) = words else {
                        return self.unknown("`env -S` runs a computed command");
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
                    return self.subshell(|walker| walker.script(&script));
                }
                "env" => {
                    let mut i = skip_options(args, &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"])
                        .unwrap_or(args.len());
                    while let Some(Word::Literal(a)) = args.get(i)
                        && let Some((k, v)) = a.split_once('=')
                    {
                        command.env.push((k.to_owned(), v.to_owned()));
                        i += 1;
                    }
                    Some(i)
                }
                "bash" | "sh" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "yash" | "posh" | "rbash" | "fish"
                | "tcsh" | "csh" => {
                    if let Some(at) = args.iter().position(|a| {
                        a.literal().is_some_and(|a| {
                            a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
                        })
                    }) {
                        // The script is the first operand after the options (`bash -c -x
                        // 'cmd'`, `sh -c -- 'cmd'`).
                        match args.get(shell_operand(args, at + 1)) {
                            Some(Word::Literal(script)) => {
                                let script = script.clone();
                                return self.subshell(|walker| walker.script(&script));
                            }
                            Some(Word::Dynamic(raw) | Word::Pattern(raw)) => {
                                return self.unknown(format!("`{name} -c` runs a computed script `{raw}`"));
                            }
                            None => return self.unknown(format!("`{name} -c` without a script")),
                        }
                    }
                    // Without a script file it runs what it reads (`... | sh`, `sh <<< text`),
                    // and so it does with `/dev/stdin` or a substitution (`bash <(...)`) for
                    // one: known only when it runs. (A script file is not read.)
                    match args.get(shell_operand(args, 0)) {
                        None => return self.unknown(format!("`{name}` runs the script it reads from its input")),
                        Some(Word::Literal(file)) if is_input(file) => {
                            return self.unknown(format!("`{name} {file}` runs the script it reads from its input"));
                        }
                        Some(Word::Dynamic(raw)) => {
                            return self.unknown(format!("`{name}` runs a script known only when it runs (`{raw}`)"));
                        }
                        Some(_) => {}
                    }
                    None
                }
                // `alias x=rm` makes `x` run `rm` (a script's aliases expand with
                // `shopt -s expand_aliases`): the value is checked as a command.
                "alias" => {
                    for arg in args {
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
                    None
                }
                "eval" => {
                    let parts: Option<Vec<&str>> = args.iter().map(Word::literal).collect();
                    match parts {
                        Some(parts) => return self.script(&parts.join(" ")),
                        None => return self.unknown("`eval` runs computed text"),
                    }
                }
                "xargs" => {
                    let at = skip_options(
                        args,
                        &[
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
                        ],
                    );
                    let inner: Vec<Word> = match at {
                        Some(at) if at < args.len() => args[at..].to_vec(),
                        _ => vec![Word::Literal("echo".into())],
                    };
                    // Bare `xargs` is stripped for allow rules (`Bash(grep *)` allows
                    // `xargs grep x`); with options it is a command of its own (Claude Code).
                    // Deny and ask rules see it either way.
                    let stripped = at == Some(0);
                    self.record(Command { words: vec![command.words[0].clone()], stripped, ..Command::default() });
                    command = Command { env: command.env.clone(), words: inner, more_args: true, ..Command::default() };
                    continue;
                }
                "find" => {
                    // What `-exec` and `-delete` run is within the find, recorded next.
                    let before = self.out.commands.len();
                    self.find_actions(&command);
                    let find_at = self.out.commands.len();
                    for action in &mut self.out.commands[before..] {
                        action.within.get_or_insert(find_at);
                    }
                    None
                }
                "git" => {
                    self.git_config_commands(args);
                    None
                }
                // A script from a file is not read (as Claude Code does not); one from
                // its input or a substitution is text known only when it runs.
                "source" | "." => match args.first() {
                    Some(Word::Literal(file)) if !is_input(file) => None,
                    Some(word) => {
                        let what = word.text().to_owned();
                        return self.unknown(format!("`{name}` runs a script known only when it runs (`{what}`)"));
                    }
                    None => None,
                },
                _ => None,
            };
            match rest {
                // A wrapper with a command after it: go on with that command.
                Some(at) if at < command.words.len() - 1 => {
                    command.words.drain(..=at);
                }
                // Not a wrapper, or one with nothing to run (`env` alone prints).
                _ => return self.record(command),
            }
        }
    }

    /// `git -c key=value` with a key whose value git runs as a command (an alias
    /// `!cmd`, the pager, the editor, a diff or filter driver, ...): the value is a
    /// script of its own. A hooks directory set this way runs what is in it.
    fn git_config_commands(&mut self, args: &[Word]) {
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

    fn git_setting(&mut self, key: &str, value: &str) {
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
    fn find_actions(&mut self, find: &Command) {
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
fn exec_wrapper_command(wrapper: &str, args: &[Word]) -> Option<usize> {
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

/// Whether an arithmetic expression names a variable: evaluating it evaluates the
/// variable's value as arithmetic too, and a value like `a[$(cmd)]` runs `cmd`.
pub(crate) fn arithmetic_runs_code(expr: &str) -> bool {
    let bytes = expr.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'$' || b == b'`' {
            return true;
        }
        if b.is_ascii_digit() {
            // A number, hex and base forms included (`0x1f`, `16#ff`).
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'#' || bytes[i] == b'_') {
                i += 1;
            }
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            return true;
        }
        i += 1;
    }
    false
}

/// At most 80 characters of `text`, for messages.
fn clip(text: &str) -> &str {
    match text.char_indices().nth(80) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The index (into `args`) of the first word after the options, where `with_value`
/// lists the options that take the next word as their value. `None` if only options.
/// The index in `args`, from `from`, of a shell's first operand: past its options and
/// the values of those that take one (`-o posix`, `--rcfile f`), and past `--`.
fn shell_operand(args: &[Word], from: usize) -> usize {
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
fn is_input(file: &str) -> bool {
    file == "/dev/stdin" || file.starts_with("/dev/fd/") || file.starts_with("/proc/")
}

/// The text of `$'...'` (its inside, as written) with bash's escapes read: `\n`,
/// `\x72`, `\162`, `\u2603`, `\cA`, ... `None` for an escape that yields no text
/// (`\x` with no digits, a NUL, which ends the word in bash) or is not a character.
fn ansi_c(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize| {
            let mut value: u32 = 0;
            let mut n = 0;
            while n < max
                && let Some(d) = chars.peek().and_then(|c| c.to_digit(radix))
            {
                value = value * radix + d;
                chars.next();
                n += 1;
            }
            (n > 0).then_some(value)
        };
        let decoded = match e {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' | '\'' | '"' | '?' => e,
            '0'..='7' => {
                // Up to three octal digits, this one the first.
                let mut value = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(value & 0xff)?
            }
            'x' => char::from_u32(digits(&mut chars, 16, 2)?)?,
            'u' => char::from_u32(digits(&mut chars, 16, 4)?)?,
            'U' => char::from_u32(digits(&mut chars, 16, 8)?)?,
            'c' => char::from_u32(chars.next()? as u32 & 0x1f)?,
            other => {
                out.push('\\');
                other
            }
        };
        if decoded == '\0' {
            return None;
        }
        out.push(decoded);
    }
    Some(out)
}

fn skip_options(args: &[Word], with_value: &[&str]) -> Option<usize> {
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

/// Whether a whole analysis only reads: every command reads, nothing is written by
/// redirection, and everything is known.
pub fn analysis_is_read_only(analysis: &Analysis) -> bool {
    analysis.unknowns.is_empty()
        && analysis.writes.is_empty()
        && !analysis.commands.is_empty()
        && analysis.commands.iter().all(|command| command.read_only)
}

#[cfg(test)]
mod tests {
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
        assert_eq!(
            a.commands[0].env,
            [("FOO".to_owned(), "1".to_owned()), ("LD_PRELOAD".to_owned(), "x.so".to_owned())]
        );
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
}
