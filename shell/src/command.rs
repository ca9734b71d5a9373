//! What a command line flattens into: its simple commands, their words, the
//! directories they run in and the files written.

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
    /// Whether it only reads, as [`is_read_only`](crate::is_read_only) says: decided once, when the command
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
    /// The command nests deeper than [`MAX_NESTING`](crate::MAX_NESTING) and was not read at all.
    pub too_deep: bool,
}

/// Whether a whole analysis only reads: every command reads, nothing is written by
/// redirection, and everything is known.
pub fn analysis_is_read_only(analysis: &Analysis) -> bool {
    analysis.unknowns.is_empty()
        && analysis.writes.is_empty()
        && !analysis.commands.is_empty()
        && analysis.commands.iter().all(|command| command.read_only)
}
