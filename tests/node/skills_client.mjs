// Drives the `interop-mcp` test server started with `--skills` (tests/src/bin/interop-mcp.rs)
// with the official MCP TypeScript client's skills extension (`SkillsClient` of
// @modelcontextprotocol/client/ext/skills, pinned in scripts/install-ts-mcp-client), and prints
// what it saw as one JSON object (for tests/tests/interop_sdk_clients.rs).
//
// Usage: node skills_client.mjs <node_modules> stdio <server command> [args...]
//        node skills_client.mjs <node_modules> http <url>
//
// The client negotiates MCP 2026-07-28 (`auto`), lists the server's skills, gets one by its
// `SKILL.md` URI, reads and verifies the `SKILL.md` (size, digest, front matter equal to the
// listed entry) and the skill's other file, and reads the skill's directory. Every step's
// failure is reported by name rather than thrown, so the test says which step a server failed.

import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [nodeModules, transportKind, ...target] = process.argv.slice(2);
const load = (path) =>
  import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/client/dist", path)).href);
const { Client, StreamableHTTPClientTransport } = await load("index.mjs");
const { SkillsClient } = await load("ext/skills/index.mjs");

const client = new Client(
  { name: "skills-ts", version: "1.0.0" },
  { capabilities: {}, versionNegotiation: { mode: "auto" } },
);
let transport;
if (transportKind === "stdio") {
  const { StdioClientTransport } = await load("stdio.mjs");
  transport = new StdioClientTransport({ command: target[0], args: target.slice(1) });
} else {
  transport = new StreamableHTTPClientTransport(new URL(target[0]));
}

const report = { errors: {} };
const step = async (name, run) => {
  try {
    return await run();
  } catch (error) {
    report.errors[name] = String(error?.message ?? error);
    return undefined;
  }
};
await client.connect(transport);
report.protocolVersion = client.getNegotiatedProtocolVersion();
const skills = new SkillsClient(client);
report.supported = skills.supported;
report.directoryRead = skills.directoryRead;
const listing = await step("list", () => skills.list());
if (listing) {
  report.listed = listing.skills.map((skill) => ({
    name: skill.frontmatter?.name ?? skill.name ?? null,
    uri: skill.uri,
  }));
  report.listCache = { ttlMs: listing.ttlMs ?? null, cacheScope: listing.cacheScope ?? null };
  const entry = listing.skills[0];
  if (entry) {
    const got = await step("get", () => skills.get(entry.uri));
    report.got = got ? got.skill.uri : null;
    const manifest = await step("read SKILL.md", () => skills.read(entry));
    if (manifest) {
      report.skillMd = {
        verified: manifest.verified,
        frontmatter: manifest.frontmatter ?? null,
        bodyStart: (manifest.body ?? "").trim().split("\n")[0],
      };
    }
    const other = await step("read reference", () => skills.read(entry, "reference/style.md"));
    if (other) {
      report.reference = { verified: other.verified, size: other.bytes.length };
    }
    if (skills.directoryRead) {
      const root = entry.uri.replace(/\/SKILL\.md$/, "");
      const directory = await step("read directory", () => skills.readDirectory(root));
      if (directory) {
        report.directory = directory.resources.map((resource) => resource.uri).sort();
      }
    }
  }
}
await client.close();
console.log(JSON.stringify(report));
process.exit(0);
