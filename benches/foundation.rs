//! Foundation benchmarks: registry build, definitions rendering (first and cached),
//! and input parsing against a plain `serde_json::from_slice` baseline.
//!
//! Run: `cargo bench --bench foundation`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};
use toolwright::builtin::tools::ReadFile;
use toolwright::{Provider, Registry, parse_input};

/// A typical model call: a path and two numbers.
const TYPICAL_INPUT: &[u8] = br#"{"path": "src/registry/mod.rs", "offset": 120, "limit": 400}"#;

fn registry_build(c: &mut Criterion) {
    c.bench_function("registry/from_inventory", |b| b.iter(|| black_box(Registry::from_inventory().unwrap())));
}

fn rendering(c: &mut Criterion) {
    let mut group = c.benchmark_group("definitions");
    for provider in [Provider::ANTHROPIC, Provider::OpenAiChat { strict: true }, Provider::Gemini, Provider::Mcp] {
        let id = provider.to_string();
        group.bench_function(format!("first/{id}"), |b| {
            b.iter_batched(
                || Registry::from_inventory().unwrap(),
                |registry| black_box(registry.definitions(provider).unwrap()),
                BatchSize::SmallInput,
            )
        });
        let registry = Registry::from_inventory().unwrap();
        registry.definitions(provider).unwrap();
        group.bench_function(format!("cached/{id}"), |b| b.iter(|| black_box(registry.definitions(provider).unwrap())));
        // What "about the same as copying bytes" is measured against.
        let bytes = registry.definitions(provider).unwrap().as_str().to_owned();
        group.bench_function(format!("copy_bytes/{id}"), |b| b.iter(|| black_box(bytes.clone())));
    }
    group.finish();
}

fn parsing(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group.bench_function("baseline_serde_json_from_slice", |b| {
        b.iter(|| black_box(serde_json::from_slice::<ReadFile>(black_box(TYPICAL_INPUT)).unwrap()))
    });
    group.bench_function("toolwright_parse_input", |b| {
        b.iter(|| black_box(parse_input::<ReadFile>(black_box(TYPICAL_INPUT)).unwrap()))
    });
    let registry = Registry::from_inventory().unwrap();
    let tool = registry.get("read_file").unwrap().clone();
    group.bench_function("toolwright_dyn_prepare", |b| {
        b.iter(|| black_box(tool.prepare(black_box(TYPICAL_INPUT)).unwrap()))
    });
    group.finish();
    interleaved_ratio();
}

/// This machine's noise moves a single benchmark by 10-20% between runs, so the
/// parse target (at most 1.1x the baseline) is also measured interleaved: blocks of
/// baseline and toolwright calls alternate in one loop and share the noise.
fn interleaved_ratio() {
    const BLOCK: usize = 256;
    const ROUNDS: usize = 4000;
    let (mut baseline, mut ours) = (Duration::ZERO, Duration::ZERO);
    for round in 0..ROUNDS {
        let time = |f: &dyn Fn()| {
            let start = Instant::now();
            for _ in 0..BLOCK {
                f();
            }
            start.elapsed()
        };
        let base = || drop(black_box(serde_json::from_slice::<ReadFile>(black_box(TYPICAL_INPUT)).unwrap()));
        let tw = || drop(black_box(parse_input::<ReadFile>(black_box(TYPICAL_INPUT)).unwrap()));
        // Alternate which goes first, so neither always gets the warmer cache.
        if round % 2 == 0 {
            baseline += time(&base);
            ours += time(&tw);
        } else {
            ours += time(&tw);
            baseline += time(&base);
        }
    }
    let calls = (BLOCK * ROUNDS) as f64;
    println!(
        "parse/interleaved: baseline {:.1} ns/call, toolwright {:.1} ns/call, ratio {:.3}",
        baseline.as_nanos() as f64 / calls,
        ours.as_nanos() as f64 / calls,
        ours.as_secs_f64() / baseline.as_secs_f64()
    );
}

criterion_group!(benches, registry_build, rendering, parsing);
criterion_main!(benches);
