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
    /// Audio, base64-encoded (from MCP tools; no provider takes it in a tool
    /// result, so adapters describe it in text).
    Audio {
        /// MIME type, such as `audio/wav`.
        media_type: String,
        /// Base64 data without a `data:` prefix.
        data: String,
    },
    /// A document (a PDF) for providers that read documents in a tool result
    /// (Anthropic), with its text for those that do not.
    Document {
        /// MIME type: `application/pdf`.
        media_type: String,
        /// Base64 data without a `data:` prefix.
        data: String,
        /// Its extracted text, what a provider without document blocks reads.
        text: String,
    },
    /// A resource (an MCP embedded resource or resource link): text, a base64 blob,
    /// or only its URI.
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, if known.
        mime_type: Option<String>,
        /// Its text, for text resources.
        text: Option<String>,
        /// Its bytes, base64, for binary resources.
        blob: Option<String>,
    },
}

impl Content {
    /// What a model reads of this block where only text fits: the text itself, a
    /// text resource with its URI, or a note saying what binary data was left out.
    pub fn to_model_text(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match self {
            Content::Text(t) => Cow::Borrowed(t),
            Content::Image { media_type, data } => {
                Cow::Owned(format!("[image omitted: {media_type}, {} bytes base64]", data.len()))
            }
            Content::Audio { media_type, data } => {
                Cow::Owned(format!("[audio omitted: {media_type}, {} bytes base64]", data.len()))
            }
            Content::Document { text, .. } => Cow::Borrowed(text),
            Content::Resource { uri, mime_type, text, blob } => {
                let mime = mime_type.as_deref().unwrap_or("unknown type");
                match (text, blob) {
                    (Some(text), _) => Cow::Owned(format!("[resource {uri} ({mime})]\n{text}")),
                    (None, Some(blob)) => {
                        Cow::Owned(format!("[resource {uri} omitted: {mime}, {} bytes base64]", blob.len()))
                    }
                    (None, None) => Cow::Owned(format!("[resource {uri} ({mime})]")),
                }
            }
        }
    }
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
