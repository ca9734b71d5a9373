//! A mounted server's `input_required` result (the 2026-07-28 revision, SEP-2322):
//! what it asks goes where an elicitation would, to the person, through the turn's
//! [`Questions`] (the channel `AskUserQuestion` uses): one question per field of its
//! form, with the field's choices (an enum, titled choices, yes or no) or the
//! person's own words. Without anyone to ask, the form is declined, and the server
//! decides what that means. A sampling request is refused (this client has no
//! model to lend); a roots request gets no roots.

use rmcp::model::{InputRequest, InputRequiredResult, InputResponses};
use serde_json::{Map, Value, json};
use toolwright_core::question::{Answer, Question, QuestionOption, Questions};
use toolwright_core::{ToolContext, ToolError};

/// The responses to what `asked` requests, keyed as it keyed them.
pub(super) async fn answer(
    server: &str,
    asked: &InputRequiredResult,
    cx: &ToolContext,
) -> Result<InputResponses, ToolError> {
    let mut responses = InputResponses::new();
    for (key, request) in asked.input_requests.iter().flatten() {
        let response = match request {
            InputRequest::Elicitation(elicit) => {
                let params = serde_json::to_value(&elicit.params).unwrap_or_default();
                elicited(server, &params, cx.extension::<Questions>()).await
            }
            InputRequest::CreateMessage(_) => {
                return Err(ToolError::msg(format!(
                    "MCP server `{server}` asked this client for a model's answer (sampling), which toolwright does not lend"
                )));
            }
            InputRequest::ListRoots(_) => json!({"roots": []}),
            other => {
                let what = serde_json::to_value(other).ok().and_then(|v| v.get("method").cloned()).unwrap_or_default();
                return Err(ToolError::msg(format!(
                    "MCP server `{server}` asked for {what}, which this client does not answer"
                )));
            }
        };
        responses.insert(key.clone(), response);
    }
    Ok(responses)
}

/// The person's answer to one elicitation, as an `ElicitResult`.
async fn elicited(server: &str, params: &Value, questions: Option<&Questions>) -> Value {
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        // Opening a page for a server is not something a tool call may do unseen.
        return json!({"action": "decline"});
    }
    let Some(questions) = questions else { return json!({"action": "decline"}) };
    let message = params.get("message").and_then(Value::as_str).unwrap_or_default();
    let empty = Map::new();
    let properties = params.pointer("/requestedSchema/properties").and_then(Value::as_object).unwrap_or(&empty);
    let fields: Vec<(&String, &Value)> = properties.iter().collect();
    let asked: Vec<Question> = fields.iter().map(|(name, schema)| question(server, message, name, schema)).collect();
    if asked.is_empty() {
        // Nothing to fill: a yes or no to the message itself.
        let confirm = Question::new(
            format!("MCP server `{server}` asks: {message}"),
            "MCP server",
            vec![QuestionOption::new("Yes", "Go ahead"), QuestionOption::new("No", "Decline")],
        );
        return match questions.0.ask(&[confirm]).await {
            Ok(answers) if answers.first().is_some_and(|a| a.text() == "Yes") => {
                json!({"action": "accept", "content": {}})
            }
            Ok(_) => json!({"action": "decline"}),
            Err(_) => json!({"action": "cancel"}),
        };
    }
    let Ok(answers) = questions.0.ask(&asked).await else { return json!({"action": "cancel"}) };
    let mut content = Map::new();
    for ((name, schema), answer) in fields.iter().zip(&answers) {
        if let Some(value) = value_of(schema, answer) {
            content.insert((*name).clone(), value);
        }
    }
    json!({"action": "accept", "content": content})
}

/// The choices of a field: `(label shown, value sent)`.
fn choices(schema: &Value) -> Vec<(String, Value)> {
    let items = schema.get("items").unwrap_or(schema);
    if let Some(values) = items.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values.iter().enumerate().map(|(i, v)| (label(names.and_then(|n| n.get(i)), v), v.clone())).collect();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = items.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .filter_map(|o| {
                    let value = o.get("const")?;
                    Some((label(o.get("title"), value), value.clone()))
                })
                .collect();
        }
    }
    if schema.get("type").and_then(Value::as_str) == Some("boolean") {
        return vec![("Yes".into(), Value::Bool(true)), ("No".into(), Value::Bool(false))];
    }
    Vec::new()
}

