// Drives the `interop-mcp` test server (tests/src/bin/interop-mcp.rs) with the official MCP
// TypeScript client, v2 (@modelcontextprotocol/client, pinned in scripts/install-ts-mcp-client),
// and prints what it saw as one JSON object (for tests/tests/interop_ts_client.rs).
//
// Usage: node interop_client.mjs <auto|legacy|listen> <node_modules> stdio <server command> [args...]
//        node interop_client.mjs <auto|legacy|listen> <node_modules> http <url>
//
// `auto` probes with `server/discover` and speaks MCP 2026-07-28 to a server that answers it
// (else falls back to `initialize`); `legacy` (the SDK's default) is the plain 2025-11-25
// handshake. Either way the client lists the tools twice (the second list is the client's to
// serve from its cache, as the server's `ttlMs` allows), calls `shout`, and calls `deploy`,
// whose question (a form) the client's `elicitation/create` handler answers: at 2026-07-28
// through the client's `input_required` retry loop, at 2025-11-25 as a server-to-client request.
//
// `listen` negotiates as `auto` does, lists the tools (cached for a minute), opens a
// `subscriptions/listen` stream for tool-list changes, calls `unlock` (which adds the tool
// `vault`), waits for the change on the stream, and lists the tools again: the change evicted the
// cached list, so the client fetches the new one.

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
    versionNegotiation: { mode: mode === "listen" ? "auto" : mode },
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
if (mode === "listen") {
  let changed;
  const change = new Promise((resolve) => (changed = resolve));
  client.setNotificationHandler("notifications/tools/list_changed", (notification) =>
    changed(notification.method),
  );
  report.protocolVersion = client.getNegotiatedProtocolVersion();
  report.before = (await client.listTools()).tools.map((tool) => tool.name);
  const subscription = await client.listen({ toolsListChanged: true });
  report.honored = subscription.honoredFilter;
  report.unlock = await client.callTool({ name: "unlock", arguments: {} });
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error("no tools/list_changed within 20 s")), 20000).unref(),
  );
  report.event = await Promise.race([change, timeout]);
  report.after = (await client.listTools()).tools.map((tool) => tool.name);
  await subscription.close();
  await client.close();
  console.log(JSON.stringify(report));
  process.exit(0);
}
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
