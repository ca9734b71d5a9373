//! Which model provider a tool list is for: the identifier every layer shares
//! (contexts, the registry, the wire formats), apart from the wire formats themselves.

use crate::dialect::Dialect;
use std::fmt;
use std::str::FromStr;

/// A model provider's tool-definition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Anthropic Messages API: `{name, description, input_schema}`.
    Anthropic {
        /// Strict tool use (`strict: true` on each tool, as many as Anthropic's
        /// per-request limits allow): schemas in the structured-outputs subset, with
        /// what it cannot carry moved into descriptions (and still checked on input).
        strict: bool,
        /// Put `cache_control: {type: ephemeral}` on the last tool, so the tool list
        /// is a cacheable prompt prefix.
        cache_control: bool,
    },
    /// OpenAI Chat Completions: `{type: function, function: {..}}`.
    OpenAiChat {
        /// Structured-outputs strict mode.
        strict: bool,
    },
    /// OpenAI Responses API: flat `{type: function, name, ..}`.
    OpenAiResponses {
        /// Structured-outputs strict mode (the Responses API's default is strict).
        strict: bool,
    },
    /// Google Gemini: `[{functionDeclarations: [..]}]` with `parameters` in the
    /// OpenAPI 3.0 subset every Gemini API version takes (no unions, no string
    /// lengths: variants merged, lengths said in the description).
    Gemini,
    /// Google Gemini with `parametersJsonSchema`: full JSON Schema (unions,
    /// recursion through `$defs`), which the current API takes.
    GeminiJsonSchema,
    /// Model Context Protocol `tools/list`: `{name, title, description, inputSchema, ..}`.
    Mcp,
}

impl Provider {
    /// How many provider variants there are (cache slots).
    pub const COUNT: usize = 11;

    /// Every provider variant, each with its own cache slot.
    pub const ALL: [Provider; Provider::COUNT] = [
        Provider::Anthropic { strict: false, cache_control: false },
        Provider::Anthropic { strict: false, cache_control: true },
        Provider::Anthropic { strict: true, cache_control: false },
        Provider::Anthropic { strict: true, cache_control: true },
        Provider::OpenAiChat { strict: false },
        Provider::OpenAiChat { strict: true },
        Provider::OpenAiResponses { strict: false },
        Provider::OpenAiResponses { strict: true },
        Provider::Gemini,
        Provider::GeminiJsonSchema,
        Provider::Mcp,
    ];

    /// Anthropic, not strict, without `cache_control`.
    pub const ANTHROPIC: Provider = Provider::Anthropic { strict: false, cache_control: false };

    #[doc(hidden)]
    pub fn slot(self) -> usize {
        match self {
            Provider::Anthropic { strict, cache_control } => 2 * strict as usize + cache_control as usize,
            Provider::OpenAiChat { strict } => 4 + strict as usize,
            Provider::OpenAiResponses { strict } => 6 + strict as usize,
            Provider::Gemini => 8,
            Provider::Mcp => 9,
            Provider::GeminiJsonSchema => 10,
        }
    }

    /// The schema dialect this provider's tool definitions are lowered to.
    #[doc(hidden)]
    pub fn dialect(self) -> Dialect {
        match self {
            Provider::OpenAiChat { strict: true } | Provider::OpenAiResponses { strict: true } => Dialect::OpenAiStrict,
            Provider::Anthropic { strict: true, .. } => Dialect::AnthropicStrict,
            Provider::Gemini => Dialect::Gemini,
            _ => Dialect::Standard,
        }
    }

    /// The provider's id as the CLI spells it: `anthropic`, `openai-chat`,
    /// `openai-responses`, `gemini`, `gemini-json-schema`, `mcp`.
    pub fn id(self) -> &'static str {
        match self {
            Provider::Anthropic { .. } => "anthropic",
            Provider::OpenAiChat { .. } => "openai-chat",
            Provider::OpenAiResponses { .. } => "openai-responses",
            Provider::Gemini => "gemini",
            Provider::GeminiJsonSchema => "gemini-json-schema",
            Provider::Mcp => "mcp",
        }
    }

    /// Whether the list is wrapped in Gemini's `[{functionDeclarations: [..]}]`.
    pub fn is_gemini(self) -> bool {
        matches!(self, Provider::Gemini | Provider::GeminiJsonSchema)
    }

    /// Whether this is a strict rendering.
    pub fn is_strict(self) -> bool {
        matches!(
            self,
            Provider::Anthropic { strict: true, .. }
                | Provider::OpenAiChat { strict: true }
                | Provider::OpenAiResponses { strict: true }
        )
    }

    /// The same provider with strict mode set, where the provider has one.
    pub fn with_strict(self, strict: bool) -> Provider {
        match self {
            Provider::Anthropic { cache_control, .. } => Provider::Anthropic { strict, cache_control },
            Provider::OpenAiChat { .. } => Provider::OpenAiChat { strict },
            Provider::OpenAiResponses { .. } => Provider::OpenAiResponses { strict },
            other => other,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provider::Anthropic { strict, .. } => write!(f, "Anthropic{}", if *strict { " (strict)" } else { "" }),
            Provider::OpenAiChat { strict } => write!(f, "OpenAI chat{}", if *strict { " (strict)" } else { "" }),
            Provider::OpenAiResponses { strict } => {
                write!(f, "OpenAI responses{}", if *strict { " (strict)" } else { "" })
            }
            Provider::Gemini => f.write_str("Gemini"),
            Provider::GeminiJsonSchema => f.write_str("Gemini (JSON Schema)"),
            Provider::Mcp => f.write_str("MCP"),
        }
    }
}

/// An unknown provider id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{0}`: expected one of anthropic, openai-chat, openai-responses, gemini, gemini-json-schema, mcp"
)]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// Parses a provider id (non-strict; use [`Provider::with_strict`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" | "claude" => Provider::ANTHROPIC,
            "openai-chat" | "openai" | "chat" => Provider::OpenAiChat { strict: false },
            "openai-responses" | "responses" => Provider::OpenAiResponses { strict: false },
            "gemini" | "google" => Provider::Gemini,
            "gemini-json-schema" | "gemini-json" => Provider::GeminiJsonSchema,
            "mcp" => Provider::Mcp,
            _ => return Err(UnknownProvider(s.to_owned())),
        })
    }
}
