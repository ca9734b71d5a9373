//! Tokens a model's response used, as each API reports them in its stream (each
//! API's module under the providers' `provider` module says where), added up over a run.

use serde_json::Value;

/// Tokens used, by kind. Each API reports them at its own place in the stream
/// (see `usage` in each API's module); [`Usage::add`] sums responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens billed at the full rate (for Anthropic, not counting the cache's).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache (Anthropic).
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every token, whatever its kind.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }

    /// `other` added to this.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }

    /// Takes the counts `usage` (an API's usage object) names, under the API's key
    /// names; a count it does not name is left as it is (Anthropic reports input at
    /// the start and output, cumulative, at the end).
    #[doc(hidden)]
    pub fn take(&mut self, usage: &Value, keys: &UsageKeys) {
        let count = |path: &[&str]| path.iter().try_fold(usage, |value, key| value.get(*key)).and_then(Value::as_u64);
        if let Some(n) = count(keys.input) {
            self.input_tokens = n;
        }
        if let Some(n) = count(keys.output) {
            self.output_tokens = n;
        }
        if let Some(path) = keys.cache_creation
            && let Some(n) = count(path)
        {
            self.cache_creation_input_tokens = n;
        }
        if let Some(n) = count(keys.cache_read) {
            self.cache_read_input_tokens = n;
        }
        // OpenAI counts cached tokens inside the input; here they are apart.
        if keys.cache_inside_input {
            self.input_tokens = self.input_tokens.saturating_sub(self.cache_read_input_tokens);
        }
    }
}

/// Where an API's usage object keeps each count.
#[doc(hidden)]
pub struct UsageKeys {
    pub input: &'static [&'static str],
    pub output: &'static [&'static str],
    pub cache_creation: Option<&'static [&'static str]>,
    pub cache_read: &'static [&'static str],
    /// The input count includes the cached tokens (OpenAI).
    pub cache_inside_input: bool,
}
