//! Provider adapters: tool calls out of each provider's response, results into each
//! provider's next request. Plain `serde_json` values in and out; no HTTP client.
//! The functions live in their provider's module under [`crate::provider`]; these
//! paths name them by what they do.

pub use crate::provider::AdapterError;

/// Anthropic Messages API: `tool_use` blocks in, `tool_result` blocks out.
pub mod anthropic {
    pub use crate::provider::anthropic::{results_message, tool_calls, tool_result};
}

/// OpenAI Chat Completions: `tool_calls` in, `role: tool` messages out.
pub mod openai_chat {
    pub use crate::provider::openai_chat::{tool_calls, tool_messages};
}

/// OpenAI Responses API: `function_call` items in, `function_call_output` items out.
pub mod openai_responses {
    pub use crate::provider::openai_responses::{function_call_outputs, function_calls};
}

/// Google Gemini: `functionCall` parts in, `functionResponse` parts out.
pub mod gemini {
    pub use crate::provider::gemini::{function_calls, function_responses};
}
