//! What a replayed recording answers for itself: its questions (the first, the
//! recommended choice) and its plan's approval (accepting edits, unless `--deny`);
//! and the git repository its worktree is made in.

use super::trace::Trace;
use std::path::Path;
use std::sync::Arc;
use toolwright::BoxFuture;
use toolwright::permission::{Approval, Approver, PermissionRequest};
use toolwright::question::{Answer, Question, Questions, Unanswered};

/// Answers each question with its first choice, and says so in the trace.
pub fn questions(trace: &Arc<Trace>) -> Questions {
    let trace = Arc::clone(trace);
    Questions::new(move |questions: &[Question]| -> Result<Vec<Answer>, Unanswered> {
        Ok(questions
            .iter()
            .map(|q| {
                let label = q.options.first().map(|o| o.label.clone()).unwrap_or_default();
                trace.note(&format!("  ? {} → {label} (the recording's answer)", q.question));
                Answer::Chosen(vec![label])
            })
            .collect())
    })
}

/// The recording's approval of its plan; every other question goes to `inner`.
pub struct RecordedPlanApproval<A> {
    pub inner: A,
    pub deny: bool,
    pub trace: Arc<Trace>,
}

impl<A: Approver> Approver for RecordedPlanApproval<A> {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        if request.rule_name != Some("ExitPlanMode") || self.deny {
            return self.inner.approve(request, question);
        }
        self.trace.note("  ? approve the plan → yes, and accept edits (the recording's answer)");
        Box::pin(std::future::ready(Approval::AlwaysAllow))
    }
}

/// Makes the sample workspace a git repository with one commit (for the worktree);
/// a note when git is not there (the worktree step then says why it failed).
pub fn commit_workspace(workspace: &Path, trace: &Trace) {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(workspace)
            .args(["-c", "user.name=toolwright replay", "-c", "user.email=replay@toolwright.invalid"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ok = git(&["init", "-q", "-b", "main"]) && git(&["add", "-A"]) && git(&["commit", "-q", "-m", "The sample"]);
    if !ok {
        trace.note("note: git is not available, so the session's worktree step will fail");
    }
}
