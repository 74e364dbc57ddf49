// Desktop benchmark: glovebox's desktop tools against the approach the
// reference computer-use implementation takes on Linux — a new process per
// action (`xdotool`), `scrot` for screenshots and ImageMagick's `convert` to
// scale them — on the same private Xvfb desktop (1280×800) in one run, with
// a zenity entry dialog on screen.
//   (1) screenshot, full size PNG: glovebox `screenshot` vs `scrot`
//   (2) screenshot scaled to 640 px wide: `screenshot max_width` vs `scrot` +
//       `convert -resize` (area-averaged on both sides)
//   (2b) a 200×100 region: `screenshot region` vs `scrot -a x,y,w,h`
//   (3) click at a point: `click` vs `xdotool mousemove X Y click 1`
//   (4) type one character: `type_text` vs `xdotool type`
//   (5) accessibility snapshot of the dialog (no peer: it has none)
//   (6) a computer-use loop's executor step: `computer` mouse_move with its
//       returned screenshot (default settle, and settle_ms 0; and after the
//       screen changed, when no copy of the last screenshot can be answered
//       again) vs `xdotool mousemove` + `scrot`, as Anthropic's demo
//       container does it
// glovebox is driven over raw stdio (full tool-call round trips); the peer's
// figure is the time from spawn to exit. Prints figures, never asserts on
// them; exits 1 only if glovebox misbehaves.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, percentile, printComparison, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';

const SHOTS = Number(process.env.BENCH_SHOTS ?? 50);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 100);
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 50);
const WARMUP = 3;
// BENCH_ONLY=computer runs only (6), for profiling the computer path.
const ONLY = process.env.BENCH_ONLY ?? '';
const part = (name) => !ONLY || ONLY === name;

const now = () => process.hrtime.bigint();
const nsToMs = (ns) => Number(ns) / 1e6;

