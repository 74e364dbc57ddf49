// VNC benchmark: glovebox's screenshot of a 1280×800 Xvnc session against
// the fresh-client approach of the Python VNC MCP servers (connect, one full
// update, encode a PNG, close — bench/peers/rfb_fresh_client.mjs, run
// in-process, so without any MCP overhead), and glovebox's click. glovebox
// is measured as full tool-call round trips over stdio; p50 of BENCH_ACTIONS
// calls. The screen holds an xterm full of text on a coloured root, so PNG
// encoding has something to do. Prints figures, never asserts on them.
import { startXvnc, xclient, xrun } from '../tests/e2e/lib/vnc.mjs';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, percentile, printComparison, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';
import { freshScreenshot } from './peers/rfb_fresh_client.mjs';

const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 50);
const WARMUP = 3;

async function timed(n, fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

async function glovebox(display) {
  const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true };
  const peer = new StdioPeer(server);
  expectResult(server, 'initialize', (await peer.request('initialize', initializeParams, 30000)).msg);
  peer.notify('notifications/initialized');
  const call = async (name, args) => {
    const r = await peer.request('tools/call', { name, arguments: args }, 30000);
    const result = expectResult(server, name, r.msg);
    if (result.isError) throw new Error(`glovebox: ${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    return result;
  };
  await call('vnc_connect', { host: '127.0.0.1', display });
  const out = {
    screenshot: await timed(ACTIONS, () => call('screenshot', { format: 'png' })),
    click: await timed(ACTIONS, () => call('click', { x: 1270, y: 790 })),
  };
  peer.child.stdin.end();
  await peer.exited;
  return out;
}

const cleanups = [];
const t = { after: (fn) => cleanups.push(fn) };
try {
  const xvnc = await startXvnc(t, { width: 1280, height: 800 });
  xrun(xvnc, 'xsetroot', ['-solid', '#406080']);
  const xterm = xclient(t, xvnc, 'xterm', ['-geometry', '120x40+20+20', '-fa', 'DejaVu Sans Mono', '-fs', '11', '-e', 'sh', '-c', 'ls -lR /usr/share/doc | head -60; sleep 600']);
  await new Promise((r) => setTimeout(r, 1500));
  const g = await glovebox(xvnc.display);
  const fresh = await timed(ACTIONS, () => freshScreenshot(xvnc.port));
  const p50 = (v) => percentile(v, 50);
  const rows = [
    { metric: 'screenshot p50 (1280×800 PNG)', a: p50(g.screenshot), b: p50(fresh), format: formatMs, target: { ratio: 0.2, text: '≤ 0.2×' } },
    { metric: 'screenshot p50, glovebox alone', a: p50(g.screenshot), b: NaN, format: formatMs, target: { max: 15, text: '≤ 15 ms' } },
    { metric: 'click p50, glovebox alone', a: p50(g.click), b: NaN, format: formatMs, target: { max: 2, text: '≤ 2 ms' } },
  ];
  printComparison(`vnc benchmark (Xvnc 1280×800, ${ACTIONS} calls each)`, ['glovebox', 'fresh client (connect, full update, PNG)'], rows);
  saveResults('vnc', { glovebox: g, fresh_client: fresh });
  xterm.kill('SIGKILL');
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
