#!/usr/bin/env bash
# Every benchmark in one go, RUNS times (default 3), for BENCHMARKS.md: each
# criterion bench (their interleaved loops print after criterion's figures) and the
# callgrind instruction counts (the pipeline and an MCP call) go to
# target/bench-report/run<N>/ (OUT= picks another directory), then
# benches/summarize.py prints every figure as the median of the runs with its
# spread, and benches/figures.py rewrites the table at the top of BENCHMARKS.md;
# the macro's compile time runs once with RUNS rounds that rotate the
# families (its own medians and spreads). Takes about 12 minutes a run on 2 cores
# (25 on a slower machine), the compile benchmark 5 more, the timed test command 6.
# Needs valgrind (instructions), ripgrep (`cargo install ripgrep`, for the grep
# comparison; without it that row is skipped with a message) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-target/bench-report}
runs=${RUNS:-3}
benches=${BENCHES:-"foundation pipeline orchestration builtin_tools permissions confined_open validation sandbox mcp mcp_http spans bounded tool_search"}
rm -rf "$out"
for run in $(seq 1 "$runs"); do
    dir="$out/run$run"
    mkdir -p "$dir"
    for bench in $benches; do
        echo "== run $run/$runs: cargo bench --bench $bench"
        cargo bench --bench "$bench" > "$dir/$bench.log" 2>&1
    done
    echo "== run $run/$runs: bash benches/instructions.sh"
    bash benches/instructions.sh > "$dir/instructions.log" 2>&1
done
echo "== bash benches/deps.sh"
bash benches/deps.sh > "$out/deps.log" 2>&1
# The README's test command, timed (SKIP_TEST_TIME=1 leaves it out: it takes minutes).
if [ -z "${SKIP_TEST_TIME:-}" ]; then
    echo "== time cargo test --workspace"
    { time cargo test --workspace > "$out/test_run.log" 2>&1 ; } 2> "$out/test_time.log"
fi
if [ -z "${SKIP_COMPILE:-}" ]; then
    echo "== python3 benches/compile_time.py 100 $runs"
    python3 benches/compile_time.py 100 "$runs" > "$out/compile_time.log" 2>&1
fi
{
    echo "# Benchmark report, $(date -u +%Y-%m-%d), $(nproc) cores, $runs runs"
    echo
    echo "Command: bash benches/report.sh (RUNS=$runs)"
    echo
    python3 benches/summarize.py "$out"
    if [ -f "$out/compile_time.log" ]; then
        echo "### compile time (python3 benches/compile_time.py 100 $runs)"
        echo
        grep -E '^\||^#\[tool\]|^facade|^rmcp per|^incremental' "$out/compile_time.log"
    fi
} | tee "$out/summary.md"
# The table at the top of BENCHMARKS.md, from the same logs.
if [ -z "${NO_WRITE:-}" ]; then
    python3 benches/figures.py "$out" --write BENCHMARKS.md > "$out/figures.md"
    echo "BENCHMARKS.md: figures table regenerated from $out (NO_WRITE=1 leaves it)"
fi
