"""Answers the questions a running tool asks, with the official MCP Python SDK's client.

Usage: python ask_client.py stdio <server command> [args...]
       python ask_client.py http <url>

Against the `ask-mcp` test server (tests/src/bin/ask-mcp.rs): a client with an
elicitation_callback, a sampling_callback and a list_roots_callback calls `delete_file` (the tool
asks for a confirmation form, which the callback accepts), `name_colour` (the tool asks the
client's model, which the callback plays) and `roots`; then a second client without callbacks
calls `delete_file` again (the tool cannot ask: it gets the capability error). Prints one JSON
object for tests/tests/python_client_questions.rs to compare exactly.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def session_report(read, write, report):
    asked = {}

    async def on_elicit(context, params):
        asked["elicitation"] = dump(params)
        return types.ElicitResult(action="accept", content={"confirm": True, "reason": "tidy up"})

    async def on_sample(context, params):
        asked["sampling"] = dump(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="coral"),
            model="python-model",
            stop_reason="endTurn",
        )

    async def on_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])

    async with ClientSession(
        read,
        write,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
    ) as session:
        await session.initialize()
        report["delete_file"] = dump(await session.call_tool("delete_file", {"path": "/tmp/old.log"}))
        report["name_colour"] = dump(await session.call_tool("name_colour", {"hex": "#ff7f50"}))
        report["roots"] = dump(await session.call_tool("roots", {}))
    report["asked"] = asked


async def plain_report(read, write, report):
    async with ClientSession(read, write) as session:
        await session.initialize()
        report["without_callbacks"] = dump(
            await session.call_tool("delete_file", {"path": "/tmp/old.log"})
        )


async def main(mode, rest):
    report = {}
    for run in (session_report, plain_report):
        if mode == "stdio":
            params = StdioServerParameters(command=rest[0], args=rest[1:])
            async with stdio_client(params) as (read, write):
                await run(read, write, report)
        else:
            async with create_mcp_http_client() as http:
                async with streamable_http_client(rest[0], http_client=http) as (read, write):
                    await run(read, write, report)
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
