// How many sessions one glovebox server (one pod of deploy/kubernetes/)
// holds. For each kind, a fresh server (HTTP on loopback, the way a pod
// serves) gets sessions opened one at a time over the REST API, as an
// orchestrator opens them; at each checkpoint the bench reports
//  - memory, after the calls below: PSS (/proc/PID/smaps_rollup) and VmRSS of the server and of
//    every process below it (shells, Xvfb, buses, window managers, the PID
//    namespaces' inits), summed. PSS shares a page among the processes
//    mapping it, as a cgroup's memory limit counts it once; RSS counts it in
//    each (the namespaces' inits are forks of the server and share its
//    pages), so RSS overstates;
//  - idle CPU, after the calls: server + descendants over
//    BENCH_SCALE_IDLE_MS with every session open and nobody calling;
//  - open: POST /v1/sessions until the session is live;
//  - one at work: 40 calls one after another while the other sessions idle
//    (terminals: type_text "echo N", wait_for its output, read_text;
//    desktops: type_text into an xterm, then a screenshot of the changed
//    screen; browsers: open_url of a small local page, then a screenshot),
//    p50 and p95 — does holding sessions slow an agent's call?
//  - all at once: every session gets one call at the same moment, in rounds
//    (at least BENCH_SCALE_ROUNDS, 3, and 64 calls), the median of the
//    rounds' p50 and p95, calls per second, and server + descendants CPU
//    per call.
// Degradation, from the first checkpoint after which every checkpoint is
// over: "one at work" p50 over twice that of the first checkpoint, and "all
// at once" p95 over BENCH_SCALE_BUDGET_MS (100 ms).
// Knobs: BENCH_SCALE_TERMINALS (64), BENCH_SCALE_DESKTOPS (8),
// BENCH_SCALE_BROWSERS (4), BENCH_SCALE_ONLY (terminal|desktop|browser), BENCH_SCALE_ROUNDS, BENCH_SCALE_IDLE_MS (2000).
// Figures are printed, never asserted; exits 1 only if glovebox misbehaves.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { availableParallelism as nproc, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { formatKiB, formatMs, median, percentile, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';
import { freePort } from './lib/proc.mjs';

const TERMINALS = Number(process.env.BENCH_SCALE_TERMINALS ?? 64);
const DESKTOPS = Number(process.env.BENCH_SCALE_DESKTOPS ?? 8);
const BROWSERS = Number(process.env.BENCH_SCALE_BROWSERS ?? 4);
const ONLY = process.env.BENCH_SCALE_ONLY ?? '';
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.BENCH_SCALE_IDLE_MS ?? 2000);
const TICK = 100; // clock ticks per second (/proc/PID/stat)
// An agent's call that takes longer than this at p95 is one it notices.
const ALL_BUDGET_MS = Number(process.env.BENCH_SCALE_BUDGET_MS ?? 100);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** pid → {ppid, cpu (ticks)} of every process we can read. */
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      table.set(Number(name), { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone between readdir and read
    }
  }
  return table;
}

/** The server and every process below it. */
function tree(root) {
  const table = processTable();
  const children = new Map();
  for (const [pid, p] of table) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(pid);
  }
  const out = [];
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop();
    if (!table.has(pid)) continue;
    out.push({ pid, ...table.get(pid) });
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

function kib(file, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** {rss, pss, server_rss, processes, cpu} of the tree, memory in KiB, cpu in ticks. */
function footprint(root) {
  const procs = tree(root);
  let rss = 0;
  let pss = 0;
  let cpu = 0;
  for (const p of procs) {
    rss += kib(`/proc/${p.pid}/status`, 'VmRSS');
    pss += kib(`/proc/${p.pid}/smaps_rollup`, 'Pss');
    cpu += p.cpu;
  }
  return { rss, pss, server_rss: kib(`/proc/${root}/status`, 'VmRSS'), processes: procs.length, cpu };
}

/** CPU ticks of the tree; processes that ended in between are lost, so a
 * window measures with sessions that stay open. */
const cpuTicks = (root) => tree(root).reduce((s, p) => s + p.cpu, 0);

/** A fresh server per kind, so that one kind's memory does not weigh on the
 * other's figures. */
async function startServer() {
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-scaling-bench-'));
  const port = await freePort();
  const child = spawn(
    gloveboxBinary(),
    ['serve', '--http', `127.0.0.1:${port}`, '--rate-limit', '0', '--allow-all', '--data-dir', dataDir,
      '--max-sessions', '10000', '--max-sessions-per-client', '10000', '--no-audit'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, GLOVEBOX_LOG: 'error' } },
  );
  const srv = { child, pid: child.pid, dataDir, base: `http://127.0.0.1:${port}`, stderr: '' };
  child.stderr.on('data', (d) => (srv.stderr = (srv.stderr + d).slice(-8192)));
  for (let i = 0; ; i++) {
    try {
      await (await fetch(`${srv.base}/v1/sessions`)).text();
      return srv;
    } catch {
      if (i > 200) throw new Error(`glovebox did not start: ${srv.stderr}`);
      await sleep(50);
    }
  }
}

