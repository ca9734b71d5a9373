#!/usr/bin/env bash
# Every benchmark in one go, on this machine, for the summary table in BENCHMARKS.md:
# the criterion benches, the callgrind instruction count, and the macro's compile
# time. Logs go to target/bench-report/. Takes about 25 minutes on 2 cores.
# Needs valgrind (instructions), ripgrep (`cargo install ripgrep`, for the grep
# comparison; without it that row is skipped with a message) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/bench-report
mkdir -p "$out"
for bench in foundation pipeline orchestration builtin_tools permissions mcp bounded tool_search; do
    echo "== cargo bench --bench $bench"
    cargo bench --bench "$bench" 2>&1 | tee "$out/$bench.log" | grep -E "^[a-z_/0-9 ]+time:|^\S.*$" | grep -E "time:|ratio|toolwright|baseline|bounded/|first request|ranking|prefix" || true
done
echo "== bash benches/instructions.sh"
bash benches/instructions.sh 2>&1 | tee "$out/instructions.log"
echo "== python3 benches/compile_time.py 100 3"
python3 benches/compile_time.py 100 3 2>&1 | tee "$out/compile_time.log"
