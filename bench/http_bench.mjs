// HTTP benchmark: BENCH_HTTP_CLIENTS (32) official MCP SDK clients
// (Client + StreamableHTTPClientTransport), each with its own session over
// Streamable HTTP, each making BENCH_HTTP_CALLS (150) sequential trivial
// tool calls after BENCH_HTTP_WARMUP (10) uncounted ones — glovebox's
// BENCH_HTTP_TOOL (`session_list`: no sessions, an empty list) with its
// audit log on (a fresh --data-dir), the reference server's `echo` (@modelcontextprotocol/server-everything
// streamableHttp). Both servers are measured in the same run, alternately,
// BENCH_HTTP_RUNS (3) times; the figures printed are medians over the runs.
//
// The headline figure is server CPU per call: utime + stime of the server
// process (every thread, the audit writer's included) from /proc/PID/stat,
// sampled after every client has initialized and again once the last call
// is answered and the audit queue has had time to drain, divided by the
// calls made in between. Prints the figures and never asserts on them;
// exits 1 only if glovebox misbehaves.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { formatKiB, formatMs, median, percentile, printComparison, saveResults } from './lib/report.mjs';
import { benchDir, gloveboxBinary } from './lib/servers.mjs';
import { freePort, schedSeconds } from './lib/proc.mjs';

const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS ?? 32);
const CALLS = Number(process.env.BENCH_HTTP_CALLS ?? 150);
const WARMUP = Number(process.env.BENCH_HTTP_WARMUP ?? 10);
const RUNS = Number(process.env.BENCH_HTTP_RUNS ?? 3);
const TOOL = process.env.BENCH_HTTP_TOOL ?? 'session_list';
// For profiling glovebox alone (perf record -p): BENCH_HTTP_REFERENCE=0.
const WITH_REFERENCE = process.env.BENCH_HTTP_REFERENCE !== '0';
// Settle time before the last CPU sample: the audit writer commits its
// batch within milliseconds of the last call.
const SETTLE_MS = 300;

function status(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status(pid))?.[1]);

/** utime + stime of every thread of pid, in seconds. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/** utime alone of every thread of pid, in seconds: the server's own code
 * (with the libraries it calls), without the kernel's network and
 * scheduling work, which the machine's load inflates. */
function userSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(stat[11]) / 100;
}

/** utime + stime of pid's main thread alone (the event loop), in seconds. */
function loopCpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100;
}

/** Times the main thread (the event loop) went to sleep and was woken:
 * its voluntary context switches. Each is a wake-up, which on a VM costs
 * as much as a good part of a call's own work. */
function loopWakeups(pid) {
  try {
    return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))[1]);
  } catch {
    return NaN;
  }
}

async function startServer(kind, dataDir) {
  const port = await freePort();
  const child =
    kind === 'glovebox'
      ? spawn(gloveboxBinary(), ['serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0', '--data-dir', dataDir], {
          stdio: ['ignore', 'ignore', 'pipe'],
        })
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

async function connect(url) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** n calls, one after another; latencies (ms) of the good ones when record. */
async function calls(client, tool, args, n, record, latencies, errors) {
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    let ok = false;
    try {
      const r = await client.callTool({ name: tool, arguments: args });
      ok = !r.isError;
    } catch {
      ok = false;
    }
    if (!record) continue;
    if (ok) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    else errors.n++;
  }
}

async function measure(kind, tool, args) {
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-http-bench-'));
  const srv = await startServer(kind, dataDir);
  const pid = srv.child.pid;
  const rssBefore = kib(pid, 'VmRSS');
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(srv.url)));
  await Promise.all(clients.map((c) => calls(c, tool, args, WARMUP, false)));
  const latencies = [];
  const errors = { n: 0 };
  const cpu0 = cpuSeconds(pid);
  const loop0 = loopCpuSeconds(pid);
  const sched0 = schedSeconds(pid);
  const user0 = userSeconds(pid);
  const wake0 = loopWakeups(pid);
  const t0 = process.hrtime.bigint();
  await Promise.all(clients.map((c) => calls(c, tool, args, CALLS, true, latencies, errors)));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const cpu = cpuSeconds(pid) - cpu0;
  const loopCpu = loopCpuSeconds(pid) - loop0;
  const schedCpu = schedSeconds(pid) - sched0;
  const userCpu = userSeconds(pid) - user0;
  const wakeups = loopWakeups(pid) - wake0;
  await Promise.all(clients.map((c) => c.transport.terminateSession().catch(() => {}).then(() => c.close())));
  await new Promise((r) => setTimeout(r, 500));
  const rssAfter = kib(pid, 'VmRSS');
  const peak = kib(pid, 'VmHWM');
  srv.child.kill('SIGTERM');
  const exit = await new Promise((r) => srv.child.once('exit', (code, signal) => r({ code, signal })));
  rmSync(dataDir, { recursive: true, force: true });
  const n = CLIENTS * CALLS;
  return {
    calls: latencies.length + errors.n,
    errors: errors.n,
    throughput: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rssBefore,
    rssAfter,
    peak,
    cpuPerCall: (cpu / n) * 1000, // ms
    loopCpuPerCall: (loopCpu / n) * 1000, // ms, the main thread's share
    schedCpuPerCall: (schedCpu / n) * 1000, // ms, every thread, from schedstat
    userCpuPerCall: (userCpu / n) * 1000, // ms, every thread, user time only
    wakeupsPerCall: wakeups / n, // the loop thread's voluntary context switches
    exit,
    stderr: srv.stderr(),
  };
}

