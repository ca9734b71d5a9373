//! Rules granted for a while, in a call's extensions: what a skill's `allowed-tools`
//! lets run without asking while it is active. A grant only answers a question the
//! mode would ask: deny rules, ask rules and protected paths hold as before.

use crate::policy::RulePolicy;
use crate::rule::{Effect, Source};
use std::sync::Arc;

/// Allow rules granted on top of the policy's (Claude Code's `allowed-tools`). Put
/// it in the turn's extensions; [`RulePolicy`] reads it there.
///
/// ```
/// use toolwright_permissions::grants::Grants;
/// let grants = Grants::new("skill `release`", ["Bash(git log:*)", "Read"]).unwrap();
/// assert_eq!(grants.rules(), ["Bash(git log:*)", "Read"]);
/// assert!(Grants::new("skill `x`", ["Bash(("]).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Grants {
    by: String,
    rules: Vec<String>,
    policy: Arc<RulePolicy>,
}

/// A granted rule that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{by}: the rule `{rule}` does not parse: {why}")]
#[non_exhaustive]
pub struct GrantError {
    /// Who granted it.
    pub by: String,
    /// The rule as written.
    pub rule: String,
    /// Why it does not parse.
    pub why: String,
}

impl Grants {
    /// The rules `rules`, granted by `by` (named in errors).
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(
        by: impl Into<String>,
        rules: I,
    ) -> Result<Grants, GrantError> {
        let by = by.into();
        let rules: Vec<String> = rules.into_iter().map(Into::into).collect();
        let mut policy = RulePolicy::new();
        for rule in &rules {
            policy.add(rule, Effect::Allow, Source::Session).map_err(|why| GrantError {
                by: by.clone(),
                rule: rule.clone(),
                why,
            })?;
        }
        Ok(Grants { by, rules, policy: Arc::new(policy) })
    }

    /// These on top of the grants already in force, if any.
    pub fn over(&self, before: Option<&Grants>) -> Grants {
        match before {
            Some(before) => before.merged(self),
            None => self.clone(),
        }
    }

    /// These and `other`'s, together.
    pub fn merged(&self, other: &Grants) -> Grants {
        let mut rules = self.rules.clone();
        rules.extend(other.rules.iter().cloned());
        Grants::new(format!("{} and {}", self.by, other.by), rules).unwrap_or_else(|_| self.clone())
    }

    /// The rules, as written.
    pub fn rules(&self) -> &[String] {
        &self.rules
    }

    /// Who granted them.
    pub fn by(&self) -> &str {
        &self.by
    }

    pub(crate) fn policy(&self) -> &RulePolicy {
        &self.policy
    }
}
