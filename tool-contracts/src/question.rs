//! Questions for the person at the keyboard: the seam beside the [`Approver`](crate::permission::Approver)
//! through which a tool (Claude Code's `AskUserQuestion`, a plan's approval) asks a
//! person to choose. The host answers them in its own UI: a terminal prompt, an MCP
//! elicitation, a dialog. Put a [`Questions`] in the turn's extensions; without one,
//! nobody is there and the tool says so.

use crate::BoxFuture;
use std::sync::Arc;

/// One question with its choices.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Question {
    /// The question, whole ("Which library should we use for dates?").
    pub question: String,
    /// A short label for it (at most 12 characters: "Library").
    pub header: String,
    /// The choices; a person may also answer in their own words.
    pub options: Vec<QuestionOption>,
    /// Whether several choices may be picked.
    pub multi_select: bool,
}

impl Question {
    /// A single-choice question.
    pub fn new(question: impl Into<String>, header: impl Into<String>, options: Vec<QuestionOption>) -> Question {
        Question { question: question.into(), header: header.into(), options, multi_select: false }
    }

    /// Several choices may be picked.
    pub fn multi_select(mut self, yes: bool) -> Question {
        self.multi_select = yes;
        self
    }
}

/// One choice.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct QuestionOption {
    /// What is shown and answered (1 to 5 words).
    pub label: String,
    /// What choosing it means.
    pub description: String,
    /// A preview to show beside it (Markdown), if any.
    pub preview: Option<String>,
}

impl QuestionOption {
    /// A choice.
    pub fn new(label: impl Into<String>, description: impl Into<String>) -> QuestionOption {
        QuestionOption { label: label.into(), description: description.into(), preview: None }
    }
}

/// A person's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Answer {
    /// The labels chosen (one, unless the question is multi-select).
    Chosen(Vec<String>),
    /// Their own words instead.
    Other(String),
}

impl Answer {
    /// As Claude Code reports it: the labels joined by `", "`, or the words.
    pub fn text(&self) -> String {
        match self {
            Answer::Chosen(labels) => labels.join(", "),
            Answer::Other(text) => text.clone(),
        }
    }
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unanswered(pub String);

/// Asks a person. Answers come in the order of the questions.
pub trait Questioner: Send + Sync {
    /// The answers to `questions`, or why there are none.
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, Result<Vec<Answer>, Unanswered>>;
}

impl<F> Questioner for F
where
    F: Fn(&[Question]) -> Result<Vec<Answer>, Unanswered> + Send + Sync,
{
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, Result<Vec<Answer>, Unanswered>> {
        let answer = self(questions);
        Box::pin(std::future::ready(answer))
    }
}

/// The turn's questioner, in its extensions.
///
/// ```
/// use toolwright_core::question::{Answer, Question, QuestionOption, Questions, Unanswered};
/// let questions = Questions::new(|qs: &[Question]| -> Result<Vec<Answer>, Unanswered> {
///     Ok(qs.iter().map(|q| Answer::Chosen(vec![q.options[0].label.clone()])).collect())
/// });
/// let mut extensions = toolwright_core::Extensions::new();
/// extensions.insert(questions);
/// assert!(extensions.get::<Questions>().is_some());
/// ```
#[derive(Clone)]
pub struct Questions(pub Arc<dyn Questioner>);

impl Questions {
    /// `questioner` as the turn's.
    pub fn new(questioner: impl Questioner + 'static) -> Questions {
        Questions(Arc::new(questioner))
    }
}

impl std::fmt::Debug for Questions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Questions(..)")
    }
}
