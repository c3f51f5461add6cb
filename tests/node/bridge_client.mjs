// The TypeScript SDK's own bridge (`@anthropic-ai/claude-agent-sdk/bridge`) through the
// scenario of tests/bridge_agreement.rs, against the fake CCR service at argv[3]. The test
// pushes the inbound events once the permission prompt is posted; this script waits for them
// to reach its callbacks. Prints a JSON report of what the callbacks saw.
// Usage: node bridge_client.mjs <path of bridge.mjs> <base url>
const [sdkPath, base] = process.argv.slice(2);
const bridge = await import(sdkPath);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seen = { inbound: [], permission: [], interrupts: 0, models: [], closes: [] };

const created = await bridge.createCodeSession(base, 'oauth-token', 'Bridge scenario', 5000,
  ['t1'], undefined, '/work/scenario', 'claude-scenario');
if (typeof created !== 'string') throw new Error(`create: ${JSON.stringify(created)}`);
const creds = await bridge.fetchRemoteCredentials(created, base, 'oauth-token', 5000, 'device-token');
if (bridge.isCredentialsFailure(creds) || creds === null) throw new Error(`credentials: ${JSON.stringify(creds)}`);
const invalid = await bridge.fetchRemoteCredentials('../etc', base, 'oauth-token', 5000);

const handle = await bridge.attachBridgeSession({
  sessionId: created, ingressToken: creds.worker_jwt, apiBaseUrl: creds.api_base_url,
  epoch: creds.worker_epoch, heartbeatIntervalMs: 400,
  onInboundMessage: (message) => { seen.inbound.push(message); },
  onPermissionResponse: (response) => { seen.permission.push(response); },
  onInterrupt: () => { seen.interrupts += 1; },
  onSetModel: (model) => { seen.models.push(model ?? null); return { ok: true }; },
  onClose: (code) => { seen.closes.push(code); },
});
for (let i = 0; i < 200 && !handle.isConnected(); i++) await sleep(25);

handle.write({ type: 'assistant', uuid: 'u-a1', parent_tool_use_id: null,
  message: { role: 'assistant', content: [{ type: 'text', text: 'hello from the host' }] } });
handle.sendControlRequest({ type: 'control_request', request_id: 'req-1',
  request: { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'ls' }, tool_use_id: 'tu-1' } });
handle.reportState('requires_action');

for (let i = 0; i < 400; i++) {
  if (seen.permission.length && seen.inbound.length && seen.interrupts && seen.models.length) break;
  await sleep(25);
}
await sleep(300);
handle.sendResult();
handle.reportState('idle');
handle.reportMetadata({ branch: 'main' });
await handle.flush();
await sleep(1000);
const report = { session_id: created, epoch: handle.getEpoch(), sequence_num: handle.getSequenceNum(),
  invalid: invalid?.reason ?? null, ...seen };
handle.close();
await sleep(300);
console.log(JSON.stringify(report));
process.exit(0);
