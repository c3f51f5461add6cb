// Calls a tool of a Streamable HTTP MCP server with an argument over the server's body cap, with
// the official TypeScript MCP SDK (@modelcontextprotocol/sdk), then makes a normal call with
// the same client; prints what it saw as one JSON object (for
// tests/tests/http_oversize_clients.rs).
//
// Usage: node http_oversize_client.mjs <url> <bytes of the oversized argument> <node_modules>
// (the SDK is loaded from <node_modules>, e.g. bench/node_modules from bench/install-sdks.sh).

import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [url, size, nodeModules] = process.argv.slice(2);
const sdk = (path) =>
  import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const describe = (error) => {
  const parts = [String(error?.message ?? error)];
  for (let cause = error?.cause; cause; cause = cause.cause) {
    parts.push(String(cause.code ?? cause.message ?? cause));
  }
  return parts.join(" <- ");
};

const report = {};
const client = new Client({ name: "oversize", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await client.connect(transport);
  try {
    const result = await client.callTool({
      name: "word_stats",
      arguments: { text: "a".repeat(Number(size)) },
    });
    report.oversized = { result };
  } catch (error) {
    report.oversized = { error: describe(error) };
  }
  try {
    report.next_call = await client.callTool({ name: "to_fahrenheit", arguments: { celsius: 0 } });
  } catch (error) {
    report.next_call = { error: describe(error) };
  }
} catch (error) {
  report.client_died = describe(error);
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(report) + "\n");
