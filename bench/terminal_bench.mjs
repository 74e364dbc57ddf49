// Terminal benchmark: glovebox's terminal sessions against a Node peer built
// the way the TypeScript terminal MCP servers are (node-pty, @xterm/headless,
// an SVG of the cells rasterised by @resvg/resvg-js: bench/peers/xterm_peer.mjs),
// in one run, every session 120×40.
//   (1) echo round trip: type "echo $((i+1000000))" and wait for the sum on
//       screen; p50/p99 over BENCH_ECHO (300) after BENCH_ECHO_WARMUP (20)
//   (2) flood: type "seq 1 BENCH_FLOOD_LINES" (200000) and wait for its last
//       line alone on a line; median of BENCH_FLOOD_RUNS (5) fresh sessions
//   (3) screenshot: a screen full of 256-colour and true-colour blocks and
//       styled text as PNG; p50/p99 over BENCH_SHOTS (100) after 5 warm-up
//   (4) memory: BENCH_SESSIONS (50) idle bash sessions, RSS growth per session
// glovebox is driven over raw stdio (tool calls, full round trips); the peer
// is called in-process, which only flatters it. Prints figures and never
// asserts on them; exits 1 only if glovebox misbehaves (error reply, a wait
// that never matched, timeout, crash, unclean exit).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatKiB, formatMs, median, percentile, printComparison, saveResults } from './lib/report.mjs';
import { benchDir, gloveboxBinary } from './lib/servers.mjs';

const COLS = 120;
const ROWS = 40;
const ECHO = Number(process.env.BENCH_ECHO ?? 300);
const ECHO_WARMUP = Number(process.env.BENCH_ECHO_WARMUP ?? 20);
const FLOOD_RUNS = Number(process.env.BENCH_FLOOD_RUNS ?? 5);
const FLOOD_LINES = Number(process.env.BENCH_FLOOD_LINES ?? 200000);
const SHOTS = Number(process.env.BENCH_SHOTS ?? 100);
const SHOT_WARMUP = 5;
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
const SETTLE_MS = 1000; // idle time before reading memory

// A prompt-free shell: "$ " as the prompt, no rc files, no history file.
const SHELL = ['bash', '--norc', '--noprofile'];
const SHELL_ENV = { PS1: '$ ', HISTFILE: '' };
const PROMPT = '^\\$$'; // glovebox trims trailing blanks, so "$ " reads "$"

const now = () => process.hrtime.bigint();
const nsToMs = (ns) => Number(ns) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Bytes that paint every cell: 256-colour half blocks, true-colour half
 * blocks and styled text in both colour kinds; the last row ends "[ready]". */
function colourScreen(cols, rows) {
  const words = 'The quick brown fox jumps over the lazy dog 0123456789 ';
  const attrs = ['1', '3', '4', '2', '1;4', '7', '9', '22'];
  const third = Math.floor(cols / 3);
  const lines = [];
  for (let y = 0; y < rows; y++) {
    let s = '';
    for (let x = 0; x < third; x++) {
      const i = (y * third + x) % 256;
      s += `\x1b[38;5;${(i + 128) % 256};48;5;${i}m\u2584`;
    }
    for (let x = 0; x < third; x++) {
      const r = Math.round((255 * x) / third);
      const g = Math.round((255 * y) / rows);
      s += `\x1b[38;2;${255 - r};${r};${g};48;2;${r};${g};${255 - r}m\u2580`;
    }
    const n = cols - 2 * third;
    let text = `row ${String(y + 1).padStart(2, '0')} ${words.repeat(3)}`;
    text = y === rows - 1 ? `${text.slice(0, n - 7)}[ready]` : text.slice(0, n);
    const cut = Math.floor(n / 2);
    s += `\x1b[0;${attrs[y % attrs.length]};38;5;${40 + ((y * 7) % 190)}m${text.slice(0, cut)}`;
    s += `\x1b[0;38;2;${255 - y * 6};${y * 6};200;48;5;${232 + (y % 24)}m${text.slice(cut)}\x1b[0m`;
    lines.push(s);
  }
  return lines.join('\r\n');
}

// ---------------------------------------------------------------- glovebox

// --allow-all: without a policy of its own glovebox is read-only (no terminal_start).
const gloveboxServer = () => ({ name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true });

/** One glovebox process and the tool calls the benchmark makes. Every
 * failure is a glovebox failure. */
