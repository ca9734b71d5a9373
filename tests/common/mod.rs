//! Helpers shared by the integration tests.
#![allow(dead_code, missing_docs)]

pub mod peers;
pub mod provider_rules;
pub mod runtime_tool;
