"""The table of current figures at the top of BENCHMARKS.md, from the logs that
benches/report.sh wrote: each row's figure, its baseline measured in the same
process (or the same rounds), the ratio, the target and whether it is met, each the
median of the runs with the lowest and highest in brackets, and the command that
reproduces it.

Run: python3 benches/figures.py [target/bench-report] [--write BENCHMARKS.md]
(with --write, the table replaces what is between the two `figures` markers).
A row whose log is missing or did not print its line says so, never a stale number.
"""

import glob
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
OUT = args[0] if args else os.path.join(ROOT, "target", "bench-report")
BEGIN, END = "<!-- figures: begin (bash benches/report.sh) -->", "<!-- figures: end -->"
UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
CRITERION = re.compile(r"^(\S+)?\s*time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")


def criterion(text):
    """criterion benchmark name -> median estimate in ns"""
    out, last = {}, None
    for line in text.splitlines():
        m = CRITERION.match(line)
        if m:
            name, last = m.group(1) or last, None
            if name:
                out[name] = float(m.group(2)) * UNITS.get(m.group(3), 1.0)
        elif re.match(r"^[A-Za-z_][\w.() -]*/\S.*$", line.strip()) and "time:" not in line:
            last = line.strip()
    return out


def logs(name):
    """the text of `name`.log in every run that has it"""
    if name in ("compile_time", "deps", "test_time"):
        paths = [os.path.join(OUT, f"{name}.log")]
    else:
        paths = sorted(glob.glob(os.path.join(OUT, "run*", f"{name}.log")))
    return [open(p, errors="replace").read() for p in paths if os.path.exists(p)]


def grab(pattern, *groups):
    """fields from the first line matching `pattern` in a log"""
    def get(text):
        m = re.search(pattern, text, re.M)
        return None if m is None else [float(m.group(g).replace(",", "")) for g in groups]
    return get


def minutes(pattern):
    """`time`'s `XmY.Zs` from the first line matching `pattern`, in minutes"""
    def get(text):
        m = re.search(pattern, text, re.M)
        return None if m is None else [int(m.group(1)) + float(m.group(2)) / 60]
    return get


def bench(name, *fields):
    """criterion medians (ns) of benchmark `fields` in a log"""
    def get(text):
        found = criterion(text)
        return None if any(f not in found for f in fields) else [found[f] for f in fields]
    return get


def fmt_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.4g} ns"


def spread(values, show):
    med = statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return show(med)
    return f"{show(med)} [{show(min(values))}-{show(max(values))}]"


def plain(x):
    return f"{x:,.0f}" if x >= 1000 else f"{x:.3g}"


def ms(x):
    return f"{x:.3g} ms"


def ns(x):
    return fmt_ns(x)


def times(x):
    return f"{x:.3g}x"


# issue, what, command, log, extract -> [value, baseline, ratio?], shows, target text,
# met(ratio or value) -> bool. `ratio` is computed value/baseline when the log has none.

def per_tool(x):
    return f"+{x:.1f} ms/tool"


def secs(x):
    return f"{x:.2f} s"


def compile_against_rmcp(family, column):
    """a family's clean (column 1) or incremental (column 2) build and rmcp's, from
    compile_time.py's table"""
    skip = r" [\d.]+ s \([^)]*\) \|" * (column - 1)
    return grab(rf"^\| {family} \|{skip} ([\d.]+) s(?:.*\n)*?^\| rmcp \|{skip} ([\d.]+) s", 1, 2)


