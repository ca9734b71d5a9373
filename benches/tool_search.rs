//! Deferred tools at scale: 1,000 runtime tools shaped like MCP servers' (25
//! services, their resources, the usual verbs, parameters with descriptions).
//!
//! Reports, before timing: the first request's definitions with every tool
//! deferred as a share of all 1,000 rendered eagerly (target at most 3%), the
//! ranking's top-1 and top-5 on task phrases that avoid the tools' own words, and
//! that loading keeps the previous bytes a prefix. Then times, interleaved in one
//! process: one search over the 1,000 (target at most 1 ms); loading five tools
//! and rendering the pool again, against rendering a pool of those five from
//! scratch (target: no more), by criterion and interleaved in one loop.
//!
//! Run: `cargo bench --bench tool_search`

#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;
use std::sync::Arc;
use toolwright::deferred::{Budget, Deferral, ToolSession};
use toolwright::{
    BoxFuture, Defer, DynTool, Extensions, Flags, InputError, PreparedCall, Profile, Provider, Registry, ToolContext,
    ToolError, ToolOutput, ToolSpec, TurnContext,
};

const SERVICES: &[(&str, &[&str])] = &[
    ("github", &["issue", "pull_request", "repository", "branch", "release", "workflow", "gist"]),
    ("gitlab", &["merge_request", "pipeline", "project", "issue", "snippet"]),
    ("slack", &["message", "channel", "reaction", "user", "reminder", "file"]),
    ("jira", &["issue", "sprint", "board", "comment", "worklog"]),
    ("linear", &["issue", "project", "cycle", "team", "label"]),
    ("notion", &["page", "database", "block", "comment"]),
    ("stripe", &["customer", "invoice", "payment_intent", "subscription", "refund", "product"]),
    ("postgres", &["table", "query", "index", "schema", "role"]),
    ("gdrive", &["file", "folder", "permission", "revision"]),
    ("gmail", &["email", "draft", "label", "thread", "filter"]),
    ("calendar", &["event", "calendar", "attendee", "reminder"]),
    ("kubernetes", &["pod", "deployment", "service", "namespace", "secret", "configmap"]),
    ("docker", &["container", "image", "volume", "network"]),
    ("aws_s3", &["bucket", "object", "policy", "lifecycle_rule"]),
    ("sentry", &["issue", "event", "project", "release", "alert_rule"]),
    ("datadog", &["monitor", "dashboard", "metric", "log", "incident"]),
    ("hubspot", &["contact", "deal", "company", "ticket", "note"]),
    ("shopify", &["order", "product", "customer", "inventory_item", "discount"]),
    ("twilio", &["sms", "call", "phone_number", "recording"]),
    ("figma", &["file", "comment", "component", "frame"]),
    ("confluence", &["page", "space", "attachment", "comment"]),
    ("zendesk", &["ticket", "user", "organization", "macro"]),
    ("airtable", &["record", "table", "base", "view"]),
    ("spotify", &["playlist", "track", "album", "artist"]),
    ("weather", &["forecast", "alert", "observation"]),
];

/// Verb, how its description says it, and a task phrase that avoids both words.
const VERBS: &[(&str, &str, &str)] = &[
    ("create", "Create a new", "make a fresh"),
    ("list", "List all", "show me every"),
    ("get", "Get the details of a", "look up one"),
    ("update", "Update an existing", "change the fields of my"),
    ("delete", "Delete a", "remove this"),
    ("search", "Search for", "find"),
];

fn human(resource: &str) -> String {
    resource.replace('_', " ")
}

/// `(name, description, schema)` for the 1,000 tools.
fn catalog() -> Vec<(String, String, Value)> {
    let mut tools = Vec::new();
    'all: for round in 0.. {
        for (service, resources) in SERVICES {
            for resource in *resources {
                for (verb, says, _) in VERBS {
                    let name = if round == 0 {
                        format!("mcp__{service}__{verb}_{resource}")
                    } else {
                        format!("mcp__{service}_{round}__{verb}_{resource}")
                    };
                    let description = format!(
                        "{says} {} in {service}. Returns the {} as JSON with its id, timestamps and owner.",
                        human(resource),
                        human(resource)
                    );
                    let schema = json!({"type": "object", "properties": {
                        format!("{resource}_id"): {"type": "string", "description": format!("The {} id", human(resource))},
                        "workspace": {"type": "string", "description": format!("The {service} workspace or account")},
                        "limit": {"type": "integer", "description": "How many results at most"}
                    }, "required": ["workspace"]});
                    tools.push((name, description, schema));
                    if tools.len() == 1000 {
                        break 'all;
                    }
                }
            }
        }
    }
    tools
}

