//! A model that answers from a recording: each request gets the next recorded
//! response, streamed event by event. For replays, demos and tests of a loop.

use super::{Body, Model, ModelError};
use crate::provider::{Api, Item, StreamError};
use crate::streaming::StreamEvent;
use crate::streaming::sse::SseParser;
use bytes::Bytes;
use serde_json::Value;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use toolwright_core::BoxFuture;

/// Recorded responses, served in order; the requests it was sent are kept.
///
/// ```
/// use toolwright::agent::{Model, RecordedModel};
/// let session = concat!(
///     "data: {\"choices\":[{\"delta\":{\"content\":\"Hi.\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let model = RecordedModel::from_session(session).unwrap();
/// assert_eq!(model.api(), toolwright::provider::Api::OpenAiChat);
/// assert_eq!(model.calls_per_response(), [0]);
/// ```
#[derive(Debug)]
pub struct RecordedModel {
    api: Api,
    /// Each response as its events, one chunk each.
    responses: Vec<Vec<Bytes>>,
    calls: Vec<usize>,
    next: AtomicUsize,
    pace: Duration,
    requests: Mutex<Vec<Value>>,
}

impl RecordedModel {
    /// A recorded session (the responses one after another, in one API's stream
    /// format, told apart by its first events), split where each response ends.
    pub fn from_session(text: &str) -> Result<RecordedModel, StreamError> {
        let api = Api::detect(text);
        let mut parser = SseParser::default();
        let mut events = parser.push(text.as_bytes());
        events.extend(parser.finish());
        let (mut responses, mut calls) = (Vec::new(), Vec::new());
        let (mut current, mut starts) = (Vec::new(), 0);
        let mut decoder = api.decoder();
        for event in events {
            let items = decoder.event(&event)?;
            starts += items.iter().filter(|i| matches!(i, Item::Call(StreamEvent::Start { .. }))).count();
            let mut raw = String::new();
            if let Some(name) = &event.event {
                raw.push_str(&format!("event: {name}\n"));
            }
            for line in event.data.split('\n') {
                raw.push_str(&format!("data: {line}\n"));
            }
            raw.push('\n');
            current.push(Bytes::from(raw));
            if decoder.is_done() {
                responses.push(std::mem::take(&mut current));
                calls.push(std::mem::take(&mut starts));
                decoder = api.decoder();
            }
        }
        if !current.is_empty() {
            responses.push(current);
            calls.push(starts);
        }
        Ok(RecordedModel {
            api,
            responses,
            calls,
            next: AtomicUsize::new(0),
            pace: Duration::ZERO,
            requests: Mutex::new(Vec::new()),
        })
    }

    /// Waits `pace` before each event, to watch calls start while the "model" is
    /// still writing.
    pub fn with_pace(mut self, pace: Duration) -> RecordedModel {
        self.pace = pace;
        self
    }

    /// How many responses were recorded.
    pub fn responses(&self) -> usize {
        self.responses.len()
    }

    /// How many calls each recorded response starts.
    pub fn calls_per_response(&self) -> &[usize] {
        &self.calls
    }

    /// The request bodies sent so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl Model for RecordedModel {
    fn api(&self) -> Api {
        self.api
    }

    fn name(&self) -> &str {
        "recorded"
    }

    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>> {
        self.requests.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(body.clone());
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let answer = match self.responses.get(n) {
            Some(events) => {
                Ok(Box::new(Paced { events: events.clone().into_iter(), pace: self.pace }) as Box<dyn Body>)
            }
            None => Err(ModelError::Exhausted { responses: self.responses.len() }),
        };
        Box::pin(std::future::ready(answer))
    }
}

struct Paced {
    events: std::vec::IntoIter<Bytes>,
    pace: Duration,
}

impl Body for Paced {
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, ModelError>> {
        Box::pin(async move {
            let next = self.events.next();
            if next.is_some() && !self.pace.is_zero() {
                tokio::time::sleep(self.pace).await;
            }
            Ok(next)
        })
    }
}