class Glovebox {
  constructor() {
    this.server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true };
    this.peer = new StdioPeer(this.server);
  }

  async open() {
    expectResult(this.server, 'initialize', (await this.peer.request('initialize', initializeParams, 30000)).msg);
    this.peer.notify('notifications/initialized');
  }

  async call(name, args, timeoutMs = 20000) {
    const r = await this.peer.request('tools/call', { name, arguments: args }, timeoutMs);
    const result = expectResult(this.server, name, r.msg);
    if (result.isError) throw new Error(`glovebox: ${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    return { sc: result.structuredContent, ms: nsToMs(r.ns) };
  }

  async close() {
    this.peer.child.stdin.end();
    const exit = await this.peer.exited;
    if (exit.code !== 0) throw new Error(`glovebox exited uncleanly: ${JSON.stringify(exit)}\n${this.peer.stderr}`);
  }
}

/** Runs argv to completion; resolves its wall time in ms (rejects on failure). */
function run(argv, env) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(nsToMs(now() - t0)) : reject(new Error(`${argv.join(' ')}: status ${code}: ${err}`))));
  });
}

async function times(n, fn) {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const out = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

const p = (xs, q) => (xs ? percentile(xs, q) : NaN);

async function main() {
  const g = new Glovebox();
  await g.open();
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-desktop-bench-'));
  const results = { glovebox: {}, peer: {} };
  try {
    const { sc: desk } = await g.call('desktop_start', { width: 1280, height: 800, command: ['zenity', '--entry', '--title', 'Bench', '--text', 'Type here'] });
    const session = desk.id;
    const env = { DISPLAY: desk.display };
    await g.call('wait_for', { session, text: 'Type here', timeout_ms: 15000 });
    const snap = await g.call('snapshot', { session, app: 'zenity' });
    const entry = snap.sc.elements.find((e) => e.role === 'text');
    await g.call('click', { session, ref: entry.ref }); // the entry has the focus for both sides

    const png = join(dir, 'shot.png');
    const small = join(dir, 'small.png');
    results.pngBytes = {};
    if (part('tools')) {
      results.glovebox.screenshot = await times(SHOTS, async () => (await g.call('screenshot', { session })).ms);
      results.peer.screenshot = await times(SHOTS, () => run(['scrot', '-o', png], env));
      results.glovebox.scaled = await times(SHOTS, async () => (await g.call('screenshot', { session, max_width: 640 })).ms);
      results.peer.scaled = await times(SHOTS, async () => (await run(['scrot', '-o', png], env)) +
        (await run(['convert', png, '-filter', 'Box', '-resize', '640x', small], env)));
      results.pngBytes = { glovebox: (await g.call('screenshot', { session })).sc.bytes, peer: statSync(png).size };
      // A part of the screen (what an agent asks for to look closer): glovebox
      // reads only those pixels; scrot -a crops what it grabbed.
      const region = { x: 100, y: 100, width: 200, height: 100 };
      results.glovebox.region = await times(SHOTS, async () => (await g.call('screenshot', { session, region })).ms);
      results.peer.region = await times(SHOTS, () => run(['scrot', '-o', '-a', `${region.x},${region.y},${region.width},${region.height}`, png], env));

      // Clicks on an empty part of the desktop: nothing reacts, both sides pay only for the click.
      results.glovebox.click = await times(ACTIONS, async (i) => (await g.call('click', { session, x: 20 + (i % 50), y: 20 })).ms);
      results.peer.click = await times(ACTIONS, (i) => run(['xdotool', 'mousemove', String(20 + (i % 50)), '20', 'click', '1'], env));
      await g.call('window_manage', { session, window: 'Bench', action: 'focus' });
      results.glovebox.type = await times(ACTIONS, async () => (await g.call('type_text', { session, text: 'a' })).ms);
      results.peer.type = await times(ACTIONS, () => run(['xdotool', 'type', 'b'], env));
    }

    const move = (i) => [20 + (i % 50), 40];
    if (part('computer')) {
      results.glovebox.computer = await times(ACTIONS, async (i) => (await g.call('computer', { session, action: 'mouse_move', coordinate: move(i) })).ms);
      results.glovebox.computer0 = await times(ACTIONS, async (i) => (await g.call('computer', { session, action: 'mouse_move', coordinate: move(i), settle_ms: 0 })).ms);
      // The screen changed since the last screenshot (a character typed into
      // the entry by xdotool first, untimed): no copy to answer again, a fresh capture
      // and PNG encode — what a loop pays when its last action did something.
      await g.call('window_manage', { session, window: 'Bench', action: 'focus' });
      results.glovebox.computerFresh = await times(ACTIONS, async (i) => {
        await run(['xdotool', 'type', 'x'], env);
        await new Promise((r) => setTimeout(r, 20));
        return (await g.call('computer', { session, action: 'mouse_move', coordinate: move(i) })).ms;
      });
      results.peer.computer = await times(ACTIONS, async (i) => (await run(['xdotool', 'mousemove', ...move(i).map(String)], env)) + (await run(['scrot', '-o', png], env)));
    }

    if (part('tools')) results.glovebox.snapshot = await times(SNAPSHOTS, async () => (await g.call('snapshot', { session, app: 'zenity' })).ms);
    await g.call('session_stop', { session });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await g.close();

  const gl = results.glovebox;
  const pe = results.peer;
  printComparison('desktop benchmark (1280×800 Xvfb, zenity dialog)', ['glovebox', 'new process per action'], [
    { metric: `screenshot PNG p50 (${SHOTS})`, a: p(gl.screenshot, 50), b: p(pe.screenshot, 50), format: formatMs, target: { ratio: 0.1, text: '≤ 1/10' } },
    { metric: 'screenshot PNG p99', a: p(gl.screenshot, 99), b: p(pe.screenshot, 99), format: formatMs },
    { metric: `screenshot → 640 px p50 (${SHOTS})`, a: p(gl.scaled, 50), b: p(pe.scaled, 50), format: formatMs, target: { ratio: 0.1, text: '≤ 1/10' } },
    { metric: 'screenshot → 640 px p99', a: p(gl.scaled, 99), b: p(pe.scaled, 99), format: formatMs },
    { metric: `screenshot 200×100 region p50 (${SHOTS})`, a: p(gl.region, 50), b: p(pe.region, 50), format: formatMs, target: { ratio: 0.1, text: '≤ 1/10' } },
    { metric: 'screenshot 200×100 region p99', a: p(gl.region, 99), b: p(pe.region, 99), format: formatMs },
    { metric: `click p50 (${ACTIONS})`, a: p(gl.click, 50), b: p(pe.click, 50), format: formatMs, target: { ratio: 0.05, text: '≤ 1/20' } },
    { metric: 'click p99', a: p(gl.click, 99), b: p(pe.click, 99), format: formatMs },
    { metric: `type one character p50 (${ACTIONS})`, a: p(gl.type, 50), b: p(pe.type, 50), format: formatMs, target: { ratio: 0.05, text: '≤ 1/20' } },
    { metric: 'type one character p99', a: p(gl.type, 99), b: p(pe.type, 99), format: formatMs },
    { metric: `computer mouse_move + screenshot p50 (${ACTIONS})`, a: p(gl.computer, 50), b: p(pe.computer, 50), format: formatMs, target: { ratio: 0.1, text: '≤ 1/10' } },
    { metric: 'computer mouse_move + screenshot p99', a: p(gl.computer, 99), b: p(pe.computer, 99), format: formatMs },
    { metric: `computer mouse_move settle_ms 0 p50 (${ACTIONS})`, a: p(gl.computer0, 50), b: p(pe.computer, 50), format: formatMs, target: { max: 25, text: '≤ 25 ms' } },
    { metric: `computer mouse_move, screen changed p50 (${ACTIONS})`, a: p(gl.computerFresh, 50), b: p(pe.computer, 50), format: formatMs, target: { ratio: 0.1, text: '≤ 1/10' } },
    { metric: 'computer mouse_move, screen changed p99', a: p(gl.computerFresh, 99), b: p(pe.computer, 99), format: formatMs },
    { metric: `snapshot of the dialog p50 (${SNAPSHOTS})`, a: p(gl.snapshot, 50), b: NaN, format: formatMs, target: { max: 50, text: '< 50 ms' } },
    { metric: 'snapshot of the dialog p99', a: p(gl.snapshot, 99), b: NaN, format: formatMs },
  ], `ratio = glovebox / peer (lower is better); PNG sizes ${results.pngBytes.glovebox} vs ${results.pngBytes.peer} bytes; targets are not asserted.`);
  saveResults('desktop', results);
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(1);
});
