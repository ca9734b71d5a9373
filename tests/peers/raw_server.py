"""A hand-written stdio MCP server that breaks the protocol on purpose, for
toolwright's mount tests: no SDK, so it can list what an SDK would refuse.

Tools listed: `echo` (good), `stringy` (an inputSchema that is a string), `deep`
(a schema nested 100 levels), `mute` (answers, then never reads stdin again),
`measure` (an outputSchema; `mode` good, wrong or missing decides whether its
structuredContent fits, does not, or is absent).
With RAW_NO_INIT=1 it never answers `initialize`; with RAW_ONLY_STRINGY=1 it lists
only `echo` and `stringy` (a list the SDK's types take whole as an unknown result);
with RAW_DEAF_AFTER=N it stops reading and answering after N tool calls, without
blocking its writer.
"""

import json
import os
import sys
import time


def deep_schema(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


TOOLS = [
    {"name": "echo", "description": "Echo `text`.",
     "icons": [{"src": "https://example.com/echo.png"}, {"src": "http://insecure.example.com/echo.png"}],
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "stringy", "description": "Its schema is a string.", "inputSchema": "not a schema"},
    {"name": "deep", "description": "Nested 100 levels.", "inputSchema": deep_schema(100)},
    {"name": "mute", "description": "Answers, then stops reading.", "inputSchema": {"type": "object"}},
    {"name": "measure", "description": "Measure the temperature.",
     "inputSchema": {"type": "object", "properties": {"mode": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}},
]

STRUCTURED = {"good": {"celsius": 21.5}, "wrong": {"celsius": "warm"}, "missing": None}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    calls = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, id_ = message.get("method"), message.get("id")
        if id_ is None:
            continue
        if method == "initialize":
            if os.environ.get("RAW_NO_INIT") == "1":
                continue
            send({"jsonrpc": "2.0", "id": id_, "result": {
                "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "0"}}})
        elif method == "tools/list":
            tools = TOOLS[:2] if os.environ.get("RAW_ONLY_STRINGY") == "1" else TOOLS
            send({"jsonrpc": "2.0", "id": id_, "result": {"tools": tools}})
        elif method == "tools/call":
            calls += 1
            if calls > int(os.environ.get("RAW_DEAF_AFTER", "0") or 0) > 0:
                time.sleep(3600)
            name = message["params"]["name"]
            args = message["params"].get("arguments") or {}
            text = args.get("text", "muted") if name in ("echo", "mute") else "?"
            result = {"content": [{"type": "text", "text": text}]}
            if name == "measure":
                structured = STRUCTURED.get(args.get("mode"))
                result["content"] = [{"type": "text", "text": json.dumps(structured)}]
                if structured is not None:
                    result["structuredContent"] = structured
            send({"jsonrpc": "2.0", "id": id_, "result": result})
            if name == "mute":
                time.sleep(3600)
        else:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no such method"}})


main()
