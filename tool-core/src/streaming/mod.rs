//! Streaming execution: calls start while the model is still streaming. A call
//! starts as soon as its input is complete and the batch rules allow: a
//! concurrency-safe call starts while later calls are still streaming; an unsafe call
//! waits for the running calls and holds back everything after it. Calls start in
//! call order.
//!
//! Provider stream events become [`StreamEvent`]s through the decoders in
//! [`decode`]; [`Orchestrator::run_streaming`] consumes them from a channel.

use crate::ToolResult;
use crate::TurnContext;
use crate::orchestrate::{CallEvent, Orchestrator};
use crate::registry::ToolPool;
use tokio::sync::mpsc;

pub use crate::StreamEvent;

impl Orchestrator {
    /// Runs the calls of a streamed message as their inputs complete; returns the
    /// results in call order once the stream has ended and every call has its result.
    /// Context modifiers apply to `turn` in call order. Cancelling the turn stops
    /// reading the stream; every call still gets a result. A call the stream left
    /// open (cut off, or started again in the same slot) is answered with an error
    /// and never run. In a stream, a safe call that completes while its batch runs
    /// joins it: [`CallEvent::Batch`] names the calls known when the batch began.
    pub async fn run_streaming(
        &self,
        events: mpsc::Receiver<StreamEvent>,
        turn: &mut TurnContext,
        pool: Option<&ToolPool>,
        observe: impl FnMut(CallEvent<'_>),
    ) -> Vec<ToolResult> {
        self.schedule(crate::schedule::Batched::new(events), turn, pool, observe).await
    }
}

/// Decoders from provider stream payloads to [`StreamEvent`]s. Feed each event's JSON
/// (an SSE `data:` payload, a chat completion chunk) to `push`, and call `finish` when
/// the stream ends. Each lives in its provider's module under [`crate::provider`];
/// [`crate::provider::TurnDecoder`] also keeps the text and the assistant message.
pub mod decode {
    pub use crate::provider::anthropic::StreamDecoder as Anthropic;
    pub use crate::provider::openai_chat::StreamDecoder as OpenAiChat;
    pub use crate::provider::openai_responses::StreamDecoder as OpenAiResponses;
}

/// Server-sent events, as the providers stream them (see [`sse::SseParser`]).
pub use toolwright_providers::sse;