class Glovebox {
  static async open() {
    const g = new Glovebox();
    expectResult(g.server, 'initialize', (await g.peer.request('initialize', initializeParams, 30000)).msg);
    g.peer.notify('notifications/initialized');
    return g;
  }

  constructor() {
    this.server = gloveboxServer();
    this.peer = new StdioPeer(this.server);
  }

  /** tools/call; resolves {sc, result, ns, at}. Throws on an error reply or
   * an isError result. */
  async call(name, args, timeoutMs = 10000) {
    const r = await this.peer.request('tools/call', { name, arguments: args }, timeoutMs);
    const result = expectResult(this.server, name, r.msg);
    if (result.isError)
      throw new Error(`glovebox: ${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    if (this.peer.protocolError) throw new Error(this.peer.protocolError);
    return { sc: result.structuredContent, result, ns: r.ns, at: r.at };
  }

  async start(command, env = {}) {
    const { sc } = await this.call('terminal_start', { command, cols: COLS, rows: ROWS, env });
    return sc.id;
  }

  /** wait_for that must match; cond is {text} or {regex}. */
  async waitFor(session, cond, timeoutMs = 10000) {
    const r = await this.call('wait_for', { session, ...cond, timeout_ms: timeoutMs }, timeoutMs + 5000);
    if (!r.sc.matched)
      throw new Error(`glovebox: wait_for ${JSON.stringify(cond)} did not match (${r.sc.reason})`);
    return r;
  }

  async shell() {
    const id = await this.start(SHELL, SHELL_ENV);
    await this.waitFor(id, { regex: PROMPT });
    return id;
  }

  stop(session) {
    return this.call('session_stop', { session });
  }

  rssKiB() {
    return rssOf(this.peer.pid);
  }

  /** Closes stdin; glovebox must then exit by itself with status 0. */
  async close(failures) {
    const exit = await this.peer.close();
    if (exit.forced || exit.code !== 0)
      failures.push(`glovebox did not exit cleanly after stdin closed ` +
        `(${exit.forced ? 'had to be killed' : `status ${exit.code}, signal ${exit.signal}`})` +
        (this.peer.stderr ? `; stderr: ${this.peer.stderr.trim().slice(-500)}` : ''));
  }
}

/** CPU time (user + system, all threads) a process has used, in ms. */
function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

function rssOf(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

async function withGlovebox(failures, fn) {
  const g = await Glovebox.open();
  try {
    return await fn(g);
  } finally {
    await g.close(failures);
  }
}

// The sum (1000001, 1000002, …) is on no line before the shell prints it: not
// in the command line ("$((1+1000000))") nor in an earlier answer.
const echoCommand = (i) => `echo $((${i + 1}+1000000))\n`;
const echoMarker = (i) => String(i + 1 + 1000000);

const glovebox = {
  async echo(failures) {
    return withGlovebox(failures, async (g) => {
      const id = await g.shell();
      const times = [];
      for (let i = 0; i < ECHO_WARMUP + ECHO; i++) {
        const t0 = now();
        await g.call('type_text', { session: id, text: echoCommand(i) });
        const r = await g.waitFor(id, { text: echoMarker(i) });
        if (i >= ECHO_WARMUP) times.push(nsToMs(r.at - t0));
      }
      await g.stop(id);
      return times;
    });
  },

  async flood(failures) {
    return withGlovebox(failures, async (g) => {
      const times = [];
      for (let run = 0; run < FLOOD_RUNS; run++) {
        const id = await g.shell();
        const t0 = now();
        await g.call('type_text', { session: id, text: `seq 1 ${FLOOD_LINES}\n` });
        const r = await g.waitFor(id, { regex: `^${FLOOD_LINES}$` }, 60000);
        times.push(nsToMs(r.at - t0));
        await g.stop(id);
      }
      return times;
    });
  },

  async screenshot(failures, screenFile) {
    return withGlovebox(failures, async (g) => {
      const id = await g.start(['/bin/sh', '-c', 'cat "$1"; exec cat >/dev/null', 'sh', screenFile]);
      await g.waitFor(id, { text: '[ready]' });
      const times = [];
      let png = null;
      let firstMs = NaN;
      let cpu0 = NaN;
      for (let i = 0; i < SHOT_WARMUP + SHOTS; i++) {
        if (i === SHOT_WARMUP) cpu0 = cpuMsOf(g.peer.pid);
        const r = await g.call('screenshot', { session: id, format: 'png' });
        const image = r.result.content?.find((c) => c.type === 'image');
        if (!image || image.mimeType !== 'image/png')
          throw new Error('glovebox: screenshot returned no image/png content');
        if (i === 0) firstMs = nsToMs(r.ns);
        if (i >= SHOT_WARMUP) times.push(nsToMs(r.ns));
        png ??= { bytes: r.sc.bytes, width: r.sc.width, height: r.sc.height, data: image.data };
      }
      // CPU per call moves far less than wall time when the machine is busy.
      const cpuMs = (cpuMsOf(g.peer.pid) - cpu0) / SHOTS;
      const bytes = Buffer.from(png.data, 'base64');
      if (bytes.length !== png.bytes || bytes.readUInt32BE(0) !== 0x89504e47)
        throw new Error('glovebox: screenshot is not the PNG its result describes');
      // The same render and encode answered with a resource_link instead of
      // the image: what the 320 KB of base64 in JSON costs (informational).
      const link = [];
      for (let i = 0; i < Math.min(SHOTS, 30); i++)
        link.push(nsToMs((await g.call('screenshot', { session: id, format: 'png', as: 'link' })).ns));
      await g.stop(id);
      return { times, firstMs, cpuMs, link, png: bytes, width: png.width, height: png.height };
    });
  },

  async memory(failures) {
    return withGlovebox(failures, async (g) => {
      await g.call('status', {});
      const beforeKiB = g.rssKiB();
      const ids = [];
      for (let i = 0; i < SESSIONS; i++) ids.push(await g.shell());
      await sleep(SETTLE_MS);
      const afterKiB = g.rssKiB();
      const { sc } = await g.call('status', {});
      if (sc.live_sessions !== SESSIONS)
        throw new Error(`glovebox: ${sc.live_sessions} live sessions, expected ${SESSIONS}`);
      for (const id of ids) await g.stop(id);
      const afterStopKiB = g.rssKiB();
      return { sessions: SESSIONS, beforeKiB, afterKiB, afterStopKiB };
    });
  },
};

// ---------------------------------------------------------------- the peer

const peerApi = () => import('./peers/xterm_peer.mjs');

const peer = {
  async shell(XtermPeer) {
    const p = new XtermPeer({ command: SHELL, cols: COLS, rows: ROWS, env: SHELL_ENV });
    const r = await p.waitFor({ regex: new RegExp(PROMPT), timeoutMs: 10000 });
    if (!r.matched) throw new Error(`xterm peer: no prompt (${r.reason})`);
    return p;
  },

  async echo() {
    const { XtermPeer } = await peerApi();
    const p = await peer.shell(XtermPeer);
    const times = [];
    try {
      for (let i = 0; i < ECHO_WARMUP + ECHO; i++) {
        const t0 = now();
        p.type(echoCommand(i));
        const r = await p.waitFor({ text: echoMarker(i) });
        if (!r.matched) throw new Error(`xterm peer: echo ${i} not seen (${r.reason})`);
        if (i >= ECHO_WARMUP) times.push(nsToMs(now() - t0));
      }
    } finally {
      await p.stop();
    }
    return times;
  },

  async flood() {
    const { XtermPeer } = await peerApi();
    const times = [];
    for (let run = 0; run < FLOOD_RUNS; run++) {
      const p = await peer.shell(XtermPeer);
      try {
        const t0 = now();
        p.type(`seq 1 ${FLOOD_LINES}\n`);
        const r = await p.waitFor({ regex: new RegExp(`^${FLOOD_LINES}$`), timeoutMs: 60000 });
        if (!r.matched) throw new Error(`xterm peer: flood not seen (${r.reason})`);
        times.push(nsToMs(now() - t0));
      } finally {
        await p.stop();
      }
    }
    return times;
  },

  async screenshot(screenFile) {
    const { XtermPeer, resvgOptions } = await peerApi();
    const p = new XtermPeer({ command: ['/bin/sh', '-c', 'cat "$1"; exec cat >/dev/null', 'sh', screenFile],
      cols: COLS, rows: ROWS });
    try {
      const ready = await p.waitFor({ text: '[ready]', timeoutMs: 10000 });
      if (!ready.matched) throw new Error(`xterm peer: colour screen not shown (${ready.reason})`);
      const options = resvgOptions();
      const times = [];
      let shot;
      let firstMs = NaN;
      let cpu0;
      for (let i = 0; i < SHOT_WARMUP + SHOTS; i++) {
        if (i === SHOT_WARMUP) cpu0 = process.cpuUsage();
        const t0 = now();
        shot = p.screenshotPng(options);
        if (i === 0) firstMs = nsToMs(now() - t0);
        if (i >= SHOT_WARMUP) times.push(nsToMs(now() - t0));
      }
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = (cpu.user + cpu.system) / 1000 / SHOTS;
      // What a server that leaves resvg to find fonts itself pays (informational).
      const system = [];
      const sysOptions = resvgOptions({ systemFonts: true });
      for (let i = 0; i < 5; i++) {
        const t0 = now();
        p.screenshotPng(sysOptions);
        system.push(nsToMs(now() - t0));
      }
      return { times, firstMs, cpuMs, system, png: shot.png, width: shot.width, height: shot.height, svgBytes: shot.svgBytes };
    } finally {
      await p.stop();
    }
  },

  /** In a Node process of its own (bench/peers/xterm_peer_rss.mjs). */
  memory() {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath,
        ['--expose-gc', join(benchDir, 'peers/xterm_peer_rss.mjs'), String(SESSIONS), String(SETTLE_MS)],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_COLS: String(COLS), BENCH_ROWS: String(ROWS) } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { err += d; });
      child.on('error', reject);
      child.on('exit', (code) => {
        try {
          if (code !== 0) throw new Error(`xterm peer memory run exited with ${code}: ${err.trim().slice(-500)}`);
          resolve(JSON.parse(out.trim().split('\n').pop()));
        } catch (e) {
          reject(e);
        }
      });
    });
  },
};

// ---------------------------------------------------------------- report

async function main() {
  const names = ['glovebox', 'node-pty+xterm peer'];
  const failures = []; // glovebox problems: fail the run
  const peerErrors = [];
  const g = {};
  const p = {};
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-terminal-bench-'));
  const screenFile = join(dir, 'colours.txt');
  writeFileSync(screenFile, colourScreen(COLS, ROWS));

  console.log(`terminal: ${COLS}×${ROWS} sessions; echo ${ECHO} (+${ECHO_WARMUP} warm-up), ` +
    `flood seq 1 ${FLOOD_LINES} × ${FLOOD_RUNS}, screenshot ${SHOTS} (+${SHOT_WARMUP}), ` +
    `${SESSIONS} idle sessions`);
  console.log(`  glovebox: ${gloveboxBinary()} serve (tool calls over stdio)`);
  console.log('  peer: bench/peers/xterm_peer.mjs in this process (node-pty, @xterm/headless, @resvg/resvg-js)');
  const loadStart = loadavg();

  // Each benchmark runs glovebox, then the peer: never both at once.
  const steps = [
    ['echo', () => glovebox.echo(failures), () => peer.echo()],
    ['flood', () => glovebox.flood(failures), () => peer.flood()],
    ['screenshot', () => glovebox.screenshot(failures, screenFile), () => peer.screenshot(screenFile)],
    ['memory', () => glovebox.memory(failures), () => peer.memory()],
  ];
  for (const [name, runG, runP] of steps) {
    process.stdout.write(`  ${name}: glovebox…`);
    try {
      g[name] = await runG();
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
    }
    process.stdout.write(' peer…');
    try {
      p[name] = await runP();
    } catch (err) {
      peerErrors.push(err instanceof Error ? err.message : String(err));
      console.error(`\nwarning: ${peerErrors.at(-1)}`);
    }
    console.log(' done');
  }
  rmSync(dir, { recursive: true, force: true });
  const loadEnd = loadavg();

  const stat = (r, key, pc) => (r[key]?.times ?? r[key])?.length ? percentile(r[key].times ?? r[key], pc) : NaN;
  const perSession = (m) => (m ? (m.afterKiB - m.beforeKiB) / m.sessions : NaN);
  printComparison('terminal benchmark', names, [
    { metric: `echo round trip p50 (${ECHO})`, a: stat(g, 'echo', 50), b: stat(p, 'echo', 50), format: formatMs,
      target: { max: 2, text: '< 2 ms' } },
    { metric: 'echo round trip p99', a: stat(g, 'echo', 99), b: stat(p, 'echo', 99), format: formatMs },
    { metric: `flood seq 1 ${FLOOD_LINES} (median of ${FLOOD_RUNS})`, a: stat(g, 'flood', 50),
      b: stat(p, 'flood', 50), format: formatMs, target: { max: 150, text: '< 150 ms' } },
    { metric: `screenshot PNG p50 (${SHOTS})`, a: stat(g, 'screenshot', 50), b: stat(p, 'screenshot', 50),
      format: formatMs, target: { max: 10, text: '< 10 ms' } },
    { metric: 'screenshot PNG p99', a: stat(g, 'screenshot', 99), b: stat(p, 'screenshot', 99), format: formatMs },
    { metric: `RSS per idle session (${SESSIONS})`, a: perSession(g.memory), b: perSession(p.memory),
      format: formatKiB, target: { max: 2048, text: '< 2 MiB' } },
  ], 'ratio = glovebox / peer (lower is better); targets are limits on glovebox, not asserted.');

  const range = (v) => (v?.length ? `${formatMs(Math.min(...v))}–${formatMs(Math.max(...v))}` : 'n/a');
  console.log(`flood runs: glovebox ${range(g.flood)}, peer ${range(p.flood)}`);
  if (g.screenshot)
    console.log(`glovebox PNG: ${g.screenshot.width}×${g.screenshot.height}, ${g.screenshot.png.length} bytes ` +
      `(the round trip carries it as base64 in JSON); CPU ${formatMs(g.screenshot.cpuMs)} a call; ` +
      `first call ${formatMs(g.screenshot.firstMs)}; ` +
      `answered as a resource_link instead: p50 ${formatMs(median(g.screenshot.link))} ` +
      `(${g.screenshot.link.length} calls)`);
  if (p.screenshot)
    console.log(`peer PNG: ${p.screenshot.width}×${p.screenshot.height}, ${p.screenshot.png.length} bytes from a ` +
      `${p.screenshot.svgBytes}-byte SVG; CPU ${formatMs(p.screenshot.cpuMs)} a call; ` +
      `first call ${formatMs(p.screenshot.firstMs)}; with resvg ` +
      `loading the system fonts: p50 ${formatMs(median(p.screenshot.system))} (5 calls)`);
  // Other work on the machine moves these figures; say how busy it was.
  console.log(`load average (1/5/15 min): ${loadStart.map((l) => l.toFixed(2)).join(' ')} at the start, ` +
    `${loadEnd.map((l) => l.toFixed(2)).join(' ')} at the end (${cpus().length} cores)`);
  for (const [who, m] of [['glovebox', g.memory], ['peer', p.memory]])
    if (m)
      console.log(`${who} RSS: ${formatKiB(m.beforeKiB)} before, ${formatKiB(m.afterKiB)} with ${m.sessions} ` +
        `idle sessions, ${formatKiB(m.afterStopKiB)} after stopping them`);

  if (process.env.BENCH_RESULTS_DIR) {
    // The two screenshots, to look at: they should show the same screen.
    mkdirSync(process.env.BENCH_RESULTS_DIR, { recursive: true });
    for (const [who, r] of [['glovebox', g], ['peer', p]])
      if (r.screenshot) writeFileSync(join(process.env.BENCH_RESULTS_DIR, `terminal-${who}.png`), r.screenshot.png);
  }
  const summary = (r) => ({
    echoP50Ms: stat(r, 'echo', 50), echoP99Ms: stat(r, 'echo', 99),
    floodMedianMs: stat(r, 'flood', 50), floodRunsMs: r.flood ?? null,
    screenshotP50Ms: stat(r, 'screenshot', 50), screenshotP99Ms: stat(r, 'screenshot', 99),
    screenshotPngBytes: r.screenshot?.png.length ?? null, screenshotFirstMs: r.screenshot?.firstMs ?? null,
    screenshotCpuMs: r.screenshot?.cpuMs ?? null,
    memory: r.memory ?? null, rssPerSessionKiB: perSession(r.memory),
  });
  saveResults('terminal', {
    date: new Date().toISOString(),
    loadavgStart: loadStart, loadavgEnd: loadEnd,
    cols: COLS, rows: ROWS, echo: ECHO, echoWarmup: ECHO_WARMUP, floodRuns: FLOOD_RUNS,
    floodLines: FLOOD_LINES, shots: SHOTS, sessions: SESSIONS,
    glovebox: { command: `${gloveboxBinary()} serve`, ...summary(g),
      screenshotLinkP50Ms: g.screenshot ? median(g.screenshot.link) : null, errors: failures },
    peer: { ...summary(p), peerScreenshotSystemFontsMs: p.screenshot?.system ?? null, errors: peerErrors },
  });

  if (failures.length) {
    console.error('\nglovebox failed:');
    for (const f of failures) console.error(`  ${f}`);
    process.exit(1);
  }
  process.exit(0); // node-pty can keep handles open after its ptys are gone
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
