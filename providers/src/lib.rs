//! toolwright's provider side, above the contracts and below the runtime: each
//! tool's JSON schema lowered into the dialect a provider accepts
//! ([`schema`], one module of rules per dialect), the tool definitions in each
//! provider's wire format and the decoders of their replies and streams
//! ([`provider`]), and the server-sent events those streams arrive in ([`sse`]).
//!
//! ```
//! use toolwright_providers::sse::SseParser;
//!
//! let mut parser = SseParser::default();
//! let events = parser.push(b"event: ping\ndata: {}\n\n");
//! assert_eq!(events[0].event.as_deref(), Some("ping"));
//! ```

pub mod provider;
pub mod schema;
pub mod sse;
