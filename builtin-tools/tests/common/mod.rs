//! A session over the built-in registry: real pipeline, real orchestrator.
#![allow(dead_code)]

pub mod sandbox;

use std::path::Path;
use std::sync::Arc;
use toolwright_core::permission::AllowAll;
use toolwright_core::{Executor, Orchestrator, ToolCall, ToolResult, TurnContext};

pub struct Session {
    pub orchestrator: Orchestrator,
    pub turn: TurnContext,
    pub rt: tokio::runtime::Runtime,
    next: u32,
}

impl Session {
    pub fn new(dir: &Path) -> Session {
        Session::with_policy(dir, AllowAll)
    }

    /// A session that allows everything and runs commands unconfined.
    pub fn unconfined(dir: &Path) -> Session {
        Session::with_policy(dir, sandbox::Unconfined)
    }

    /// A session whose executor decides with `policy` (and installs its read filter).
    pub fn with_policy(dir: &Path, policy: impl toolwright_core::permission::PermissionPolicy + 'static) -> Session {
        let registry = Arc::new(toolwright_builtin::registry().unwrap());
        let executor = Executor::builder(registry).policy(policy).build();
        Session {
            orchestrator: Orchestrator::new(Arc::new(executor)),
            turn: TurnContext::new(dir).with_extensions(toolwright_builtin::session()),
            rt: tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap(),
            next: 0,
        }
    }

    pub fn call(&mut self, tool: &str, input: serde_json::Value) -> ToolResult {
        self.next += 1;
        let call = ToolCall::new(format!("call_{}", self.next), tool, input.to_string());
        let Session { orchestrator, turn, rt, .. } = self;
        rt.block_on(orchestrator.run(std::slice::from_ref(&call), turn)).remove(0)
    }

    pub fn ok(&mut self, tool: &str, input: serde_json::Value) -> String {
        let result = self.call(tool, input);
        assert!(result.error.is_none(), "{tool} failed: {}", result.output.text_content());
        result.output.text_content()
    }

    pub fn err(&mut self, tool: &str, input: serde_json::Value) -> String {
        let result = self.call(tool, input);
        assert!(result.error.is_some(), "{tool} should fail: {}", result.output.text_content());
        result.output.text_content()
    }
}
