//! The skills the model may invoke, listed within a character budget: Claude Code's
//! progressive disclosure (names and descriptions up front, bodies on invocation).

use super::skill::Skill;

/// Claude Code's cap on one skill's listed description (`skillListingMaxDescChars`).
pub const MAX_DESCRIPTION_CHARS: usize = 1_536;
/// The listing's budget when nothing sets one (Claude Code's fallback, in characters).
pub const DEFAULT_BUDGET_CHARS: usize = 8_000;

/// The budget from `SLASH_COMMAND_TOOL_CHAR_BUDGET` (a positive count of characters),
/// else [`DEFAULT_BUDGET_CHARS`].
pub fn budget_from_env() -> usize {
    std::env::var("SLASH_COMMAND_TOOL_CHAR_BUDGET")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_BUDGET_CHARS)
}

/// A listing and what it left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Listing {
    /// One line per skill: `- name: description` (or the name alone).
    pub text: String,
    /// The skills listed by name only, because the descriptions did not fit.
    pub names_only: Vec<String>,
}

/// Lists `skills` in at most `budget` characters: every name always; descriptions
/// while they fit, dropped from the last skill upwards; a closing line says which were
/// cut, so the model knows to invoke by name.
///
/// ```
/// use toolwright_agents::skills::{Skill, listing};
/// let skills = [Skill::new("a", "Does A", ""), Skill::new("b", "Does B at length", "")];
/// assert_eq!(listing(skills.iter(), 1000).text, "- a: Does A\n- b: Does B at length");
/// let cut = listing(skills.iter(), 30);
/// assert_eq!(cut.names_only, ["b"]);
/// assert!(cut.text.starts_with("- a: Does A\n- b\n"));
/// ```
pub fn listing<'a>(skills: impl IntoIterator<Item = &'a Skill>, budget: usize) -> Listing {
    let entries: Vec<(String, String)> = skills
        .into_iter()
        .map(|s| {
            let hint = s.argument_hint.as_deref().map(|h| format!(" {h}")).unwrap_or_default();
            (format!("{}{hint}", s.name), s.listing_text(MAX_DESCRIPTION_CHARS))
        })
        .collect();
    let line = |(name, description): &(String, String), full: bool| {
        if full && !description.is_empty() { format!("- {name}: {description}") } else { format!("- {name}") }
    };
    // Each line's length with and without its description, counted once; the
    // descriptions are dropped from the last up until the total fits.
    let lengths: Vec<(usize, usize)> =
        entries.iter().map(|e| (line(e, true).chars().count() + 1, line(e, false).chars().count() + 1)).collect();
    let mut total: usize = lengths.iter().map(|(with, _)| with).sum();
    let mut full = vec![true; entries.len()];
    for (i, (with, without)) in lengths.iter().enumerate().rev() {
        if total <= budget {
            break;
        }
        total -= with - without;
        full[i] = false;
    }
    let mut text = entries.iter().zip(&full).map(|(e, f)| line(e, *f)).collect::<Vec<_>>().join("\n");
    let names_only: Vec<String> = entries
        .iter()
        .zip(&full)
        .filter(|((_, d), f)| !**f && !d.is_empty())
        .map(|((n, _), _)| n.split(' ').next().unwrap_or_default().to_owned())
        .collect();
    if !names_only.is_empty() {
        text.push_str(&format!(
            "\n({} skills are listed by name only: their descriptions did not fit the listing's {budget} characters. \
             Invoke one by name to read it.)",
            names_only.len()
        ));
    }
    Listing { text, names_only }
}
