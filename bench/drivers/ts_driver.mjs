// The TypeScript @anthropic-ai/claude-agent-sdk driver of the bench: an in-process `add(a, b)`
// served to the fake CLI.
//
// Usage: node bench/drivers/ts_driver.mjs <path to the CLI>
// The fake CLI reads its parameters (N, K, stats path) from the environment this process passes on.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

// The SDK lives in bench/node_modules (installed by bench/install-sdks.sh).
const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(path.join(benchDir, 'package.json'));
const { query, tool, createSdkMcpServer } = await import(require.resolve('@anthropic-ai/claude-agent-sdk'));
const { z } = await import(require.resolve('zod'));

const add = tool(
  'add',
  'Add two integers.',
  { a: z.number().int(), b: z.number().int() },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  { annotations: { readOnlyHint: true } },
);
const server = createSdkMcpServer({ name: 'bench', version: '1.0.0', tools: [add] });

for await (const _ of query({
  prompt: 'go',
  options: {
    pathToClaudeCodeExecutable: process.argv[2],
    mcpServers: { bench: server },
    allowedTools: ['mcp__bench__add'],
  },
})) {
  // drain
}