struct Catalogued {
    spec: ToolSpec,
    schema: Value,
}

impl DynTool for Catalogued {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn input_schema(&self) -> Value {
        self.schema.clone()
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        Ok(Box::new(Nothing))
    }
}

struct Nothing;

impl PreparedCall for Nothing {
    fn flags(&self) -> Flags {
        Flags::NONE
    }
    fn validate(&self, _cx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn call<'a>(self: Box<Self>, _cx: &'a ToolContext) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::text("")) })
    }
}

fn registry(tools: &[(String, String, Value)], defer: Defer) -> Registry {
    let registry = Registry::builder().build().unwrap();
    for (name, description, schema) in tools {
        let mut spec = ToolSpec::runtime(name.clone(), description.clone(), "bench");
        spec.defer = defer;
        registry.register(Arc::new(Catalogued { spec, schema: schema.clone() })).unwrap();
    }
    registry
}

fn turn(session: &ToolSession) -> TurnContext {
    let mut extensions = Extensions::new();
    extensions.insert(session.clone());
    TurnContext::new(".").with_extensions(extensions).with_provider(PROVIDER)
}

const PROVIDER: Provider = Provider::Anthropic { strict: false, cache_control: false };

/// Task phrases for the first service's tools, in other words than theirs.
fn queries() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (service, resources) in SERVICES {
        for resource in *resources {
            for (verb, _, phrase) in VERBS {
                out.push((
                    format!("{phrase} {} on {service}", human(resource)),
                    format!("mcp__{service}__{verb}_{resource}"),
                ));
            }
        }
    }
    out
}

fn report(tools: &[(String, String, Value)]) {
    let eager = registry(tools, Defer::Never);
    let all = eager.definitions(PROVIDER).unwrap().as_str().len();
    let deferred = registry(tools, Defer::Always);
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    session.install(&deferred).unwrap();
    let pool = deferred.pool(&turn(&session), &Profile::main_agent(), &[]);
    let first = pool.definitions(PROVIDER).unwrap().as_str().to_owned();
    println!(
        "first request: {} bytes of {} eager ({:.2}% of the tokens; target at most 3%)",
        first.len(),
        all,
        100.0 * first.len() as f64 / all as f64
    );
    let (mut top1, mut top5, queries) = (0, 0, queries());
    for (query, want) in &queries {
        let found = session.search(query, false, 5).unwrap();
        top1 += usize::from(found.first().is_some_and(|m| &m.name == want));
        top5 += usize::from(found.iter().any(|m| &m.name == want));
    }
    println!(
        "ranking on {} phrases: top-1 {:.1}%, top-5 {:.1}%",
        queries.len(),
        100.0 * top1 as f64 / queries.len() as f64,
        100.0 * top5 as f64 / queries.len() as f64
    );
    let names: Vec<&str> = tools.iter().take(5).map(|t| t.0.as_str()).collect();
    session.load(names.iter().copied());
    let after = deferred.pool(&turn(&session), &Profile::main_agent(), &[]).definitions(PROVIDER).unwrap();
    println!(
        "after loading five: previous bytes a prefix: {}",
        after.as_str().starts_with(first.strip_suffix(']').unwrap())
    );
}