async function stopServer(srv) {
  const exited = new Promise((resolve) => srv.child.on('exit', (c, s) => resolve(s ?? c)));
  srv.child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) failures.push(`glovebox exited with ${code}: ${srv.stderr}`);
  rmSync(srv.dataDir, { recursive: true, force: true });
}

const failures = [];
let base = '';
async function rest(method, path, body) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  const json = text ? JSON.parse(text) : null;
  return { status: r.status, json };
}
async function tool(id, name, args) {
  const r = await rest('POST', `/v1/sessions/${id}/tools/${name}`, { arguments: args });
  if (r.status !== 200 || r.json.status !== 'succeeded') {
    failures.push(`${name} on ${id}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    return null;
  }
  return r.json.result;
}

const kinds = {
  terminal: {
    count: TERMINALS,
    checkpoints: [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256].filter((n) => n <= TERMINALS),
    start: { kind: 'terminal', arguments: { command: ['bash', '--norc', '--noprofile'], cols: 120, rows: 40 }, idle_s: 3600 },
    // What an agent does most: type a command, read what it printed.
    async call(id, n) {
      if (!(await tool(id, 'type_text', { text: `echo scale-${n}\n` }))) return;
      await tool(id, 'wait_for', { text: `scale-${n}`, timeout_ms: 30000 });
      await tool(id, 'read_text', {});
    },
  },
  desktop: {
    count: DESKTOPS,
    checkpoints: [1, 2, 3, 4, 6, 8, 12, 16].filter((n) => n <= DESKTOPS),
    start: { kind: 'desktop', arguments: { width: 1280, height: 800, command: ['xterm'] }, idle_s: 3600 },
    // A computer-use step: act (type into the xterm, which draws it), then
    // look: a screenshot of a changed screen, captured and encoded.
    async call(id, n) {
      if (!(await tool(id, 'type_text', { text: `echo ${n}\n` }))) return;
      await tool(id, 'screenshot', {});
    },
  },
  browser: {
    count: BROWSERS,
    checkpoints: [1, 2, 3, 4, 6, 8].filter((n) => n <= BROWSERS),
    // glovebox's own headless Chromium (chromedriver), one per session.
    start: { kind: 'webdriver', arguments: {}, idle_s: 3600 },
    async opened(id) {
      await tool(id, 'open_url', { url: `${page.url}?n=0` });
    },
    // Load a page, then look at it.
    async call(id, n) {
      if (!(await tool(id, 'open_url', { url: `${page.url}?n=${n}` }))) return;
      await tool(id, 'screenshot', {});
    },
  },
};

// The page the browsers load: a form and a paragraph, served on loopback.
const page = await new Promise((resolve) => {
  const server = createHttpServer((req, res) => {
    const n = new URL(req.url, 'http://x').searchParams.get('n') ?? '';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>scale ${n}</title><h1>Page ${n}</h1><form><input name=q value="${n}"><button>Go</button></form><p>${'text '.repeat(200)}</p>`);
  });
  server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
});

const SINGLE_CALLS = 40;

