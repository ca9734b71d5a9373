//! MCP over streamable HTTP on 127.0.0.1, in one process: what authentication
//! costs per call, how the authenticated call compares with the same call over
//! an in-process stdio pipe and with rmcp's own streamable HTTP server, and a
//! load of many clients, each with its own token, for a bounded time.
//!
//! Per call: four clients (rmcp's HTTP client, or its stdio client on a duplex
//! pipe), one per side, call the same no-op tool in blocks that alternate in
//! one loop (the order rotates), so noise hits every side alike; the figure is
//! the median block's time per call and the ratios of the medians.
//!
//! Load: `LOAD_CLIENTS` clients (default 32), each with its own bearer token,
//! call for `LOAD_SECS` seconds (default 5); every call's latency is kept (p50,
//! p99), every error counted (the figure to keep at 0), and the process's resident
//! memory is read before the server starts and at its peak.
//!
//! Run: `cargo bench --bench mcp_http`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

mod common;
#[path = "common/mcp_pair.rs"]
mod mcp_pair;

use common::Noop;
use mcp_pair::{RmcpOne, client_for, params};
use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolwright::mcp::{BearerTokens, HttpLimits, McpServer};
use toolwright::permission::AllowAll;
use toolwright::prelude::*;

type Client = RunningService<RoleClient, ()>;

fn toolwright_server() -> McpServer {
    let registry = Registry::builder().register::<Noop>().build().unwrap();
    let executor = toolwright::Executor::builder(Arc::new(registry)).policy(AllowAll).build();
    McpServer::with_executor(Arc::new(executor))
}

/// A secret per client (`client-N`).
fn secret(n: usize) -> String {
    format!("bench-token-{n:04}-0123456789abcdef")
}

async fn listen() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    (listener, url)
}

/// toolwright's HTTP server, with `tokens` clients' tokens (none: no authentication).
async fn serve_toolwright(tokens: usize) -> String {
    let mut accepted = BearerTokens::default();
    for n in 0..tokens {
        accepted = accepted.with(&format!("client-{n}"), &secret(n)).unwrap();
    }
    let limits = HttpLimits::default().max_sessions(256).max_calls(256).max_connections(512);
    let server = toolwright_server().with_bearer_tokens(accepted).with_http_limits(limits);
    let (listener, url) = listen().await;
    tokio::spawn(server.serve_http_on(listener));
    url
}

/// rmcp's streamable HTTP service behind a plain hyper loop (what its examples do).
async fn serve_rmcp() -> String {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service = Arc::new(StreamableHttpService::new(
        || Ok(RmcpOne::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    let (listener, url) = listen().await;
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let service = Arc::clone(&service);
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let service = Arc::clone(&service);
                    async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, handler).await;
            });
        }
    });
    url
}

async fn http_client(url: &str, token: Option<String>) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap()
}

async fn stdio_client() -> Client {
    client_for(toolwright_server()).await
}

async fn call(client: &Client) -> bool {
    client.call_tool(params()).await.is_ok_and(|r| r.is_error != Some(true))
}

/// A `/proc/self/status` figure in kB (`VmRSS`, `VmHWM`).
fn status_kb(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.trim_start_matches(':').trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or(0)
}

fn per_call(runtime: &tokio::runtime::Runtime) {
    const BLOCK: usize = 20;
    const ROUNDS: usize = 60;
    let clients: Vec<(&str, Client)> = runtime.block_on(async {
        let authenticated = serve_toolwright(1).await;
        let open = serve_toolwright(0).await;
        let rmcp = serve_rmcp().await;
        vec![
            ("authenticated", http_client(&authenticated, Some(secret(0))).await),
            ("open", http_client(&open, None).await),
            ("rmcp", http_client(&rmcp, None).await),
            ("stdio", stdio_client().await),
        ]
    });
    for (name, client) in &clients {
        assert!(runtime.block_on(call(client)), "{name}: the no-op call failed");
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(ROUNDS); clients.len()];
    for round in 0..ROUNDS {
        for k in 0..clients.len() {
            let i = (round + k) % clients.len();
            let start = Instant::now();
            runtime.block_on(async {
                for _ in 0..BLOCK {
                    assert!(call(&clients[i].1).await);
                }
            });
            times[i].push(start.elapsed().as_nanos() as f64 / BLOCK as f64 / 1e3);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let m: Vec<f64> = times.iter_mut().map(median).collect();
    println!(
        "mcp_http/per_call: authenticated {:.1} us, open {:.1} us, rmcp {:.1} us, stdio {:.1} us; \
         authentication {:+.1} us ({:.3}x), against rmcp {:.3}x, against stdio {:.3}x",
        m[0],
        m[1],
        m[2],
        m[3],
        m[0] - m[1],
        m[0] / m[1],
        m[0] / m[2],
        m[0] / m[3]
    );
}

fn load(runtime: &tokio::runtime::Runtime) {
    let clients: usize = std::env::var("LOAD_CLIENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(32);
    let secs: u64 = std::env::var("LOAD_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let before = status_kb("VmRSS");
    let (latencies, errors, calls) = runtime.block_on(async move {
        let url = serve_toolwright(clients).await;
        let mut connected = Vec::new();
        for n in 0..clients {
            connected.push(http_client(&url, Some(secret(n))).await);
        }
        let until = Instant::now() + Duration::from_secs(secs);
        let tasks: Vec<_> = connected
            .into_iter()
            .map(|client| {
                tokio::spawn(async move {
                    let (mut times, mut errors) = (Vec::new(), 0usize);
                    while Instant::now() < until {
                        let start = Instant::now();
                        if call(&client).await {
                            times.push(start.elapsed().as_micros() as u64);
                        } else {
                            errors += 1;
                        }
                    }
                    let _ = client.cancel().await;
                    (times, errors)
                })
            })
            .collect();
        let (mut all, mut errors) = (Vec::new(), 0);
        for task in tasks {
            let (times, e) = task.await.unwrap();
            all.extend(times);
            errors += e;
        }
        let calls = all.len() + errors;
        (all, errors, calls)
    });
    let mut latencies = latencies;
    latencies.sort_unstable();
    let at = |q: f64| latencies.get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)));
    let peak = status_kb("VmHWM");
    println!(
        "mcp_http/load: {clients} clients with their own tokens for {secs} s: {calls} calls ({:.0}/s), {errors} errors, \
         p50 {:.2} ms, p99 {:.2} ms, resident memory {:.1} MB before, {:.1} MB at peak",
        calls as f64 / secs as f64,
        *at(0.5).unwrap_or(&0) as f64 / 1e3,
        *at(0.99).unwrap_or(&0) as f64 / 1e3,
        before as f64 / 1024.0,
        peak as f64 / 1024.0
    );
}

fn main() {
    // reqwest's rustls needs a process-wide crypto provider (toolwright's is ring).
    #[allow(deprecated)] // ring has no post-quantum key exchange (rustls 0.23.48)
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    per_call(&runtime);
    load(&runtime);
}
