"""Medians and spreads of every figure that benches/report.sh logged, over its runs.

Reads target/bench-report/run*/<bench>.log and prints one markdown table: for each
criterion benchmark, the median of the runs' point estimates with the lowest and
highest; for each other line that reports numbers (the interleaved loops, ratios,
instruction counts, compile times), the line with each number as its median across
the runs and, where the runs differ, its spread in brackets. Lines are matched
across runs by their words, with the numbers taken out.

Run: python3 benches/summarize.py [target/bench-report]
"""

import glob
import os
import re
import statistics
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "target", "bench-report")
# A number, not a digit inside a name (`1_tools`, `search_1000`, `run2`).
NUMBER = re.compile(r"(?<![\w/.])\d[\d,]*(?:\.\d+)?(?!\w*_)")
CRITERION = re.compile(r"^(\S+)?\s*time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")
UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
# Lines that say what something costs or how it compares; progress chatter is not.
FIGURE = re.compile(r"ratio|interleaved|instructions|toolwright|baseline|first request|ranking|prefix|per tool|confined|"
                    r"fixed cost|incremental|^\| \w|bounded/|growth|target")


def number(text):
    return float(text.replace(",", ""))


def read(path):
    criterion, lines, last_name = {}, {}, None
    for raw in open(path, errors="replace"):
        line = raw.rstrip("\n")
        m = CRITERION.match(line)
        if m:
            # A time belongs to the name just before it, never to an older one.
            name, last_name = m.group(1) or last_name, None
            if name:
                criterion[name] = number(m.group(2)) * UNITS.get(m.group(3), 1.0)
            continue
        if re.match(r"^[A-Za-z_][\w.-]*/\S+$", line.strip()):
            last_name = line.strip()
            continue
        if not FIGURE.search(line) or not NUMBER.search(line) or line.startswith(("Benchmarking", "Found", "Warning", "  ")):
            continue
        # Lines alike but for their numbers (`with 10 tools`, `with 1000 tools`; `round
        # 1`, `round 2`) are told apart by their order in the log.
        text = NUMBER.sub("{}", line)
        seen = sum(1 for t, _ in lines if t == text)
        lines[(text, seen)] = [number(n) for n in NUMBER.findall(line)]
    return criterion, lines


def spread(values, fmt):
    med = statistics.median(values)
    if min(values) == max(values):
        return fmt(med)
    return f"{fmt(med)} [{fmt(min(values))}-{fmt(max(values))}]"


def human_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    runs = sorted(glob.glob(os.path.join(OUT, "run*")))
    if not runs:
        sys.exit(f"no runs under {OUT}: run benches/report.sh first")
    logs = sorted({os.path.basename(p) for run in runs for p in glob.glob(os.path.join(run, "*.log"))})
    print(f"{len(runs)} runs in {OUT}; each figure is the median of the runs, [lowest-highest] where they differ.\n")
    for log in logs:
        per_run = [read(os.path.join(run, log)) for run in runs if os.path.exists(os.path.join(run, log))]
        print(f"### {log[:-4]} ({len(per_run)} runs)\n")
        names = sorted({n for c, _ in per_run for n in c})
        if names:
            print("| benchmark | median of the runs [spread] |\n|---|---|")
            for name in names:
                values = [c[name] for c, _ in per_run if name in c]
                print(f"| {name} | {spread(values, human_ns)} |")
            print()
        keys = []
        for _, lines in per_run:
            keys.extend(k for k in lines if k not in keys)
        for key in keys:
            rows = [lines[key] for _, lines in per_run if key in lines]
            columns = list(zip(*rows))
            parts = iter(spread(list(col), lambda v: f"{v:,.3f}".rstrip("0").rstrip(".")) for col in columns)
            print("- " + re.sub(r"\{\}", lambda _: next(parts, "?"), key[0]) + (f" ({len(rows)} runs)" if len(rows) != len(per_run) else ""))
        print()


if __name__ == "__main__":
    main()