fn bench(c: &mut Criterion) {
    let tools = catalog();
    report(&tools);
    let deferred = registry(&tools, Defer::Always);
    let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
    session.install(&deferred).unwrap();
    let _ = deferred.pool(&turn(&session), &Profile::main_agent(), &[]);
    let mut group = c.benchmark_group("tool_search");
    group.bench_function("search_1000", |b| {
        b.iter(|| black_box(session.search(black_box("change the fields of my deal on hubspot"), false, 5).unwrap()))
    });
    group.bench_function("search_regex_1000", |b| {
        b.iter(|| black_box(session.search(black_box("hubspot.*deal"), true, 5).unwrap()))
    });
    // The pool alone: walking 1,000 entries to split sent from deferred.
    group.bench_function("pool_1000_deferred", |b| {
        b.iter(|| black_box(deferred.pool(&turn(&session), &Profile::main_agent(), &[]).len()))
    });
    let five: Vec<(String, String, Value)> = tools.iter().skip(100).take(5).cloned().collect();
    // Loading five into a fresh session and rendering its pool, against a
    // registry of only those five rendered from scratch (a fresh registry each
    // time, so nothing is cached on either side).
    group.bench_function("load_five_and_render", |b| {
        b.iter_batched(
            || {
                let registry = registry(&tools, Defer::Always);
                let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
                session.install(&registry).unwrap();
                let _ = registry.pool(&turn(&session), &Profile::main_agent(), &[]).definitions(PROVIDER).unwrap();
                (registry, session)
            },
            |(registry, session)| {
                session.load(five.iter().map(|t| t.0.as_str()));
                let pool = registry.pool(&turn(&session), &Profile::main_agent(), &[]);
                black_box(pool.definitions(PROVIDER).unwrap());
                // Dropped after timing: the registries' teardown is neither side's cost.
                (registry, session, pool)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("render_five_from_scratch", |b| {
        b.iter_batched(
            || registry(&five, Defer::Never),
            |registry| {
                let pool = registry.pool(&TurnContext::new(".").with_provider(PROVIDER), &Profile::main_agent(), &[]);
                black_box(pool.definitions(PROVIDER).unwrap());
                (registry, pool)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
    interleaved(&tools, &five);
}

/// Loading five and rendering again against five from scratch, alternating in one
/// loop (which goes first alternates too), each side on a registry built just
/// before: the ratio of the medians, and the spread of the per-round ratios.
fn interleaved(tools: &[(String, String, Value)], five: &[(String, String, Value)]) {
    const ROUNDS: usize = 400;
    let fresh = || {
        let registry = registry(tools, Defer::Always);
        let session = ToolSession::new(Deferral::default().budget(Budget::Unlimited));
        session.install(&registry).unwrap();
        let _ = registry.pool(&turn(&session), &Profile::main_agent(), &[]).definitions(PROVIDER).unwrap();
        (registry, session)
    };
    let (mut loads, mut scratch) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
    for round in 0..ROUNDS {
        // Both built before either is timed, the small one first: the large
        // one's build leaves neither side's memory warmer.
        let small = registry(five, Defer::Never);
        let (big, session) = fresh();
        let load = || {
            let start = std::time::Instant::now();
            session.load(five.iter().map(|t| t.0.as_str()));
            let pool = big.pool(&turn(&session), &Profile::main_agent(), &[]);
            black_box(pool.definitions(PROVIDER).unwrap());
            (start.elapsed(), pool)
        };
        let from_scratch = || {
            let start = std::time::Instant::now();
            let pool = small.pool(&TurnContext::new(".").with_provider(PROVIDER), &Profile::main_agent(), &[]);
            black_box(pool.definitions(PROVIDER).unwrap());
            (start.elapsed(), pool)
        };
        let (a, b) = if round % 2 == 0 {
            let a = load();
            (a, from_scratch())
        } else {
            let b = from_scratch();
            (load(), b)
        };
        loads.push(a.0.as_nanos() as f64);
        scratch.push(b.0.as_nanos() as f64);
    }
    let mut ratios: Vec<f64> = loads.iter().zip(&scratch).map(|(l, s)| l / s).collect();
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (l, s, r) = (median(&mut loads), median(&mut scratch), median(&mut ratios));
    println!(
        "interleaved, {ROUNDS} rounds: load five and render {:.1} us, five from scratch {:.1} us: {:.2}x \
         (per-round ratio median {r:.2}x, quartiles {:.2}-{:.2}x; target at most 1x)",
        l / 1e3,
        s / 1e3,
        l / s,
        ratios[ROUNDS / 4],
        ratios[3 * ROUNDS / 4]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
