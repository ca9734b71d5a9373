#!/usr/bin/env bash
# Instructions per call, counted by callgrind (repeatable on a noisy machine), of
# the no-op tool with no hooks and an allowing policy:
# - Executor::execute + an Anthropic tool_result render, against a hand-written
#   match + serde_json parse + the same render (issue 3's figure);
# - Executor::execute alone, and Registry::resolve + call_raw, against a
#   hand-written match + parse with the output as JSON text (issue 21's);
# - one MCP call of the same tool through toolwright's server and through rmcp's
#   `#[tool_router]` server, same client and transport (`benches/mcp.rs`'s
#   MCP_LOOP mode, current-thread runtime).
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release --bench execute_instructions --bench mcp
bin=$(ls -t target/release/deps/execute_instructions-* | grep -v '\.d$' | head -n 1)
mcp_bin=$(ls -t target/release/deps/mcp-* | grep -v '\.d$' | head -n 1)
count() { # mode calls
  MODE=$1 N=$2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,
}
calls=20000
per_call() { echo $(( ($(count "$1" $calls) - $(count "$1" 0)) / calls )); }
b=$(per_call baseline); t=$(per_call toolwright)
h=$(per_call hand); e=$(per_call execute); r=$(per_call resolve)
echo "baseline:   $b instructions/call (match + parse + render)"
echo "toolwright: $t instructions/call (execute + render)"
awk -v t="$t" -v b="$b" 'BEGIN { printf "ratio:      %.3f\n", t / b }'
echo "hand:       $h instructions/call (match + parse, JSON text out)"
echo "execute:    $e instructions/call"
echo "resolve:    $r instructions/call (resolve + call_raw)"
awk -v e="$e" -v r="$r" -v h="$h" 'BEGIN { printf "execute/hand: %.3f (target <= 2)\nresolve/hand: %.3f (target <= 1.3)\n", e / h, r / h }'
mcp_count() { # side calls
  MCP_LOOP=$1 N=$2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$mcp_bin" 2>&1 | sed -n 's/.*refs: *//p' | tr -d ,
}
mcp_calls=2000
mcp_per_call() { echo $(( ($(mcp_count "$1" $mcp_calls) - $(mcp_count "$1" 0)) / mcp_calls )); }
mt=$(mcp_per_call toolwright); mr=$(mcp_per_call rmcp)
echo "mcp toolwright: $mt instructions/call (1 tool, current-thread runtime)"
echo "mcp rmcp:       $mr instructions/call"
awk -v t="$mt" -v r="$mr" 'BEGIN { printf "mcp ratio:  %.3f (target <= 1)\n", t / r }'
