//! What the loop needs from a model: one streaming request at a time, and the bytes
//! of its response as they arrive.

use crate::provider::{Api, StreamError};
use bytes::Bytes;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use toolwright_core::BoxFuture;

/// A model behind one of the streaming [`Api`]s. [`super::HttpModel`] is the one
/// that talks HTTP; a test or a replay implements it over recorded bytes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model the agent loop can call",
    note = "implement `toolwright::agent::Model` (api, name, send), or use `toolwright::agent::HttpModel`"
)]
pub trait Model: Send + Sync {
    /// The API its requests and responses follow.
    fn api(&self) -> Api;

    /// The model's name, as requests carry it.
    fn name(&self) -> &str;

    /// Sends one streaming request; the response body once the status says success.
    /// One attempt: the loop retries what [`ModelError::is_retryable`] allows.
    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>>;

    /// The URL its requests go to, when there is one: the `chat` spans'
    /// `server.address` and `server.port`. `None` (the default) for a model that is
    /// no server, such as a recording.
    fn endpoint(&self) -> Option<&str> {
        None
    }
}

/// A response body, read chunk by chunk.
pub trait Body: Send {
    /// The next chunk, or `None` at the end.
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, ModelError>>;
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn api(&self) -> Api {
        (**self).api()
    }
    fn name(&self) -> &str {
        (**self).name()
    }
    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>> {
        (**self).send(body)
    }
    fn endpoint(&self) -> Option<&str> {
        (**self).endpoint()
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn api(&self) -> Api {
        (**self).api()
    }
    fn name(&self) -> &str {
        (**self).name()
    }
    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>> {
        (**self).send(body)
    }
    fn endpoint(&self) -> Option<&str> {
        (**self).endpoint()
    }
}

impl<B: Body + ?Sized> Body for Box<B> {
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, ModelError>> {
        (**self).chunk()
    }
}

/// Why a request got no usable response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No key where one is needed.
    #[error("{var} is not set: the {api} API needs a key")]
    MissingKey {
        /// The environment variable read.
        var: &'static str,
        /// Which API.
        api: Api,
    },
    /// The request did not get through (refused, reset, timed out, TLS): `cause` is
    /// the whole chain, down to the operating system's reason.
    #[error("{}", with_url(url, cause))]
    Transport {
        /// Where it was sent.
        url: String,
        /// Every cause, outermost first, joined by `: `.
        cause: String,
    },
    /// The API answered with an error status.
    #[error("{url} answered {status}: {message}")]
    Status {
        /// Where it was sent.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The API's error message (or the start of the body).
        message: String,
        /// How long the API asked to wait (`retry-after-ms`, `retry-after`).
        retry_after: Option<Duration>,
    },
    /// The response stopped before it ended (the connection closed or failed).
    #[error("the response from {url} was cut off: {cause}")]
    Interrupted {
        /// Where it came from.
        url: String,
        /// Why, as for [`ModelError::Transport`].
        cause: String,
    },
    /// The response could not be read, or the API streamed an error.
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// A recording was asked for more responses than it holds.
    #[error("the recording holds {responses} responses, and the model was asked for another")]
    Exhausted {
        /// How many it holds.
        responses: usize,
    },
}

impl ModelError {
    /// Whether the same request may succeed if sent again: connection failures,
    /// cut responses, 408, 409, 429 and 5xx (Anthropic's 529 "overloaded" included),
    /// and overload errors streamed mid-response. Never a 400, 401, 403 or 404.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Transport { .. } | ModelError::Interrupted { .. } => true,
            ModelError::Status { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            ModelError::Stream(error) => error.is_transient(),
            ModelError::MissingKey { .. } | ModelError::Exhausted { .. } => false,
        }
    }

    /// How long the API asked to wait before the next attempt.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// `cause`, led by `url` unless it names it already (reqwest's messages do).
fn with_url(url: &str, cause: &str) -> String {
    if cause.contains(url) { cause.to_owned() } else { format!("{url}: {cause}") }
}

/// An error and every error under it, joined by `: ` (each cause once).
pub(crate) fn cause_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}