ROWS = [
    ("2", "parse a typical input, interleaved", "cargo bench --bench foundation", "foundation",
     grab(r"parse/interleaved: baseline ([\d.]+) ns/call, toolwright ([\d.]+) ns/call, ratio ([\d.]+)", 2, 1, 3),
     (ns, ns, times), "`serde_json::from_slice`", "<= 1.1x", lambda r: r <= 1.1),
    ("2", "cached `definitions` (12 tools), Anthropic", "cargo bench --bench foundation", "foundation",
     bench("foundation", "definitions/cached/Anthropic", "definitions/copy_bytes/Anthropic"),
     (ns, ns, times), "copying the bytes", "about a copy", lambda r: r <= 1.0),
    ("3", "per call, wall clock, interleaved, 10 tools", "cargo bench --bench pipeline", "pipeline",
     grab(r"execute/interleaved: baseline ([\d.]+) ns/call\n.*?toolwright with 10 tools ([\d.]+) ns/call, ratio ([\d.]+)", 2, 1, 3),
     (ns, ns, times), "match + parse + render", "retired (was <= 1.3x)", None),
    ("3", "growth 10 -> 10,000 tools, interleaved", "cargo bench --bench pipeline", "pipeline",
     grab(r"growth 10 -> 10,000 tools ([\d.]+)", 1), (lambda x: f"{x:.3f}x", None, None), "", "retired (was <= 1.1x)", None),
    ("21", "`Executor::execute` alone, wall clock, interleaved", "cargo bench --bench pipeline", "pipeline",
     grab(r"hand-written match ([\d.]+) ns/call\n.*?execute alone ([\d.]+) ns/call, ratio ([\d.]+)", 2, 1, 3),
     (ns, ns, times), "hand-written match + parse, JSON text out", "retired (was <= 2x)", None),
    ("21", "`Registry::resolve` + `call_raw`, the same loop", "cargo bench --bench pipeline", "pipeline",
     grab(r"hand-written match ([\d.]+) ns/call\n(?:.*\n)*?.*?resolve \+ call_raw ([\d.]+) ns/call, ratio ([\d.]+)", 2, 1, 3),
     (ns, ns, times), "the same", "retired (was <= 1.3x)", None),
    ("21", "floor: the hand-written match with its call as one boxed `dyn Future`, timed (what `execute` cannot go below)", "cargo bench --bench pipeline", "pipeline",
     grab(r"hand-written match ([\d.]+) ns/call\n(?:.*\n)*?.*?boxed dyn call, timed ([\d.]+) ns/call, ratio ([\d.]+)", 2, 1, 3),
     (ns, ns, times), "the same", "", None),
    ("3", "per call, instructions", "bash benches/instructions.sh", "instructions",
     grab(r"baseline:\s+(\d+)(?:.*\n)*?toolwright:\s+(\d+)", 2, 1), (plain, plain, times),
     "match + parse + render", "retired (was <= 1.3x)", None),
    ("21", "`Executor::execute` alone, instructions per call", "bash benches/instructions.sh", "instructions",
     grab(r"hand:\s+(\d+)(?:.*\n)*?execute:\s+(\d+)", 2, 1), (plain, plain, times),
     "hand-written match + parse", "retired (was <= 2x)", None),
    ("21", "`Registry::resolve` + `call_raw`, instructions per call", "bash benches/instructions.sh", "instructions",
     grab(r"hand:\s+(\d+)(?:.*\n)*?resolve:\s+(\d+)", 2, 1), (plain, plain, times),
     "the same", "retired (was <= 1.3x)", None),
    ("4", "scheduling overhead, 1,000 no-op calls, interleaved", "cargo bench --bench orchestration", "orchestration",
     grab(r"orchestrate/interleaved: execute ([\d.]+) ns/call, orchestrator ([\d.]+) ns/call, scheduling overhead ([\d.]+)", 2, 1, 3),
     (ns, ns, lambda x: f"+{x:.0f} ns/call"), "`execute` one by one", "<= 2 us/call", lambda r: r <= 2000),
    ("4", "100 safe calls of 20 ms, cap 10", "cargo bench --bench orchestration", "orchestration",
     grab(r"cap 10 ([\d.]+) ms \(ideal ([\d.]+) ms, ratio ([\d.]+)\)", 1, 2, 3), (ms, ms, times), "ideal",
     "<= 1.1x", lambda r: r <= 1.1),
    ("4", "1 MB input in about 10,000 deltas, streamed, interleaved", "cargo bench --bench orchestration", "orchestration",
     grab(r"one-shot parse ([\d.]+) ms; streamed \(\d+ deltas\) ([\d.]+) ms, ratio ([\d.]+)", 2, 1, 3),
     (ms, ms, times), "one `serde_json` parse of the whole", "<= 3x", lambda r: r <= 3.0),
    ("5, 14", "compound command against 100 rules, on its access facts", "cargo bench --bench permissions", "permissions",
     bench("permissions", "permission_decision_100_rules/compound_shell_command"), (ns, None, None), "",
     "<= 5 us", lambda v: v <= 5000),
    ("5, 14", "an `edit_file` path against the same rules", "cargo bench --bench permissions", "permissions",
     bench("permissions", "permission_decision_100_rules/edit_path"), (ns, None, None), "", "", None),
    ("14", "a confined open", "cargo bench --bench confined_open", "confined_open",
     bench("confined_open", "open_a_file/confined_open", "open_a_file/plain_open"), (ns, ns, times),
     "plain `File::open` + `fstat`", "<= 1.5x", lambda r: r <= 1.5),
    ("15", "ten constrained fields against the same ten plain, interleaved", "cargo bench --bench validation", "validation",
     grab(r"ten plain fields ([\d.]+) ns/call, ten constrained ([\d.]+) ns/call, \+([\d.]+) ns", 2, 1, 3),
     (ns, ns, lambda x: f"+{x:.0f} ns"), "ten plain fields", "<= 1 us more", lambda r: r <= 1000),
    ("6", "grep, files with matches, interleaved", "cargo bench --bench builtin_tools", "builtin_tools",
     grab(r"grep/interleaved: toolwright ([\d.]+) ms, rg ([\d.]+) ms, ratio ([\d.]+)", 1, 2, 3), (ms, ms, times),
     "`rg -l`", "<= 1.3x", lambda r: r <= 1.3),
    ("6", "glob `**/*.rs`, interleaved", "cargo bench --bench builtin_tools", "builtin_tools",
     grab(r"glob/interleaved: toolwright ([\d.]+) ms, find ([\d.]+) ms, ratio ([\d.]+)", 1, 2, 3), (ms, ms, times),
     "`find`", "<= 1.5x", lambda r: r <= 1.5),
    ("6", "read 2,000 lines at line 1,000,000 of a 1 GB file, interleaved", "cargo bench --bench builtin_tools", "builtin_tools",
     grab(r"read/interleaved: 1 GB file ([\d.]+) ms, 128 MB file ([\d.]+) ms, ratio ([\d.]+)", 1, 2, 3),
     (ms, ms, times), "the same in a 128 MB file", "flat (<= 1.2x)", lambda r: r <= 1.2),
    ("7, 38", "MCP call, 1 tool, current-thread runtime, alternating blocks", "cargo bench --bench mcp", "mcp",
     grab(r"mcp_call/interleaved/current-thread/1_tools: toolwright ([\d.]+) us, rmcp ([\d.]+) us, ratio ([\d.]+)", 1, 2, 3), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "rmcp `#[tool_router]`", "no slower", lambda r: r <= 1.0),
    ("38", "MCP call over HTTP with a bearer token, against the same server without one, alternating blocks", "cargo bench --bench mcp_http", "mcp_http",
     grab(r"mcp_http/per_call: authenticated ([\d.]+) us, open ([\d.]+) us", 1, 2), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "no token", "<= 1.1x", lambda r: r <= 1.1),
    ("38", "the same authenticated call, against rmcp's plain streamable HTTP server", "cargo bench --bench mcp_http", "mcp_http",
     grab(r"mcp_http/per_call: authenticated ([\d.]+) us, open [\d.]+ us, rmcp ([\d.]+) us", 1, 2), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "rmcp, no authentication", "no slower", lambda r: r <= 1.0),
    ("38", "the same authenticated call, against the same call over stdio (in-process pipe)", "cargo bench --bench mcp_http", "mcp_http",
     grab(r"mcp_http/per_call: authenticated ([\d.]+) us, open [\d.]+ us, rmcp [\d.]+ us, stdio ([\d.]+) us", 1, 2), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "stdio", "", None),
    ("38", "32 clients with their own tokens for 5 s: p99 of a call (p50 next), errors must be 0", "cargo bench --bench mcp_http", "mcp_http",
     grab(r"mcp_http/load: .*?, (\d+) errors, p50 ([\d.]+) ms, p99 ([\d.]+) ms", 3, 2, 1), (ms, lambda x: f"p50 {x:.3g} ms", lambda x: f"{x:.0f} errors"),
     "", "0 errors", lambda r: r == 0),
    ("38", "the same load: resident memory at peak (before the server started next)", "cargo bench --bench mcp_http", "mcp_http",
     grab(r"mcp_http/load: .*?resident memory ([\d.]+) MB before, ([\d.]+) MB at peak", 2, 1), (lambda x: f"{x:.3g} MB",) * 2 + (times,),
     "before", "", None),
    ("39", "a call's spans and duration metric through tracing-opentelemetry as the CLI composes it, against no subscriber, alternating blocks", "cargo bench --bench spans", "spans",
     grab(r"spans/interleaved: no subscriber ([\d.]+) ns/call, with the OpenTelemetry layer ([\d.]+) ns/call, \+(-?[\d.]+) ns", 2, 1, 3),
     (ns, ns, lambda x: f"+{x:.0f} ns"), "no subscriber (spans never enabled)", "", None),
    ("7, 38", "MCP call, 150 tools, the same", "cargo bench --bench mcp", "mcp",
     grab(r"mcp_call/interleaved/current-thread/150_tools: toolwright ([\d.]+) us, rmcp ([\d.]+) us, ratio ([\d.]+)", 1, 2, 3), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "rmcp", "no slower", lambda r: r <= 1.0),
    ("7, 38", "MCP call, 1 tool, instructions per call", "bash benches/instructions.sh", "instructions",
     grab(r"mcp toolwright:\s+(\d+)(?:.*\n)*?mcp rmcp:\s+(\d+)", 1, 2), (plain, plain, times), "rmcp", "no slower",
     lambda r: r <= 1.0),
    ("8, 37", "clean debug binary, 100 tools, `#[tool]` per tool over the floor (the facade's fixed cost apart), default features", "python3 benches/compile_time.py 100 3", "compile_time",
     grab(r"^#\[tool\] per tool over the floor \(clean[^:]*\): \+?(-?[\d.]+) ms median", 1), (per_tool, None, None),
     "", "<= 5 ms/tool", lambda v: v <= 5.0),
    ("8, 37, 50", "the same with `full`", "python3 benches/compile_time.py 100 3", "compile_time",
     grab(r"^the same with `full`: \+?(-?[\d.]+) ms median", 1), (per_tool, None, None),
     "", "", None),
    ("50", "clean debug binary, 100 tools, default features", "python3 benches/compile_time.py 100 3", "compile_time",
     compile_against_rmcp("tw", 1), (secs, secs, times),
     "rmcp", "<= 0.8x", lambda r: r <= 0.8),
    ("50", "the same with `full`", "python3 benches/compile_time.py 100 3", "compile_time",
     compile_against_rmcp("twfull", 1), (secs, secs, times),
     "rmcp", "", None),
    ("8, 37", "the same for rmcp `#[tool_router]`, per tool over the floor (no fixed cost taken out)", "python3 benches/compile_time.py 100 3", "compile_time",
     grab(r"^rmcp per tool over the floor \(clean[^:]*\): \+?(-?[\d.]+) ms median", 1), (per_tool, None, None),
     "", "", None),
    ("8, 37, 50", "incremental debug binary after a one-line edit, 100 tools, default features", "python3 benches/compile_time.py 100 3", "compile_time",
     compile_against_rmcp("tw", 2), (secs, secs, times),
     "rmcp", "<= 1x", lambda r: r <= 1.0),
    ("50", "the same with `full`", "python3 benches/compile_time.py 100 3", "compile_time",
     compile_against_rmcp("twfull", 2), (secs, secs, times),
     "rmcp", "", None),
    ("50", "packages a `#[tool]` crate links, default features", "bash benches/deps.sh", "deps",
     grab(r"^toolwright \(default: lean\)\s+(\d+)(?:.*\n)*?^rmcp server\+macros \(scratch\)\s+(\d+)", 1, 2),
     (plain, plain, times), "rmcp with `server`, `macros`, serde, schemars, tokio", "<= 70", lambda v: v <= 70, "value"),
    ("50", "the README's test command, `cargo test --workspace`, as the report ran it (built and run)", "time cargo test --workspace", "test_time",
     minutes(r"^real\s+(\d+)m([\d.]+)s"), (lambda m: f"{m:.1f} min",), "", "<= 10 min", lambda v: v <= 10),
    ("16", "`read_file` of the line after a 2 GB line, peak RSS", "cargo bench --bench bounded", "bounded",
     grab(r"bounded/read_file end of a 2 GB line, round 1: peak RSS ([\d.]+) MB", 1), (lambda x: f"{x:.1f} MB", None, None), "",
     "under 50 MB", lambda v: v < 50),
    ("16", "`grep` content, `head_limit` 20, 100 MB where every line matches, peak RSS", "cargo bench --bench bounded", "bounded",
     grab(r"bounded/grep 100 MB all matching, round 1: peak RSS ([\d.]+) MB", 1), (lambda x: f"{x:.1f} MB", None, None), "",
     "under 50 MB", lambda v: v < 50),
    ("19", "first request with 1,000 tools deferred", "cargo bench --bench tool_search", "tool_search",
     grab(r"first request: (\d+) bytes of (\d+) eager", 1, 2), (lambda x: f"{x:,.0f} B",) * 2 + (lambda x: f"{100 * x:.2f}%",),
     "all eager", "<= 3%", lambda r: r <= 0.03),
    ("19", "one search over 1,000 tools", "cargo bench --bench tool_search", "tool_search",
     bench("tool_search", "tool_search/search_1000"), (ns, None, None), "", "<= 1 ms", lambda v: v <= 1e6),
    ("19", "load five and render again, interleaved with five from scratch", "cargo bench --bench tool_search", "tool_search",
     grab(r"load five and render ([\d.]+) us, five from scratch ([\d.]+) us: ([\d.]+)x", 1, 2, 3), (lambda x: f"{x:.3g} us",) * 2 + (times,),
     "five from scratch", "no more", lambda r: r <= 1.0),
    ("20, 33", "`true` through the shell tool, confined, against unconfined (round 1 of 3)", "cargo bench --bench sandbox", "sandbox",
     grab(r"round 1: .*? unconfined ([\d.]+) ms, confined ([\d.]+) ms \(added ([\d.]+) ms\)", 2, 1, 3),
     (ms, ms, lambda x: f"+{x:.2f} ms"), "unconfined", "<= 5 ms added", lambda r: r <= 5.0),
    ("20, 33", "the same, over bubblewrap run by hand with the same profile", "cargo bench --bench sandbox", "sandbox",
     grab(r"round 1: .*?toolwright's sandbox adds ([\d.]+) ms over bubblewrap's", 1), (lambda x: f"+{x:.2f} ms", None, None),
     "", "", None),
]


