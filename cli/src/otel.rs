//! OTLP export of toolwright's spans (the OpenTelemetry GenAI conventions; see
//! docs/running.md), when the standard variables ask for it:
//! spans when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is
//! set and `OTEL_TRACES_EXPORTER` is not `none`, the duration metric likewise with
//! the `METRICS` forms, nothing with `OTEL_SDK_DISABLED=true`. The protocol is
//! `http/protobuf` (the default), `http/json` or `grpc`, from
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (or its per-signal form; gRPC runs on a small
//! runtime of its own, as tonic needs one); `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`
//! (default `toolwright`) and `OTEL_RESOURCE_ATTRIBUTES` are read as the SDK
//! reads them. Spans are batched and flushed when the command ends, by a signal
//! too; the `gen_ai.client.operation.duration` histogram (calls and model requests)
//! goes to `/v1/metrics` the same way.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider, SpanData, SpanProcessor};
use std::sync::OnceLock;
use std::time::Duration;

/// The providers, for a flush from the signal handler.
static PROVIDER: OnceLock<(SdkTracerProvider, SdkMeterProvider)> = OnceLock::new();

/// Spans (and the duration metric) going out over OTLP.
pub struct Export {
    provider: SdkTracerProvider,
    meters: SdkMeterProvider,
    /// gRPC's connections run here (tonic spawns onto the runtime it is built in).
    grpc: Option<tokio::runtime::Runtime>,
}

/// The wire an exporter speaks.
#[derive(Clone, Copy)]
enum Wire {
    Http(Protocol),
    Grpc,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Where one signal (`TRACES`, `METRICS`) goes, as the OpenTelemetry environment
/// variables say.
#[derive(Clone, Copy)]
struct Signal {
    wire: Wire,
}

impl Signal {
    /// `Some` when an endpoint is set for it (its own or the common one) and its
    /// exporter is not `none`.
    fn from_env(signal: &str) -> Option<Signal> {
        let endpoint =
            var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")).or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"));
        let off = var(&format!("OTEL_{signal}_EXPORTER")).is_some_and(|v| v.trim().eq_ignore_ascii_case("none"));
        if endpoint.is_none() || off {
            return None;
        }
        let named = format!("OTEL_EXPORTER_OTLP_{signal}_PROTOCOL");
        let (variable, protocol) = match var(&named) {
            Some(p) => (named, Some(p)),
            None => ("OTEL_EXPORTER_OTLP_PROTOCOL".to_owned(), var("OTEL_EXPORTER_OTLP_PROTOCOL")),
        };
        let wire = match protocol.as_deref().map(str::trim) {
            None | Some("http/protobuf") => Wire::Http(Protocol::HttpBinary),
            Some("http/json") => Wire::Http(Protocol::HttpJson),
            Some("grpc") => Wire::Grpc,
            Some(other) => {
                say!(
                    "toolwright: warning: {variable}={other} is not an OTLP protocol (grpc, http/protobuf or \
                     http/json); sending http/protobuf"
                );
                Wire::Http(Protocol::HttpBinary)
            }
        };
        Some(Signal { wire })
    }
}

impl Export {
    /// The export the environment asks for, if any. A setting that cannot be
    /// honoured is a warning on stderr, never a failure of the command.
    pub fn from_env() -> Option<Export> {
        let disabled = var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        // Each signal goes where its own variables, or the common ones, say.
        let traces = Signal::from_env("TRACES").filter(|_| !disabled);
        let metrics = Signal::from_env("METRICS").filter(|_| !disabled);
        if traces.is_none() && metrics.is_none() {
            return None;
        }
        // reqwest's and tonic's rustls (an https endpoint) need a process-wide provider.
        // ring's provider is deprecated in rustls 0.23.48 (no post-quantum key
        // exchange); it is the one this build has, and no warning reaches users.
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
        let grpc = if [traces, metrics].iter().flatten().any(|s| matches!(s.wire, Wire::Grpc)) {
            match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("toolwright-otlp")
                .enable_all()
                .build()
            {
                Ok(runtime) => Some(runtime),
                Err(e) => {
                    say!("toolwright: warning: the OTLP gRPC exporter cannot start: {e}; nothing is exported");
                    return None;
                }
            }
        } else {
            None
        };
        let entered = grpc.as_ref().map(tokio::runtime::Runtime::enter);
        let exporter = traces.and_then(|signal| {
            let built = match signal.wire {
                Wire::Http(protocol) => {
                    opentelemetry_otlp::SpanExporter::builder().with_http().with_protocol(protocol).build()
                }
                Wire::Grpc => opentelemetry_otlp::SpanExporter::builder().with_tonic().build(),
            };
            built
                .map_err(|e| {
                    say!("toolwright: warning: the OTLP span exporter cannot start: {e}; no spans are exported")
                })
                .ok()
        });
        let metrics = metrics.and_then(|signal| {
            let built = match signal.wire {
                Wire::Http(protocol) => {
                    opentelemetry_otlp::MetricExporter::builder().with_http().with_protocol(protocol).build()
                }
                Wire::Grpc => opentelemetry_otlp::MetricExporter::builder().with_tonic().build(),
            };
            built
                .map_err(|e| {
                    say!("toolwright: warning: the OTLP metric exporter cannot start: {e}; no metrics are exported")
                })
                .ok()
        });
        if exporter.is_none() && metrics.is_none() {
            return None;
        }
        let mut resource = opentelemetry_sdk::Resource::builder();
        let named = var("OTEL_SERVICE_NAME").is_some()
            || var("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|a| a.contains("service.name="));
        if !named {
            resource = resource.with_service_name("toolwright");
        }
        let resource = resource.build();
        // Without a span exporter the spans still run: the duration metric is
        // recorded on them.
        let mut provider = SdkTracerProvider::builder().with_resource(resource.clone());
        if let Some(exporter) = exporter {
            provider = provider.with_span_processor(Arrays(BatchSpanProcessor::builder(exporter).build()));
        }
        let provider = provider.build();
        let mut meters = SdkMeterProvider::builder().with_resource(resource).with_view(duration_view);
        if let Some(metrics) = metrics {
            meters = meters.with_periodic_exporter(metrics);
        }
        let meters = meters.build();
        let _ = PROVIDER.set((provider.clone(), meters.clone()));
        drop(entered);
        Some(Export { provider, meters, grpc })
    }

    /// The layer that hands spans to the exporter.
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        use tracing_subscriber::Layer as _;
        // Busy and idle time, and the tracing target, are no convention's attributes.
        let spans = tracing_opentelemetry::layer()
            .with_tracer(self.provider.tracer("toolwright"))
            .with_tracked_inactivity(false)
            .with_target(false)
            .with_filter(tracing_subscriber::filter::filter_fn(exported));
        spans.and_then(tracing_opentelemetry::MetricsLayer::new(self.meters.clone()))
    }

