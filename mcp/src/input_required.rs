//! Permission questions for clients on the 2026-07-28 revision, which has no
//! server-to-client requests: the call answers `input_required` with an
//! elicitation (SEP-2322, multi round-trip requests), and the client retries the
//! same call with the user's answer and the sealed `requestState`.
//!
//! The state is sealed (HMAC, a key made at start) over the call it was asked
//! for, the tool's name and arguments, and lives ten minutes: an answer applies
//! to that call only, never to another one the client sends with it.

use rmcp::model::{CallToolRequestParams, InputRequest, InputRequiredResult, RequestStateCodec, SealOptions};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The key of our question in `inputRequests` and of its answer in `inputResponses`.
const QUESTION: &str = "toolwright/approve";
const LIFETIME: Duration = Duration::from_secs(600);

/// Seals and opens request states for one server (all its sessions).
#[derive(Clone)]
pub(crate) struct Rounds {
    codec: Arc<RequestStateCodec>,
}

impl Rounds {
    pub(crate) fn new() -> Rounds {
        let mut key = [0u8; 32];
        // Without the system's randomness the key is still per-process, but guessable:
        // say so; states then only bind, they do not authenticate.
        if let Err(e) = getrandom::fill(&mut key) {
            tracing::warn!("no system randomness for the request-state key: {e}");
            let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            key[..16].copy_from_slice(&seed.as_nanos().to_le_bytes());
        }
        Rounds { codec: Arc::new(RequestStateCodec::new_unchecked(key.to_vec())) }
    }

    /// The round a stateless call is in: the user's answer when this is a retry
    /// whose state was sealed for this very call, else none yet.
    /// `can_elicit`: the client said so in the request's `_meta` capabilities.
    pub(crate) fn round_of(&self, request: &CallToolRequestParams, can_elicit: bool) -> InputRound {
        let binding = binding(request);
        let sealed_for_this_call = request
            .request_state
            .as_deref()
            .is_some_and(|state| self.codec.open_with(state, binding.as_bytes()).is_ok());
        if request.request_state.is_some() && !sealed_for_this_call {
            tracing::warn!(tool = %request.name, "a requestState that was not sealed for this call: asking again");
        }
        let answer =
            sealed_for_this_call.then(|| request.input_responses.as_ref()?.get(QUESTION).map(allowed)).flatten();
        InputRound { answer, can_elicit, asked: Arc::default(), binding }
    }

    /// The `input_required` result for a round whose approver asked `question`.
    pub(crate) fn ask(&self, round: &InputRound, question: String) -> Option<InputRequiredResult> {
        let request = json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": question,
                "requestedSchema": {
                    "type": "object",
                    "properties": {"allow": {"type": "boolean", "title": "Allow this call?"}},
                    "required": ["allow"],
                },
            },
        });
        let request: InputRequest = serde_json::from_value(request)
            .map_err(|e| tracing::warn!("the approval elicitation does not parse as rmcp's: {e}"))
            .ok()?;
        let state = self
            .codec
            .seal_with(b"approve", &SealOptions::new().associated_data(round.binding.as_bytes()).ttl(LIFETIME));
        Some(InputRequiredResult::new(Some([(QUESTION.to_owned(), request)].into()), Some(state)))
    }
}

/// What the call is: its tool and its arguments, as JSON text.
fn binding(request: &CallToolRequestParams) -> String {
    let arguments = request.arguments.as_ref().map(|a| Value::Object(a.clone())).unwrap_or(Value::Null);
    json!([request.name, arguments]).to_string()
}

/// Whether an elicitation answer allows the call: `accept` with `allow: true`.
fn allowed(answer: &Value) -> bool {
    answer.get("action").and_then(Value::as_str) == Some("accept")
        && answer.get("content").and_then(|c| c.get("allow")).and_then(Value::as_bool) == Some(true)
}

/// One round of a stateless call, in its extensions for the approver.
#[derive(Clone, Debug)]
pub(crate) struct InputRound {
    answer: Option<bool>,
    can_elicit: bool,
    asked: Arc<Mutex<Option<String>>>,
    binding: String,
}

impl InputRound {
    /// The user's answer, on a retry.
    pub(crate) fn answer(&self) -> Option<bool> {
        self.answer
    }

    /// Whether the client can show an elicitation form.
    pub(crate) fn can_elicit(&self) -> bool {
        self.can_elicit
    }

    /// Records the question to send back instead of a result.
    pub(crate) fn needs(&self, question: String) {
        *self.asked.lock().unwrap_or_else(PoisonError::into_inner) = Some(question);
    }

    /// The question the approver asked, if it did.
    pub(crate) fn asked(&self) -> Option<String> {
        self.asked.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::{QUESTION, Rounds};
    use rmcp::model::CallToolRequestParams;
    use serde_json::json;

    fn call(
        args: serde_json::Value,
        state: Option<String>,
        answer: Option<serde_json::Value>,
    ) -> CallToolRequestParams {
        let mut params: CallToolRequestParams =
            serde_json::from_value(json!({"name": "shell", "arguments": args})).unwrap();
        params.request_state = state;
        params.input_responses = answer.map(|a| [(QUESTION.to_owned(), a)].into());
        params
    }

    #[test]
    fn an_answer_counts_only_for_the_call_its_state_was_sealed_for() {
        let rounds = Rounds::new();
        let first = rounds.round_of(&call(json!({"command": "git init"}), None, None), true);
        assert_eq!(first.answer(), None);
        let asked = rounds.ask(&first, "Allow `git init`?".into()).unwrap();
        let state = asked.request_state.clone().unwrap();
        let yes = json!({"action": "accept", "content": {"allow": true}});
        let no = json!({"action": "accept", "content": {"allow": false}});
        let retry =
            rounds.round_of(&call(json!({"command": "git init"}), Some(state.clone()), Some(yes.clone())), true);
        assert_eq!(retry.answer(), Some(true));
        let declined = rounds.round_of(&call(json!({"command": "git init"}), Some(state.clone()), Some(no)), true);
        assert_eq!(declined.answer(), Some(false));
        let cancelled = rounds.round_of(
            &call(json!({"command": "git init"}), Some(state.clone()), Some(json!({"action": "cancel"}))),
            true,
        );
        assert_eq!(cancelled.answer(), Some(false));
        // The same state and answer on another call: no answer, it asks again.
        let other =
            rounds.round_of(&call(json!({"command": "rm -rf ."}), Some(state.clone()), Some(yes.clone())), true);
        assert_eq!(other.answer(), None);
        // A state from another server (another key), or forged: no answer.
        let stranger =
            Rounds::new().round_of(&call(json!({"command": "git init"}), Some(state), Some(yes.clone())), true);
        assert_eq!(stranger.answer(), None);
        let forged = rounds.round_of(&call(json!({"command": "git init"}), Some("rs1.x.y".into()), Some(yes)), true);
        assert_eq!(forged.answer(), None);
    }

    #[test]
    fn the_question_is_a_form_elicitation_with_one_boolean() {
        let rounds = Rounds::new();
        let round = rounds.round_of(&call(json!({}), None, None), true);
        let result = serde_json::to_value(rounds.ask(&round, "Allow?".into()).unwrap()).unwrap();
        assert_eq!(result["resultType"], "input_required");
        let request = &result["inputRequests"][QUESTION];
        assert_eq!(request["method"], "elicitation/create");
        assert_eq!(request["params"]["message"], "Allow?");
        assert_eq!(request["params"]["requestedSchema"]["properties"]["allow"]["type"], "boolean");
        assert!(result["requestState"].as_str().is_some_and(|s| !s.is_empty()));
    }
}
