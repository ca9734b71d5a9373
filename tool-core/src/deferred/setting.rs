//! Claude Code's `ENABLE_TOOL_SEARCH`: whether a session defers tools behind the
//! tool search, read as Claude Code reads it.

use super::{Budget, Deferral};

/// The environment variable Claude Code reads.
pub const ENABLE_TOOL_SEARCH: &str = "ENABLE_TOOL_SEARCH";

/// When a session defers tools, as `ENABLE_TOOL_SEARCH` says it.
///
/// ```
/// use toolwright_core::deferred::{Budget, ToolSearchSetting};
/// let auto: ToolSearchSetting = "auto:5".parse().unwrap();
/// assert_eq!(auto, ToolSearchSetting::Auto { percent: 5 });
/// let deferral = auto.deferral(200_000).unwrap();
/// assert_eq!(deferral.budget, Budget::ShareOfContext { window: 200_000, percent: 5 });
/// assert!("false".parse::<ToolSearchSetting>().unwrap().deferral(200_000).is_none());
/// assert!("sometimes".parse::<ToolSearchSetting>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSearchSetting {
    /// `true`: tools that may be deferred always are (Claude Code's default).
    On,
    /// `auto` (10%) or `auto:N`: deferred when the definitions would take more
    /// than `percent` of the model's context window.
    Auto {
        /// The share of the context window, 0 to 100.
        percent: u8,
    },
    /// `false`: every definition is sent with every request.
    Off,
}

/// A value `ENABLE_TOOL_SEARCH` cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a tool search setting: expected true, false, auto or auto:N with N from 0 to 100")]
#[non_exhaustive]
pub struct ToolSearchSettingError {
    /// The value as given.
    pub value: String,
}

impl std::str::FromStr for ToolSearchSetting {
    type Err = ToolSearchSettingError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let error = || ToolSearchSettingError { value: value.to_owned() };
        let text = value.trim().to_ascii_lowercase();
        Ok(match text.as_str() {
            "true" | "1" | "yes" | "on" => ToolSearchSetting::On,
            "false" | "0" | "no" | "off" => ToolSearchSetting::Off,
            "auto" => ToolSearchSetting::Auto { percent: 10 },
            _ => {
                let percent = text.strip_prefix("auto:").ok_or_else(error)?;
                let percent: u8 = percent.trim().parse().map_err(|_| error())?;
                if percent > 100 {
                    return Err(error());
                }
                ToolSearchSetting::Auto { percent }
            }
        })
    }
}

impl ToolSearchSetting {
    /// `ENABLE_TOOL_SEARCH` as the process's environment sets it; `None` when it
    /// is unset or empty.
    pub fn from_env() -> Result<Option<ToolSearchSetting>, ToolSearchSettingError> {
        match std::env::var(ENABLE_TOOL_SEARCH) {
            Ok(value) if !value.trim().is_empty() => value.parse().map(Some),
            _ => Ok(None),
        }
    }

    /// The deferral a session with a `window`-token context window runs with;
    /// `None` when nothing is deferred (no tool search at all).
    pub fn deferral(self, window: usize) -> Option<Deferral> {
        let budget = match self {
            ToolSearchSetting::On => Budget::Tokens(0),
            ToolSearchSetting::Auto { percent } => Budget::ShareOfContext { window, percent },
            ToolSearchSetting::Off => return None,
        };
        Some(Deferral::default().budget(budget))
    }
}

impl std::fmt::Display for ToolSearchSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolSearchSetting::On => f.write_str("true"),
            ToolSearchSetting::Auto { percent } => write!(f, "auto:{percent}"),
            ToolSearchSetting::Off => f.write_str("false"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_values_parse() {
        for (text, want) in [
            ("true", ToolSearchSetting::On),
            (" TRUE ", ToolSearchSetting::On),
            ("1", ToolSearchSetting::On),
            ("false", ToolSearchSetting::Off),
            ("0", ToolSearchSetting::Off),
            ("auto", ToolSearchSetting::Auto { percent: 10 }),
            ("auto:0", ToolSearchSetting::Auto { percent: 0 }),
            ("auto:100", ToolSearchSetting::Auto { percent: 100 }),
        ] {
            assert_eq!(text.parse::<ToolSearchSetting>(), Ok(want), "{text}");
        }
        for bad in ["", "auto:", "auto:101", "auto:-1", "auto:5%", "sometimes", "auto5"] {
            let error = bad.parse::<ToolSearchSetting>().unwrap_err();
            assert_eq!(error.value, bad);
            assert!(error.to_string().contains("auto:N with N from 0 to 100"), "{error}");
        }
        // What is written back reads the same.
        for setting in [ToolSearchSetting::On, ToolSearchSetting::Off, ToolSearchSetting::Auto { percent: 7 }] {
            assert_eq!(setting.to_string().parse::<ToolSearchSetting>(), Ok(setting));
        }
    }

    #[test]
    fn each_setting_gives_its_deferral() {
        assert_eq!(ToolSearchSetting::On.deferral(200_000).unwrap().budget, Budget::Tokens(0));
        let auto = ToolSearchSetting::Auto { percent: 10 }.deferral(1_000_000).unwrap();
        assert_eq!(auto.budget.tokens(), 100_000);
        assert!(ToolSearchSetting::Off.deferral(200_000).is_none());
    }
}