/// A choice's label: its title if it has one, else its value as written.
fn label(title: Option<&Value>, value: &Value) -> String {
    match title.and_then(Value::as_str) {
        Some(title) => title.to_owned(),
        None => value.as_str().map_or_else(|| value.to_string(), str::to_owned),
    }
}

fn question(server: &str, message: &str, name: &str, schema: &Value) -> Question {
    let about = schema.get("description").or_else(|| schema.get("title")).and_then(Value::as_str).unwrap_or(name);
    let header: String = schema.get("title").and_then(Value::as_str).unwrap_or(name).chars().take(12).collect();
    let options = choices(schema).into_iter().map(|(label, _)| QuestionOption::new(label, "")).collect();
    let multi = schema.get("type").and_then(Value::as_str) == Some("array");
    Question::new(format!("MCP server `{server}` asks: {message} ({about})"), header, options).multi_select(multi)
}

/// The value to send for one field: a chosen label's value, or the person's words
/// read as the field's type. `None` leaves the field out (the server sees it missing).
fn value_of(schema: &Value, answer: &Answer) -> Option<Value> {
    let choices = choices(schema);
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("string");
    match answer {
        Answer::Chosen(labels) => {
            let mut values =
                labels.iter().filter_map(|l| choices.iter().find(|(label, _)| label == l).map(|(_, v)| v.clone()));
            if kind == "array" { Some(Value::Array(values.collect())) } else { values.next() }
        }
        Answer::Other(words) => {
            let words = words.trim();
            match kind {
                "integer" => words.parse::<i64>().ok().map(Value::from),
                "number" => words.parse::<f64>().ok().map(Value::from),
                "boolean" => match words.to_ascii_lowercase().as_str() {
                    "yes" | "y" | "true" => Some(Value::Bool(true)),
                    "no" | "n" | "false" => Some(Value::Bool(false)),
                    _ => None,
                },
                "array" => Some(Value::Array(words.split(',').map(|w| Value::from(w.trim())).collect())),
                _ => Some(Value::from(words)),
            }
        }
        other => Some(Value::from(other.text())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_become_the_fields_values() {
        let status = json!({"type": "string", "oneOf": [{"const": "a1", "title": "Active"}, {"const": "i1", "title": "Inactive"}]});
        assert_eq!(value_of(&status, &Answer::Chosen(vec!["Inactive".into()])), Some(json!("i1")));
        let legacy = json!({"type": "string", "enum": ["o1", "o2"], "enumNames": ["One", "Two"]});
        assert_eq!(value_of(&legacy, &Answer::Chosen(vec!["Two".into()])), Some(json!("o2")));
        let many = json!({"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}});
        assert_eq!(value_of(&many, &Answer::Chosen(vec!["x".into(), "z".into()])), Some(json!(["x", "z"])));
        let yes = json!({"type": "boolean"});
        assert_eq!(value_of(&yes, &Answer::Chosen(vec!["Yes".into()])), Some(json!(true)));
        assert_eq!(value_of(&json!({"type": "integer"}), &Answer::Other(" 42 ".into())), Some(json!(42)));
        assert_eq!(value_of(&json!({"type": "integer"}), &Answer::Other("many".into())), None);
        assert_eq!(value_of(&json!({"type": "string"}), &Answer::Other("hello".into())), Some(json!("hello")));
    }

    #[test]
    fn a_question_per_field_with_its_choices() {
        let q = question("peer", "Allow it?", "ok", &json!({"type": "boolean", "title": "Allowed"}));
        assert!(q.question.contains("MCP server `peer` asks: Allow it?"), "{}", q.question);
        assert_eq!(q.options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>(), ["Yes", "No"]);
    }
}
