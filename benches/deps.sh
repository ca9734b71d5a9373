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
# The baseline: rmcp's server with its macros, serde, schemars and tokio, in a scratch
# crate of its own (counted as ours are: normal dependencies, the crate itself included).
scratch=target/deps-rmcp
mkdir -p "$scratch/src"
cat > "$scratch/Cargo.toml" <<'TOML'
[package]
name = "rmcp-baseline"
version = "0.0.0"
edition = "2024"
publish = false
[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "schemars"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
tokio = { version = "1", features = ["rt", "macros"] }
[workspace]
TOML
echo 'fn main() {}' > "$scratch/src/main.rs"
echo "rmcp server+macros (scratch)   $(cd "$scratch" && cargo tree -e normal --prefix none 2>/dev/null | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l)"
