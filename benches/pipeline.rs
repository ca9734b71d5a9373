//! Per-call overhead of `Executor::execute` for a no-op tool with no hooks, against a
//! hand-written `match name { .. }` + `serde_json` parse + result rendering, and how it
//! grows from 10 to 10,000 registered tools; and, without the rendering, `execute`
//! alone and `Registry::resolve` + `call_raw` against the hand-written match alone
//! (issue 21's ratios, in wall clock beside `benches/instructions.sh`'s counts).
//!
//! Run: `cargo bench --bench pipeline`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;

use common::{
    INPUT, Noop, baseline, execute_text, hand_erased, hand_erased_timed, hand_match, resolve_call, runtime,
    toolwright_call,
};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, InputError, PreparedCall, ToolCall, ToolSpec, TurnContext};

/// Filler tools so the registry has many entries.
struct Filler(ToolSpec);
impl DynTool for Filler {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {}})
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        unreachable!()
    }
}

fn executor(tools: usize) -> Executor {
    let mut builder = Registry::builder().register::<Noop>();
    for i in 1..tools {
        builder = builder.register_dyn(Arc::new(Filler(ToolSpec::runtime(
            format!("filler_tool_{i:05}"),
            "Filler.",
            "bench",
        ))));
    }
    Executor::builder(Arc::new(builder.build().unwrap())).policy(AllowAll).build()
}

fn per_call(c: &mut Criterion) {
    let rt = runtime();
    let base_cx = ToolContext::new(".");
    let turn = TurnContext::new(".");
    let call = ToolCall::new("toolu_01", "noop", INPUT);
    assert_eq!(
        rt.block_on(baseline("noop", "toolu_01", INPUT, &base_cx)),
        rt.block_on(toolwright_call(&executor(1), &turn, &call))
    );
    let mut group = c.benchmark_group("execute");
    group.bench_function("baseline_match_parse_render", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(baseline(black_box("noop"), "toolu_01", black_box(INPUT), &base_cx).await) })
        })
    });
    for tools in [10, 1_000, 10_000] {
        let ex = executor(tools);
        group.bench_function(format!("toolwright/{tools}_tools"), |b| {
            b.iter(|| rt.block_on(async { black_box(toolwright_call(&ex, &turn, black_box(&call)).await) }))
        });
    }
    group.finish();
    interleaved();
}

/// Calls per timed block, and rounds of blocks, in the interleaved loops.
const BLOCK: usize = 200;
const ROUNDS: usize = 600;

/// What the interleaved loops run with: a runtime, a call context for the
/// hand-written side, a turn and the call for toolwright's.
fn fixture() -> (tokio::runtime::Runtime, ToolContext, TurnContext, ToolCall) {
    (runtime(), ToolContext::new("."), TurnContext::new("."), ToolCall::new("toolu_01", "noop", INPUT))
}

/// Blocks of baseline and toolwright calls alternate in one loop, so machine noise
/// hits both alike.
fn interleaved() {
    let (rt, base_cx, turn, call) = fixture();
    let executors: Vec<(usize, Executor)> = [10, 1_000, 10_000].into_iter().map(|n| (n, executor(n))).collect();
    let mut base = Duration::ZERO;
    let mut ours = vec![Duration::ZERO; executors.len()];
    rt.block_on(async {
        for round in 0..ROUNDS {
            let start = Instant::now();
            for _ in 0..BLOCK {
                black_box(baseline(black_box("noop"), "toolu_01", black_box(INPUT), &base_cx).await);
            }
            base += start.elapsed();
            for (i, (_, ex)) in executors.iter().enumerate().cycle().skip(round % executors.len()).take(executors.len())
            {
                let start = Instant::now();
                for _ in 0..BLOCK {
                    black_box(toolwright_call(ex, &turn, black_box(&call)).await);
                }
                ours[i] += start.elapsed();
            }
        }
    });
    let calls = (BLOCK * ROUNDS) as f64;
    let ns = |d: Duration| d.as_nanos() as f64 / calls;
    println!("execute/interleaved: baseline {:.0} ns/call", ns(base));
    for ((tools, _), d) in executors.iter().zip(&ours) {
        println!(
            "execute/interleaved: toolwright with {tools} tools {:.0} ns/call, ratio {:.2}",
            ns(*d),
            ns(*d) / ns(base)
        );
    }
    println!("execute/interleaved: growth 10 -> 10,000 tools {:.3}", ns(ours[2]) / ns(ours[0]));
    against_hand();
}

/// `execute` alone and `resolve` + `call_raw`, each with its output as JSON text,
/// against the hand-written match with the same, and against the floors under each
/// (the hand-written match with a boxed `dyn` call, and with that and the result's
/// two clock reads): blocks alternate in one loop, in an order that rotates round by
/// round; the ratio of the totals and the per-round spread.
fn against_hand() {
    let (rt, cx, turn, call) = fixture();
    let ex = executor(10);
    let registry = Arc::clone(ex.registry());
    let hand = rt.block_on(hand_match("noop", INPUT, &cx));
    assert_eq!(hand, rt.block_on(execute_text(&ex, &turn, &call)));
    assert_eq!(hand, rt.block_on(resolve_call(&registry, "noop", INPUT, &cx)));
    assert_eq!(hand, rt.block_on(hand_erased_timed("noop", INPUT, &cx)));
    const SIDES: usize = 5;
    // [hand, execute, resolve + call_raw, hand erased, hand erased + clock], per round.
    let mut rounds = vec![[Duration::ZERO; SIDES]; ROUNDS];
    rt.block_on(async {
        for (round, times) in rounds.iter_mut().enumerate() {
            for side in (0..SIDES).cycle().skip(round % SIDES).take(SIDES) {
                let start = Instant::now();
                for _ in 0..BLOCK {
                    match side {
                        0 => black_box(hand_match(black_box("noop"), black_box(INPUT), &cx).await),
                        1 => black_box(execute_text(&ex, &turn, black_box(&call)).await),
                        2 => black_box(resolve_call(&registry, black_box("noop"), black_box(INPUT), &cx).await),
                        3 => black_box(hand_erased(black_box("noop"), black_box(INPUT), &cx).await),
                        _ => black_box(hand_erased_timed(black_box("noop"), black_box(INPUT), &cx).await),
                    };
                }
                times[side] += start.elapsed();
            }
        }
    });
    let per_call =
        |side: usize| rounds.iter().map(|t| t[side]).sum::<Duration>().as_nanos() as f64 / (BLOCK * ROUNDS) as f64;
    let quartiles = |side: usize| {
        let mut ratios: Vec<f64> = rounds.iter().map(|t| t[side].as_secs_f64() / t[0].as_secs_f64()).collect();
        ratios.sort_by(f64::total_cmp);
        (ratios[ROUNDS / 4], ratios[ROUNDS / 2], ratios[3 * ROUNDS / 4])
    };
    let hand = per_call(0);
    println!("against_hand/interleaved: hand-written match {hand:.1} ns/call");
    for (side, what, target) in [
        (1, "execute alone", "; target at most 2x"),
        (2, "resolve + call_raw", "; target at most 1.3x"),
        (3, "floor: hand-written, boxed dyn call", ""),
        (4, "floor: hand-written, boxed dyn call, timed", ""),
    ] {
        let (q1, median, q3) = quartiles(side);
        println!(
            "against_hand/interleaved: {what} {:.1} ns/call, ratio {:.2} (per-round median {median:.2}, \
             quartiles {q1:.2}-{q3:.2}{target})",
            per_call(side),
            per_call(side) / hand
        );
    }
}

criterion_group!(benches, per_call);
criterion_main!(benches);
