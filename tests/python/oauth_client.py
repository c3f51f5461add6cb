"""Logs in to an OAuth-protected Streamable HTTP MCP server with the official MCP Python SDK's OAuth
client (`mcp.client.auth.OAuthClientProvider`) and prints what it saw.

Usage: python oauth_client.py <server url>

The SDK does the whole flow itself: the server's `401` names its protected-resource metadata, which
names the authorization server; the client reads that server's metadata, registers (RFC 7591),
sends the user to the authorization endpoint with PKCE and the RFC 8707 `resource`, and trades the
code for a token. The "user" here is this script, which follows the authorization URL to its
redirect (the test authorization server approves at once) and hands the code back. Then it lists
the tools, calls `to_fahrenheit`, and calls `count_to`, whose scope the first token lacks: the
server answers `403 insufficient_scope` and the SDK steps up (authorizes again for the wider
scope) on its own. One JSON object on stdout for tests/tests/http_python_oauth.rs.
"""

import asyncio
import json
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata


class MemoryStorage(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class User:
    """Follows each authorization URL to its redirect and keeps the code it carries."""

    def __init__(self):
        self.authorizations = []
        self.result = None

    async def redirect(self, authorization_url):
        query = parse_qs(urlparse(authorization_url).query)
        self.authorizations.append(
            {"scope": query.get("scope", [None])[0], "resource": query.get("resource", [None])[0]}
        )
        async with httpx2.AsyncClient() as http:
            response = await http.get(authorization_url, follow_redirects=False)
        location = parse_qs(urlparse(response.headers["location"]).query)
        if "code" not in location:
            raise RuntimeError(f"the authorization server refused: {response.headers['location']}")
        self.result = AuthorizationCodeResult(
            code=location["code"][0],
            state=location.get("state", [None])[0],
            iss=location.get("iss", [None])[0],
        )

    async def callback(self):
        return self.result


def text_of(result):
    return {"text": "".join(block.text for block in result.content if block.type == "text"), "isError": result.is_error}


async def main(url):
    user = User()
    storage = MemoryStorage()
    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="claude-tools oauth interop",
            redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=storage,
        redirect_handler=user.redirect,
        callback_handler=user.callback,
    )
    report = {}
    async with create_mcp_http_client(auth=auth) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                report["server"] = initialized.server_info.name
                report["tools"] = [tool.name for tool in (await session.list_tools()).tools]
                report["to_fahrenheit"] = text_of(await session.call_tool("to_fahrenheit", {"celsius": 100}))
                report["scope_before_step_up"] = storage.tokens.scope
                report["count_to"] = text_of(await session.call_tool("count_to", {"n": 2}))
                report["scope_after_step_up"] = storage.tokens.scope
    report["authorizations"] = user.authorizations
    report["access_token"] = storage.tokens.access_token
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
