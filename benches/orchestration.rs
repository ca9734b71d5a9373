//! Orchestration benchmarks:
//! - scheduling overhead per call: 1,000 no-op calls through `Orchestrator::run`
//!   against the same calls through `Executor::execute` one after another (target:
//!   at most 2 us per call on top of the pipeline);
//! - 100 concurrency-safe calls that each wait 20 ms, at most 10 at a time, against
//!   the ideal 200 ms (target: within 1.1x) and against running them serially.
//!
//! Run: `cargo bench --bench orchestration`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;

use common::{INPUT, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, Orchestrator, StreamEvent, ToolCall, TurnContext};

/// Wait 20 ms.
#[tool(read_only, concurrency_safe)]
pub struct Wait20 {}
impl Tool for Wait20 {
    type Output = &'static str;
    async fn call(self, _cx: &ToolContext) -> Result<&'static str, ToolError> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok("waited")
    }
}

/// Take a large text.
#[tool(read_only, concurrency_safe)]
pub struct Blob {
    pub content: String,
}
impl Tool for Blob {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.content.len().to_string())
    }
}

/// Take a large text, and report its size while it streams.
#[tool(read_only, concurrency_safe, partial_input)]
pub struct WatchedBlob {
    pub content: String,
}
impl Tool for WatchedBlob {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.content.len().to_string())
    }
}
#[derive(serde::Deserialize)]
pub struct BlobSoFar {
    content: Option<String>,
}
impl PartialInput for WatchedBlob {
    type Partial = BlobSoFar;
    fn on_partial_input(partial: BlobSoFar) -> Option<Progress> {
        Some(Progress::message(format!("{} bytes", partial.content?.len())))
    }
}

fn executor() -> Arc<Executor> {
    let registry = Registry::builder()
        .register::<common::Noop>()
        .register::<Wait20>()
        .register::<Blob>()
        .register::<WatchedBlob>()
        .build()
        .unwrap();
    Arc::new(Executor::builder(Arc::new(registry)).policy(AllowAll).build())
}

fn scheduling(c: &mut Criterion) {
    let rt = runtime();
    let ex = executor();
    let orchestrator = Orchestrator::new(Arc::clone(&ex)).max_concurrency(10);
    let calls: Vec<ToolCall> = (0..1000).map(|i| ToolCall::new(format!("c{i}"), "noop", INPUT)).collect();
    let turn = TurnContext::new(".");
    let mut group = c.benchmark_group("orchestrate_1000_noop");
    group.bench_function("sequential_execute", |b| {
        b.iter(|| {
            rt.block_on(async {
                for call in &calls {
                    black_box(ex.execute(call, &turn).await);
                }
            })
        })
    });
    group.bench_function("orchestrator_run", |b| {
        b.iter(|| rt.block_on(async { black_box(orchestrator.run(&calls, &mut turn.clone()).await) }))
    });
    group.finish();

    // The same, interleaved, for a per-call figure that shares the machine's noise.
    let (mut seq, mut orch) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..30 {
        let start = Instant::now();
        rt.block_on(async {
            for call in &calls {
                black_box(ex.execute(call, &turn).await);
            }
        });
        seq += start.elapsed();
        let start = Instant::now();
        rt.block_on(async { black_box(orchestrator.run(&calls, &mut turn.clone()).await) });
        orch += start.elapsed();
    }
    let per_call = |d: Duration| d.as_nanos() as f64 / (30.0 * 1000.0);
    println!(
        "orchestrate/interleaved: execute {:.0} ns/call, orchestrator {:.0} ns/call, scheduling overhead {:.0} ns/call",
        per_call(seq),
        per_call(orch),
        per_call(orch) - per_call(seq)
    );
}

