"""An OAuth 2.1 authorization server on 127.0.0.1 for the OAuth interop tests, built on the official
MCP Python SDK's authorization-server routes (`mcp.server.auth.routes.create_auth_routes`: RFC 8414
metadata, dynamic client registration, the authorization endpoint with PKCE, the token endpoint).

Usage: python oauth_auth_server.py

The first line on stdout is the issuer's URL (`http://127.0.0.1:<port>`). The authorization
endpoint approves at once (no login page) for the user `alice`, with the scopes and the RFC 8707
`resource` the client asked for; the token endpoint issues RS256 JWT access tokens (RFC 9068:
`iss`, `aud` = that resource, `sub`, `client_id`, `scope`, `exp`) signed with a key its JWKS
(`/jwks`, named in the metadata as `jwks_uri`) lists. Two endpoints are for the tests only:
`POST /test/rotate` replaces the signing key (the JWKS then lists only the new one), and
`POST /test/mint` (JSON `{"aud", "scope", "sub"}`) signs a token directly, for a token of
another audience.
"""

import json
import secrets
import socket
import sys
import time

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mcp.server.auth.provider import (
    AuthorizationCode,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthToken

SCOPES = ["units", "units:count"]


class Keys:
    """The signing key (RSA 2048, a fresh `kid` each) and the JWKS that lists it."""

    def __init__(self):
        self.rotate()

    def rotate(self):
        self.kid = secrets.token_hex(8)
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        public.update({"kid": self.kid, "use": "sig", "alg": "RS256"})
        self.jwks = {"keys": [public]}

    def sign(self, claims):
        return jwt.encode(claims, self.private, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})


class Provider:
    """The SDK's `OAuthAuthorizationServerProvider`, in memory, approving every request."""

    def __init__(self, issuer, keys):
        self.issuer = issuer
        self.keys = keys
        self.clients = {}
        self.codes = {}
        self.refresh_tokens = {}

    def access_token(self, subject, client_id, scopes, resource):
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": subject,
            "client_id": client_id,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + 3600,
            "jti": secrets.token_hex(8),
        }
        if resource:
            claims["aud"] = resource
        return self.keys.sign(claims)

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        # This server's policy: a registered client may later ask for any scope it offers (so a
        # client that registered with `units` can step up to `units:count`).
        client_info.scope = " ".join(SCOPES)
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params):
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="alice",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.issuer)

    async def load_authorization_code(self, client, authorization_code):
        code = self.codes.get(authorization_code)
        return code if code and code.client_id == client.client_id else None

    async def exchange_authorization_code(self, client, authorization_code):
        self.codes.pop(authorization_code.code, None)
        return self.issue(client, authorization_code.scopes, authorization_code.resource, authorization_code.subject)

    def issue(self, client, scopes, resource, subject):
        refresh = secrets.token_urlsafe(24)
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client.client_id, scopes=scopes, resource=resource, subject=subject
        )
        return OAuthToken(
            access_token=self.access_token(subject, client.client_id, scopes, resource),
            token_type="Bearer",
            expires_in=3600,
            scope=" ".join(scopes),
            refresh_token=refresh,
        )

    async def load_refresh_token(self, client, refresh_token):
        token = self.refresh_tokens.get(refresh_token)
        return token if token and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.refresh_tokens.pop(refresh_token.token, None)
        return self.issue(client, scopes or refresh_token.scopes, refresh_token.resource, refresh_token.subject)

    async def load_access_token(self, token):
        return None

    async def revoke_token(self, token):
        pass


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    issuer = f"http://127.0.0.1:{sock.getsockname()[1]}"
    keys = Keys()
    provider = Provider(issuer, keys)
    registration = ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES, default_scopes=["units"])
    revocation = RevocationOptions(enabled=True)
    routes = create_auth_routes(provider, AnyHttpUrl(issuer), None, registration, revocation)

    # The SDK's metadata, with the `jwks_uri` a resource server verifies tokens with.
    metadata = build_metadata(AnyHttpUrl(issuer), None, registration, revocation).model_dump(
        mode="json", exclude_none=True
    )
    metadata["issuer"] = issuer
    metadata["jwks_uri"] = f"{issuer}/jwks"

    async def metadata_document(request: Request):
        return JSONResponse(metadata)

    async def jwks(request: Request):
        return JSONResponse(keys.jwks)

    async def rotate(request: Request):
        keys.rotate()
        return JSONResponse({"kid": keys.kid})

    async def mint(request: Request):
        asked = await request.json()
        now = int(time.time())
        token = keys.sign(
            {
                "iss": issuer,
                "aud": asked["aud"],
                "sub": asked.get("sub", "alice"),
                "client_id": "minted",
                "scope": asked.get("scope", "units"),
                "iat": now,
                "exp": now + 600,
            }
        )
        return JSONResponse({"access_token": token})

    routes = [route for route in routes if route.path != "/.well-known/oauth-authorization-server"]
    routes += [
        Route("/.well-known/oauth-authorization-server", metadata_document, methods=["GET"]),
        Route("/jwks", jwks, methods=["GET"]),
        Route("/test/rotate", rotate, methods=["POST"]),
        Route("/test/mint", mint, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    print(issuer, flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
