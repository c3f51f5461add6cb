"""Drives the `interop-mcp` test server (tests/src/bin/interop-mcp.rs) with the official MCP
Python SDK's high-level `Client`, at the revision it negotiates, and prints what it saw.

Usage: python interop_client.py <auto|legacy|listen> stdio <server command> [args...]
       python interop_client.py <auto|legacy|listen> http <url>

`auto` is the SDK's default: it probes with `server/discover` and speaks MCP 2026-07-28 to a
server that answers it (else falls back to `initialize`); `legacy` forces the 2025-11-25
`initialize` handshake. Either way the client lists the tools twice (the second list is the
client's to serve from its cache, as the server's `ttlMs` allows), calls `shout`, and calls
`deploy`, whose question (a form) the client's `elicitation_callback` answers: at 2026-07-28
through the SDK's `input_required` retry loop, at 2025-11-25 as a server-to-client request.
`listen` negotiates as `auto` does, lists the tools (cached for a minute), opens a
`subscriptions/listen` stream for tool-list changes, calls `unlock` (which adds the tool
`vault`), waits for the change on the stream, and lists the tools again: the change evicted the
cached list, so the client fetches the new one.

Prints one JSON object for tests/tests/interop_sdk_clients.rs.
"""

import asyncio
import json
import sys

import anyio
from mcp import Client, StdioServerParameters, types


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(mode, transport, rest):
    asked = []

    async def on_elicit(context, params):
        asked.append(dump(params))
        return types.ElicitResult(action="accept", content={"approve": True, "note": "from python"})

    if transport == "stdio":
        target = StdioServerParameters(command=rest[0], args=rest[1:])
    else:
        target = rest[0]
    if mode == "listen":
        print(json.dumps(await listen_report(target)))
        return
    report = {}
    async with Client(target, mode=mode, elicitation_callback=on_elicit) as client:
        report["protocol_version"] = client.protocol_version
        info = client.server_info
        report["server_info"] = dump(info) if info is not None else None
        listed = await client.list_tools()
        report["tools_list"] = {
            "names": [tool.name for tool in listed.tools],
            "ttlMs": listed.ttl_ms,
            "cacheScope": listed.cache_scope,
        }
        again = await client.list_tools()
        report["tools_list_again"] = [tool.name for tool in again.tools]
        report["shout"] = dump(await client.call_tool("shout", {"text": "hello"}))
        report["deploy"] = dump(await client.call_tool("deploy", {"service": "billing-api"}))
    report["asked"] = asked
    print(json.dumps(report))


async def listen_report(target):
    report = {}
    async with Client(target, mode="auto") as client:
        report["protocol_version"] = client.protocol_version
        report["before"] = [tool.name for tool in (await client.list_tools()).tools]
        async with client.listen(tools_list_changed=True) as subscription:
            report["honored"] = dump(subscription.honored)
            report["unlock"] = dump(await client.call_tool("unlock", {}))
            with anyio.fail_after(20):
                event = await subscription.__anext__()
            report["event"] = type(event).__name__
        report["after"] = [tool.name for tool in (await client.list_tools()).tools]
    return report


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
