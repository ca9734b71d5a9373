//! The per-call loop that `benches/instructions.sh` runs under callgrind: instruction
//! counts are repeatable on a noisy machine, where wall-clock ratios move 10-20%.
//! `MODE` picks the loop (`N` sets the calls):
//! - `baseline`: a hand-written match + parse + Anthropic `tool_result` render;
//! - `toolwright`: `Executor::execute` + the same render;
//! - `hand`: a hand-written match + parse, the output as JSON text;
//! - `execute`: `Executor::execute` alone, its output as JSON text;
//! - `resolve`: `Registry::resolve` + `call_raw`, the output as JSON text.
#![allow(missing_docs)]

mod common;

use common::{INPUT, Noop, baseline, execute_text, hand_match, resolve_call, runtime, toolwright_call};
use std::hint::black_box;
use std::sync::Arc;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

fn main() {
    let rt = runtime();
    let registry = Arc::new(Registry::builder().register::<Noop>().build().unwrap());
    let ex = Executor::builder(Arc::clone(&registry)).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let call = ToolCall::new("toolu_01", "noop", INPUT);
    let cx = ToolContext::new(".");
    let mode = std::env::var("MODE").unwrap_or_else(|_| "toolwright".to_owned());
    let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    rt.block_on(async {
        for _ in 0..n {
            match mode.as_str() {
                "baseline" => black_box(baseline("noop", "toolu_01", INPUT, &cx).await),
                "toolwright" => black_box(toolwright_call(&ex, &turn, &call).await),
                "hand" => black_box(hand_match(black_box("noop"), INPUT, &cx).await),
                "execute" => black_box(execute_text(&ex, &turn, &call).await),
                "resolve" => black_box(resolve_call(&registry, black_box("noop"), INPUT, &cx).await),
                other => panic!("MODE={other}: expected baseline, toolwright, hand, execute or resolve"),
            };
        }
    });
}