    /// Sends what is batched and stops (at most a few seconds).
    pub fn shutdown(self) {
        // Side by side: a collector that never answers costs one timeout, not two.
        let meters = self.meters;
        let metrics = std::thread::spawn(move || meters.shutdown_with_timeout(Duration::from_secs(5)));
        if let Err(e) = self.provider.shutdown_with_timeout(Duration::from_secs(5)) {
            say!("toolwright: warning: exporting the last spans: {e}");
        }
        if let Ok(Err(e)) = metrics.join() {
            say!("toolwright: warning: exporting the metrics: {e}");
        }
        // What was to be sent is sent; the background form never blocks or panics
        // in an async context.
        if let Some(runtime) = self.grpc {
            runtime.shutdown_background();
        }
    }
}

/// The duration metric as the conventions define it: unit `s`, its description, and
/// the bucket boundaries they advise (`tracing-opentelemetry` makes a histogram of
/// a name only).
fn duration_view(instrument: &opentelemetry_sdk::metrics::Instrument) -> Option<opentelemetry_sdk::metrics::Stream> {
    if instrument.name() != "gen_ai.client.operation.duration" {
        return None;
    }
    let boundaries = vec![0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
    opentelemetry_sdk::metrics::Stream::builder()
        .with_unit("s")
        .with_description("GenAI operation duration.")
        .with_aggregation(opentelemetry_sdk::metrics::Aggregation::ExplicitBucketHistogram {
            boundaries,
            record_min_max: true,
        })
        .build()
        .ok()
}

/// The attributes the conventions type as arrays of strings, which a `tracing`
/// field cannot carry: the library records their JSON text (`["end_turn"]`).
const ARRAY_ATTRIBUTES: [&str; 1] = ["gen_ai.response.finish_reasons"];

/// Hands spans on to `P` with [`ARRAY_ATTRIBUTES`] turned from JSON text into
/// the string arrays they are.
#[derive(Debug)]
struct Arrays<P>(P);

impl<P: SpanProcessor> SpanProcessor for Arrays<P> {
    fn on_start(&self, span: &mut opentelemetry_sdk::trace::Span, cx: &opentelemetry::Context) {
        self.0.on_start(span, cx);
    }

    fn on_end(&self, mut span: SpanData) {
        for attribute in &mut span.attributes {
            if ARRAY_ATTRIBUTES.contains(&attribute.key.as_str())
                && let opentelemetry::Value::String(text) = &attribute.value
                && let Ok(items) = serde_json::from_str::<Vec<String>>(text.as_str())
            {
                let items = items.into_iter().map(opentelemetry::StringValue::from).collect();
                attribute.value = opentelemetry::Value::Array(opentelemetry::Array::String(items));
            }
        }
        self.0.on_end(span);
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.0.set_resource(resource);
    }
}

/// What goes to the span exporter: toolwright's own spans and events at `INFO` and
/// above. Not the metric events (the metrics layer's), and not other crates' debug
/// events, which would become span events carrying what they saw (a shell parser's
/// tokens are the command: content the conventions export only when asked).
fn exported(metadata: &tracing::Metadata<'_>) -> bool {
    let suffix = toolwright::pipeline::telemetry::METRICS_TARGET_SUFFIX;
    let target = metadata.target();
    *metadata.level() <= tracing::Level::INFO && target.starts_with("toolwright") && !target.ends_with(suffix)
}

/// From the signal handler before an immediate exit: what is batched goes out.
pub fn flush() {
    if let Some((provider, meters)) = PROVIDER.get() {
        let _ = provider.force_flush();
        let _ = meters.force_flush();
    }
}