const runs = [];
for (let r = 0; r < RUNS; r++) {
  const g = await measure('glovebox', TOOL, {});
  const ref = WITH_REFERENCE ? await measure('reference', 'echo', { message: 'hi' }) : { errors: 0 };
  console.log(
    `run ${r + 1}/${RUNS}: server CPU per call glovebox ${(g.cpuPerCall * 1000).toFixed(1)} µs ` +
      `(main thread ${(g.loopCpuPerCall * 1000).toFixed(1)} µs; schedstat ${(g.schedCpuPerCall * 1000).toFixed(1)} µs; user ${(g.userCpuPerCall * 1000).toFixed(1)} µs; ${g.wakeupsPerCall.toFixed(2)} loop wake-ups per call), reference ${(ref.cpuPerCall * 1000).toFixed(1)} µs`,
  );
  runs.push({ g, ref });
}
const med = (side, key) => median(runs.map((r) => r[side][key]));
const g = Object.fromEntries(['throughput', 'p50', 'p99', 'cpuPerCall', 'loopCpuPerCall', 'schedCpuPerCall', 'userCpuPerCall', 'wakeupsPerCall', 'rssBefore', 'rssAfter', 'peak'].map((k) => [k, med('g', k)]));
const ref = Object.fromEntries(['throughput', 'p50', 'p99', 'cpuPerCall', 'schedCpuPerCall', 'userCpuPerCall', 'rssBefore', 'rssAfter', 'peak'].map((k) => [k, med('ref', k)]));
g.errors = runs.reduce((s, r) => s + r.g.errors, 0);
ref.errors = runs.reduce((s, r) => s + r.ref.errors, 0);
const count = (v) => String(v);
const us = (v) => (Number.isFinite(v) ? `${(v * 1000).toFixed(1)} µs` : 'n/a');
printComparison(
  `HTTP: ${CLIENTS} SDK clients × ${CALLS} tool calls (glovebox ${TOOL}, audit on; reference echo), median of ${RUNS} runs`,
  ['glovebox', 'reference (TS)'],
  [
    { metric: 'server CPU per call (utime+stime)', a: g.cpuPerCall, b: ref.cpuPerCall, format: us, target: { max: 0.03, text: '≤ 30 µs' } },
    { metric: '  of which the main thread (event loop)', a: g.loopCpuPerCall, b: NaN, format: us },
    { metric: '  the same from schedstat (ns, all threads)', a: g.schedCpuPerCall, b: ref.schedCpuPerCall, format: us },
    { metric: '  of which user time (utime, all threads)', a: g.userCpuPerCall, b: ref.userCpuPerCall, format: us },
    { metric: 'loop thread wake-ups per call', a: g.wakeupsPerCall, b: NaN, format: (v) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a') },
    { metric: 'seconds per 1,000 calls (1/throughput)', a: 1000 / g.throughput, b: 1000 / ref.throughput, format: (v) => `${(v * 1000).toFixed(1)} ms` },
    { metric: 'call latency p50', a: g.p50, b: ref.p50, format: formatMs },
    { metric: 'call latency p99', a: g.p99, b: ref.p99, format: formatMs },
    { metric: 'errors (all runs)', a: g.errors, b: ref.errors, format: count },
    { metric: 'RSS before', a: g.rssBefore, b: ref.rssBefore, format: formatKiB },
    { metric: 'RSS after (sessions deleted)', a: g.rssAfter, b: ref.rssAfter, format: formatKiB },
    { metric: 'peak RSS', a: g.peak, b: ref.peak, format: formatKiB },
  ],
);
saveResults('http', {
  clients: CLIENTS,
  calls: CALLS,
  tool: TOOL,
  runs: runs.map((r) => ({ glovebox: { ...r.g, stderr: undefined }, reference: { ...r.ref, stderr: undefined } })),
  median: { glovebox: g, reference: ref },
});
const failures = [];
for (const [i, r] of runs.entries()) {
  if (r.g.errors) failures.push(`run ${i + 1}: glovebox answered ${r.g.errors} calls with errors`);
  if (r.g.exit.code !== 0) failures.push(`run ${i + 1}: glovebox exited ${r.g.exit.code}/${r.g.exit.signal}: ${r.g.stderr.slice(-500)}`);
}
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