def row(issue, what, command, log, extract, shows, baseline_name, target, met, judge="ratio"):
    texts = logs(log)
    found = [v for v in (extract(t) for t in texts) if v is not None]
    if not found:
        why = "no log" if not texts else "its line was not printed"
        return f"| {issue} | {what} | not measured ({why}) | | | {target} | | `{command}` |"
    cols = list(zip(*found))
    value_show, base_show, ratio_show = (list(shows) + [None, None])[:3]
    value = spread(list(cols[0]), value_show)
    base = ratio = ""
    ratios = None
    if len(cols) >= 2 and base_show:
        base = f"{baseline_name} {spread(list(cols[1]), base_show)}".strip()
        ratios = list(cols[2]) if len(cols) >= 3 else [a / b for a, b in zip(cols[0], cols[1])]
        ratio = spread(ratios, ratio_show or times)
    elif len(cols) >= 3:
        ratios = list(cols[2])
    # Most targets are ratios; a count or a time is judged on its own value.
    judged = statistics.median(ratios if ratios is not None and judge == "ratio" else cols[0])
    verdict = "" if met is None else ("yes" if met(judged) else "**no**")
    return f"| {issue} | {what} | {value} | {base} | {ratio} | {target} | {verdict} | `{command}` |"


def table():
    runs = len(glob.glob(os.path.join(OUT, "run*")))
    head = [
        f"Each figure is the median of {runs} run(s) of `bash benches/report.sh` "
        "(with the lowest and highest in brackets); each baseline is measured in the "
        "same process or the same rounds.",
        "",
        "| issue | what | toolwright | baseline (same run) | ratio | target | met | command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + [row(*r) for r in ROWS])


def main():
    text = table()
    if "--write" in sys.argv:
        path = sys.argv[sys.argv.index("--write") + 1]
        doc = open(path).read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{path} has no `{BEGIN}` ... `{END}` markers")
        before, rest = doc.split(BEGIN, 1)
        _, after = rest.split(END, 1)
        open(path, "w").write(f"{before}{BEGIN}\n{text}\n{END}{after}")
    print(text)


main()
