// Two glovebox builds side by side under the same load: the same REST call
// (read_text on a terminal over POST /v1/sessions/{id}/tools/read_text) made
// by AB_CLIENTS (16) clients × AB_CALLS (2000) calls, each client calling
// build A then build B in turn, so whatever else the machine does weighs on
// both alike; then each server's CPU per call (all threads, schedstat, ns).
// AB_DOOR=mcp makes the same call over /mcp (a JSON-RPC POST by fetch).
// Not part of `make bench` (it needs two builds):
//   node bench/ab_rest.mjs BUILD_DIR_A BUILD_DIR_B
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, schedSeconds } from './lib/proc.mjs';
import { restTerminal } from './lib/rest.mjs';

const CLIENTS = Number(process.env.AB_CLIENTS ?? 16);
const CALLS = Number(process.env.AB_CALLS ?? 2000);
const DOOR = process.env.AB_DOOR ?? 'rest';
const builds = process.argv.slice(2);
if (builds.length !== 2) throw new Error('usage: node bench/ab_rest.mjs BUILD_DIR_A BUILD_DIR_B');

async function server(build) {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-ab-'));
  const port = await freePort();
  const child = spawn(join(build, 'glovebox'), ['serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0', '--allow-all', '--data-dir', dir], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const base = `http://127.0.0.1:${port}`;
  const session = await restTerminal(base);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  async function caller() {
    if (DOOR === 'rest')
      return async () => {
        const res = await fetch(`${base}/v1/sessions/${session}/tools/read_text`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"arguments":{}}' });
        if (res.status !== 200) throw new Error(`${build}: ${res.status}`);
        await res.arrayBuffer();
      };
    const init = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ab', version: '1' } } }),
    });
    const h = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') };
    await init.arrayBuffer();
    await (await fetch(`${base}/mcp`, { method: 'POST', headers: h, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).arrayBuffer();
    let id = 1;
    return async () => {
      const res = await fetch(`${base}/mcp`, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'read_text', arguments: { session } } }) });
      if (res.status !== 200) throw new Error(`${build}: ${res.status}`);
      await res.arrayBuffer();
    };
  }
  const callers = await Promise.all(Array.from({ length: CLIENTS }, caller));
  return { build, child, dir, callers };
}

const servers = [await server(builds[0]), await server(builds[1])];
const run = (n) => Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
  for (let k = 0; k < n; k++) for (const s of servers) await s.callers[i]();
}));
await run(20);
const cpu0 = servers.map((s) => schedSeconds(s.child.pid));
await run(CALLS);
await new Promise((r) => setTimeout(r, 300));
for (const [i, s] of servers.entries()) {
  const us = ((schedSeconds(s.child.pid) - cpu0[i]) / (CLIENTS * CALLS)) * 1e6;
  console.log(`${s.build}: ${us.toFixed(1)} µs of server CPU per ${DOOR} read_text call`);
  s.child.kill('SIGTERM');
}
await Promise.all(servers.map((s) => new Promise((r) => s.child.once('exit', r))));
for (const s of servers) rmSync(s.dir, { recursive: true, force: true });
