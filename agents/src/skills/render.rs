//! A skill's body made ready for the model: Claude Code's substitutions
//! (`$ARGUMENTS`, `$ARGUMENTS[N]`, `$N`, `$name`, `${CLAUDE_…}`) and its `!` commands
//! found, to be run by the caller through the permission pipeline.

use super::skill::Skill;

/// What the substitutions read besides the arguments.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RenderVars {
    /// `${CLAUDE_SESSION_ID}`.
    pub session_id: String,
    /// `${CLAUDE_PROJECT_DIR}`.
    pub project_dir: String,
}

impl RenderVars {
    /// The session's id and project directory.
    pub fn new(session_id: impl Into<String>, project_dir: impl Into<String>) -> RenderVars {
        RenderVars { session_id: session_id.into(), project_dir: project_dir.into() }
    }
}

/// A piece of a rendered body: text, or a command whose output goes in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Piece {
    /// Text as it is.
    Text(String),
    /// A `` !`command` `` or a ` ```! ` block.
    Command {
        /// As written in the skill (for the error that names it).
        pattern: String,
        /// The command line to run.
        command: String,
    },
}

/// Substitutes the arguments and variables in `skill`'s body, then splits it at its
/// `!` commands. Arguments given and no `$ARGUMENTS` in the body are appended as
/// `ARGUMENTS: <args>`.
///
/// ```
/// use toolwright_agents::skills::{Piece, RenderVars, Skill, render};
/// let skill = Skill::new("fix", "Fixes an issue", "Fix issue $0 ($ARGUMENTS).\nStatus: !`git status --short`");
/// let pieces = render(&skill, "123 urgent", &RenderVars::default());
/// assert_eq!(pieces[0], Piece::Text("Fix issue 123 (123 urgent).\nStatus: ".into()));
/// assert!(matches!(&pieces[1], Piece::Command { command, .. } if command == "git status --short"));
/// ```
pub fn render(skill: &Skill, args: &str, vars: &RenderVars) -> Vec<Piece> {
    let text = substitute(skill, args, vars);
    commands(&text)
}

/// The body with the substitutions made.
pub fn substitute(skill: &Skill, args: &str, vars: &RenderVars) -> String {
    let args = args.trim();
    let positional = split_args(args);
    let dir = skill.dir.as_ref().map(|d| d.display().to_string()).unwrap_or_default();
    let plugin_root = skill.plugin_root.as_ref().map(|d| d.display().to_string()).unwrap_or_default();
    let variable = |name: &str| -> Option<String> {
        Some(match name {
            "CLAUDE_SESSION_ID" => vars.session_id.clone(),
            "CLAUDE_PROJECT_DIR" => vars.project_dir.clone(),
            "CLAUDE_SKILL_DIR" => dir.clone(),
            "CLAUDE_EFFORT" => skill.effort.clone().unwrap_or_default(),
            "CLAUDE_PLUGIN_ROOT" if skill.plugin_root.is_some() => plugin_root.clone(),
            "CLAUDE_PLUGIN_DATA" if skill.plugin_root.is_some() => {
                format!("{plugin_root}/.data")
            }
            _ => return None,
        })
    };
    let body = skill.body.as_str();
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used_arguments = false;
    let mut rest = body;
    while let Some(at) = rest.find(['$', '\\']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        // `\$` keeps a literal `$`.
        if let Some(after) = tail.strip_prefix("\\$") {
            out.push('$');
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix('\\') {
            out.push('\\');
            rest = after;
            continue;
        }
        let after = &tail[1..];
        if let Some(inner) = after.strip_prefix('{')
            && let Some(close) = inner.find('}')
            && let Some(value) = variable(&inner[..close])
        {
            out.push_str(&value);
            rest = &inner[close + 1..];
            continue;
        }
        if let Some(more) = after.strip_prefix("ARGUMENTS") {
            used_arguments = true;
            if let Some(index) = more.strip_prefix('[')
                && let Some(close) = index.find(']')
                && let Ok(n) = index[..close].parse::<usize>()
            {
                match positional.get(n) {
                    Some(value) => out.push_str(value),
                    // An indexed placeholder with no argument is left as it is.
                    None => out.push_str(&tail[..1 + "ARGUMENTS".len() + close + 2]),
                }
                rest = &index[close + 1..];
            } else {
                out.push_str(args);
                rest = more;
            }
            continue;
        }
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            used_arguments = true;
            let n: usize = after[..digits].parse().unwrap_or(usize::MAX);
            match positional.get(n) {
                Some(value) => out.push_str(value),
                None => out.push_str(&tail[..1 + digits]),
            }
            rest = &after[digits..];
            continue;
        }
        let word = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
        if word > 0
            && let Some(i) = skill.arguments.iter().position(|a| a == &after[..word])
        {
            used_arguments = true;
            // A named argument not given expands to nothing.
            out.push_str(positional.get(i).map(String::as_str).unwrap_or_default());
            rest = &after[word..];
            continue;
        }
        out.push('$');
        rest = after;
    }
    out.push_str(rest);
    if !used_arguments && !args.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(args);
    }
    out
}