async function measure(kindName) {
  const kind = kinds[kindName];
  const srv = await startServer();
  base = srv.base;
  const ids = [];
  const rows = [];
  let seq = 0;
  let stopped = false;
  await sleep(500);
  const empty = footprint(srv.pid);
  for (const n of kind.checkpoints) {
    const opens = [];
    while (ids.length < n) {
      const t0 = performance.now();
      const r = await rest('POST', '/v1/sessions', kind.start);
      opens.push(performance.now() - t0);
      if (r.status !== 201) {
        failures.push(`opening ${kindName} ${ids.length + 1}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
        stopped = true;
        break;
      }
      ids.push(r.json.id);
      await kind.opened?.(r.json.id);
    }
    if (stopped) break;
    // One agent at work, the others idle: does holding sessions slow a call?
    const single = [];
    for (let i = 0; i < SINGLE_CALLS; i++) {
      const s0 = performance.now();
      await kind.call(ids[i % ids.length], seq++);
      single.push(performance.now() - s0);
    }
    // Every session at work at once: one call each, at the same moment, in
    // rounds; at least 64 calls, so that the CPU clock's 10 ms ticks are a
    // small part of what is measured.
    const rounds = Math.max(ROUNDS, Math.ceil(64 / n));
    const p50s = [];
    const p95s = [];
    let calls = 0;
    const cr0 = cpuTicks(srv.pid);
    const w0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      const lat = [];
      await Promise.all(
        ids.map(async (id) => {
          const s0 = performance.now();
          await kind.call(id, seq++);
          lat.push(performance.now() - s0);
        }),
      );
      calls += ids.length;
      p50s.push(percentile(lat, 50));
      p95s.push(percentile(lat, 95));
    }
    const wall = (performance.now() - w0) / 1000;
    const cpuPerCall = ((cpuTicks(srv.pid) - cr0) / TICK / calls) * 1000;
    // Idle, after the work (what the calls started — a desktop's
    // accessibility bus — stays): every session open, nobody calling.
    await sleep(500);
    const c0 = cpuTicks(srv.pid);
    const t0 = performance.now();
    await sleep(IDLE_MS);
    const idleCpu = (cpuTicks(srv.pid) - c0) / TICK / ((performance.now() - t0) / 1000);
    const fp = footprint(srv.pid);
    const row = {
      sessions: n,
      rss_kib: fp.rss,
      pss_kib: fp.pss,
      server_rss_kib: fp.server_rss,
      processes: fp.processes,
      rss_per_session_kib: (fp.rss - empty.rss) / n,
      pss_per_session_kib: (fp.pss - empty.pss) / n,
      idle_cpu_cores: idleCpu,
      open_ms_p50: median(opens),
      open_ms_max: Math.max(...opens),
      single_ms_p50: percentile(single, 50),
      single_ms_p95: percentile(single, 95),
      all_ms_p50: median(p50s),
      all_ms_p95: median(p95s),
      all_calls_per_s: calls / wall,
      cpu_ms_per_call: cpuPerCall,
    };
    rows.push(row);
    console.error(`${kindName} ${n}: pss ${formatKiB(fp.pss)}, one at work p95 ${formatMs(row.single_ms_p95)}, all at once p95 ${formatMs(row.all_ms_p95)}`);
  }
  for (const id of ids) await rest('DELETE', `/v1/sessions/${id}`);
  await stopServer(srv);
  return { kind: kindName, empty, rows };
}

function print(result) {
  const { kind, empty, rows } = result;
  const first = rows[0];
  // Sustained: from that checkpoint on, every later one is over too (one
  // slow checkpoint on a shared machine is noise, not a limit).
  const from = (over) => rows.find((r, i) => rows.slice(i).every(over));
  const single = from((r) => first && r.single_ms_p50 > 2 * first.single_ms_p50);
  const all = from((r) => r.all_ms_p95 > ALL_BUDGET_MS);
  console.log(`\n${kind} sessions on one server (empty server: RSS ${formatKiB(empty.rss)}, PSS ${formatKiB(empty.pss)})\n`);
  const header = ['sessions', 'processes', 'PSS total', 'PSS / session', 'RSS / session', 'server RSS', 'idle CPU', 'open p50', 'open max',
    'one at work p50', 'p95', 'all at once p50', 'p95', 'calls/s', 'CPU / call'];
  const table = rows.map((r) => [
    String(r.sessions),
    String(r.processes),
    formatKiB(r.pss_kib),
    formatKiB(r.pss_per_session_kib),
    formatKiB(r.rss_per_session_kib),
    formatKiB(r.server_rss_kib),
    `${(r.idle_cpu_cores * 100).toFixed(1)} %`,
    formatMs(r.open_ms_p50),
    formatMs(r.open_ms_max),
    formatMs(r.single_ms_p50),
    formatMs(r.single_ms_p95),
    formatMs(r.all_ms_p50),
    formatMs(r.all_ms_p95),
    r.all_calls_per_s.toFixed(0),
    formatMs(r.cpu_ms_per_call),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const row of table) console.log(line(row));
  const last = rows.at(-1)?.sessions ?? 0;
  console.log(
    single
      ? `\none at work: p50 stays over twice that with ${first.sessions} session(s) from ${single.sessions} sessions open`
      : `\none at work: p50 within twice that with ${first?.sessions} session(s) up to ${last} sessions open`,
  );
  console.log(
    all
      ? `all at once: p95 stays over ${ALL_BUDGET_MS} ms from ${all.sessions} sessions`
      : `all at once: p95 within ${ALL_BUDGET_MS} ms up to ${last} sessions`,
  );
  return { single: single?.sessions ?? null, all: all?.sessions ?? null };
}

const results = {};
for (const k of ['terminal', 'desktop', 'browser']) {
  if ((ONLY && ONLY !== k) || kinds[k].count < 1) continue; // BENCH_SCALE_…=0 leaves a kind out
  const r = await measure(k);
  r.degrades_at = print(r);
  results[k] = r;
}
page.server.close();
console.log(`\n${process.env.GLOVEBOX_BUILD ?? 'build-bench'}, ${nproc()} cores, load average ${loadavg()[0].toFixed(1)} at the end; figures are not asserted.`);
saveResults('scaling', results);
if (failures.length) {
  console.error(`glovebox misbehaved:\n${failures.slice(0, 10).join('\n')}`);
  process.exit(1);
}
