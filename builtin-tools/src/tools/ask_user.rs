//! `ask_user` (Claude Code's `AskUserQuestion`): multiple-choice questions for the
//! person, through the turn's [`Questions`] seam; never in a subagent.

use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use toolwright_core::question::{Answer, Question, QuestionOption, Questions};
use toolwright_core::{Tool, ToolContext, ToolError, ToolOutput, tool};

/// The longest `header` (Claude Code's chip).
const MAX_HEADER_CHARS: usize = 12;

/// One question.
#[derive(Debug, Clone, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "toolwright_core::__private::schemars")]
pub struct QuestionInput {
    /// The question, whole and ending with `?` ("Which date library should we use?").
    pub question: String,
    /// A very short label for it, at most 12 characters ("Library").
    pub header: String,
    /// The choices. Do not add an "Other" choice: the person can always answer in
    /// their own words.
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<OptionInput>,
    /// Whether several choices may be picked.
    #[serde(rename = "multiSelect", default)]
    pub multi_select: bool,
}

/// One choice.
#[derive(Debug, Clone, serde::Deserialize, toolwright_core::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "toolwright_core::__private::schemars")]
pub struct OptionInput {
    /// What the person picks: 1 to 5 words.
    pub label: String,
    /// What choosing it means, its trade-offs.
    pub description: String,
    /// A preview to show beside it (Markdown: a mock-up, a code snippet); single-choice
    /// questions only.
    #[serde(default)]
    pub preview: Option<String>,
}


/// Ask the user one to four multiple-choice questions, and wait for the answers: to
/// settle a preference, a requirement or a choice between approaches that you cannot
/// decide from the code. Each question has 2 to 4 choices; the user may also answer
/// in their own words. Put a recommended choice first and say "(Recommended)" in its
/// label. Do not use it to ask whether a plan is good: that is what exit_plan_mode
/// is for.
#[tool(title = "Ask the user", rule_name = "AskUserQuestion", aliases = ["AskUserQuestion"], pure)]
pub struct AskUser {
    /// The questions.
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<QuestionInput>,
    /// Leave out (the host's answers, by question).
    #[serde(default)]
    pub answers: Option<BTreeMap<String, String>>,
    /// Leave out (the host's notes).
    #[serde(default)]
    pub annotations: Option<Map<String, Value>>,
}

