#!/usr/bin/env bash
# The MCP conformance suite's client command (cli/tests/mcp_login.rs): the suite starts
# an authorization server and an MCP server for a scenario and runs this with the MCP
# server's URL; it logs in with `toolwright mcp login` as a user would, with a config
# naming that URL, a "browser" that follows the authorization server's redirect to the
# login's listener on 127.0.0.1, and a credentials file of its own.
set -eu
url="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
context="${MCP_CONFORMANCE_CONTEXT:-}"
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1] or "{}").get(sys.argv[2],""))' "$context" "$1"; }
client_id=$(field client_id)
secret=$(field client_secret)
# The suite's stand-in for a hosted Client ID Metadata Document.
oauth='"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"'
if [ -n "$client_id" ]; then oauth="\"clientId\": \"$client_id\""; fi
# Machine to machine: the client credentials grant, no browser.
machine=""
case "${MCP_CONFORMANCE_SCENARIO:-}" in
    auth/client-credentials-*) oauth="$oauth, \"clientCredentials\": true"; machine=1 ;;
esac
printf '{"mcpServers": {"srv": {"type": "http", "url": "%s", "oauth": {%s}}}}' "$url" "$oauth" >"$dir/mcp.json"
printf '#!/bin/sh\nexec curl -s -o /dev/null -L "$1"\n' >"$dir/browser"
chmod +x "$dir/browser"
export BROWSER="$dir/browser" TOOLWRIGHT_MCP_CREDENTIALS="$dir/credentials.json"
if [ -n "$secret" ]; then export MCP_CLIENT_SECRET="$secret"; fi
"$TOOLWRIGHT" mcp login srv --mcp-config "$dir/mcp.json" --timeout 20
# The login is in a file only its user can read (a machine-to-machine client keeps none).
if [ -z "$machine" ]; then
    [ "$(stat -c %a "$dir/credentials.json")" = 600 ] || { echo "credentials file mode wrong" >&2; exit 1; }
elif [ -e "$dir/credentials.json" ]; then
    echo "the client credentials grant left a file" >&2; exit 1
fi
"$TOOLWRIGHT" mcp list --mcp-config "$dir/mcp.json"
# A call through the mounted server. A 403 insufficient_scope fails it with the command
# to run, and notes the scope; that login asks for it (step-up), and the call is
# tried once more (a server that keeps refusing is the retry-limit scenario).
call() { "$TOOLWRIGHT" call --cwd "$dir" --yes --mcp-config "$dir/mcp.json" mcp__srv__test-tool '{}' 2>&1; }
if ! out=$(call); then
    echo "$out" >&2
    case "$out" in
        *"mcp login srv"*)
            "$TOOLWRIGHT" mcp login srv --mcp-config "$dir/mcp.json" --timeout 20
            call >&2 || true ;;
    esac
fi
