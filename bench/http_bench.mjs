// HTTP benchmark: BENCH_HTTP_CLIENTS (64) concurrent MCP clients over
// Streamable HTTP, each with its own session, each making BENCH_HTTP_CALLS
// (1000) sequential trivial tool calls — glovebox's `status`, the reference
// server's `echo` (@modelcontextprotocol/server-everything streamableHttp),
// measured in one run with the same client code (fetch with keep-alive).
// Prints throughput, p50/p99 latency, errors and server RSS before/after;
// never asserts on figures. Exits 1 only if glovebox misbehaves.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { formatKiB, formatMs, percentile, printComparison, saveResults } from './lib/report.mjs';
import { benchDir, gloveboxBinary } from './lib/servers.mjs';

const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS ?? 64);
const CALLS = Number(process.env.BENCH_HTTP_CALLS ?? 1000);
const WARMUP = 20;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssKiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

async function startServer(kind) {
  const port = await freePort();
  const child =
    kind === 'glovebox'
      ? spawn(gloveboxBinary(), ['serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn(process.execPath, [join(benchDir, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, PORT: String(port) },
        });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url, { method: 'GET' });
      return { child, url, stderr: () => stderr };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`${kind} did not start: ${stderr}`);
}

/** The JSON-RPC message answering id, from a JSON or SSE body. */
function answerIn(contentType, text, id) {
  if (contentType?.includes('text/event-stream')) {
    for (const line of text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (!data) continue;
      const msg = JSON.parse(data);
      if (msg.id === id) return msg;
    }
    return undefined;
  }
  return JSON.parse(text);
}

// node:http with a keep-alive agent costs the client far less CPU per call
// than fetch(); on a 2-core machine the client would otherwise be what is
// measured.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function request(url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method, agent, headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function rpc(url, headers, body) {
  const res = await request(url, 'POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, JSON.stringify(body));
  return { res, msg: body.id === undefined ? undefined : answerIn(res.headers['content-type'], res.text, body.id) };
}

async function oneClient(url, tool, args, latencies, errors) {
  const init = await rpc(url, {}, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const sid = init.res.headers['mcp-session-id'];
  if (!sid || !init.msg?.result) throw new Error(`initialize failed: ${init.res.status}`);
  const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await rpc(url, h, { jsonrpc: '2.0', method: 'notifications/initialized' });
  for (let i = 1; i <= WARMUP + CALLS; i++) {
    const t0 = process.hrtime.bigint();
    let ok = false;
    try {
      const { msg } = await rpc(url, h, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool, arguments: args } });
      ok = msg?.result && !msg.result.isError;
    } catch {
      ok = false;
    }
    if (i > WARMUP) {
      if (ok) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      else errors.n++;
    }
  }
  await request(url, 'DELETE', h).catch(() => {});
}

async function measure(kind, tool, args) {
  const srv = await startServer(kind);
  const rssBefore = rssKiB(srv.child.pid);
  const latencies = [];
  const errors = { n: 0 };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CLIENTS }, () => oneClient(srv.url, tool, args, latencies, errors)));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise((r) => setTimeout(r, 500));
  const rssAfter = rssKiB(srv.child.pid);
  const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${srv.child.pid}/status`, 'utf8'))?.[1]);
  // Server CPU time (user + system), to tell the server's cost from the client's.
  const stat = readFileSync(`/proc/${srv.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
  srv.child.kill('SIGTERM');
  const exit = await new Promise((r) => srv.child.once('exit', (code, signal) => r({ code, signal })));
  return {
    calls: latencies.length + errors.n,
    errors: errors.n,
    throughput: (CLIENTS * (CALLS + WARMUP)) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rssBefore,
    rssAfter,
    peak,
    cpuPerCall: (cpuSeconds / (CLIENTS * (CALLS + WARMUP))) * 1000,
    exit,
    stderr: srv.stderr(),
  };
}

const g = await measure('glovebox', 'status', {});
const ref = await measure('reference', 'echo', { message: 'hi' });
const perSec = (v) => (Number.isFinite(v) ? `${v.toFixed(0)}/s` : 'n/a');
const count = (v) => String(v);
printComparison(
  `HTTP: ${CLIENTS} concurrent clients × ${CALLS} tool calls (glovebox status, reference echo)`,
  ['glovebox', 'reference (TS)'],
  [
    { metric: 'seconds per 1,000 calls (1/throughput)', a: 1000 / g.throughput, b: 1000 / ref.throughput, format: (v) => `${(v * 1000).toFixed(1)} ms`, target: { ratio: 0.2, text: '≥5× throughput' } },
    { metric: 'call latency p50', a: g.p50, b: ref.p50, format: formatMs },
    { metric: 'call latency p99', a: g.p99, b: ref.p99, format: formatMs, target: { ratio: 1, text: 'lower p99' } },
    { metric: 'server CPU per call', a: g.cpuPerCall, b: ref.cpuPerCall, format: formatMs },
    { metric: 'errors', a: g.errors, b: ref.errors, format: count },
    { metric: 'RSS before', a: g.rssBefore, b: ref.rssBefore, format: formatKiB },
    { metric: 'RSS after (sessions deleted)', a: g.rssAfter, b: ref.rssAfter, format: formatKiB },
    { metric: 'peak RSS', a: g.peak, b: ref.peak, format: formatKiB },
  ],
);
console.log(`throughput: glovebox ${perSec(g.throughput)}, reference ${perSec(ref.throughput)} (${(g.throughput / ref.throughput).toFixed(1)}×)`);
saveResults('http', { clients: CLIENTS, calls: CALLS, glovebox: { ...g, stderr: undefined }, reference: { ...ref, stderr: undefined } });
const failures = [];
if (g.errors) failures.push(`glovebox answered ${g.errors} calls with errors`);
if (g.exit.code !== 0) failures.push(`glovebox exited ${g.exit.code}/${g.exit.signal}: ${g.stderr.slice(-500)}`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
