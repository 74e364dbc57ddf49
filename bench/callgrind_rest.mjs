// User-space instructions per read_text call, by callgrind: deterministic
// where the CPU figures of rest_bench.mjs move with the machine's load.
// Runs GLOVEBOX_BUILD's glovebox under `valgrind --tool=callgrind
// --instr-atstart=no`, starts a shared terminal over /v1, makes CG_WARMUP
// (20) uncounted calls per client, switches instrumentation on with
// `callgrind_control -i on`, makes CG_CALLS (100) calls from each of
// CG_CLIENTS (16) clients, waits for the audit log's last batch, switches it
// off and prints the instructions per call (every thread). CG_DOOR=mcp makes
// the same call over /mcp (a JSON-RPC POST by fetch, like ab_rest.mjs).
// The profile stays in CG_OUT (callgrind.out.rest) for callgrind_annotate.
// Not part of `make bench` (slow, and it needs valgrind):
//   GLOVEBOX_BUILD=build-cg node bench/callgrind_rest.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { gloveboxBinary } from './lib/servers.mjs';
import { freePort } from './lib/proc.mjs';
import { restTerminal } from './lib/rest.mjs';

const CLIENTS = Number(process.env.CG_CLIENTS ?? 16);
const CALLS = Number(process.env.CG_CALLS ?? 100);
const WARMUP = Number(process.env.CG_WARMUP ?? 20);
const DOOR = process.env.CG_DOOR ?? 'rest';
const OUT = resolve(process.env.CG_OUT ?? 'callgrind.out.rest');

const dir = mkdtempSync(join(tmpdir(), 'glovebox-cg-'));
const port = await freePort();
const child = spawn(
  'valgrind',
  ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${OUT}`, gloveboxBinary(), 'serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0', '--allow-all', '--data-dir', dir],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
let stderr = '';
child.stderr.on('data', (d) => (stderr += d));
const base = `http://127.0.0.1:${port}`;
const session = await restTerminal(base, () => stderr);

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
async function caller() {
  if (DOOR === 'rest')
    return async () => {
      const res = await fetch(`${base}/v1/sessions/${session}/tools/read_text`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"arguments":{}}' });
      if (res.status !== 200) throw new Error(`REST: ${res.status}`);
      await res.arrayBuffer();
    };
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cg', version: '1' } } }),
  });
  const headers = { ...MCP_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') };
  await init.arrayBuffer();
  await (await fetch(`${base}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).arrayBuffer();
  let id = 1;
  return async () => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'read_text', arguments: { session } } }) });
    if (res.status !== 200) throw new Error(`/mcp: ${res.status}`);
    await res.arrayBuffer();
  };
}
const callers = await Promise.all(Array.from({ length: CLIENTS }, caller));
const run = (n) => Promise.all(callers.map(async (c) => { for (let k = 0; k < n; k++) await c(); }));

await run(WARMUP);
await new Promise((r) => setTimeout(r, 1000));
execFileSync('callgrind_control', ['-i', 'on', String(child.pid)], { stdio: 'ignore' });
await run(CALLS);
await new Promise((r) => setTimeout(r, 1500)); // the audit writer's last batch
execFileSync('callgrind_control', ['-i', 'off', String(child.pid)], { stdio: 'ignore' });
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });

const summary = readFileSync(OUT, 'utf8').match(/^totals: (\d+)/m);
if (!summary) throw new Error(`no totals in ${OUT}: ${stderr.slice(-2000)}`);
const perCall = Number(summary[1]) / (CLIENTS * CALLS);
console.log(`${DOOR}: ${(perCall / 1000).toFixed(1)} k instructions per read_text call (${CLIENTS} × ${CALLS}, every thread); profile in ${OUT}`);
