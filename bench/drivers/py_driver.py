"""The Python claude-agent-sdk driver of the bench: an in-process `add(a, b)` served to the fake CLI.

Usage: bench/.venv/bin/python bench/drivers/py_driver.py <path to the CLI>
The fake CLI reads its parameters (N, K, stats path) from the environment this process passes on.
"""

import asyncio
import sys

from claude_agent_sdk import ClaudeAgentOptions, ToolAnnotations, create_sdk_mcp_server, query, tool


@tool("add", "Add two integers.", {"a": int, "b": int}, annotations=ToolAnnotations(readOnlyHint=True))
async def add(args):
    return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}


async def main(cli: str) -> None:
    server = create_sdk_mcp_server(name="bench", version="1.0.0", tools=[add])
    options = ClaudeAgentOptions(cli_path=cli, mcp_servers={"bench": server}, allowed_tools=["mcp__bench__add"])
    async for _ in query(prompt="go", options=options):
        pass


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
