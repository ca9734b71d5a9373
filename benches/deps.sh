#!/usr/bin/env bash
# The dependency counts in BENCHMARKS.md ("What the library costs a user").
set -euo pipefail
cd "$(dirname "$0")/.."
count() { cargo tree -e normal "$@" --prefix none | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l; }
echo "toolwright (default: lean)      $(count -p toolwright)"
echo "toolwright full                 $(count -p toolwright --features full)"
echo "toolwright builtin              $(count -p toolwright --no-default-features --features builtin)"
echo "toolwright mcp                  $(count -p toolwright --no-default-features --features mcp)"
echo "toolwright mcp-stdio            $(count -p toolwright --no-default-features --features mcp-stdio)"
echo "examples/nested-input           $(count -p toolwright-example-nested-input)"
echo "toolwright-cli                  $(count -p toolwright-cli)"
