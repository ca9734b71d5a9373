//! Every call gets a `tool_call` span with the tool, the call id, the outcome and the
//! duration.
#![allow(missing_docs)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Say yes.
#[tool(read_only, pure)]
pub struct Yes {}
impl Tool for Yes {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("yes")
    }
}

/// Touch something, without saying what.
#[tool]
pub struct Touch {}
impl Tool for Touch {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("touched")
    }
}

/// A span's name and its fields.
type SpanRecord = (String, HashMap<String, String>);

/// Spans by id (index + 1), and warning events' fields.
#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<Vec<SpanRecord>>>, Arc<Mutex<Vec<HashMap<String, String>>>>);

struct Fields<'a>(&'a mut HashMap<String, String>);
impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut spans = self.0.lock().unwrap();
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        spans.push((attrs.metadata().name().to_owned(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.0.lock().unwrap();
        values.record(&mut Fields(&mut spans[span.into_u64() as usize - 1].1));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        if *event.metadata().level() == tracing::Level::WARN {
            let mut fields = HashMap::new();
            event.record(&mut Fields(&mut fields));
            self.1.lock().unwrap().push(fields);
        }
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn each_call_has_a_span_with_its_outcome() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ex = Executor::builder(Arc::new(toolwright::registry().unwrap())).policy(AllowAll).build();
    rt.block_on(async {
        ex.execute(&ToolCall::new("c1", "yes", "{}"), &TurnContext::new(".")).await;
        ex.execute(&ToolCall::new("c2", "nope", "{}"), &TurnContext::new(".")).await;
    });
    let spans = recorder.0.lock().unwrap();
    let calls: Vec<_> = spans.iter().filter(|(name, _)| name == "tool_call").map(|(_, f)| f).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0]["tool"].as_str(), calls[0]["call_id"].as_str(), calls[0]["outcome"].as_str()),
        ("yes", "c1", "ok")
    );
    assert!(calls[0]["duration_us"].parse::<u64>().is_ok());
    assert_eq!((calls[1]["tool"].as_str(), calls[1]["outcome"].as_str()), ("nope", "unknown_tool"));
}

#[test]
fn a_call_denied_for_want_of_an_approver_tells_the_developer_once_with_the_fixes() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let registry = toolwright::Registry::builder().register::<Touch>().register::<Yes>().build().unwrap();
    let ex = Executor::new(Arc::new(registry));
    let results = rt.block_on(async {
        let a = ex.execute(&ToolCall::new("c1", "touch", "{}"), &TurnContext::new(".")).await;
        let b = ex.execute(&ToolCall::new("c2", "touch", "{}"), &TurnContext::new(".")).await;
        let c = ex.execute(&ToolCall::new("c3", "yes", "{}"), &TurnContext::new(".")).await;
        [a, b, c]
    });
    assert!(!results[0].is_ok() && !results[1].is_ok() && results[2].is_ok());
    // The model's message names no developer fix; the developer gets one warning.
    assert!(results[0].output.text_content().contains("no one is there to approve it"));
    let warnings = recorder.1.lock().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let message = &warnings[0]["message"];
    for fix in ["`pure`", "#[access(read)]", "ExecutorBuilder::approver"] {
        assert!(message.contains(fix), "{message}");
    }
    assert_eq!(warnings[0]["tool"], "touch");
}
