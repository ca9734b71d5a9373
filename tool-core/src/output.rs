//! What a tool returns: content blocks, optional structured content, and an error bit.

use crate::context::ContextModifier;
use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;

/// One block of a tool result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// MIME type, such as `image/png`.
        media_type: String,
        /// Base64 data without a `data:` prefix.
        data: String,
    },
}

/// A tool's result, ready to be rendered for a provider.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// The blocks the model reads, in order.
    pub content: Vec<Content>,
    /// Structured content (MCP `structuredContent`); `content` carries a text copy.
    pub structured: Option<Value>,
    /// Whether this result reports a failure.
    pub is_error: bool,
    /// A change to the turn's context (a new working directory, say), applied by the
    /// orchestrator after the call's batch, in call order.
    pub modifier: Option<ContextModifier>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { content: vec![Content::Text(text.into())], structured: None, is_error: false, modifier: None }
    }

    /// An error result with a message for the model.
    pub fn error(text: impl Into<String>) -> Self {
        ToolOutput { is_error: true, ..ToolOutput::text(text) }
    }

    /// The same output, asking the orchestrator to apply `modifier` to the turn.
    pub fn with_modifier(mut self, modifier: ContextModifier) -> Self {
        self.modifier = Some(modifier);
        self
    }

    /// The text blocks joined by newlines (images are left out).
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text(t) = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }
}

/// Structured output: serialised as JSON, with its schema declared as the tool's
/// output schema (MCP `outputSchema`).
///
/// ```
/// use toolwright_core::{Json, IntoToolOutput};
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Report { files: u32 }
/// let out = Json(Report { files: 3 }).into_output();
/// assert_eq!(out.structured, Some(serde_json::json!({"files": 3})));
/// assert_eq!(out.text_content(), r#"{"files":3}"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Json<T>(pub T);

/// Turns a tool's `Output` into a [`ToolOutput`], and declares its schema if it has one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output",
    label = "not a tool output type",
    note = "use `String`, `ToolOutput`, or `Json<T>` where `T: Serialize + JsonSchema`"
)]
pub trait IntoToolOutput: Send + 'static {
    /// Converts the value into result blocks.
    fn into_output(self) -> ToolOutput;

    /// The JSON schema of the structured output, if the output is structured.
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Value> {
        let _ = generator;
        None
    }
}

impl IntoToolOutput for String {
    fn into_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for &'static str {
    fn into_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_output(self) -> ToolOutput {
        self
    }
}

impl IntoToolOutput for () {
    fn into_output(self) -> ToolOutput {
        ToolOutput::text("done")
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> IntoToolOutput for Json<T> {
    fn into_output(self) -> ToolOutput {
        match serde_json::to_value(&self.0) {
            Ok(value) => {
                let text = value.to_string();
                ToolOutput {
                    content: vec![Content::Text(text)],
                    structured: Some(value),
                    is_error: false,
                    modifier: None,
                }
            }
            Err(e) => ToolOutput::error(format!("the tool's output could not be serialised: {e}")),
        }
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Value> {
        Some(generator.root_schema_for::<T>().to_value())
    }
}
