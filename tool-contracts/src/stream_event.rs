//! The provider-neutral events a streamed assistant message is decoded into: what
//! the provider decoders produce and the scheduler consumes.

/// A provider-neutral step of a streamed assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// A tool call begins at stream position `slot`.
    Start {
        /// The provider's position for this call (content block index, tool call index).
        slot: usize,
        /// The provider's call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// More of a call's JSON arguments.
    Delta {
        /// The call's position.
        slot: usize,
        /// The next fragment of JSON text.
        json: String,
    },
    /// A call's arguments are complete.
    End {
        /// The call's position.
        slot: usize,
    },
    /// The stream ended before this call's arguments were known to be complete (the
    /// connection closed, the model ran out of tokens): the call is answered with an
    /// error the model can act on, and never run.
    Cut {
        /// The call's position.
        slot: usize,
    },
}
