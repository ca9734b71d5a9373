"""Compile-time cost of #[tool]: three generated crates of N tools each, built clean
and incrementally in debug, on the same machine in one run.

  tw     toolwright `#[tool]` structs with `impl Tool`
  rmcp   the same tools as rmcp `#[tool_router]` methods over `Parameters<T>` structs
  floor  plain `#[derive(Deserialize, JsonSchema)]` structs and a hand-written `match`

"clean" rebuilds only the generated crate (`cargo clean -p`; dependencies stay
built, as in a real project), "incremental" rebuilds after a one-line edit. The
median of RUNS runs is reported. The crates share one target directory with the
repository and its dev profile, so the dependencies are built once.

Run: python3 benches/compile_time.py [N=100] [RUNS=3]. Results: BENCHMARKS.md.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 100
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
WORK = os.path.join(ROOT, "target", "compile-bench")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))


def fields(i):
    return [("path", "String", f"Path for tool {i}."), ("limit", "Option<u32>", "How many at most."), ("verbose", "bool", "Say more.")]


def tw_crate():
    out = ["use toolwright::prelude::*;\n"]
    for i in range(N):
        out.append(f"/// Tool number {i}: does a small thing with a path.\n#[tool(read_only)]\npub struct Tool{i:03} {{\n")
        for name, ty, doc in fields(i):
            out.append(f"    /// {doc}\n    pub {name}: {ty},\n")
        out.append(f"}}\n\nimpl Tool for Tool{i:03} {{\n    type Output = String;\n"
                   f"    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {{\n"
                   f"        Ok(format!(\"{i} {{}} {{:?}} {{}}\", self.path, self.limit, self.verbose))\n    }}\n}}\n\n")
    out.append("/// Every tool.\npub fn registry() -> Registry {\n    Registry::from_inventory().unwrap()\n}\n")
    return "".join(out), {"toolwright": {"path": ROOT}}


def args_struct(i, derives):
    out = [f"/// Arguments of tool {i}.\n#[derive({derives})]\npub struct Args{i:03} {{\n"]
    for name, ty, doc in fields(i):
        out.append(f"    /// {doc}\n    pub {name}: {ty},\n")
    out.append("}\n\n")
    return "".join(out)


def rmcp_crate():
    out = ["use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};\n"
           "use rmcp::{ServerHandler, tool, tool_handler, tool_router};\n\n"]
    for i in range(N):
        out.append(args_struct(i, "serde::Deserialize, schemars::JsonSchema"))
    out.append("/// The server.\n#[derive(Clone)]\npub struct Server {\n    tool_router: ToolRouter<Self>,\n}\n\n#[tool_router]\nimpl Server {\n")
    for i in range(N):
        out.append(f"    /// Tool number {i}: does a small thing with a path.\n    #[tool]\n"
                   f"    async fn tool{i:03}(&self, Parameters(a): Parameters<Args{i:03}>) -> String {{\n"
                   f"        format!(\"{i} {{}} {{:?}} {{}}\", a.path, a.limit, a.verbose)\n    }}\n")
    out.append("}\n\n#[tool_handler(router = self.tool_router)]\nimpl ServerHandler for Server {}\n\n"
               "/// A server.\npub fn server() -> Server {\n    Server { tool_router: Server::tool_router() }\n}\n")
    return "".join(out), {"rmcp": {"version": "3.11", "default-features": False, "features": ["server", "macros", "schemars"]},
                          "serde": {"version": "1", "features": ["derive"]}, "schemars": {"version": "1"}}


def floor_crate():
    out = []
    for i in range(N):
        out.append(args_struct(i, "serde::Deserialize, schemars::JsonSchema"))
    out.append("/// Runs a call by name.\npub fn dispatch(name: &str, args: &str) -> Result<String, String> {\n    match name {\n")
    for i in range(N):
        out.append(f"        \"tool{i:03}\" => {{\n            let a: Args{i:03} = serde_json::from_str(args).map_err(|e| e.to_string())?;\n"
                   f"            Ok(format!(\"{i} {{}} {{:?}} {{}}\", a.path, a.limit, a.verbose))\n        }}\n")
    out.append("        other => Err(format!(\"unknown tool {other}\")),\n    }\n}\n\n/// Every tool's schema.\n"
               "pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {\n    vec![\n")
    for i in range(N):
        out.append(f"        (\"tool{i:03}\", schemars::schema_for!(Args{i:03})),\n")
    out.append("    ]\n}\n")
    return "".join(out), {"serde": {"version": "1", "features": ["derive"]}, "serde_json": "1", "schemars": {"version": "1"}}


def toml_value(v):
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"'


def write_crate(name, source, deps):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.join(path, "src"))
    with open(os.path.join(path, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "gen_{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n[lib]\npath = "src/lib.rs"\n\n[dependencies]\n')
        for dep, spec in deps.items():
            f.write(f"{dep} = {toml_value(spec)}\n")
        # The repository's dev profile, so its built dependencies are reused.
        f.write('\n[profile.dev]\ndebug = "line-tables-only"\n\n[profile.dev.package."*"]\ndebug = false\n\n[workspace]\n')
    with open(os.path.join(path, "src", "lib.rs"), "w") as f:
        f.write("//! Generated by benches/compile_time.py.\n#![allow(missing_docs, dead_code)]\n" + source)
    return path


def cargo(path, *args):
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET)
    started = time.monotonic()
    subprocess.run(["cargo", *args, "--quiet"], cwd=path, env=env, check=True)
    return time.monotonic() - started


def main():
    crates = {"floor": floor_crate(), "tw": tw_crate(), "rmcp": rmcp_crate()}
    paths = {name: write_crate(name, *crate) for name, crate in crates.items()}
    for name, path in paths.items():
        print(f"building {name}'s dependencies ...", flush=True)
        cargo(path, "build")
    results = {}
    for name, path in paths.items():
        clean, incremental = [], []
        for run in range(RUNS):
            subprocess.run(["cargo", "clean", "-p", f"gen_{name}", "--quiet"], cwd=path, env=dict(os.environ, CARGO_TARGET_DIR=TARGET), check=True)
            clean.append(cargo(path, "build"))
            with open(os.path.join(path, "src", "lib.rs"), "a") as f:
                f.write(f"\n// edit {run}\n")
            incremental.append(cargo(path, "build"))
        results[name] = (statistics.median(clean), statistics.median(incremental))
        print(f"{name}: clean {results[name][0]:.2f} s, incremental {results[name][1]:.2f} s (runs: {', '.join(f'{c:.2f}' for c in clean)})", flush=True)
    floor_clean = results["floor"][0]
    print(f"\n| crate ({N} tools) | clean | incremental | per tool above the floor (clean) | vs rmcp (clean) |")
    print("|---|---|---|---|---|")
    for name in ["floor", "tw", "rmcp"]:
        clean, incremental = results[name]
        per_tool = (clean - floor_clean) / N * 1000
        ratio = clean / results["rmcp"][0]
        print(f"| {name} | {clean:.2f} s | {incremental:.2f} s | {per_tool:+.1f} ms | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
