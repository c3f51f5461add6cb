"""Drives a Streamable HTTP MCP server with the official MCP Python SDK and prints what it saw.

Usage: python http_client.py <url> [bearer token]

The same session as stdio_client.py, over `mcp.client.streamable_http`: lists the tools, calls
every tool of the `units` example (a success, an `isError` result, a structured result, a call
with progress, which the server streams as SSE), an unknown tool and bad arguments, abandons a
long call, then prints one JSON object on stdout for tests/tests/http_python_client.rs to
compare exactly. With a token, every request carries `Authorization: Bearer <token>`; the
script first checks that a client without it is refused.
"""

import asyncio
import json
import sys

import anyio
from catalog import catalog_report
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def protocol_error(request):
    """The JSON-RPC error a request was answered with (the SDK raises it), or its result."""
    try:
        return {"result": dump(await request)}
    except MCPError as error:
        return {"code": error.code, "message": error.message, "data": error.data}


async def cancel_a_call(session):
    """Starts a long `count_to`, abandons it at its first progress, and checks the session still
    answers afterwards."""
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


async def refused_without_token(url):
    """What a client without the token gets: the SDK turns the 401's JSON-RPC error body into
    the error `initialize` raises."""
    try:
        with anyio.fail_after(30):
            async with create_mcp_http_client() as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
    except Exception as error:  # the SDK raises its McpError, possibly inside a group
        return sorted({f"{type(leaf).__name__}: {leaf}" for leaf in leaves(error)})
    return "accepted"


def leaves(error):
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
    else:
        yield error


async def session_report(url, token):
    headers = {"Authorization": f"Bearer {token}"} if token else None
    report = {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
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
    return report


async def main(url, token):
    report = await session_report(url, token)
    if token:
        report["without_token"] = await refused_without_token(url)
    json.dump(report, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
