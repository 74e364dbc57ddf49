// Live viewer benchmark (docs/viewer.md): a real browser (Debian chromium,
// headless, through playwright-core) on a glovebox viewer link.
//   (1) terminal: a program prints its own clock every 100 ms; the page
//       notes when each line shows: change → visible latency
//   (2) desktop (1280×800): a loop in the session flips the root window's
//       colour and logs when each flip was done; the page samples the canvas
//       every animation frame: change → visible latency
//   (3) bytes a page receives while the screen is still (terminal, desktop)
//   (4) server CPU while one page (then four) watches a still desktop
//   (5) takeover: a key typed in the page until its echo shows there
//   (6) a vnc session (Xvnc, 1280×800): as (2), the flips made on the
//       remote screen; bytes while still and server CPU with one page
//   (7) bytes a page receives for a blinking caret (xterm, 500 ms)
//   (8) bytes a page receives, and server CPU, for full-screen motion (a
//       full-screen xterm scrolling random text)
// No peer: nothing comparable runs here. Prints figures, never asserts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { formatMs, percentile, saveResults } from './lib/report.mjs';
import { gloveboxBinary } from './lib/servers.mjs';

const SAMPLES = Number(process.env.BENCH_VIEWER_SAMPLES ?? 40);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

function cpuTicks(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-viewer-bench-'));
  const port = await freePort();
  const transport = new StdioClientTransport({ command: gloveboxBinary(), args: ['serve', '--allow-all', '--stdio', '--http', `127.0.0.1:${port}`, '--data-dir', dataDir], stderr: 'pipe' });
  const client = new Client({ name: 'viewer-bench', version: '1' });
  await client.connect(transport);
  const pid = transport.pid;
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
    return r.structuredContent;
  };
  const link = (args) => {
    const r = spawnSync(gloveboxBinary(), ['view', '--data-dir', dataDir, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim();
  };
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  const results = {};
  try {
    // (1) terminal latency
    const term = await call('terminal_start', { command: ['python3', '-u', '-c', 'import time\nfor i in range(100000):\n  print("T%d" % int(time.time()*1000), flush=True); time.sleep(0.1)'] });
    const page = await browser.newPage();
    await page.goto(link(['--session', term.id]));
    await page.waitForFunction(() => window.gbView.view && window.gbView.view.lines, null, { timeout: 15000 });
    const lat = await page.evaluate((n) => new Promise((resolve) => {
      const seen = new Set();
      const out = [];
      const tick = () => {
        const now = performance.timeOrigin + performance.now();
        for (const l of window.gbView.view.lines()) {
          const m = /^T(\d+)$/.exec(l);
          if (m && !seen.has(m[1])) { seen.add(m[1]); if (seen.size > 3) out.push(now - Number(m[1])); }
        }
        if (out.length >= n) resolve(out); else requestAnimationFrame(tick);
      };
      tick();
    }), SAMPLES);
    results.terminal_latency_p50_ms = percentile(lat, 50);
    results.terminal_latency_p95_ms = percentile(lat, 95);
    await call('session_stop', { session: term.id });
    await page.close();

    // (1b) takeover: a key typed in the page until its echo shows there
    const echo = await call('terminal_start', { command: ['cat'] });
    const pk = await browser.newPage();
    await pk.goto(link(['--role', 'control', '--session', echo.id]));
    await pk.waitForFunction(() => !document.getElementById('take').hidden, null, { timeout: 15000 });
    await pk.click('#take');
    await pk.waitForFunction(() => !document.getElementById('handback').hidden, null, { timeout: 15000 });
    await pk.click('#term');
    const keyLat = [];
    for (let i = 0; i < SAMPLES; i++) {
      const ch = String.fromCharCode(97 + (i % 26));
      const before = await pk.evaluate(() => window.gbView.view.lines().join('\n').length);
      const t0 = Date.now();
      await pk.keyboard.press(ch);
      await pk.waitForFunction((n) => window.gbView.view.lines().join('\n').length > n, before, { polling: 'raf', timeout: 10000 });
      keyLat.push(Date.now() - t0);
    }
    results.takeover_echo_p50_ms = percentile(keyLat, 50);
    results.takeover_echo_p95_ms = percentile(keyLat, 95);
    await pk.close();
    await call('session_stop', { session: echo.id });

    // (3a) a still terminal
    const still = await call('terminal_start', { command: ['sleep', '600'] });
    const p2 = await browser.newPage();
    await p2.goto(link(['--session', still.id]));
    await p2.waitForFunction(() => window.gbView.view && window.gbView.view.lines, null, { timeout: 15000 });
    await sleep(1500);
    const b0 = await p2.evaluate(() => window.gbView.rxBytes);
    await sleep(5000);
    results.terminal_still_bytes_per_s = ((await p2.evaluate(() => window.gbView.rxBytes)) - b0) / 5;
    await p2.close();

    // (2) desktop latency
    const desk = (await call('desktop_start', { width: 1280, height: 800 })).id;
    const log = join(dataDir, 'flips.log');
    const p3 = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await p3.goto(link(['--session', desk]));
    await p3.waitForFunction(() => window.gbView.view && window.gbView.view.frames > 0, null, { timeout: 20000 });
    await p3.evaluate(() => {
      window.flips = [];
      let last = null;
      const tick = () => {
        const p = window.gbView.view.pixel(640, 400);
        const c = p[0] > 128 ? 'r' : p[2] > 128 ? 'b' : 'x';
        if (c !== last) { window.flips.push([c, performance.timeOrigin + performance.now()]); last = c; }
        requestAnimationFrame(tick);
      };
      tick();
    });
    await call('launch_app', { session: desk, command: ['sh', '-c', `i=0; while [ $i -lt ${SAMPLES} ]; do xsetroot -solid '#ff0000'; echo "r $(date +%s%3N)" >> ${log}; sleep 0.4; xsetroot -solid '#0000ff'; echo "b $(date +%s%3N)" >> ${log}; sleep 0.4; i=$((i+1)); done`] });
    await sleep(SAMPLES * 800 + 2000);
    const flips = await p3.evaluate(() => window.flips);
    const done = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([c, t]) => [c, Number(t)]);
    const dl = [];
    for (const [c, t] of done) {
      const seen = flips.find(([fc, ft]) => fc === c && ft >= t - 5);
      if (seen) dl.push(Math.max(0, seen[1] - t));
    }
    results.desktop_latency_p50_ms = percentile(dl, 50);
    results.desktop_latency_p95_ms = percentile(dl, 95);
    results.desktop_latency_samples = dl.length;

    // (3b), (4) a still desktop: bytes and server CPU
    await sleep(1500);
    const d0 = await p3.evaluate(() => window.gbView.rxBytes);
    const c0 = cpuTicks(pid);
    await sleep(10000);
    results.desktop_still_bytes_per_s = ((await p3.evaluate(() => window.gbView.rxBytes)) - d0) / 10;
    results.desktop_still_server_cpu_percent = (cpuTicks(pid) - c0) / 10 / 100 * 100; // ticks at 100 Hz
    // (4b) three more pages on the same still desktop
    const more = [];
    for (let i = 0; i < 3; i++) {
      const p = await browser.newPage();
      await p.goto(link(['--session', desk]));
      await p.waitForFunction(() => window.gbView.view && window.gbView.view.frames > 0, null, { timeout: 20000 });
      more.push(p);
    }
    await sleep(1500);
    const c1 = cpuTicks(pid);
    await sleep(10000);
    results.desktop_still_server_cpu_percent_4_pages = (cpuTicks(pid) - c1) / 10 / 100 * 100;
    for (const p of more) await p.close();

    // (7) a blinking caret: an xterm whose cursor blinks every 500 ms
    await call('launch_app', { session: desk, command: ['xterm', '-bc', '-bcn', '500', '-bcf', '500', '-geometry', '80x24+40+40'] });
    await sleep(3000);
    const k0 = await p3.evaluate(() => window.gbView.rxBytes);
    await sleep(10000);
    results.desktop_caret_bytes_per_s = ((await p3.evaluate(() => window.gbView.rxBytes)) - k0) / 10;
    // (8) full-screen motion: a full-screen xterm scrolling random text
    await call('launch_app', { session: desk, command: ['xterm', '-fullscreen', '-e', 'sh', '-c', 'while :; do head -c 3000 /dev/urandom | od -An -tx1; done'] });
    await sleep(3000);
    const m0 = await p3.evaluate(() => window.gbView.rxBytes);
    const mc0 = cpuTicks(pid);
    await sleep(10000);
    results.desktop_motion_bytes_per_s = ((await p3.evaluate(() => window.gbView.rxBytes)) - m0) / 10;
    results.desktop_motion_server_cpu_percent = (cpuTicks(pid) - mc0) / 10 / 100 * 100;
    await p3.close();

    // (6) a vnc session: Xvnc on a display nobody uses, flipped from outside
    if (existsSync('/usr/bin/Xvnc')) await vncSection(call, link, browser, dataDir, pid, results);
  } finally {
    await browser.close();
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\nLive viewer (a headless chromium on a glovebox view link)');
  console.log(`  terminal change → visible  p50 ${formatMs(results.terminal_latency_p50_ms)}  p95 ${formatMs(results.terminal_latency_p95_ms)}  (target p50 ≤ 50 ms, p95 ≤ 100 ms)`);
  console.log(`  desktop change → visible   p50 ${formatMs(results.desktop_latency_p50_ms)}  p95 ${formatMs(results.desktop_latency_p95_ms)}  (${results.desktop_latency_samples} flips, 1280×800)`);
  console.log(`  takeover: key typed → echoed in the page  p50 ${formatMs(results.takeover_echo_p50_ms)}  p95 ${formatMs(results.takeover_echo_p95_ms)}  (target ≤ 80 ms)`);
  console.log(`  still terminal             ${results.terminal_still_bytes_per_s} bytes/s  (target 0)`);
  console.log(`  still desktop              ${results.desktop_still_bytes_per_s} bytes/s  (target 0)`);
  console.log(`  blinking caret (xterm)     ${Math.round(results.desktop_caret_bytes_per_s)} bytes/s  (target < 2 KB/s)`);
  console.log(`  full-screen motion         ${(results.desktop_motion_bytes_per_s / 1e6).toFixed(2)} MB/s, server CPU ${results.desktop_motion_server_cpu_percent.toFixed(1)}%  (1280×800, target ≤ 3 MB/s)`);
  console.log(`  server CPU, one page on a still desktop: ${results.desktop_still_server_cpu_percent.toFixed(1)}% of one core (target ≤ 5%)`);
  console.log(`  server CPU, four pages on it: ${results.desktop_still_server_cpu_percent_4_pages.toFixed(1)}%`);
  if (results.vnc_latency_p50_ms !== undefined) {
    console.log(`  vnc change → visible       p50 ${formatMs(results.vnc_latency_p50_ms)}  p95 ${formatMs(results.vnc_latency_p95_ms)}  (${results.vnc_latency_samples} flips, Xvnc 1280×800)`);
    console.log(`  still vnc screen           ${results.vnc_still_bytes_per_s} bytes/s;  server CPU, one page: ${results.vnc_still_server_cpu_percent.toFixed(1)}% of one core`);
  }
  saveResults('viewer', results);
}

/** (6): the flips of a remote screen, seen through a vnc session. */
async function vncSection(call, link, browser, dataDir, pid, results) {
  let display = 0;
  for (let n = 200 + Math.floor(Math.random() * 300); !display; n++)
    if (!existsSync(`/tmp/.X${n}-lock`) && !existsSync(`/tmp/.X11-unix/X${n}`)) display = n;
  const xvnc = spawn('Xvnc', [`:${display}`, '-geometry', '1280x800', '-depth', '24', '-rfbport', String(5900 + display), '-localhost', '-SecurityTypes', 'None', '-nolisten', 'tcp'], { stdio: 'ignore' });
  try {
    await sleep(1500);
    const id = (await call('vnc_connect', { host: '127.0.0.1', display })).id;
    const log = join(dataDir, 'vnc-flips.log');
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(link(['--session', id]));
    await page.waitForFunction(() => window.gbView.view && window.gbView.view.frames > 0, null, { timeout: 20000 });
    await page.evaluate(() => {
      window.flips = [];
      let last = null;
      const tick = () => {
        const p = window.gbView.view.pixel(640, 400);
        const c = p[0] > 128 ? 'r' : p[2] > 128 ? 'b' : 'x';
        if (c !== last) { window.flips.push([c, performance.timeOrigin + performance.now()]); last = c; }
        requestAnimationFrame(tick);
      };
      tick();
    });
    const flipper = spawn('sh', ['-c', `i=0; while [ $i -lt ${SAMPLES} ]; do xsetroot -solid '#ff0000'; echo "r $(date +%s%3N)" >> ${log}; sleep 0.4; xsetroot -solid '#0000ff'; echo "b $(date +%s%3N)" >> ${log}; sleep 0.4; i=$((i+1)); done`], { env: { ...process.env, DISPLAY: `:${display}` }, stdio: 'ignore' });
    await new Promise((r) => flipper.once('exit', r));
    await sleep(1000);
    const flips = await page.evaluate(() => window.flips);
    const done = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([c, t]) => [c, Number(t)]);
    const dl = [];
    for (const [c, t] of done) {
      const seen = flips.find(([fc, ft]) => fc === c && ft >= t - 5);
      if (seen) dl.push(Math.max(0, seen[1] - t));
    }
    results.vnc_latency_p50_ms = percentile(dl, 50);
    results.vnc_latency_p95_ms = percentile(dl, 95);
    results.vnc_latency_samples = dl.length;
    await sleep(1500);
    const b0 = await page.evaluate(() => window.gbView.rxBytes);
    const c0 = cpuTicks(pid);
    await sleep(10000);
    results.vnc_still_bytes_per_s = ((await page.evaluate(() => window.gbView.rxBytes)) - b0) / 10;
    results.vnc_still_server_cpu_percent = (cpuTicks(pid) - c0) / 10 / 100 * 100;
    await page.close();
    await call('session_stop', { session: id });
  } finally {
    xvnc.kill('SIGKILL');
  }
}

if (!existsSync('/usr/bin/chromium')) {
  console.log('viewer bench: skipped, no /usr/bin/chromium');
} else {
  await main();
}
