"""Compile-time cost of #[tool]: generated binary crates of N tools each, built
clean and incrementally in debug (compiled and linked), on the same machine in one
run.

  tw      toolwright `#[tool]` structs with `impl Tool`, on the facade (defaults)
  rmcp    the same tools as rmcp `#[tool_router]` methods over `Parameters<T>` structs
  floor   plain `#[derive(Deserialize, JsonSchema)]` structs and a hand-written `match`
  tw0, floor0   the same with no tools: the fixed cost of each (the facade's
                built-ins, the linking), counted apart from the per-tool cost
  twmcp   the tw crate on the facade with only its `mcp-stdio` feature (no built-in
          tools, no agent clients, no HTTP): what a user who serves tools over
          stdio MCP, as rmcp's crate does, links
  twfull, twfull0   the tw crates with the facade's `full` feature (built-ins, agent,
          MCP over HTTP, subagents), reported beside the defaults

"clean" rebuilds only the generated crate (`cargo clean -p`; dependencies stay
built, as in a real project), "incremental" rebuilds after a one-line edit. Each
round builds every family once, in an order that rotates round by round, so a
slow moment of the machine does not fall on one family. The median of RUNS rounds
is reported with the lowest and highest. The crates share one target directory
with the repository and its dev profile, so the dependencies are built once.

Per tool over the floor: ((tw - tw0) - (floor - floor0)) / N.

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


def tw_crate(n, features=None):
    out = ["use toolwright::prelude::*;\n"]
    for i in range(n):
        out.append(f"/// Tool number {i}: does a small thing with a path.\n#[tool(read_only)]\npub struct Tool{i:03} {{\n")
        for name, ty, doc in fields(i):
            out.append(f"    /// {doc}\n    pub {name}: {ty},\n")
        out.append(f"}}\n\nimpl Tool for Tool{i:03} {{\n    type Output = String;\n"
                   f"    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {{\n"
                   f"        Ok(format!(\"{i} {{}} {{:?}} {{}}\", self.path, self.limit, self.verbose))\n    }}\n}}\n\n")
    out.append("fn main() {\n    let registry = Registry::from_inventory().unwrap();\n    println!(\"{}\", registry.len());\n}\n")
    facade = {"path": ROOT} if features is None else {"path": ROOT, "default-features": False, "features": features}
    return "".join(out), {"toolwright": facade}


def args_struct(i, derives):
    out = [f"/// Arguments of tool {i}.\n#[derive({derives})]\npub struct Args{i:03} {{\n"]
    for name, ty, doc in fields(i):
        out.append(f"    /// {doc}\n    pub {name}: {ty},\n")
    out.append("}\n\n")
    return "".join(out)


def rmcp_crate(n):
    out = ["use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};\n"
           "use rmcp::{ServerHandler, tool, tool_handler, tool_router};\n\n"]
    for i in range(n):
        out.append(args_struct(i, "serde::Deserialize, schemars::JsonSchema"))
    out.append("/// The server.\n#[derive(Clone)]\npub struct Server {\n    tool_router: ToolRouter<Self>,\n}\n\n#[tool_router]\nimpl Server {\n")
    for i in range(n):
        out.append(f"    /// Tool number {i}: does a small thing with a path.\n    #[tool]\n"
                   f"    async fn tool{i:03}(&self, Parameters(a): Parameters<Args{i:03}>) -> String {{\n"
                   f"        format!(\"{i} {{}} {{:?}} {{}}\", a.path, a.limit, a.verbose)\n    }}\n")
    out.append("}\n\n#[tool_handler(router = self.tool_router)]\nimpl ServerHandler for Server {}\n\n"
               "fn main() {\n    let server = Server { tool_router: Server::tool_router() };\n    println!(\"{}\", server.tool_router.list_all().len());\n}\n")
    return "".join(out), {"rmcp": {"version": "3.11", "default-features": False, "features": ["server", "macros", "schemars"]},
                          "serde": {"version": "1", "features": ["derive"]}, "schemars": {"version": "1"}}


def floor_crate(n):
    out = []
    for i in range(n):
        out.append(args_struct(i, "serde::Deserialize, schemars::JsonSchema"))
    out.append("/// Runs a call by name.\npub fn dispatch(name: &str, args: &str) -> Result<String, String> {\n    let _ = args;\n    match name {\n")
    for i in range(n):
        out.append(f"        \"tool{i:03}\" => {{\n            let a: Args{i:03} = serde_json::from_str(args).map_err(|e| e.to_string())?;\n"
                   f"            Ok(format!(\"{i} {{}} {{:?}} {{}}\", a.path, a.limit, a.verbose))\n        }}\n")
    out.append("        other => Err(format!(\"unknown tool {other}\")),\n    }\n}\n\n/// Every tool's schema.\n"
               "pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {\n    vec![\n")
    for i in range(n):
        out.append(f"        (\"tool{i:03}\", schemars::schema_for!(Args{i:03})),\n")
    out.append("    ]\n}\n\nfn main() {\n    println!(\"{} {:?}\", schemas().len(), dispatch(\"tool000\", \"{}\"));\n}\n")
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
        f.write(f'[package]\nname = "gen_{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n[[bin]]\nname = "gen_{name}"\npath = "src/main.rs"\n\n[dependencies]\n')
        for dep, spec in deps.items():
            f.write(f"{dep} = {toml_value(spec)}\n")
        # The repository's dev profile, so its built dependencies are reused.
        f.write('\n[profile.dev]\ndebug = "line-tables-only"\n\n[profile.dev.package."*"]\ndebug = false\n\n[workspace]\n')
    with open(os.path.join(path, "src", "main.rs"), "w") as f:
        f.write("//! Generated by benches/compile_time.py.\n#![allow(missing_docs, dead_code)]\n" + source)
    return path


def cargo(path, *args):
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET)
    started = time.monotonic()
    subprocess.run(["cargo", *args, "--quiet"], cwd=path, env=env, check=True)
    return time.monotonic() - started


def main():
    crates = {
        "floor": floor_crate(N), "tw": tw_crate(N), "rmcp": rmcp_crate(N),
        "floor0": floor_crate(0), "tw0": tw_crate(0), "twmcp": tw_crate(N, ["mcp-stdio"]),
        "twfull": tw_crate(N, ["full"]), "twfull0": tw_crate(0, ["full"]),
    }
    paths = {name: write_crate(name, *crate) for name, crate in crates.items()}
    for name, path in paths.items():
        print(f"building {name}'s dependencies ...", flush=True)
        cargo(path, "build")
    names = list(paths)
    clean = {name: [] for name in names}
    incremental = {name: [] for name in names}
    for run in range(RUNS):
        order = names[run % len(names):] + names[:run % len(names)]
        for name in order:
            path = paths[name]
            subprocess.run(["cargo", "clean", "-p", f"gen_{name}", "--quiet"], cwd=path, env=dict(os.environ, CARGO_TARGET_DIR=TARGET), check=True)
            clean[name].append(cargo(path, "build"))
            with open(os.path.join(path, "src", "main.rs"), "a") as f:
                f.write(f"\n// edit {run}\n")
            incremental[name].append(cargo(path, "build"))
        print(f"round {run + 1}: " + ", ".join(f"{n} {clean[n][-1]:.2f}/{incremental[n][-1]:.2f} s" for n in order), flush=True)
    med = {name: (statistics.median(clean[name]), statistics.median(incremental[name])) for name in names}
    spread = lambda v: f"{min(v):.2f}-{max(v):.2f}"
    print(f"\n| crate ({N} tools, binary) | clean, median (spread) | incremental, median (spread) | vs rmcp (clean / incremental) |")
    print("|---|---|---|---|")
    for name in ["floor0", "floor", "tw0", "tw", "twmcp", "twfull0", "twfull", "rmcp"]:
        (c, i) = med[name]
        print(f"| {name} | {c:.2f} s ({spread(clean[name])}) | {i:.2f} s ({spread(incremental[name])}) | "
              f"{c / med['rmcp'][0]:.2f}x / {i / med['rmcp'][1]:.2f}x |")
    per_tool = lambda tw, tw0, fl, fl0: ((tw - tw0) - (fl - fl0)) / N * 1000
    rounds = [per_tool(clean["tw"][r], clean["tw0"][r], clean["floor"][r], clean["floor0"][r]) for r in range(RUNS)]
    rmcp_rounds = [((clean["rmcp"][r] - clean["floor"][r])) / N * 1000 for r in range(RUNS)]
    print(f"\n#[tool] per tool over the floor (clean, the facade's fixed cost apart): "
          f"{statistics.median(rounds):+.1f} ms median ({min(rounds):+.1f} to {max(rounds):+.1f}); target at most 5 ms")
    full_rounds = [per_tool(clean["twfull"][r], clean["twfull0"][r], clean["floor"][r], clean["floor0"][r]) for r in range(RUNS)]
    print(f"the same with `full`: {statistics.median(full_rounds):+.1f} ms median ({min(full_rounds):+.1f} to {max(full_rounds):+.1f})")
    print(f"facade fixed cost (tw0 - floor0, clean): {med['tw0'][0] - med['floor0'][0]:+.2f} s")
    print(f"rmcp per tool over the floor (clean, no fixed cost taken out): {statistics.median(rmcp_rounds):+.1f} ms median "
          f"({min(rmcp_rounds):+.1f} to {max(rmcp_rounds):+.1f})")
    print(f"incremental, tw against rmcp: {med['tw'][1] / med['rmcp'][1]:.2f}x; target at most 1x")
    print(f"clean, tw against rmcp: {med['tw'][0] / med['rmcp'][0]:.2f}x; target at most 0.8x")
    print(f"with `full`: clean {med['twfull'][0] / med['rmcp'][0]:.2f}x, incremental {med['twfull'][1] / med['rmcp'][1]:.2f}x rmcp")
    print(f"incremental, twmcp (the facade with only `mcp-stdio`) against rmcp: {med['twmcp'][1] / med['rmcp'][1]:.2f}x")


if __name__ == "__main__":
    main()
