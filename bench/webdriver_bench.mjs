// WebDriver benchmark (issue 15, "Speed"): glovebox's webdriver kind — its
// own chromedriver and headless Debian Chromium — against @playwright/mcp
// (pinned in package.json, run on the same /usr/bin/chromium) on the same
// local page in one run, each through the official MCP SDK client over stdio:
//   snapshot:   `snapshot` vs browser_snapshot
//   click:      `click {ref}` vs browser_click {target: ref}
//   screenshot: `screenshot` (PNG, viewport) vs browser_take_screenshot
// The two servers' calls alternate (g, p, g, p, …) so that a busy machine
// weighs on both alike; playwright's viewport is set to the one glovebox's
// first screenshot shows, so both shoot the same pixels.
// Then glovebox's own overhead per WebDriver call: `read_text` (one
// POST /execute/sync) over raw stdio (bench/lib/stdio_peer.mjs, no client
// library in the figure) minus the same command sent straight to the
// chromedriver glovebox started (its url and remote_session from
// session_list), over a kept-alive node:http connection. A second glovebox
// process attaches to the first one's remote session for that, so both
// hit the same browser tab.
// Prints figures, never asserts on them; exits 1 only if glovebox
// misbehaves. Knobs: BENCH_ACTIONS (50 per metric and server), BENCH_WARMUP (5),
// BENCH_AFTER_CLICK (20 screenshots after a click, at once and 300 ms later).
// Last, `snapshot` vs browser_snapshot on the same page with a cross-origin
// iframe (another site: localhost vs 127.0.0.1, so Chromium runs it in a
// process of its own) holding a small form.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expectResult, initializeParams, StdioPeer } from './lib/stdio_peer.mjs';
import { formatMs, percentile, printComparison, saveResults } from './lib/report.mjs';
import { benchDir, gloveboxBinary } from './lib/servers.mjs';

const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const AFTER_CLICK = Number(process.env.BENCH_AFTER_CLICK ?? 20);
const CHROMIUM = '/usr/bin/chromium';
const READ_TEXT_SCRIPT = "return document.body ? document.body.innerText : '';";

// A page of the size agents meet: a form, a button that counts its clicks
// below it (its own name stays, so playwright's ref for it does too), a table and a list — a few hundred elements.
const PAGE = `<!doctype html><html><head><title>Bench page</title><style>
body { margin: 8px; font: 14px sans-serif; } table { border-collapse: collapse; } td { border: 1px solid #999; padding: 2px 6px; }
</style></head><body>
<h1>Orders</h1>
<form onsubmit="return false"><label>Customer <input id="name" value="Ann"></label>
<label>Email <input type="email" placeholder="you@example.com"></label>
<label><input type="checkbox" checked> Gift wrap</label>
<select><option>Standard</option><option>Express</option></select></form>
<button id="count" onclick="document.getElementById('clicks').textContent = 'Clicks: ' + (++window.n || (window.n = 1))">Count</button>
<p id="clicks">Clicks: 0</p>
<table>${Array.from({ length: 30 }, (_, i) => `<tr><td>Order ${i + 1}</td><td>${(i * 7.25).toFixed(2)} EUR</td><td><a href="#o${i + 1}">open</a></td></tr>`).join('')}</table>
<ul>${Array.from({ length: 60 }, (_, i) => `<li>Item ${i + 1} <button>Add</button></li>`).join('')}</ul>
</body></html>`;

const FRAME = `<!doctype html><body><form><label>Card number <input></label><label>Name <input></label>
<button type="button">Pay</button></form>${Array.from({ length: 20 }, (_, i) => `<a href="#t${i}">Term ${i + 1}</a>`).join(' ')}</body>`;
let framePort = 0;

function startSite() {
  const site = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/inner') return res.end(FRAME);
    if (req.url === '/framed') return res.end(PAGE.replace('</body>', `<iframe src="http://localhost:${framePort}/inner" width="500" height="200"></iframe></body>`));
    res.end(PAGE);
  });
  return new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(site)));
}

/** An SDK client on a stdio server; call() throws on a tool error. */
async function sdkClient(name, command, args, env) {
  const client = new Client({ name: 'webdriver-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'pipe' }));
  const call = async (tool, args = {}) => {
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60000 });
    if (r.isError) throw new Error(`${name}: ${tool} failed: ${r.content?.map((c) => c.text).join(' ')}`);
    return r;
  };
  return { client, call };
}