impl Tool for AskUser {
    type Output = ToolOutput;

    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        if self.questions.is_empty() || self.questions.len() > 4 {
            return Err(ToolError::msg(format!("`questions` has {}; ask 1 to 4", self.questions.len())));
        }
        let mut seen = std::collections::HashSet::new();
        for (i, q) in self.questions.iter().enumerate() {
            check_question(i, q)?;
            if !seen.insert(q.question.trim()) {
                return Err(ToolError::msg(format!("questions[{i}]: the question `{}` is asked twice", q.question)));
            }
        }
        Ok(())
    }

    fn summary(&self) -> Option<String> {
        let first = self.questions.first().map(|q| q.question.trim()).unwrap_or_default();
        Some(match self.questions.len() {
            1 => format!("ask: {first}"),
            n => format!("ask {n} questions: {first} ..."),
        })
    }

    async fn call(self, cx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let questions: Vec<Question> = self.questions.iter().map(to_question).collect();
        let answers: Vec<Answer> = match &self.answers {
            Some(given) if !given.is_empty() => given_answers(&questions, given)?,
            _ => {
                let Some(Questions(questioner)) = cx.extension::<Questions>() else {
                    return Err(ToolError::msg(
                        "no one is there to answer questions (an unattended run): do not wait for an answer; \
                         go on with your best judgement and say what you assumed",
                    ));
                };
                let answers = questioner.ask(&questions).await.map_err(|why| {
                    ToolError::msg(format!(
                        "the questions were not answered ({why}): go on with your best judgement and say what you \
                         assumed"
                    ))
                })?;
                if answers.len() != questions.len() {
                    return Err(ToolError::msg(format!(
                        "{} answers came for {} questions; ask again",
                        answers.len(),
                        questions.len()
                    )));
                }
                answers
            }
        };
        let mut by_question = Map::new();
        let mut said = Vec::new();
        for (q, a) in questions.iter().zip(&answers) {
            by_question.insert(q.question.clone(), Value::String(a.text()));
            said.push(format!("\"{}\"=\"{}\"", q.question, a.text()));
        }
        let mut output = ToolOutput::text(format!(
            "User has answered your questions: {}. You can now continue with the user's answers in mind.",
            said.join(", ")
        ));
        let input_questions: Vec<Value> = self
            .questions
            .iter()
            .map(|q| {
                json!({
                    "question": q.question, "header": q.header, "multiSelect": q.multi_select,
                    "options": q.options.iter().map(|o| json!({"label": o.label, "description": o.description})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let mut structured = json!({"questions": input_questions, "answers": by_question});
        if let Some(annotations) = self.annotations {
            structured["annotations"] = Value::Object(annotations);
        }
        output.structured = Some(structured);
        Ok(output)
    }
}

/// One question's rules: a header of at most 12 characters, 2 to 4 choices with
/// distinct non-empty labels, none of them "Other", previews only on single choice.
fn check_question(i: usize, q: &QuestionInput) -> Result<(), ToolError> {
    let fail = |why: String| Err(ToolError::msg(format!("questions[{i}] (`{}`): {why}", q.question.trim())));
    if q.question.trim().is_empty() {
        return fail("the question is empty".into());
    }
    if q.header.trim().is_empty() || q.header.chars().count() > MAX_HEADER_CHARS {
        return fail(format!("`header` is 1 to {MAX_HEADER_CHARS} characters, not `{}`", q.header));
    }
    if !(2..=4).contains(&q.options.len()) {
        return fail(format!("`options` has {}; give 2 to 4", q.options.len()));
    }
    let mut labels = std::collections::HashSet::new();
    for option in &q.options {
        let label = option.label.trim();
        if label.is_empty() {
            return fail("an option's `label` is empty".into());
        }
        if label.eq_ignore_ascii_case("other") {
            return fail("do not add an \"Other\" option: the user can always answer in their own words".into());
        }
        if !labels.insert(label.to_lowercase()) {
            return fail(format!("the label `{label}` is given twice"));
        }
        if option.preview.is_some() && q.multi_select {
            return fail("`preview` is for single-choice questions only".into());
        }
    }
    Ok(())
}

fn to_question(q: &QuestionInput) -> Question {
    let options = q
        .options
        .iter()
        .map(|o| {
            let mut option = QuestionOption::new(o.label.trim(), o.description.trim());
            option.preview = o.preview.clone();
            option
        })
        .collect();
    Question::new(q.question.trim(), q.header.trim(), options).multi_select(q.multi_select)
}

/// The answers a host gave with the input (Claude Code's `answers`, filled by a
/// PreToolUse hook's `updatedInput`): a label or labels per question, or free text.
fn given_answers(questions: &[Question], given: &BTreeMap<String, String>) -> Result<Vec<Answer>, ToolError> {
    questions
        .iter()
        .map(|q| {
            let Some(answer) = given.get(&q.question) else {
                return Err(ToolError::msg(format!("`answers` has no answer for `{}`", q.question)));
            };
            // Several labels of a multi-select question are joined by ", ".
            let labels: Vec<String> = match q.multi_select {
                true => answer.split(", ").map(str::to_owned).collect(),
                false => vec![answer.clone()],
            };
            let known = labels.iter().all(|l| q.options.iter().any(|o| &o.label == l));
            Ok(match known {
                true => Answer::Chosen(labels),
                false => Answer::Other(labels.join(", ")),
            })
        })
        .collect()
}
