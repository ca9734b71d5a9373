#!/usr/bin/env bash
# Installs the real MCP peers that toolwright's MCP tests talk to: the npm servers
# (server-everything, server-filesystem) and the language servers of the LSP tests
# (pyright, typescript-language-server with typescript) into tests/peers/node_modules, the
# MCP conformance suite with the Node.js 22 it needs into tests/peers/conformance, and the
# official Python SDK into target/peers-venv. Pinned versions; idempotent. The
# tests run it themselves (under a lock) when something is missing; .ci/run runs it
# first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/../../target}"
mkdir -p "$target"
bins="mcp-server-everything mcp-server-filesystem pyright-langserver typescript-language-server tsserver"
missing=""
for bin in $bins; do [ -x "$here/node_modules/.bin/$bin" ] || missing="$missing $bin"; done
if [ -n "$missing" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -x "$here/conformance/node_modules/.bin/conformance" ] || [ ! -x "$here/conformance/node_modules/.bin/node" ]; then
    (cd "$here/conformance" && npm ci --no-audit --no-fund --loglevel=error)
fi
venv="$target/peers-venv"
if ! "$venv/bin/python" -c "import mcp, sys; sys.exit(0 if mcp else 1)" 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
