//! The walk over bash's syntax tree that flattens a command line into the simple
//! commands that would run.

use crate::command::{Analysis, Command, DirChange, Word};
use crate::env::SAFE_ENV_VARS;
use crate::read_only::is_read_only;
use brush_parser::ast;
use brush_parser::word::{self, WordPiece};
use brush_parser::{ParserOptions, SourceInfo};

/// Commands longer than this are not analysed: they ask.
pub const MAX_COMMAND_LEN: usize = 10_000;

/// How deep `bash -c 'bash -c ...'` and substitutions are followed before asking.
pub(crate) const MAX_DEPTH: usize = 8;

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
pub(crate) fn too_deep(command: &str) -> Option<usize> {
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
pub(crate) fn add_dirs(dirs: &mut Vec<Option<usize>>, more: &[Option<usize>]) {
    for dir in more {
        if !dirs.contains(dir) {
            dirs.push(*dir);
        }
    }
}

pub(crate) fn options() -> ParserOptions {
    ParserOptions { tilde_expansion: false, ..ParserOptions::default() }
}

pub(crate) struct Walker<'a> {
    pub(crate) out: &'a mut Analysis,
    pub(crate) depth: usize,
    /// The directories the shell may be in at this point (see [`Command::dirs`]).
    pub(crate) here: Vec<Option<usize>>,
    /// The text of the script being walked (the parser's locations index into it).
    pub(crate) source: String,
    /// The exec wrapper whose command is being walked (see [`Command::within`]).
    pub(crate) within: Option<usize>,
}

impl Walker<'_> {
    pub(crate) fn unknown(&mut self, why: impl Into<String>) {
        self.out.unknowns.push(why.into());
    }

    /// Records a command that runs; a `cd` moves the shell for what follows.
    pub(crate) fn record(&mut self, mut command: Command) {
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
    pub(crate) fn subshell(&mut self, walk: impl FnOnce(&mut Self)) {
        let here = self.here.clone();
        walk(self);
        self.here = here;
    }

    /// A whole script: `bash -c` text, `eval` text, a substitution's body.
    pub(crate) fn script(&mut self, text: &str) {
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
    pub(crate) fn arithmetic(&mut self, expr: &str, loc: &brush_parser::TokenLocation) {
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

    pub(crate) fn list(&mut self, list: &ast::CompoundList) {
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

    pub(crate) fn pipeline(&mut self, pipeline: &ast::Pipeline) {
        if pipeline.seq.len() == 1 {
            return self.command(&pipeline.seq[0]);
        }
        // Each command of a pipeline runs in a subshell of its own.
        for command in &pipeline.seq {
            self.subshell(|walker| walker.command(command));
        }
    }

    pub(crate) fn command(&mut self, command: &ast::Command) {
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

    pub(crate) fn compound(&mut self, compound: &ast::CompoundCommand) {
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

    pub(crate) fn simple(&mut self, simple: &ast::SimpleCommand) {
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

    pub(crate) fn item(&mut self, item: &ast::CommandPrefixOrSuffixItem, command: &mut Command) {
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

    pub(crate) fn redirect(&mut self, redirect: &ast::IoRedirect) {
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

    pub(crate) fn write_target(&mut self, word: Word) {
        match word {
            Word::Literal(path) if path == "/dev/null" || path == "/dev/stdout" || path == "/dev/stderr" => {}
            Word::Literal(path) => self.out.writes.push(path),
            Word::Dynamic(raw) => self.unknown(format!("output is redirected to a computed path `{raw}`")),
            Word::Pattern(raw) => self.unknown(format!("output is redirected to a pattern `{raw}`")),
        }
    }

    /// A word's value: literal if nothing in it is computed. Substitutions inside are
    /// analysed as commands of their own.
    pub(crate) fn word(&mut self, raw: &str) -> Word {
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
    pub(crate) fn pieces(&mut self, raw: &str, pieces: &[word::WordPieceWithSource], text: &mut String) -> bool {
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
    pub(crate) fn subscript(&mut self, index: &str) {
        self.word(index);
        if arithmetic_runs_code(index) {
            self.unknown(format!("the array subscript `{}` evaluates variables", clip(index)));
        }
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
pub(crate) fn clip(text: &str) -> &str {
    match text.char_indices().nth(80) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The text of `$'...'` (its inside, as written) with bash's escapes read: `\n`,
/// `\x72`, `\162`, `\u2603`, `\cA`, ... `None` for an escape that yields no text
/// (`\x` with no digits, a NUL, which ends the word in bash) or is not a character.
pub(crate) fn ansi_c(raw: &str) -> Option<String> {
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
