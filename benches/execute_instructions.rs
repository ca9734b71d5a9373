//! The per-call loop that `benches/instructions.sh` runs under callgrind: instruction
//! counts are repeatable on a noisy machine, where wall-clock ratios move 10-20%.
//! `BASELINE=1` runs the hand-written match + parse + render; `N` sets the calls.
#![allow(missing_docs)]

mod common;

use common::{INPUT, Noop, baseline, runtime, toolwright_call};
use std::sync::Arc;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

fn main() {
    let rt = runtime();
    let ex =
        Executor::builder(Arc::new(Registry::builder().register::<Noop>().build().unwrap())).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let call = ToolCall::new("toolu_01", "noop", INPUT);
    let cx = ToolContext::new(".");
    let base = std::env::var("BASELINE").is_ok_and(|v| v == "1");
    rt.block_on(async {
        let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        for _ in 0..n {
            if base {
                std::hint::black_box(baseline("noop", "toolu_01", INPUT, &cx).await);
            } else {
                std::hint::black_box(toolwright_call(&ex, &turn, &call).await);
            }
        }
    });
}
