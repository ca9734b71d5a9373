//! A served call's questions for the person (`AskUserQuestion`), asked through MCP
//! elicitation: one form, a choice per question (several where the question allows)
//! and a text field for an answer in the person's own words.

use rmcp::Peer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, RoleServer};
use serde_json::{Map, Value, json};
use toolwright_core::BoxFuture;
use toolwright_core::question::{Answer, Question, Questioner, Questions, Unanswered};

/// The questions of calls from `peer`, when it takes form elicitations.
pub(crate) fn for_peer(peer: &Peer<RoleServer>) -> Option<Questions> {
    peer.supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
        .then(|| Questions::new(Elicited { peer: peer.clone() }))
}

struct Elicited {
    peer: Peer<RoleServer>,
}

impl Questioner for Elicited {
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, Result<Vec<Answer>, Unanswered>> {
        Box::pin(async move {
            let schema: ElicitationSchema = serde_json::from_value(form(questions))
                .map_err(|e| Unanswered(format!("the questions do not make an elicitation form: {e}")))?;
            let message = questions.iter().map(|q| q.question.as_str()).collect::<Vec<_>>().join("\n");
            let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
            let result = self
                .peer
                .create_elicitation(params)
                .await
                .map_err(|e| Unanswered(format!("asking the MCP client's user failed: {e}")))?;
            match result.action {
                ElicitationAction::Accept => Ok(answers(questions, result.content.as_ref())),
                ElicitationAction::Decline => Err(Unanswered("the user declined to answer in the MCP client".into())),
                _ => Err(Unanswered("the user dismissed the questions".into())),
            }
        })
    }
}

/// The form: `q1`... a choice each (an array of choices for multi-select), and
/// `q1_other`... for the person's own words.
fn form(questions: &[Question]) -> Value {
    let mut properties = Map::new();
    for (i, q) in questions.iter().enumerate() {
        let labels: Vec<&str> = q.options.iter().map(|o| o.label.as_str()).collect();
        let described: Vec<String> = q.options.iter().map(|o| format!("{}: {}", o.label, o.description)).collect();
        let description = format!("{}\n{}", q.question, described.join("\n"));
        let choice = if q.multi_select {
            json!({"type": "array", "title": q.header, "description": description, "items": {"type": "string", "enum": labels}})
        } else {
            json!({"type": "string", "title": q.header, "description": description, "enum": labels})
        };
        properties.insert(format!("q{}", i + 1), choice);
        properties.insert(
            format!("q{}_other", i + 1),
            json!({"type": "string", "title": format!("{} (your own answer)", q.header), "description": "Instead of a choice above"}),
        );
    }
    json!({"type": "object", "properties": properties})
}

/// The answers in an accepted form: the person's own words where given, else the
/// choices.
fn answers(questions: &[Question], content: Option<&Value>) -> Vec<Answer> {
    let empty = Value::Null;
    let content = content.unwrap_or(&empty);
    questions
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let other = content[format!("q{}_other", i + 1)].as_str().map(str::trim).filter(|t| !t.is_empty());
            if let Some(text) = other {
                return Answer::Other(text.to_owned());
            }
            match &content[format!("q{}", i + 1)] {
                Value::String(label) => Answer::Chosen(vec![label.clone()]),
                Value::Array(items) => {
                    Answer::Chosen(items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                }
                _ => Answer::Other(String::new()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright_core::question::QuestionOption;

    #[test]
    fn the_form_parses_as_an_elicitation_schema_and_answers_read_back() {
        let options = vec![QuestionOption::new("tokio", "async"), QuestionOption::new("std", "threads")];
        let questions = [
            Question::new("Which runtime?", "Runtime", options.clone()),
            Question::new("Which extras?", "Extras", options).multi_select(true),
        ];
        let schema: Result<ElicitationSchema, _> = serde_json::from_value(form(&questions));
        assert!(schema.is_ok(), "{schema:?}");
        let got = answers(&questions, Some(&json!({"q1": "std", "q2": ["tokio", "std"], "q2_other": ""})));
        assert_eq!(got, [Answer::Chosen(vec!["std".into()]), Answer::Chosen(vec!["tokio".into(), "std".into()])]);
        let own = answers(&questions, Some(&json!({"q1_other": "smol"})));
        assert_eq!(own[0], Answer::Other("smol".into()));
    }
}
