"""Drives a stdio MCP server with the official MCP Python SDK and prints what it saw as JSON.

Usage: python stdio_client.py <server command> [args...]

Lists the tools, calls every tool of the `units` example (a success, an `isError` result, a
structured result, a call with progress) and an unknown tool, cancels a long call, then prints
one JSON object on stdout for tests/tests/stdio_python_client.rs to compare exactly.
"""

import asyncio
import json
import sys

import anyio
from catalog import catalog_report
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def protocol_error(request):
    """The JSON-RPC error a request was answered with (the SDK raises it), or its result."""
    try:
        return {"result": dump(await request)}
    except MCPError as error:
        return {"code": error.code, "message": error.message, "data": error.data}


async def cancel_a_call(session):
    """Starts a long `count_to`, abandons it at its first progress (the SDK then sends
    `notifications/cancelled`), and checks the session still answers afterwards."""
    first_progress = anyio.Event()

    async def on_progress(done, total, message):
        first_progress.set()

    outcome = {}
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:

            async def long_call():
                await session.call_tool("count_to", {"n": 100}, progress_callback=on_progress)
                outcome["finished"] = True

            group.start_soon(long_call)
            await first_progress.wait()
            group.cancel_scope.cancel()
    outcome.setdefault("finished", False)
    after = await session.call_tool("to_fahrenheit", {"celsius": 0})
    outcome["next_call"] = dump(after)
    return outcome


async def main(command, args):
    params = StdioServerParameters(command=command, args=args)
    report = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            report["initialize"] = {
                "protocolVersion": init.protocol_version,
                "serverInfo": dump(init.server_info),
                "instructions": init.instructions,
                "capabilities": dump(init.capabilities),
            }
            listed = await session.list_tools()
            report["tools"] = [dump(tool) for tool in listed.tools]

            calls = {}
            calls["hot"] = dump(await session.call_tool("to_fahrenheit", {"celsius": 100}))
            calls["cold"] = dump(await session.call_tool("to_fahrenheit", {"celsius": -300}))
            calls["words"] = dump(
                await session.call_tool("word_stats", {"text": "the quick brown fox"})
            )
            progress = []

            async def on_progress(done, total, message):
                progress.append([done, total, message])

            calls["count"] = dump(
                await session.call_tool("count_to", {"n": 3}, progress_callback=on_progress)
            )
            calls["count_progress"] = progress
            calls["unknown"] = await protocol_error(session.call_tool("no_such_tool", {}))
            calls["bad_arguments"] = dump(
                await session.call_tool("to_fahrenheit", {"celsius": "hot"})
            )
            report["calls"] = calls
            report["catalog"] = await catalog_report(session)
            report["cancel"] = await cancel_a_call(session)
            await session.send_ping()
            report["ping"] = "ok"
    json.dump(report, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
