// The Streamable HTTP bench's TypeScript server: the same `add(a, b)` as the other servers,
// served by the official MCP TypeScript SDK (@modelcontextprotocol/sdk, installed into
// bench/node_modules by bench/install-sdks.sh) the way its stateless example does it:
// `createMcpExpressApp()` (express with the SDK's localhost Host check and JSON body parser),
// and for each POST a fresh `McpServer` and `StreamableHTTPServerTransport` with
// `sessionIdGenerator: undefined` (stateless), here with `enableJsonResponse: true` so a call is
// answered `application/json` rather than as an SSE stream.
//
// Usage: node bench/drivers/http_ts_server.mjs
// Listens on 127.0.0.1 on a free port and prints `http://127.0.0.1:<port>/mcp` once it does.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(path.join(benchDir, 'package.json'));
const sdk = (sub) => import(require.resolve(`@modelcontextprotocol/sdk/${sub}`));
const { McpServer } = await sdk('server/mcp.js');
const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
const { createMcpExpressApp } = await sdk('server/express.js');
const { z } = await import(require.resolve('zod'));

// Built once and shared by every request's server: building the zod schemas is the user's own
// code, not the SDK's per-request cost.
const addShape = {
  a: z.number().int().describe('The first term'),
  b: z.number().int().describe('The second term'),
};

function buildServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Add two integers.',
      inputSchema: addShape,
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

const notAllowed = (_req, res) => {
  res.writeHead(405).end(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
  );
};

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = buildServer();
  try {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error('ct-bench http_ts_server:', error);
    if (!res.headersSent) {
      res.status(500).json({
        jsonrpc: '2.0',
        error: { code: -32603, message: 'Internal server error' },
        id: null,
      });
    }
  }
});
app.get('/mcp', notAllowed);
app.delete('/mcp', notAllowed);

const listener = app.listen(0, '127.0.0.1', (error) => {
  if (error) {
    console.error('ct-bench http_ts_server: listen:', error);
    process.exit(1);
  }
  console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
});

// The bench stops the server with SIGTERM: exit normally, so that a profiling run
// (`node --cpu-prof bench/drivers/http_ts_server.mjs`) writes its profile.
process.on('SIGTERM', () => process.exit(0));
