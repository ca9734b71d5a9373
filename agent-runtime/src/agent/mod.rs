//! The agent loop and the model clients: what `toolwright agent` runs, as a library.
//!
//! - [`Model`]: one streaming request at a time (object-safe; `Box` and `Arc` are
//!   models too). [`HttpModel`] speaks Anthropic Messages, OpenAI Chat Completions
//!   and OpenAI Responses ([`crate::provider::Api`]), with errors that keep their
//!   whole cause chain.
//! - [`RecordedModel`]: recorded responses served in order (what `toolwright replay`
//!   runs the loop on).
//! - [`Agent`]: the loop. Each response streams into the executor (calls start while
//!   the model is still writing); results go back in the API's own format.
//! - [`RetryPolicy`]: connection failures, 408/409/429/5xx (529 included) and
//!   overloads streamed mid-response are retried with exponential backoff and
//!   jitter (`backon`), or after the wait the API asks for (`retry-after-ms`,
//!   `retry-after` in seconds or as a date). A response cut off before any call
//!   started is asked again; one cut off after calls began keeps them: a call whose
//!   input was complete ran and has its result, one whose input was cut never runs
//!   and is answered with an error, and the model is asked again with both.
//!
//! Each API's request and stream format is in its module under
//! [`crate::provider`]; this module sends and loops.

mod http;
mod model;
mod recorded;
mod retry;
mod run;
mod telemetry;

pub use http::HttpModel;
pub use model::{Body, Model, ModelError};
pub use recorded::RecordedModel;
pub use retry::RetryPolicy;
pub use run::{Agent, AgentError, AgentObserver, ForkCell, ForkPoint, Outcome, Stop};
