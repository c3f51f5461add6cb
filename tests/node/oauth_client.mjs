// Logs in to an OAuth-protected Streamable HTTP MCP server with the official MCP TypeScript client,
// v2 (@modelcontextprotocol/client, pinned in scripts/install-ts-mcp-client), and prints what it
// saw as one JSON object (for tests/tests/http_ts_oauth.rs).
//
// Usage: node oauth_client.mjs <server url> <node_modules> [<stale access token> <its issuer>]
//
// With a stale access token (one the server must refuse, such as a token for another audience)
// the host starts with it stored, as a client whose saved login no longer holds would: the
// server's `401 invalid_token` sends the SDK through the same login.
//
// The SDK runs the flow itself from the server's first `401`: the challenge names the server's
// protected-resource metadata (RFC 9728), which names the authorization server; the SDK reads that
// server's metadata (RFC 8414), registers (RFC 7591), and sends the user to the authorization
// endpoint with PKCE and the RFC 8707 `resource`. The OAuth provider below is the host's part, in
// memory: it keeps the registration, the tokens and the code verifier, and plays the user by
// following the authorization URL to its redirect (the test authorization server approves at
// once; no browser). As the SDK's interactive flow asks, the host then hands the redirect's
// parameters to `transport.finishAuth` (the code exchange) and connects again. Then it lists the
// tools, calls `to_fahrenheit`, and calls `count_to`, whose scope the first token lacks: the
// server answers `403 insufficient_scope`, the transport authorizes again for the union of the
// scopes (the step-up), and the host finishes that login and repeats the call.
//
// Every HTTP request goes through a logging `fetch` (the SDK's, and the "user's" visit to the
// authorization endpoint), so the report shows the order of the flow (`requests`: method, path,
// status and, for a 401 or 403, the challenge's `error`).

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";

const [serverUrl, nodeModules, staleToken, staleIssuer] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import(
  pathToFileURL(join(nodeModules, "@modelcontextprotocol/client/dist/index.mjs")).href
);

// The requests, in order: "METHOD /path status", and the challenge's `error` of a 401 or 403.
const requests = [];
const loggingFetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  let line = `${method} ${url.pathname} ${response.status}`;
  const challenge = response.headers.get("www-authenticate") ?? "";
  const error = /error="([^"]*)"/.exec(challenge)?.[1];
  if (error !== undefined) line += ` ${error}`;
  requests.push(line);
  return response;
};

/** The host's `OAuthClientProvider`: everything in memory, the "user" approving every login. */
class MemoryProvider {
  clientInfo = undefined;
  storedTokens =
    staleToken === undefined
      ? undefined
      : { access_token: staleToken, token_type: "Bearer", issuer: staleIssuer };
  verifier = undefined;
  discovery = undefined;
  expectedState = undefined;
  // Each authorization request's `scope` and `resource`, as the user saw them.
  authorizations = [];
  // The parameters of the last redirect back to the client, for `finishAuth`.
  callback = undefined;

  get redirectUrl() {
    return "http://127.0.0.1:9/callback";
  }

  get clientMetadata() {
    return {
      client_name: "claude-tools oauth interop (typescript)",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }

  state() {
    this.expectedState = randomBytes(16).toString("hex");
    return this.expectedState;
  }

  clientInformation() {
    return this.clientInfo;
  }

  saveClientInformation(info) {
    this.clientInfo = info;
  }

  tokens() {
    return this.storedTokens;
  }

  saveTokens(tokens) {
    this.storedTokens = tokens;
  }

  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }

  // Kept beside the verifier, so that the SDK can check the redirect came back from the
  // authorization server the login went to.
  saveDiscoveryState(state) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }

  codeVerifier() {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier was saved");
    return this.verifier;
  }

  // The user agent: follows the authorization URL to the authorization server's redirect and
  // keeps the parameters it carries back to the client (the SDK does not check `state`; the
  // host does, here).
  async redirectToAuthorization(authorizationUrl) {
    const query = authorizationUrl.searchParams;
    this.authorizations.push({
      scope: query.get("scope"),
      resource: query.get("resource"),
      pkce: query.get("code_challenge_method"),
    });
    const response = await loggingFetch(authorizationUrl, { redirect: "manual" });
    const location = response.headers.get("location");
    if (location === null) {
      throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
    }
    const back = new URL(location);
    if (!back.href.startsWith(this.redirectUrl)) {
      throw new Error(`the authorization server redirected elsewhere: ${back.origin}${back.pathname}`);
    }
    if (!back.searchParams.has("code")) {
      throw new Error(`the authorization server refused: ${back.searchParams.get("error")}`);
    }
    if (back.searchParams.get("state") !== this.expectedState) {
      throw new Error("the redirect's state is not the one sent");
    }
    this.callback = back.searchParams;
  }

  /** The redirect's parameters, once: `undefined` when no login is waiting to be finished. */
  takeCallback() {
    const callback = this.callback;
    this.callback = undefined;
    return callback;
  }
}

const provider = new MemoryProvider();
const client = new Client({ name: "oauth-ts", version: "1.0.0" });
const newTransport = () =>
  new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: loggingFetch });

/** `action`, and once more after finishing the login an `UnauthorizedError` stopped it for. */
const withLogin = async (transport, action) => {
  try {
    return await action();
  } catch (error) {
    const callback = provider.takeCallback();
    if (!UnauthorizedError.isInstance(error) || callback === undefined) throw error;
    await transport.finishAuth(callback);
    return await action(true);
  }
};

const textOf = (result) => ({
  text: result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join(""),
  isError: result.isError ?? false,
});

const report = {};
let transport = newTransport();
await withLogin(transport, async (again) => {
  if (again) {
    // A transport that failed to start is spent: connect again with a new one, now with a token.
    await transport.close().catch(() => {});
    transport = newTransport();
  }
  await client.connect(transport);
});
report.server = client.getServerVersion()?.name ?? null;
report.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
report.to_fahrenheit = textOf(
  await client.callTool({ name: "to_fahrenheit", arguments: { celsius: 100 } }),
);
report.scope_before_step_up = provider.storedTokens?.scope ?? null;
report.count_to = textOf(
  await withLogin(transport, () => client.callTool({ name: "count_to", arguments: { n: 2 } })),
);
report.scope_after_step_up = provider.storedTokens?.scope ?? null;
report.authorizations = provider.authorizations;
report.access_token = provider.storedTokens?.access_token ?? null;
// The key the token is signed with (its JWT header's `kid`), to tell a rotated key's tokens apart.
report.token_kid = report.access_token
  ? (JSON.parse(Buffer.from(report.access_token.split(".")[0], "base64url").toString()).kid ?? null)
  : null;
report.requests = requests;
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(report) + "\n");
