//! Per-call cost of toolwright's MCP server against an equivalent rmcp
//! `#[tool_router]` server: the same no-op tool, the same rmcp client, the same
//! in-process transport (a tokio duplex pipe), with 1 and 150 tools registered.
//! toolwright's call runs its whole pipeline (parse, validate, permission check,
//! timeout, output limit); rmcp's is its router's parse and call.
//!
//! Both sides run on a current-thread runtime (the figure to compare: a
//! multi-thread one's timings are bimodal for both) and on a two-worker
//! multi-thread one (reported apart, with its spread); by criterion, and then in
//! alternating blocks in one loop, whose ratio is the one BENCHMARKS.md records.
//!
//! Run: `cargo bench --bench mcp`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;
#[path = "common/mcp_pair.rs"]
mod mcp_pair;

use common::Noop;
use criterion::{Criterion, criterion_group};
use mcp_pair::{NoopArgs, RmcpOne, client_for, params};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use std::sync::Arc;
use std::time::Duration;
use toolwright::mcp::McpServer;
use toolwright::permission::AllowAll;
use toolwright::prelude::*;
use toolwright::{InputError, PreparedCall, ToolSpec};

/// The rmcp server with the no-op and 149 more tools.
#[derive(Clone)]
struct RmcpMany {
    tool_router: ToolRouter<Self>,
}

macro_rules! many_tools {
    ($($name:ident)*) => {
        #[tool_router]
        impl RmcpMany {
            #[tool(description = "Do nothing.")]
            async fn noop(&self, Parameters(args): Parameters<NoopArgs>) -> String {
                format!("got {}", args.value)
            }
            $(
                #[tool(description = "Filler.")]
                async fn $name(&self, Parameters(args): Parameters<NoopArgs>) -> String {
                    format!("got {}", args.value)
                }
            )*
        }
    };
}

many_tools!(filler_001 filler_002 filler_003 filler_004 filler_005 filler_006 filler_007 filler_008 filler_009 filler_010 filler_011 filler_012 filler_013 filler_014 filler_015 filler_016 filler_017 filler_018 filler_019 filler_020 filler_021 filler_022 filler_023 filler_024 filler_025 filler_026 filler_027 filler_028 filler_029 filler_030 filler_031 filler_032 filler_033 filler_034 filler_035 filler_036 filler_037 filler_038 filler_039 filler_040 filler_041 filler_042 filler_043 filler_044 filler_045 filler_046 filler_047 filler_048 filler_049 filler_050 filler_051 filler_052 filler_053 filler_054 filler_055 filler_056 filler_057 filler_058 filler_059 filler_060 filler_061 filler_062 filler_063 filler_064 filler_065 filler_066 filler_067 filler_068 filler_069 filler_070 filler_071 filler_072 filler_073 filler_074 filler_075 filler_076 filler_077 filler_078 filler_079 filler_080 filler_081 filler_082 filler_083 filler_084 filler_085 filler_086 filler_087 filler_088 filler_089 filler_090 filler_091 filler_092 filler_093 filler_094 filler_095 filler_096 filler_097 filler_098 filler_099 filler_100 filler_101 filler_102 filler_103 filler_104 filler_105 filler_106 filler_107 filler_108 filler_109 filler_110 filler_111 filler_112 filler_113 filler_114 filler_115 filler_116 filler_117 filler_118 filler_119 filler_120 filler_121 filler_122 filler_123 filler_124 filler_125 filler_126 filler_127 filler_128 filler_129 filler_130 filler_131 filler_132 filler_133 filler_134 filler_135 filler_136 filler_137 filler_138 filler_139 filler_140 filler_141 filler_142 filler_143 filler_144 filler_145 filler_146 filler_147 filler_148 filler_149);

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpMany {}

