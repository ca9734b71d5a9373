"""An MCP server that misbehaves on request, for toolwright's mount tests.

Tools: `slow` (sleeps `ms`, reporting progress), `crash` (the process exits
mid-call), `hang` (never answers), `add_tool` (adds a tool and sends
tools/list_changed), `refs` (a $ref-heavy draft-07 schema), `broken` (a schema
whose $ref points nowhere: it must be skipped, the others mounted), `echo`
(read-only per its annotations). Written on the official Python SDK's low-level
server so the schemas are exactly what is listed here.
"""

import asyncio
import os
import sys

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

EXTRA = []

POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}


def tools():
    listed = [
        types.Tool(
            name="slow",
            description="Sleep for `ms` milliseconds, reporting progress.",
            input_schema={"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]},
        ),
        types.Tool(name="crash", description="Exit the process mid-call.", input_schema={"type": "object"}),
        types.Tool(name="hang", description="Never answer.", input_schema={"type": "object"}),
        types.Tool(
            name="add_tool",
            description="Add a tool named `name` and announce it.",
            input_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        ),
        types.Tool(
            name="refs",
            description="Takes two points through draft-07 definitions.",
            input_schema={
                "type": "object",
                "properties": {"from": {"$ref": "#/definitions/Point"}, "to": {"$ref": "#/definitions/Point"}},
                "required": ["from", "to"],
                "definitions": {"Point": POINT},
            },
        ),
        types.Tool(
            name="broken",
            description="Its schema refers to a definition that does not exist.",
            input_schema={"type": "object", "properties": {"p": {"$ref": "#/$defs/Missing"}}},
        ),
        types.Tool(
            name="echo",
            description="Echo `text`.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False),
        ),
    ]
    for name in EXTRA:
        listed.append(types.Tool(name=name, description=f"Added at run time: {name}.", input_schema={"type": "object"}))
    return listed


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=tools())


def text(value):
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


async def call_tool(ctx, params):
    name = params.name
    args = params.arguments or {}
    if name == "slow":
        ms = int(args["ms"])
        token = ctx.meta.get("progress_token") if isinstance(ctx.meta, dict) else getattr(ctx.meta, "progress_token", None)
        steps = 4
        for i in range(steps):
            await anyio.sleep(ms / 1000 / steps)
            if token is not None:
                await ctx.session.send_progress_notification(token, i + 1, steps, f"step {i + 1}")
        return text(f"slept {ms} ms")
    if name == "crash":
        sys.stdout.flush()
        os._exit(3)
    if name == "hang":
        await anyio.sleep(3600)
    if name == "add_tool":
        EXTRA.append(args["name"])
        await ctx.session.send_tool_list_changed()
        return text(f"added {args['name']}")
    if name == "refs":
        a, b = args["from"], args["to"]
        return text(str(abs(a["x"] - b["x"]) + abs(a["y"] - b["y"])))
    if name == "echo":
        return text(args["text"])
    if name in EXTRA:
        return text(f"{name} ran")
    raise ValueError(f"unknown tool {name}")


server = Server("fault-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options(NotificationOptions(tools_changed=True)))


anyio.run(main)