/// Splits arguments the way a shell would: spaces separate, quotes group, `\`
/// escapes.
pub fn split_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                    started = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(current);
    }
    out
}

/// Splits `text` at its `!` commands: `` !`cmd` `` at the start of a line or after
/// whitespace, and fenced blocks opened with ` ```! `.
pub fn commands(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut plain = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "```!" {
            let mut block = String::new();
            let mut pattern = line.to_owned();
            let mut closed = false;
            for next in lines.by_ref() {
                pattern.push_str(next);
                if next.trim() == "```" {
                    closed = true;
                    break;
                }
                block.push_str(next);
            }
            if closed {
                flush(&mut plain, &mut pieces);
                pieces
                    .push(Piece::Command { pattern: pattern.trim_end().to_owned(), command: block.trim().to_owned() });
                if pattern.ends_with('\n') {
                    plain.push('\n');
                }
            } else {
                plain.push_str(&pattern);
            }
            continue;
        }
        inline(line, &mut plain, &mut pieces);
    }
    flush(&mut plain, &mut pieces);
    pieces
}

fn inline(line: &str, plain: &mut String, pieces: &mut Vec<Piece>) {
    let mut rest = line;
    let mut previous: Option<char> = None;
    while let Some(at) = rest.find("!`") {
        let before = &rest[..at];
        let boundary = before.chars().last().or(previous).is_none_or(char::is_whitespace);
        let after = &rest[at + 2..];
        match after.find('`') {
            Some(close) if boundary && close > 0 => {
                plain.push_str(before);
                flush(plain, pieces);
                let command = &after[..close];
                pieces.push(Piece::Command { pattern: format!("!`{command}`"), command: command.trim().to_owned() });
                previous = Some('`');
                rest = &after[close + 1..];
            }
            _ => {
                plain.push_str(&rest[..at + 2]);
                previous = Some('`');
                rest = after;
            }
        }
    }
    plain.push_str(rest);
}

fn flush(plain: &mut String, pieces: &mut Vec<Piece>) {
    if !plain.is_empty() {
        pieces.push(Piece::Text(std::mem::take(plain)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Skill {
        Skill::new("s", "d", text)
    }

    #[test]
    fn arguments_are_substituted_as_claude_code_documents() {
        let vars = RenderVars::new("sess-1", "/proj");
        let s = |b: &str, a: &str| substitute(&body(b), a, &vars);
        assert_eq!(s("Do $ARGUMENTS now", "a b"), "Do a b now");
        assert_eq!(s("First $0, second $1, third $2", "x 'y z'"), "First x, second y z, third $2");
        assert_eq!(s("$ARGUMENTS[1] then $ARGUMENTS[5]", "p q"), "q then $ARGUMENTS[5]");
        assert_eq!(s("No placeholder.", "given"), "No placeholder.\n\nARGUMENTS: given");
        assert_eq!(s("No placeholder.", ""), "No placeholder.");
        assert_eq!(s("Costs \\$5 and $ARGUMENTS", "x"), "Costs $5 and x");
        assert_eq!(s("In ${CLAUDE_PROJECT_DIR} for ${CLAUDE_SESSION_ID}; ${HOME}", ""), "In /proj for sess-1; ${HOME}");
        let mut named = body("Issue $issue, branch $branch.");
        named.arguments = vec!["issue".into(), "branch".into()];
        assert_eq!(substitute(&named, "42", &vars), "Issue 42, branch .");
    }

    #[test]
    fn commands_are_found_only_at_a_boundary() {
        let pieces = commands("Status: !`git status`\nnot!`this`\n```!\nls\npwd\n```\nend");
        let found: Vec<&str> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Command { command, .. } => Some(command.as_str()),
                Piece::Text(_) => None,
            })
            .collect();
        assert_eq!(found, ["git status", "ls\npwd"]);
        assert!(matches!(&pieces[0], Piece::Text(t) if t == "Status: "));
        assert!(pieces.iter().any(|p| matches!(p, Piece::Text(t) if t.contains("not!`this`"))));
    }

    #[test]
    fn split_args_quotes_like_a_shell() {
        assert_eq!(split_args(r#"a "b c" 'd e' f\ g"#), ["a", "b c", "d e", "f g"]);
        assert_eq!(split_args("  "), Vec::<String>::new());
        assert_eq!(split_args("''"), [""]);
    }
}
