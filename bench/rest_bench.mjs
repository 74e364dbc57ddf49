// REST vs /mcp on one server: the same tool call (read_text on one terminal
// session, started shared over /v1 so both front doors reach it) made by
// BENCH_REST_CLIENTS (16) clients × BENCH_REST_CALLS (200) sequential calls,
// through POST /v1/sessions/{id}/tools/read_text with Node's fetch, through
// the official MCP SDK client over Streamable HTTP (/mcp), and through /mcp
// with the same fetch as REST (a JSON-RPC POST, no client library: the two
// doors of the server with nothing else different), BENCH_REST_RUNS (3)
// times, after BENCH_REST_WARMUP (20) uncounted calls per client.
// Latency: each client makes its calls through the three doors in turn,
// the order rotating every round, so load and warm-up weigh on all alike.
// Server CPU per call (utime + stime of the server, every thread, from
// /proc/PID/stat): a phase per door, since the CPU counter cannot tell
// interleaved calls apart. Prints the medians over the runs.
// The tool's own work: a second glovebox (same build, stdio, audit on)
// replays a recipe of 200 read_text steps and one of 200 session_list
// steps on a terminal like the one above; both kinds of step pass the same
// gate, audit and recipe bookkeeping, so the difference of their server CPU
// per step is what read_text itself costs. CPU per REST call minus that is
// what the call costs beyond the tool's own work (issue 20: ≤ 30 µs). Never asserts on the figures;
// exits 1 only if glovebox misbehaves (an error, or a failed call).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { formatMs, median, percentile, printComparison, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { freePort, schedSeconds, userSystemSeconds } from './lib/proc.mjs';
import { restTerminal } from './lib/rest.mjs';

const CLIENTS = Number(process.env.BENCH_REST_CLIENTS ?? 16);
const CALLS = Number(process.env.BENCH_REST_CALLS ?? 200);
const WARMUP = Number(process.env.BENCH_REST_WARMUP ?? 20);
const RUNS = Number(process.env.BENCH_REST_RUNS ?? 3);
const SETTLE_MS = 300;

const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-rest-bench-'));
const port = await freePort();
const child = spawn(gloveboxBinary(), ['serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0', '--allow-all', '--data-dir', dataDir], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (d) => (stderr += d));
const base = `http://127.0.0.1:${port}`;
const session = await restTerminal(base, () => stderr);

const failures = [];

async function restCall() {
  const r = await fetch(`${base}/v1/sessions/${session}/tools/read_text`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"arguments":{}}',
  });
  const body = await r.json();
  return r.status === 200 && body.status === 'succeeded';
}

