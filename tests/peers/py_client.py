"""Drives `toolwright serve` with the official Python MCP SDK's client.

Usage: py_client.py stdio <toolwright binary> <workspace>
       py_client.py http <url>
Checks list, call, bad arguments, unknown tool, a denied call, progress and
cancellation; prints one line per check and exits non-zero on the first failure.
"""

import asyncio
import os
import sys
import time
from contextlib import asynccontextmanager

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError


def check(ok, what, detail=""):
    if not ok:
        print(f"FAIL {what}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok {what}", flush=True)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@asynccontextmanager
async def connect(argv):
    if argv[1] == "stdio":
        params = StdioServerParameters(command=argv[2], args=["serve", "--cwd", argv[3]], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                yield session
    else:
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(argv[2]) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                yield session


async def main(argv):
    workspace = argv[3] if argv[1] == "stdio" else os.environ["WORKSPACE"]
    async with connect(argv) as session:
        await session.initialize()
        listed = await session.list_tools()
        names = [t.name for t in listed.tools]
        check(names == sorted(names) and {"read_file", "shell", "edit_file"} <= set(names), "tools/list", names)
        read_file = next(t for t in listed.tools if t.name == "read_file")
        check(read_file.annotations.read_only_hint is True, "read_file is read-only", read_file.annotations)
        check(read_file.input_schema.get("type") == "object" and "path" in read_file.input_schema["properties"], "inputSchema inlined", read_file.input_schema)
        shell = next(t for t in listed.tools if t.name == "shell")
        check(shell.annotations.destructive_hint is True, "shell is destructive", shell.annotations)

        result = await session.call_tool("read_file", {"path": "hello.txt"})
        check(not result.is_error and "hello from the workspace" in text_of(result), "tools/call read_file", result)

        bad = await session.call_tool("read_file", {"path": 5})
        check(bad.is_error and "path" in text_of(bad), "bad arguments are an isError result", bad)

        try:
            await session.call_tool("no_such_tool", {})
            check(False, "unknown tool is a protocol error", "no error raised")
        except MCPError as e:
            check(e.error.code == -32602 and "no_such_tool" in e.error.message, "unknown tool is a protocol error", e.error)

        # (acceptEdits approves `rm` inside the workspace, as Claude Code does; this asks.)
        denied = await session.call_tool("shell", {"command": "python3 -c 'import shutil; shutil.rmtree(\"precious\")'"})
        check(denied.is_error and "approval" in text_of(denied), "an asked call is denied", text_of(denied))
        check(os.path.exists(os.path.join(workspace, "precious")), "the denied command did not run")

        reports = []

        async def on_progress(progress, total, message):
            reports.append((progress, message))

        ran = await session.call_tool(
            "shell",
            {"command": "echo one; sleep 0.7; echo two; sleep 0.7; echo three"},
            progress_callback=on_progress,
        )
        check(not ran.is_error and "three" in text_of(ran), "shell runs", ran)
        check(len(reports) >= 2 and any("one" in (m or "") for _, m in reports), "progress notifications", reports)
        values = [p for p, _ in reports]
        check(values == sorted(values), "progress grows", values)

        # The command is found by its sleep's unique duration in this machine's /proc:
        # sandboxed, it runs in a PID namespace where its own pids mean nothing here.
        marker = f"30.{os.getpid()}"

        def running():
            found = []
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        args = f.read().split(b"\0")
                    with open(f"/proc/{entry}/stat") as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if marker.encode() in args and state != "Z":
                    found.append(int(entry))
            return found

        started = time.monotonic()
        try:
            await session.call_tool("shell", {"command": f"touch started.txt; sleep {marker}"}, read_timeout_seconds=1.5)
            check(False, "cancellation", "the call finished")
        except Exception:
            pass
        check(time.monotonic() - started < 10, "cancelled call returns promptly")
        check(os.path.exists(os.path.join(workspace, "started.txt")), "the command ran", None)
        deadline = time.monotonic() + 10
        pid = running()
        while pid and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            pid = running()
        check(not pid, "notifications/cancelled killed the command", pid)

        # The session still works after a cancellation.
        again = await session.call_tool("read_file", {"path": "hello.txt"})
        check(not again.is_error, "calls after a cancellation", again)


asyncio.run(main(sys.argv))
print("all checks passed")
