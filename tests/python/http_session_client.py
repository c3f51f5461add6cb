"""Drives a Streamable HTTP MCP server in sessions mode with the official MCP Python SDK.

Usage: python http_session_client.py <url>

The SDK keeps the `Mcp-Session-Id` that `initialize` answered, sends it back on every request,
opens the session's GET stream after `notifications/initialized`, and sends DELETE on exit.
The script calls `grow` (a tool that adds the tool `grown` through the server's
`tool_server_handle()`), waits for the `notifications/tools/list_changed` the server pushes on
the GET stream, lists the tools again, calls the new one, then abandons a `wait` call at its
first progress (the SDK posts `notifications/cancelled`, which cancels it in the session),
subscribes to the resource `sessions://counter`, calls `touch` (which tells the server's handle
the resource changed) and waits for `notifications/resources/updated` on the GET stream, and
prints one JSON object for tests/tests/http_python_client.rs to compare exactly.
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


async def main(url):
    report = {}
    notifications = []
    list_changed = anyio.Event()
    updated = anyio.Event()

    async def on_message(message):
        method = getattr(message, "method", None)
        if method is not None:
            notifications.append(method)
        if method == "notifications/tools/list_changed":
            list_changed.set()
        if method == "notifications/resources/updated":
            report["updated_uri"] = message.params.uri
            updated.set()

    async with create_mcp_http_client() as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as session:
                init = await session.initialize()
                report["capabilities"] = dump(init.capabilities)
                report["tools_before"] = [tool.name for tool in (await session.list_tools()).tools]
                report["grow"] = dump(await session.call_tool("grow", {}))
                with anyio.fail_after(30):
                    await list_changed.wait()
                report["tools_after"] = [tool.name for tool in (await session.list_tools()).tools]
                report["grown"] = dump(await session.call_tool("grown", {}))

                first_progress = anyio.Event()

                async def on_progress(done, total, message):
                    first_progress.set()

                with anyio.fail_after(30):
                    async with anyio.create_task_group() as group:

                        async def long_call():
                            await session.call_tool("wait", {}, progress_callback=on_progress)

                        group.start_soon(long_call)
                        await first_progress.wait()
                        group.cancel_scope.cancel()
                report["after_cancel"] = dump(await session.call_tool("grown", {}))

                report["subscribe"] = dump(await session.subscribe_resource("sessions://counter"))
                report["touch"] = dump(await session.call_tool("touch", {}))
                with anyio.fail_after(30):
                    await updated.wait()
    report["notifications"] = notifications
    json.dump(report, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