const pngSize = (b64) => {
  const b = Buffer.from(b64.slice(0, 64), 'base64');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
};

/** Alternates fa and fb (warm-up first); the times of each, in ms. fb may be null. */
async function alternate(fa, fb) {
  for (let i = 0; i < WARMUP; i++) {
    await fa();
    if (fb) await fb();
  }
  const a = [], b = [];
  for (let i = 0; i < ACTIONS; i++) {
    let t0 = performance.now();
    await fa();
    a.push(performance.now() - t0);
    if (fb) {
      t0 = performance.now();
      await fb();
      b.push(performance.now() - t0);
    }
  }
  return { a, b: fb ? b : null };
}

/** Like alternate, for n rounds, but fa and fb return the time they measured themselves. */
async function alternateOwn(n, fa, fb) {
  const a = [], b = [];
  for (let i = 0; i < WARMUP + n; i++) {
    const ta = await fa();
    const tb = fb ? await fb() : NaN;
    if (i >= WARMUP) {
      a.push(ta);
      b.push(tb);
    }
  }
  return { a, b: fb ? b : null };
}

/** A click (not timed), a pause of wait ms, then a screenshot: its time. */
const shotAfterClick = (click, shot, wait) => async () => {
  await click();
  if (wait) await new Promise((r) => setTimeout(r, wait));
  const t0 = performance.now();
  await shot();
  return performance.now() - t0;
};

