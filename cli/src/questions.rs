//! The questions a model asks the person (`AskUserQuestion`), on the terminal: each
//! with its numbered choices, answered by number (several, with commas, where the
//! question allows) or in the person's own words. Without a terminal nobody is
//! asked, and the model is told so.

use super::trace::Trace;
use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;
use std::time::Instant;
use toolwright::BoxFuture;
use toolwright::question::{Answer, Question, Questioner, Questions, Unanswered};

/// Asks on the terminal, through the trace (spinners paused while it asks).
pub struct TerminalQuestions {
    pub trace: Arc<Trace>,
}

impl TerminalQuestions {
    /// The questioner for a session's extensions.
    pub fn questions(trace: &Arc<Trace>) -> Questions {
        Questions::new(TerminalQuestions { trace: Arc::clone(trace) })
    }
}

impl Questioner for TerminalQuestions {
    fn ask<'a>(&'a self, questions: &'a [Question]) -> BoxFuture<'a, Result<Vec<Answer>, Unanswered>> {
        Box::pin(async move {
            if !std::io::stdin().is_terminal() {
                for q in questions {
                    self.trace.note(&format!("  ? {} → not asked (not a terminal)", q.question));
                }
                return Err(Unanswered("there is no terminal to ask on".into()));
            }
            let asked = Instant::now();
            let trace = Arc::clone(&self.trace);
            let owned = questions.to_vec();
            let answers = tokio::task::spawn_blocking(move || {
                trace.suspend(|| owned.iter().map(ask_one).collect::<Vec<Answer>>())
            })
            .await
            .map_err(|e| Unanswered(format!("the prompt failed: {e}")))?;
            self.trace.waited(asked.elapsed());
            for (q, a) in questions.iter().zip(&answers) {
                self.trace.note(&format!("  ? {} → {}", q.question, a.text()));
            }
            Ok(answers)
        })
    }
}

/// One question on the terminal: its choices by number, then the answer.
fn ask_one(q: &Question) -> Answer {
    let mut prompt = format!("  ? [{}] {}\n", q.header, q.question);
    for (i, option) in q.options.iter().enumerate() {
        prompt.push_str(&format!("    {}. {}: {}\n", i + 1, option.label, option.description));
    }
    let how = if q.multi_select { "numbers separated by commas" } else { "a number" };
    prompt.push_str(&format!("    answer with {how}, or type your own answer: "));
    print!("{prompt}");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    read_answer(q, line.trim())
}

/// A typed line as an answer: choice numbers, or the person's own words.
fn read_answer(q: &Question, line: &str) -> Answer {
    let picks: Option<Vec<String>> = line
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| q.options.get(i))
                .map(|o| o.label.clone())
        })
        .collect();
    match picks {
        Some(labels) if !labels.is_empty() && (q.multi_select || labels.len() == 1) => Answer::Chosen(labels),
        _ => Answer::Other(line.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwright::question::QuestionOption;

    #[test]
    fn numbers_pick_choices_and_anything_else_is_the_persons_words() {
        let options = vec![QuestionOption::new("tokio", "async"), QuestionOption::new("std", "threads")];
        let single = Question::new("Which runtime?", "Runtime", options.clone());
        assert_eq!(read_answer(&single, "2"), Answer::Chosen(vec!["std".into()]));
        assert_eq!(read_answer(&single, "1,2"), Answer::Other("1,2".into()));
        assert_eq!(read_answer(&single, "smol"), Answer::Other("smol".into()));
        let multi = Question::new("Which ones?", "Runtimes", options).multi_select(true);
        assert_eq!(read_answer(&multi, "1, 2"), Answer::Chosen(vec!["tokio".into(), "std".into()]));
        assert_eq!(read_answer(&multi, "3"), Answer::Other("3".into()));
    }
}
