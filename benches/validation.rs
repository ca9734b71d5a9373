//! What holding input to its schema costs: the executor's per-call time for a tool of
//! ten fields without constraints, and for the same ten fields each with one (bounds,
//! lengths, a pattern, a format, an enum, an item count); target: at most 1 us more.
//! The no-op tool of `--bench pipeline` (no constraints) is the third line.
//!
//! Run: `cargo bench --bench validation`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;

use common::{INPUT, Noop, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};

/// Ten fields, no constraints.
#[tool(pure)]
#[allow(dead_code)]
struct Plain {
    title: String,
    body: String,
    tag: String,
    email: String,
    priority: i64,
    count: i64,
    ratio: f64,
    labels: Vec<String>,
    kind: String,
    code: String,
}

/// The same ten fields, each constrained.
#[tool(pure)]
#[allow(dead_code)]
struct Constrained {
    #[schemars(length(min = 1, max = 80))]
    title: String,
    #[schemars(length(max = 10_000))]
    body: String,
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    tag: String,
    #[schemars(email)]
    email: String,
    #[schemars(range(min = 0, max = 4))]
    priority: i64,
    #[schemars(range(min = 1))]
    count: i64,
    #[schemars(range(min = 0.0, max = 1.0))]
    ratio: f64,
    #[schemars(length(max = 5))]
    labels: Vec<String>,
    #[schemars(extend("enum" = ["bug", "feature", "chore"]))]
    kind: String,
    #[schemars(length(equal = 6))]
    code: String,
}

impl Tool for Plain {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.title)
    }
}

impl Tool for Constrained {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.title)
    }
}

const TEN_FIELDS: &str = r#"{"title":"Fix the parser","body":"It drops the last line of a file without a newline.","tag":"parser-bug","email":"dev@example.com","priority":2,"count":3,"ratio":0.5,"labels":["a","b"],"kind":"bug","code":"ab12cd"}"#;

fn validation(c: &mut Criterion) {
    let rt = runtime();
    let registry =
        Registry::builder().register::<Plain>().register::<Constrained>().register::<Noop>().build().unwrap();
    let executor = Executor::builder(Arc::new(registry)).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let plain = ToolCall::new("toolu_01", "plain", TEN_FIELDS);
    let constrained = ToolCall::new("toolu_01", "constrained", TEN_FIELDS);
    let noop = ToolCall::new("toolu_01", "noop", INPUT);
    for call in [&plain, &constrained, &noop] {
        let result = rt.block_on(executor.execute(call, &turn));
        assert!(result.error.is_none(), "{}", result.output.text_content());
    }
    // The constraints are really checked.
    let bad = ToolCall::new("toolu_01", "constrained", TEN_FIELDS.replace("\"priority\":2", "\"priority\":9"));
    assert!(rt.block_on(executor.execute(&bad, &turn)).error.is_some());
    let mut group = c.benchmark_group("validation");
    group.bench_function("ten_plain_fields", |b| b.iter(|| rt.block_on(executor.execute(black_box(&plain), &turn))));
    group.bench_function("ten_constrained_fields", |b| {
        b.iter(|| rt.block_on(executor.execute(black_box(&constrained), &turn)))
    });
    group.bench_function("noop_no_constraints", |b| b.iter(|| rt.block_on(executor.execute(black_box(&noop), &turn))));
    group.finish();
    interleaved(&rt, &executor, &turn, [&plain, &constrained]);
}

/// Blocks of plain and constrained calls alternate in one loop, so machine noise hits
/// both alike; the figure is the difference of the medians over rounds.
fn interleaved(rt: &tokio::runtime::Runtime, executor: &Executor, turn: &TurnContext, calls: [&ToolCall; 2]) {
    const BLOCK: u32 = 200;
    const ROUNDS: usize = 300;
    let mut per_call: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    rt.block_on(async {
        for round in 0..ROUNDS {
            for k in [round % 2, 1 - round % 2] {
                let start = std::time::Instant::now();
                for _ in 0..BLOCK {
                    black_box(executor.execute(black_box(calls[k]), turn).await);
                }
                per_call[k].push(start.elapsed().as_nanos() as f64 / f64::from(BLOCK));
            }
        }
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (plain, constrained) = (median(&mut per_call[0]), median(&mut per_call[1]));
    println!(
        "validation/interleaved: ten plain fields {plain:.0} ns/call, ten constrained {constrained:.0} ns/call, +{:.0} ns",
        constrained - plain
    );
}

criterion_group!(benches, validation);
criterion_main!(benches);