/** One W3C command straight to chromedriver, over a kept-alive connection. */
function directCommand(agent, base, method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const req = http.request(`${base}${path}`, {
      method, agent, headers: data ? { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(data) } : {},
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (res.statusCode !== 200) reject(new Error(`chromedriver ${path}: ${res.statusCode} ${JSON.stringify(v).slice(0, 200)}`));
        else resolve(v.value);
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function playwright(viewport, outDir) {
  const cli = join(benchDir, 'node_modules/@playwright/mcp/cli.js');
  if (!existsSync(cli)) return { why: 'not installed (npm ci in bench/)' };
  const args = [cli, '--headless', '--isolated', '--no-sandbox', '--browser', 'chromium', '--executable-path', CHROMIUM,
    '--viewport-size', `${viewport.width}x${viewport.height}`, '--output-dir', outDir];
  try {
    return await sdkClient('playwright-mcp', process.execPath, args, { PLAYWRIGHT_BROWSERS_PATH: outDir });
  } catch (e) {
    return { why: `did not start: ${e.message}` };
  }
}

const server = { name: 'glovebox', command: gloveboxBinary(), args: ['serve', '--allow-all'], required: true };
if (!existsSync(server.command)) throw new Error(`${server.command} not found; build it (scripts/run-bench.sh does)`);
if (!existsSync(CHROMIUM) || !existsSync('/usr/bin/chromedriver')) {
  console.log('webdriver benchmark skipped: chromium and chromedriver are not installed (apt-get install chromium chromium-driver)');
  process.exit(0);
}

const site = await startSite();
framePort = site.address().port;
const url = `http://127.0.0.1:${site.address().port}/`;
const outDir = mkdtempSync(join(tmpdir(), 'glovebox-wdbench-'));
let g, p, raw;
let failed = false;
try {
  // glovebox: its own browser on the page.
  g = await sdkClient('glovebox', server.command, server.args);
  const conn = (await g.call('webdriver_connect', { name: 'bench' })).structuredContent;
  await g.call('open_url', { url });
  const first = await g.call('screenshot', {});
  const viewport = pngSize(first.content.find((c) => c.type === 'image').data);
  const snapRefOf = (sc) => sc.elements.find((e) => e.role === 'button' && e.name === 'Count')?.ref;
  const gRef = snapRefOf((await g.call('snapshot', {})).structuredContent);
  if (!gRef) throw new Error('glovebox: the snapshot has no "Count" button');

  // playwright-mcp: its own browser on the same page, the same viewport.
  p = await playwright(viewport, outDir);
  let pRef;
  if (p.call) {
    try {
      await p.call('browser_navigate', { url });
      const text = (await p.call('browser_snapshot')).content.map((c) => c.text ?? '').join('\n');
      pRef = /button "Count" \[ref=(\w+)\]/.exec(text)?.[1];
      if (!pRef) throw new Error('its snapshot has no "Count" button');
    } catch (e) {
      p = { why: `failed: ${e.message}`, client: p.client };
    }
  }
  // A failing peer is reported, not fatal: only glovebox can fail the run.
  let peerError = null;
  const pc = p.call && ((tool, args) => (peerError ? null : p.call(tool, args).catch((e) => { peerError = e.message; })));
  const snapshot = await alternate(() => g.call('snapshot', {}), pc && (() => pc('browser_snapshot')));
  const click = await alternate(() => g.call('click', { ref: gRef }), pc && (() => pc('browser_click', { target: pRef, element: 'Count button' })));
  const screenshot = await alternate(() => g.call('screenshot', {}), pc && (() => pc('browser_take_screenshot', { type: 'png' })));
  // The screenshot an agent takes after an action: at once, and after
  // 300 ms (its thinking). glovebox serves a still page's screencast frame
  // only once the action has settled; before that it captures.
  const gClick = () => g.call('click', { ref: gRef });
  const pClick = pc && (() => pc('browser_click', { target: pRef, element: 'Count button' }));
  const gShot = () => g.call('screenshot', {});
  const pShot = pc && (() => pc('browser_take_screenshot', { type: 'png' }));
  const shotNow = await alternateOwn(AFTER_CLICK, shotAfterClick(gClick, gShot, 0), pc && shotAfterClick(pClick, pShot, 0));
  const shotLater = await alternateOwn(AFTER_CLICK, shotAfterClick(gClick, gShot, 300), pc && shotAfterClick(pClick, pShot, 300));
  if (peerError) {
    snapshot.b = click.b = screenshot.b = shotNow.b = shotLater.b = null;
    p.why = `failed: ${peerError.slice(0, 120)}`;
  }

  // glovebox's own overhead per WebDriver call: a second glovebox over raw
  // stdio, attached to the same remote session, against chromedriver direct.
  const desc = (await g.call('session_list', {})).structuredContent;
  const mine = (desc.sessions ?? []).find((s) => s.id === conn.id) ?? conn;
  const driver = mine.url ?? conn.url;
  const remote = mine.remote_session ?? conn.remote_session;
  raw = new StdioPeer(server);
  expectResult(server, 'initialize', (await raw.request('initialize', initializeParams, 30000)).msg);
  raw.notify('notifications/initialized');
  const rawCall = async (name, args) => {
    const r = await raw.request('tools/call', { name, arguments: args }, 60000);
    const result = expectResult(server, name, r.msg);
    if (result.isError) throw new Error(`glovebox: ${name} failed: ${result.content?.map((c) => c.text).join(' ')}`);
    return result.structuredContent;
  };
  const attached = await rawCall('webdriver_connect', { url: driver, attach: remote, keepalive_s: 0 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const direct = () => directCommand(agent, driver, 'POST', `/session/${remote}/execute/sync`, { script: READ_TEXT_SCRIPT, args: [] });
  const viaGlovebox = () => rawCall('read_text', { session: attached.id });
  const overhead = await alternate(viaGlovebox, direct);
  const sdkReadText = (await alternate(() => g.call('read_text', {}), null)).a;
  // What the SDK client adds to a snapshot (it checks structuredContent
  // against the tool's output schema): the same snapshot over raw stdio.
  const rawSnapshot = (await alternate(() => rawCall('snapshot', { session: attached.id }), null)).a;
  // Where a screenshot's time goes: the same viewport straight from chromedriver.
  const shots = await alternate(() => rawCall('screenshot', { session: attached.id }),
    () => directCommand(agent, driver, 'GET', `/session/${remote}/screenshot`));
  agent.destroy();
  await rawCall('session_stop', { session: attached.id });

  const pct = (v, q) => (v ? percentile(v, q) : NaN);
  const p50 = (v) => pct(v, 50);
  const peerName = p.why ? `playwright-mcp (${p.why})` : 'playwright-mcp';
  const half = { ratio: 0.5, text: '≤ 0.5×' };

  // A page with a cross-origin iframe: both servers on it, then snapshots.
  const framedUrl = `${url}framed`;
  await g.call('open_url', { url: framedUrl });
  let framed = { a: [], b: null };
  for (let i = 0; i < 50; i++) {
    const sc = (await g.call('snapshot', {})).structuredContent;
    if (sc.elements.some((e) => e.name === 'Pay' && /^f\d+e/.test(e.ref))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (pc && !peerError) await pc('browser_navigate', { url: framedUrl });
  framed = await alternate(() => g.call('snapshot', {}), pc && !peerError ? () => pc('browser_snapshot') : null);
  if (peerError) framed.b = null;
  printComparison('snapshot of a page with a cross-origin iframe', ['glovebox', peerName],
    [{ metric: 'snapshot p50, one cross-origin iframe', a: p50(framed.a), b: p50(framed.b), format: formatMs, target: half },
      { metric: 'snapshot p95, one cross-origin iframe', a: pct(framed.a, 95), b: pct(framed.b, 95), format: formatMs }]);

  const rows = [
    { metric: 'snapshot p50', a: p50(snapshot.a), b: p50(snapshot.b), format: formatMs, target: half },
    { metric: 'snapshot p95', a: pct(snapshot.a, 95), b: pct(snapshot.b, 95), format: formatMs },
    { metric: 'click by ref p50', a: p50(click.a), b: p50(click.b), format: formatMs, target: half },
    { metric: 'click by ref p95', a: pct(click.a, 95), b: pct(click.b, 95), format: formatMs },
    { metric: `screenshot p50 (${viewport.width}×${viewport.height} PNG)`, a: p50(screenshot.a), b: p50(screenshot.b), format: formatMs, target: half },
    { metric: 'screenshot p95', a: pct(screenshot.a, 95), b: pct(screenshot.b, 95), format: formatMs },
    { metric: 'screenshot right after a click p50', a: p50(shotNow.a), b: p50(shotNow.b), format: formatMs, target: half },
    { metric: 'screenshot 300 ms after a click p50', a: p50(shotLater.a), b: p50(shotLater.b), format: formatMs, target: half },
  ];
  printComparison(`webdriver benchmark (same page, same run, ${ACTIONS} calls each after ${WARMUP} warm-up, alternating)`,
    ['glovebox', peerName], rows);

  const ov = p50(overhead.a) - p50(overhead.b);
  const orows = [
    { metric: 'read_text p50, raw stdio (glovebox)', a: p50(overhead.a), b: p50(overhead.b), format: formatMs },
    { metric: 'read_text p95, raw stdio (glovebox)', a: percentile(overhead.a, 95), b: percentile(overhead.b, 95), format: formatMs },
    { metric: 'overhead per WebDriver call (p50 difference)', a: ov, b: NaN, format: formatMs, target: { max: 1, text: '≤ 1 ms' } },
    { metric: 'read_text p50 through the SDK client', a: p50(sdkReadText), b: NaN, format: formatMs },
    { metric: 'snapshot p50, raw stdio', a: p50(rawSnapshot), b: NaN, format: formatMs },
    { metric: 'screenshot p50, raw stdio vs GET /screenshot', a: p50(shots.a), b: p50(shots.b), format: formatMs },
  ];
  printComparison('glovebox overhead per WebDriver call (POST /execute/sync)', ['glovebox', 'chromedriver direct'], orows,
    'glovebox = a whole tools/call round trip over stdio; chromedriver direct = the same command over kept-alive HTTP from node.');
  saveResults('webdriver', { viewport, snapshot, click, screenshot, shot_now: shotNow, shot_later: shotLater, overhead, sdk_read_text: sdkReadText, raw_snapshot: rawSnapshot, shots, framed, peer: p.why ?? 'playwright-mcp' });

  await g.call('session_stop', { session: conn.id });
} catch (e) {
  console.error(`webdriver benchmark: ${e.stack ?? e.message}`);
  failed = true;
} finally {
  if (raw) {
    const exit = await raw.close();
    if (exit.code !== 0 || exit.forced) {
      console.error(`glovebox (raw stdio) exited uncleanly: ${JSON.stringify(exit)}`);
      failed = true;
    }
  }
  await g?.client.close().catch(() => {});
  await p?.client?.close().catch(() => {});
  site.close();
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
