//! A recorded session split into its responses, each decoded by the library's
//! [`TurnDecoder`](toolwright::provider::TurnDecoder) for the API it came from.

use toolwright::provider::Api;
pub use toolwright::provider::Item;
use toolwright::streaming::sse::SseParser;

/// One recorded response: its items in stream order.
pub type RecordedTurn = Vec<Item>;

/// The responses of a recorded session, and the API they follow.
pub fn recorded_turns(text: &str) -> Result<(Api, Vec<RecordedTurn>), String> {
    let api = Api::detect(text);
    let mut turns = Vec::new();
    let mut decoder = api.decoder();
    let mut items = Vec::new();
    let mut parser = SseParser::default();
    let mut events = parser.push(text.as_bytes());
    events.extend(parser.finish());
    for event in events {
        items.extend(decoder.event(&event).map_err(|e| e.to_string())?);
        if decoder.is_done() {
            turns.push(std::mem::take(&mut items));
            decoder = api.decoder();
        }
    }
    items.extend(decoder.finish().map_err(|e| e.to_string())?);
    if !items.is_empty() {
        turns.push(items);
    }
    if turns.is_empty() {
        return Err("the session holds no model responses (expected Anthropic SSE events or OpenAI chat chunks)".into());
    }
    Ok((api, turns))
}
