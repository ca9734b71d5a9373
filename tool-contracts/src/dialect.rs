//! The schema dialects by name: which schema language a family of providers
//! accepts. What each one accepts is in `toolwright-providers`' `schema/dialect/`.

/// A family of providers that accept the same schema language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Anthropic, OpenAI non-strict and MCP: JSON Schema with `$ref` inlined.
    Standard,
    /// OpenAI structured outputs (strict function calling).
    OpenAiStrict,
    /// Gemini's OpenAPI 3.0 subset.
    Gemini,
    /// Anthropic's strict tool use (the structured-outputs subset).
    AnthropicStrict,
}

impl Dialect {
    /// How many dialects there are (cache slots).
    pub const COUNT: usize = 4;

    /// The dialect's slot in a per-dialect cache.
    pub fn index(self) -> usize {
        self as usize
    }
}
