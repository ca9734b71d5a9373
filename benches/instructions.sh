#!/usr/bin/env bash
# Instructions per call of Executor::execute (no-op tool, no hooks, rendered as an
# Anthropic tool_result) against a hand-written match + serde_json parse + render,
# counted by callgrind. Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release --bench execute_instructions
bin=$(ls -t target/release/deps/execute_instructions-* | grep -v '\.d$' | head -n 1)
count() { # mode calls
  local base=""; [ "$1" = baseline ] && base=1
  BASELINE=$base N=$2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,
}
calls=20000
b=$(( $(count baseline $calls) - $(count baseline 0) ))
t=$(( $(count toolwright $calls) - $(count toolwright 0) ))
echo "baseline:   $(( b / calls )) instructions/call"
echo "toolwright: $(( t / calls )) instructions/call"
awk -v t="$t" -v b="$b" 'BEGIN { printf "ratio:      %.3f\n", t / b }'
