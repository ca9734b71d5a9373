//! What the calls' spans cost: `Executor::execute` of the no-op with no `tracing`
//! subscriber installed (the spans' callsites are never enabled: the pipeline as if
//! it had none), against the same with a subscriber that exports them through
//! `tracing-opentelemetry` as cli/src/otel.rs composes it, with the metrics layer
//! (a batch processor to an exporter that drops them, so
//! what is measured is building and handing over the spans, not a network), in
//! blocks that alternate in one loop.
//!
//! Run: `cargo bench --bench spans`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;

use common::{INPUT, Noop, runtime};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{Executor, ToolCall, TurnContext};
use tracing_subscriber::{Layer as _, layer::SubscriberExt as _};

/// Counts the spans it is given and drops them.
#[derive(Debug, Clone, Default)]
struct Drop(Arc<AtomicUsize>);

impl SpanExporter for Drop {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.fetch_add(batch.len(), Ordering::Relaxed);
        Ok(())
    }
}

/// Takes the metrics and drops them.
#[derive(Debug)]
struct DropMetrics;

impl opentelemetry_sdk::metrics::exporter::PushMetricExporter for DropMetrics {
    async fn export(&self, _: &opentelemetry_sdk::metrics::data::ResourceMetrics) -> OTelSdkResult {
        Ok(())
    }
    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }
    fn shutdown_with_timeout(&self, _: std::time::Duration) -> OTelSdkResult {
        Ok(())
    }
    fn temporality(&self) -> opentelemetry_sdk::metrics::Temporality {
        opentelemetry_sdk::metrics::Temporality::Cumulative
    }
}

fn main() {
    const BLOCK: usize = 200;
    const ROUNDS: usize = 200;
    let rt = runtime();
    let registry = Registry::builder().register::<Noop>().build().unwrap();
    let ex = Executor::builder(Arc::new(registry)).policy(AllowAll).build();
    let turn = TurnContext::new(".");
    let call = ToolCall::new("c1", "noop", INPUT);
    let exported = Drop::default();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exported.clone()).build();
    // As cli/src/otel.rs composes it: the span layer on toolwright's targets at INFO
    // and above without the metric events, and the metrics layer beside it (read
    // by an exporter that drops them).
    let meters = opentelemetry_sdk::metrics::SdkMeterProvider::builder().with_periodic_exporter(DropMetrics).build();
    let suffix = toolwright::pipeline::telemetry::METRICS_TARGET_SUFFIX;
    let spans = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("toolwright"))
        .with_tracked_inactivity(false)
        .with_target(false)
        .with_filter(tracing_subscriber::filter::filter_fn(move |m| {
            m.target().starts_with("toolwright") && *m.level() <= tracing::Level::INFO && !m.target().ends_with(suffix)
        }));
    let subscriber =
        tracing_subscriber::registry().with(spans).with(tracing_opentelemetry::MetricsLayer::new(meters.clone()));
    let dispatch = tracing::Dispatch::new(subscriber);
    // One traced call first: a callsite first reached with no subscriber in scope
    // is cached as never wanted (tracing's single-dispatcher fast path).
    tracing::dispatcher::with_default(&dispatch, || black_box(rt.block_on(ex.execute(&call, &turn))));
    let block = |traced: bool| {
        let run = || {
            rt.block_on(async {
                for _ in 0..BLOCK {
                    black_box(ex.execute(&call, &turn).await);
                }
            })
        };
        let start = Instant::now();
        if traced {
            tracing::dispatcher::with_default(&dispatch, run)
        } else {
            run()
        }
        start.elapsed().as_nanos() as f64 / BLOCK as f64
    };
    let (mut plain, mut traced) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            plain.push(block(false));
            traced.push(block(true));
        } else {
            traced.push(block(true));
            plain.push(block(false));
        }
    }
    let _ = provider.force_flush();
    for v in [&mut plain, &mut traced] {
        v.sort_by(f64::total_cmp);
    }
    let (p, t) = (plain[ROUNDS / 2], traced[ROUNDS / 2]);
    assert!(exported.0.load(Ordering::Relaxed) > 0, "the spans reached the exporter");
    println!(
        "spans/interleaved: no subscriber {p:.0} ns/call, with the OpenTelemetry layer {t:.0} ns/call, +{:.0} ns, \
         ratio {:.2}",
        t - p,
        t / p
    );
    let _ = provider.shutdown();
    let _ = meters.shutdown();
}
