//! A recorded session with children: the main agent's responses and each child's,
//! for replays and tests of delegation without a model.
//!
//! The format is one text file: sections that each start with a line
//! `--- agent: NAME`, followed by that agent's responses in one API's stream format
//! (as [`RecordedModel::from_session`] reads them). `main` is the main agent; any
//! other name is the `description` of the agent call that starts the child (a
//! resumed child goes on with its section's next responses). Text before the first
//! section line is the main agent's.
//!
//! ```
//! use toolwright::subagents::RecordedTree;
//! let chat = |text: &str| format!(
//!     "data: {{\"choices\":[{{\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
//! );
//! let session = format!("--- agent: main\n{}--- agent: map the code\n{}", chat("Done."), chat("Mapped."));
//! let tree = RecordedTree::parse(&session).unwrap();
//! assert_eq!(tree.main().responses(), 1);
//! assert_eq!(tree.children(), ["map the code"]);
//! ```

use super::models::{ChildModels, ChildRequest};
use crate::agent::{Model, RecordedModel};
use crate::provider::StreamError;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The line that starts a section.
pub const SECTION: &str = "--- agent: ";

/// A recording that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordedTreeError {
    /// A section's responses do not parse.
    #[error("the section of agent `{agent}`: {error}")]
    Section {
        /// The section's name.
        agent: String,
        /// Why.
        #[source]
        error: StreamError,
    },
    /// Two sections have the same name.
    #[error("two sections are named `{0}`; each agent call needs a description of its own")]
    Duplicate(String),
    /// The main agent has no responses.
    #[error("the main agent has no recorded responses")]
    NoMain,
}

/// The main agent's recorded model and each child's, by the agent call's
/// description. As [`ChildModels`], it gives each child its section.
#[derive(Debug)]
pub struct RecordedTree {
    main: Arc<RecordedModel>,
    children: BTreeMap<String, Arc<RecordedModel>>,
}

impl RecordedTree {
    /// Reads a recording in the format the module describes.
    pub fn parse(text: &str) -> Result<RecordedTree, RecordedTreeError> {
        let mut sections: Vec<(String, String)> = vec![("main".into(), String::new())];
        for line in text.split_inclusive('\n') {
            match line.strip_prefix(SECTION) {
                Some(name) => sections.push((name.trim().to_owned(), String::new())),
                None => sections.last_mut().map(|(_, body)| body.push_str(line)).unwrap_or_default(),
            }
        }
        let mut main = None;
        let mut children = BTreeMap::new();
        for (name, body) in sections {
            if body.trim().is_empty() && name == "main" && main.is_none() {
                continue;
            }
            let model = RecordedModel::from_session(&body)
                .map_err(|error| RecordedTreeError::Section { agent: name.clone(), error })?;
            if name == "main" {
                if main.is_some() {
                    return Err(RecordedTreeError::Duplicate(name));
                }
                main = Some(Arc::new(model));
            } else if children.insert(name.clone(), Arc::new(model)).is_some() {
                return Err(RecordedTreeError::Duplicate(name));
            }
        }
        let main = main.filter(|m| m.responses() > 0).ok_or(RecordedTreeError::NoMain)?;
        Ok(RecordedTree { main, children })
    }

    /// Whether `text` has sections (else it is a plain recording of one agent).
    pub fn has_sections(text: &str) -> bool {
        text.lines().any(|line| line.starts_with(SECTION))
    }

    /// Waits `pace` before each event of every agent.
    pub fn with_pace(self, pace: Duration) -> RecordedTree {
        let paced = |m: Arc<RecordedModel>| match Arc::try_unwrap(m) {
            Ok(model) => Arc::new(model.with_pace(pace)),
            Err(shared) => shared,
        };
        RecordedTree {
            main: paced(self.main),
            children: self.children.into_iter().map(|(k, v)| (k, paced(v))).collect(),
        }
    }

    /// The main agent's model.
    pub fn main(&self) -> Arc<RecordedModel> {
        Arc::clone(&self.main)
    }

    /// The children's sections, by name.
    pub fn children(&self) -> Vec<&str> {
        self.children.keys().map(String::as_str).collect()
    }
}

impl ChildModels for RecordedTree {
    fn model(&self, child: &ChildRequest<'_>) -> Result<Arc<dyn Model>, String> {
        match self.children.get(child.description.trim()) {
            Some(model) => Ok(Arc::clone(model) as Arc<dyn Model>),
            None => Err(format!(
                "the recording has no responses for an agent described as `{}` (its sections: {})",
                child.description.trim(),
                self.children().join(", ")
            )),
        }
    }
}
