"""Calls a tool of a Streamable HTTP MCP server with an argument over the server's body cap,
with the official MCP Python SDK, then makes a normal call in the same session; prints what it
saw as one JSON object (for tests/tests/http_oversize_clients.rs).

Usage: python http_oversize_client.py <url> <bytes of the oversized argument>
"""

import asyncio
import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def leaves(error):
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
    else:
        yield error


async def main(url, size):
    report = {}
    try:
        with anyio.fail_after(60):
            async with create_mcp_http_client() as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        try:
                            result = await session.call_tool("word_stats", {"text": "a" * size})
                            report["oversized"] = {"result": dump(result)}
                        except Exception as error:
                            report["oversized"] = {
                                "error": sorted(
                                    {f"{type(leaf).__name__}: {leaf}" for leaf in leaves(error)}
                                )
                            }
                        after = await session.call_tool("to_fahrenheit", {"celsius": 0})
                        report["next_call"] = dump(after)
    except BaseException as error:  # the session died: say how
        report["session_died"] = sorted(
            {f"{type(leaf).__name__}: {leaf}" for leaf in leaves(error)}
        )
    json.dump(report, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