/// Filler tools for toolwright's registry.
struct Filler(ToolSpec);
impl DynTool for Filler {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn input_schema(&self) -> serde_json::Value {
        serde_json::json!({"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]})
    }
    fn prepare(&self, _raw: &[u8]) -> Result<Box<dyn PreparedCall>, InputError> {
        Err(InputError::Data { path: String::new(), message: "filler".into() })
    }
}

fn toolwright_server(tools: usize) -> McpServer {
    let mut builder = Registry::builder().register::<Noop>();
    for i in 1..tools {
        builder =
            builder.register_dyn(Arc::new(Filler(ToolSpec::runtime(format!("filler_{i:03}"), "Filler.", "bench"))));
    }
    // rmcp runs whatever is called: the same here, through the whole pipeline.
    let executor = toolwright::Executor::builder(Arc::new(builder.build().unwrap())).policy(AllowAll).build();
    McpServer::with_executor(Arc::new(executor))
}

fn runtimes() -> [(&'static str, tokio::runtime::Runtime); 2] {
    [
        ("current-thread", tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()),
        ("multi-thread", tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()),
    ]
}

/// A connected pair of clients, toolwright's server and rmcp's, checked to answer alike.
fn clients(
    runtime: &tokio::runtime::Runtime,
    tools: usize,
) -> (RunningService<RoleClient, ()>, RunningService<RoleClient, ()>) {
    let (ours, theirs) = runtime.block_on(async {
        let theirs = if tools == 1 {
            client_for(RmcpOne::new()).await
        } else {
            client_for(RmcpMany { tool_router: RmcpMany::tool_router() }).await
        };
        (client_for(toolwright_server(tools)).await, theirs)
    });
    let a = runtime.block_on(ours.call_tool(params())).unwrap();
    let b = runtime.block_on(theirs.call_tool(params())).unwrap();
    assert_eq!(a.content, b.content);
    assert_eq!(runtime.block_on(theirs.list_all_tools()).unwrap().len(), tools);
    assert_eq!(runtime.block_on(ours.list_all_tools()).unwrap().len(), tools);
    (ours, theirs)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcp_call");
    group.measurement_time(Duration::from_secs(4));
    for (kind, runtime) in runtimes() {
        for tools in [1usize, 150] {
            let (ours, theirs) = clients(&runtime, tools);
            group.bench_function(format!("{kind}/toolwright/{tools}_tools"), |bench| {
                bench.iter(|| runtime.block_on(ours.call_tool(params())).unwrap())
            });
            group.bench_function(format!("{kind}/rmcp/{tools}_tools"), |bench| {
                bench.iter(|| runtime.block_on(theirs.call_tool(params())).unwrap())
            });
        }
    }
    group.finish();
    for (kind, runtime) in runtimes() {
        for tools in [1usize, 150] {
            interleaved(kind, &runtime, tools);
        }
    }
}

/// Blocks of toolwright and rmcp calls alternate in one loop (which goes first
/// alternates too), so machine noise hits both alike: the medians of the
/// per-block times, and the median and quartiles of the per-round ratios.
fn interleaved(kind: &str, runtime: &tokio::runtime::Runtime, tools: usize) {
    const BLOCK: usize = 50;
    const ROUNDS: usize = 200;
    let (ours, theirs) = clients(runtime, tools);
    let block = |client: &RunningService<RoleClient, ()>| {
        let start = std::time::Instant::now();
        runtime.block_on(async {
            for _ in 0..BLOCK {
                std::hint::black_box(client.call_tool(params()).await.unwrap());
            }
        });
        start.elapsed().as_nanos() as f64 / BLOCK as f64
    };
    let (mut a, mut b) = (Vec::with_capacity(ROUNDS), Vec::with_capacity(ROUNDS));
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            a.push(block(&ours));
            b.push(block(&theirs));
        } else {
            b.push(block(&theirs));
            a.push(block(&ours));
        }
    }
    let mut ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
    for v in [&mut a, &mut b, &mut ratios] {
        v.sort_by(f64::total_cmp);
    }
    println!(
        "mcp_call/interleaved/{kind}/{tools}_tools: toolwright {:.1} us, rmcp {:.1} us, ratio {:.3} \
         (per-round median {:.3}, quartiles {:.3}-{:.3}; target at most 1)",
        a[ROUNDS / 2] / 1e3,
        b[ROUNDS / 2] / 1e3,
        a[ROUNDS / 2] / b[ROUNDS / 2],
        ratios[ROUNDS / 2],
        ratios[ROUNDS / 4],
        ratios[3 * ROUNDS / 4]
    );
}

criterion_group!(benches, bench);

/// `MCP_LOOP=toolwright|rmcp N=calls` runs that many calls of one side on a
/// current-thread runtime and exits, for callgrind (instructions per call are
/// repeatable where wall time is not); otherwise criterion and the interleaved loop.
fn main() {
    if let Ok(side) = std::env::var("MCP_LOOP") {
        let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (ours, theirs) = clients(&runtime, 1);
        let client = match side.as_str() {
            "toolwright" => &ours,
            "rmcp" => &theirs,
            other => panic!("MCP_LOOP={other}: expected toolwright or rmcp"),
        };
        runtime.block_on(async {
            for _ in 0..n {
                std::hint::black_box(client.call_tool(params()).await.unwrap());
            }
        });
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
