// Drives the `interop-mcp` test server (tests/src/bin/interop-mcp.rs) with the official MCP
// TypeScript client, v2 (@modelcontextprotocol/client, pinned in scripts/install-ts-mcp-client),
// and prints what it saw as one JSON object (for tests/tests/interop_ts_client.rs).
//
// Usage: node interop_client.mjs <auto|legacy> <node_modules> stdio <server command> [args...]
//        node interop_client.mjs <auto|legacy> <node_modules> http <url>
//
// `auto` probes with `server/discover` and speaks MCP 2026-07-28 to a server that answers it
// (else falls back to `initialize`); `legacy` (the SDK's default) is the plain 2025-11-25
// handshake. Either way the client lists the tools twice (the second list is the client's to
// serve from its cache, as the server's `ttlMs` allows), calls `shout`, and calls `deploy`,
// whose question (a form) the client's `elicitation/create` handler answers: at 2026-07-28
// through the client's `input_required` retry loop, at 2025-11-25 as a server-to-client request.

import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [mode, nodeModules, transportKind, ...target] = process.argv.slice(2);
const load = (path) =>
  import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/client/dist", path)).href);
const { Client, StreamableHTTPClientTransport } = await load("index.mjs");

const asked = [];
const client = new Client(
  { name: "interop-ts", version: "1.0.0" },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode },
  },
);
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params);
  return { action: "accept", content: { approve: true, note: "from typescript" } };
});

let transport;
if (transportKind === "stdio") {
  const { StdioClientTransport } = await load("stdio.mjs");
  transport = new StdioClientTransport({ command: target[0], args: target.slice(1) });
} else {
  transport = new StreamableHTTPClientTransport(new URL(target[0]));
}

const report = {};
await client.connect(transport);
report.era = client.getProtocolEra();
report.protocolVersion = client.getNegotiatedProtocolVersion();
report.serverInfo = client.getServerVersion() ?? null;
const listed = await client.listTools();
report.toolsList = {
  names: listed.tools.map((tool) => tool.name),
  ttlMs: listed.ttlMs ?? null,
  cacheScope: listed.cacheScope ?? null,
};
const again = await client.listTools();
report.toolsListAgain = again.tools.map((tool) => tool.name);
report.shout = await client.callTool({ name: "shout", arguments: { text: "hello" } });
report.deploy = await client.callTool({ name: "deploy", arguments: { service: "billing-api" } });
report.asked = asked;
await client.close();
console.log(JSON.stringify(report));