// /mcp without a client library: initialize, then tools/call POSTs.
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
async function rawMcpSession() {
  const init = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rest-bench-raw', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  const headers = { ...MCP_HEADERS, 'mcp-session-id': sid };
  await (await fetch(`${base}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
  let id = 1;
  return async () => {
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'read_text', arguments: { session } } }),
    });
    const body = await r.json();
    return r.status === 200 && body.result && !body.result.isError;
  };
}
const rawMcp = await Promise.all(Array.from({ length: CLIENTS }, rawMcpSession));

const mcpClients = await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    const c = new Client({ name: 'rest-bench', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    return c;
  }),
);

async function loop(call, n, latencies) {
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    let ok = false;
    try {
      ok = await call();
    } catch (e) {
      failures.push(String(e));
    }
    if (!ok) failures.push('a call failed');
    if (latencies) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}

const DOORS = ['rest', 'mcp', 'raw'];
function callerOf(door, i) {
  if (door === 'rest') return restCall;
  if (door === 'raw') return rawMcp[i];
  return async () => !(await mcpClients[i].callTool({ name: 'read_text', arguments: { session } })).isError;
}

// Latency: every client goes through the doors in turn, rotating the order.
async function latencies() {
  const lat = { rest: [], mcp: [], raw: [] };
  async function client(i, n, keep) {
    for (let k = 0; k < n; k++) {
      for (let d = 0; d < DOORS.length; d++) {
        const door = DOORS[(k + d) % DOORS.length];
        const t0 = process.hrtime.bigint();
        let ok = false;
        try {
          ok = await callerOf(door, i)();
        } catch (e) {
          failures.push(String(e));
        }
        if (!ok) failures.push(`a ${door} call failed`);
        if (keep) lat[door].push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, WARMUP, false)));
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, CALLS, true)));
  return Object.fromEntries(DOORS.map((d) => [d, { p50: percentile(lat[d], 50), p99: percentile(lat[d], 99) }]));
}

async function cpuPerCall(door) {
  const callers = Array.from({ length: CLIENTS }, (_, i) => callerOf(door, i));
  await Promise.all(callers.map((c) => loop(c, WARMUP)));
  const cpu0 = schedSeconds(child.pid);
  const split0 = userSystemSeconds(child.pid);
  await Promise.all(callers.map((c) => loop(c, CALLS)));
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const split1 = userSystemSeconds(child.pid);
  const n = CLIENTS * CALLS;
  // Where it goes: glovebox's own instructions (user) against the kernel's
  // wake-ups, reads and loopback writes (system), in ms per call.
  lastSplit[door] = { user: ((split1.user - split0.user) / n) * 1000, system: ((split1.system - split0.system) / n) * 1000 };
  return ((schedSeconds(child.pid) - cpu0) / n) * 1000;
}
const lastSplit = {};

// read_text's own CPU per call (see the top): µs.
async function toolOwnWork() {
  const home = mkdtempSync(join(tmpdir(), 'glovebox-rest-bench-tool-'));
  const recipes = join(home, 'config', 'glovebox', 'recipes');
  mkdirSync(recipes, { recursive: true });
  const steps = (tool) => JSON.stringify({ steps: Array.from({ length: 200 }, () => ({ tool, arguments: {} })) });
  writeFileSync(join(recipes, 'reads.recipe.json'), steps('read_text'));
  writeFileSync(join(recipes, 'lists.recipe.json'), steps('session_list'));
  const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all', '--rate-limit', '0', '--data-dir', join(home, 'data')], required: true };
  const peer = new StdioPeer(server, { env: { XDG_CONFIG_HOME: join(home, 'config') } });
  try {
    expectResult(server, 'initialize', (await peer.request('initialize', initializeParams)).msg);
    peer.notify('notifications/initialized');
    const call = async (name, args) => {
      const res = expectResult(server, name, (await peer.request('tools/call', { name, arguments: args }, 60000)).msg);
      if (res.isError || (res.structuredContent?.status && res.structuredContent.status !== 'ok')) throw new Error(`${name}: ${JSON.stringify(res).slice(0, 300)}`);
    };
    await call('terminal_start', { command: ['cat'] });
    const perStep = async (name) => {
      await call('recipe_run', { name });
      const cpu0 = schedSeconds(peer.pid);
      for (let i = 0; i < 10; i++) await call('recipe_run', { name });
      return ((schedSeconds(peer.pid) - cpu0) / 2000) * 1e6;
    };
    const reads = [], lists = [];
    for (let i = 0; i < 3; i++) {
      reads.push(await perStep('reads'));
      lists.push(await perStep('lists'));
    }
    return median(reads) - median(lists);
  } finally {
    await peer.close();
    rmSync(home, { recursive: true, force: true });
  }
}
// A difference of two steps' CPU: below zero when read_text costs less
// than session_list (a terminal whose screen did not change answers what
// it kept), and a tool's own work is never less than nothing, so it is
// counted as 0 then: all of the call's CPU is "beyond".
const toolWorkRaw = await toolOwnWork();
const toolWorkUs = Math.max(0, toolWorkRaw);
console.log(`read_text's own work: ${toolWorkRaw.toFixed(1)} µs of server CPU per call${toolWorkRaw < 0 ? ' (counted as 0)' : ''}`);

const runs = [];
for (let r = 0; r < RUNS; r++) {
  const lat = await latencies();
  const run = {};
  for (const d of DOORS) run[d] = { ...lat[d], cpuPerCall: await cpuPerCall(d) };
  const us = (v) => `${(v * 1000).toFixed(1)} µs`;
  console.log(
    `run ${r + 1}/${RUNS}: p50 REST ${formatMs(run.rest.p50)}, /mcp SDK ${formatMs(run.mcp.p50)}, /mcp fetch ${formatMs(run.raw.p50)}; ` +
      `CPU per call REST ${us(run.rest.cpuPerCall)}, /mcp SDK ${us(run.mcp.cpuPerCall)}, /mcp fetch ${us(run.raw.cpuPerCall)}; ` +
      `REST user ${us(lastSplit.rest.user)} + kernel ${us(lastSplit.rest.system)} (/proc/PID/stat ticks)`,
  );
  run.rest.user = lastSplit.rest.user;
  run.rest.system = lastSplit.rest.system;
  runs.push(run);
}
const med = (side, key) => median(runs.map((x) => x[side][key]));
const us = (v) => (Number.isFinite(v) ? `${(v * 1000).toFixed(1)} µs` : 'n/a');
printComparison(
  `REST vs /mcp: ${CLIENTS} clients × ${CALLS} read_text calls on one terminal, same server (audit on), median of ${RUNS} runs`,
  ['REST /v1', 'MCP /mcp'],
  [
    { metric: 'call latency p50', a: med('rest', 'p50'), b: med('mcp', 'p50'), format: formatMs, target: { ratio: 1.0, text: '≤ 1.0×' } },
    { metric: 'call latency p50, /mcp by fetch (no SDK)', a: med('rest', 'p50'), b: med('raw', 'p50'), format: formatMs, target: { ratio: 1.0, text: '≤ 1.0×' } },
    { metric: 'call latency p99', a: med('rest', 'p99'), b: med('mcp', 'p99'), format: formatMs },
    { metric: 'server CPU per call (utime+stime)', a: med('rest', 'cpuPerCall'), b: med('mcp', 'cpuPerCall'), format: us },
    { metric: 'server CPU per call, /mcp by fetch', a: med('rest', 'cpuPerCall'), b: med('raw', 'cpuPerCall'), format: us },
    { metric: "server CPU per call beyond the tool's own work", a: med('rest', 'cpuPerCall') - toolWorkUs / 1000, b: med('mcp', 'cpuPerCall') - toolWorkUs / 1000, format: us, target: { max: 0.030, text: '≤ 30 µs' } },
  ],
  'ratio = REST / MCP (lower is better); targets are not asserted.',
);
console.log(`REST server CPU per call, median: user space ${us(med('rest', 'user'))}, kernel ${us(med('rest', 'system'))} (/proc/PID/stat, 10 ms ticks)`);
saveResults('rest', { clients: CLIENTS, calls: CALLS, runs, tool_own_work_us: toolWorkUs, tool_own_work_raw_us: toolWorkRaw });

await Promise.all(mcpClients.map((c) => c.transport.terminateSession().catch(() => {}).then(() => c.close())));
child.kill('SIGTERM');
const exit = await new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
rmSync(dataDir, { recursive: true, force: true });
if (exit.code !== 0) failures.push(`glovebox exited with ${JSON.stringify(exit)}: ${stderr.slice(-2000)}`);
if (failures.length) {
  console.error(`glovebox misbehaved: ${failures.length} problem(s), first: ${failures[0]}`);
  process.exit(1);
}