fn parallel_waits(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ex = executor();
    let calls: Vec<ToolCall> = (0..100).map(|i| ToolCall::new(format!("w{i}"), "wait20", "{}")).collect();
    let capped = Orchestrator::new(Arc::clone(&ex)).max_concurrency(10);
    let serial = Orchestrator::new(Arc::clone(&ex)).max_concurrency(1);
    let turn = TurnContext::new(".");
    let mut group = c.benchmark_group("orchestrate_100_waits_of_20ms");
    group.sample_size(10);
    group.bench_function("cap_10", |b| b.iter(|| rt.block_on(capped.run(&calls, &mut turn.clone()))));
    group.bench_function("serial", |b| b.iter(|| rt.block_on(serial.run(&calls, &mut turn.clone()))));
    group.finish();
    let runs = 10;
    let start = Instant::now();
    for _ in 0..runs {
        rt.block_on(capped.run(&calls, &mut turn.clone()));
    }
    let capped_ms = start.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    let start = Instant::now();
    rt.block_on(serial.run(&calls, &mut turn.clone()));
    let serial_ms = start.elapsed().as_secs_f64() * 1000.0;
    println!(
        "orchestrate/waits: cap 10 {capped_ms:.1} ms (ideal 200 ms, ratio {:.3}); serial {serial_ms:.1} ms (speedup {:.1}x)",
        capped_ms / 200.0,
        serial_ms / capped_ms
    );
}

/// A 1 MB input streamed in 10,000 deltas, through the decoder-neutral events and
/// `run_streaming`, against one `serde_json` parse of the final input.
fn streamed_input(c: &mut Criterion) {
    let rt = runtime();
    let ex = executor();
    let orchestrator = Orchestrator::new(Arc::clone(&ex));
    let text: String =
        (0..1_000_000).map(|i| if i % 64 == 63 { '\n' } else { (b'a' + (i % 26) as u8) as char }).collect();
    let input = serde_json::json!({ "content": text }).to_string();
    let step = input.len().div_ceil(10_000);
    let deltas: Vec<String> = input.as_bytes().chunks(step).map(|c| String::from_utf8(c.to_vec()).unwrap()).collect();
    // The events, already decoded and queued (the decoder's and the network's work
    // is not what is measured).
    let filled = |tool: &str| {
        let (tx, rx) = mpsc::channel(deltas.len() + 2);
        tx.try_send(StreamEvent::Start { slot: 0, id: "b".into(), name: tool.into() }).unwrap();
        for d in &deltas {
            tx.try_send(StreamEvent::Delta { slot: 0, json: d.clone() }).unwrap();
        }
        tx.try_send(StreamEvent::End { slot: 0 }).unwrap();
        rx
    };
    // Partial-input reports are counted: the watched tool gets a handful, not one
    // per delta.
    let streamed = |rx| {
        rt.block_on(async {
            let mut reports = 0usize;
            let results = orchestrator
                .run_streaming(rx, &mut TurnContext::new("."), None, |event| {
                    reports += matches!(event, toolwright::CallEvent::InputProgress { .. }) as usize
                })
                .await;
            assert_eq!(results[0].output.text_content(), "1000000");
            reports
        })
    };
    let one_shot = || black_box(serde_json::from_str::<Blob>(black_box(&input)).unwrap());
    let mut group = c.benchmark_group("stream_1mb_in_10000_deltas");
    group.sample_size(20);
    group.bench_function("baseline_one_shot_parse", |b| b.iter(one_shot));
    group.bench_function("run_streaming", |b| {
        b.iter_batched(|| filled("blob"), streamed, criterion::BatchSize::PerIteration)
    });
    group.bench_function("run_streaming_partial_input", |b| {
        b.iter_batched(|| filled("watched_blob"), streamed, criterion::BatchSize::PerIteration)
    });
    group.finish();
    let (mut base, mut plain, mut watched, mut reports) = (Duration::ZERO, Duration::ZERO, Duration::ZERO, 0);
    for _ in 0..20 {
        let start = Instant::now();
        one_shot();
        base += start.elapsed();
        let rx = filled("blob");
        let start = Instant::now();
        streamed(rx);
        plain += start.elapsed();
        let rx = filled("watched_blob");
        let start = Instant::now();
        reports = streamed(rx);
        watched += start.elapsed();
    }
    println!(
        "stream/interleaved: one-shot parse {:.2} ms; streamed ({} deltas) {:.2} ms, ratio {:.2}; \
         with partial input ({reports} reports) {:.2} ms, ratio {:.2}",
        base.as_secs_f64() * 50.0,
        deltas.len(),
        plain.as_secs_f64() * 50.0,
        plain.as_secs_f64() / base.as_secs_f64(),
        watched.as_secs_f64() * 50.0,
        watched.as_secs_f64() / base.as_secs_f64()
    );
}

criterion_group!(benches, scheduling, parallel_waits, streamed_input);
criterion_main!(benches);
