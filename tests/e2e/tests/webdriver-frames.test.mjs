// Cross-origin iframes in snapshots: a page on 127.0.0.1 holds an iframe from
// localhost (another site, so headless Chromium runs it in its own process)
// that the page's script cannot look into. glovebox enters it (W3C frame
// switching) and shows its elements under the iframe, with refs that click,
// type, wait and scope in there; the max_elements budget counts them too.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { startLoggedChromedriver } from '../lib/chromedriver.mjs';
import { connectClient, needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, pixel, startServer, topts, until } from '../lib/terminal.mjs';

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));
const browserOpts = () =>
  needs('webdriver', topts({ timeout: ms(120000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed' }) }));

// The iframe sits at 300,100 with a 2-pixel border: its page starts at 302,102.
const TOP = (inner) => `<!doctype html><title>Top</title><body style="margin:0">
<h1 style="margin:0">Top page</h1>
<div role="region" aria-label="Panel" style="height:40px"><iframe src="${inner}" style="position:absolute; left:300px; top:100px; width:400px; height:220px; border:2px solid black"></iframe></div>
<p style="position:absolute; top:400px">After the frame</p>
</body>`;
const INNER = `<!doctype html><title>Inner</title><body style="margin:0">
<button id="b" style="position:absolute; left:20px; top:30px; width:120px; height:40px" onclick="this.textContent='pressed ' + location.host.split(':')[0]">Press me</button>
<input id="f" aria-label="Note" style="position:absolute; left:20px; top:90px; width:150px; height:24px">
<button id="x" style="position:absolute; left:200px; top:30px; width:120px; height:40px" onclick="this.remove()">Remove me</button>
<p style="position:absolute; left:20px; top:140px; margin:0">Inner words</p>
</body>`;

async function listen(handler) {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    handler(req, res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

const byName = (els, role, name) => els.find((e) => e.role === role && e.name === name);

test('cross-origin iframe: its elements in the snapshot with refs that click, type, wait and scope there; the budget counts them', browserOpts(), async (t) => {
  const inner = await listen((req, res) => res.end(INNER));
  const top = await listen((req, res) => res.end(req.url === '/' ? TOP(`http://localhost:${inner.address().port}/`) : '<!doctype html><title>Other</title><p>Another page</p>'));
  t.after(() => { inner.close(); top.close(); });
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${top.address().port}/` });
  await until(async () => /Press me/.test(JSON.stringify((await srv.ok('snapshot', {})).sc)), ms(10000), 'the cross-origin iframe to load');

  const snap = await srv.ok('snapshot', {});
  const els = snap.sc.elements;
  assert.deepEqual(els.map((e) => `${e.role} ${e.name}`), ['heading Top page', 'region Panel', 'button Press me', 'textbox Note', 'button Remove me', 'text Inner words', 'text After the frame'], 'the frame\'s elements under the iframe, in page order');
  const press = byName(els, 'button', 'Press me');
  const note = byName(els, 'textbox', 'Note');
  const panel = byName(els, 'region', 'Panel');
  assert.match(press.ref, /^f1e\d+$/, 'a ref into frame f1');
  assert.match(panel.ref, /^e\d+$/);
  assert.deepEqual(press.bounds, { x: 322, y: 132, width: 120, height: 40 }, 'bounds offset by the iframe\'s place, border included');
  assert.equal(panel.depth, 0);
  assert.equal(press.depth, 1, 'depth goes on from the iframe');
  assert.match(snap.content[0].text, /\n {2}f1e\d+ button "Press me"/, 'indented under the region in the outline');

  // Click by ref: the button in the frame changes, and the snapshot shows it.
  const clicked = await srv.ok('click', { ref: press.ref });
  assert.equal(clicked.sc.ref, press.ref);
  assert.equal(clicked.sc.x, 382);
  assert.equal(clicked.sc.y, 152);
  await until(async () => byName((await srv.ok('snapshot', {})).sc.elements, 'button', 'pressed localhost'), ms(5000), 'the button in the frame to be pressed');

  // type_text by ref into the frame's field.
  const again = (await srv.ok('snapshot', {})).sc.elements;
  await srv.ok('type_text', { ref: byName(again, 'textbox', 'Note').ref, text: 'Zoë writes' });
  assert.equal(byName((await srv.ok('snapshot', {})).sc.elements, 'textbox', 'Note').value, 'Zoë writes');
  // read_text by ref reads in the frame: the field's value, the button's text.
  assert.equal((await srv.ok('read_text', { ref: byName(again, 'textbox', 'Note').ref })).sc.text, 'Zoë writes');
  assert.equal((await srv.ok('read_text', { ref: byName(again, 'button', 'pressed localhost').ref })).sc.text, 'pressed localhost');
  assert.doesNotMatch((await srv.ok('read_text', {})).sc.text, /Zoë/, 'read_text without ref: the top page\'s text');

  // find sees into the frame; its refs act like the snapshot's.
  const found = await srv.ok('find', { text: 'Remove me' });
  assert.equal(found.sc.count, 1);
  const remove = found.sc.matches[0].ref;
  assert.match(remove, /^f1e\d+$/);
  const there = await srv.ok('wait_for', { ref: remove, timeout_ms: 5000 });
  assert.equal(there.sc.matched, true);
  await srv.ok('click', { ref: remove });
  const goneWait = await srv.ok('wait_for', { ref: remove, gone: true, timeout_ms: 5000 });
  assert.equal(goneWait.sc.matched, true, 'wait_for sees the frame element go');
  const goneClick = await srv.call('click', { ref: remove });
  assert.equal(goneClick.structuredContent.error.code, 'not_found');

  // scope: the region (the iframe's content included, depth from it), and a
  // ref inside the frame (bounds still in page coordinates, refs kept).
  const full = (await srv.ok('snapshot', {})).sc.elements;
  const region = byName(full, 'region', 'Panel');
  const part = (await srv.ok('snapshot', { scope: region.ref })).sc.elements;
  assert.deepEqual(part.map((e) => `${e.ref} ${e.name} ${e.depth}`), full.slice(1, 5).map((e) => `${e.ref} ${e.name} ${e.depth}`), 'the region and the frame\'s elements, refs as in the full snapshot');
  const fieldRef = byName(full, 'textbox', 'Note').ref;
  const one = await srv.ok('snapshot', { scope: fieldRef });
  assert.deepEqual(one.sc.elements.map((e) => [e.ref, e.depth]), [[fieldRef, 0]]);
  assert.deepEqual(one.sc.elements[0].bounds, byName(full, 'textbox', 'Note').bounds);
  const inFrame = await srv.ok('find', { role: 'button', scope: region.ref });
  assert.deepEqual(inFrame.sc.matches.map((m) => m.name), ['pressed localhost']);

  // The budget holds across the frame, and the cut says so.
  const cut = await srv.ok('snapshot', { max_elements: 3 });
  assert.deepEqual(cut.sc.elements.map((e) => e.name), ['Top page', 'Panel', 'pressed localhost']);
  assert.equal(cut.sc.truncated, true);
  assert.match(cut.sc.truncation, /^3 of 6 elements \(max_elements\)/);
  const cutScoped = await srv.ok('snapshot', { scope: region.ref, max_elements: 2 });
  assert.equal(cutScoped.sc.count, 2);
  assert.match(cutScoped.sc.truncation, new RegExp(`^2 of 4 elements under ${region.ref}`));

  // Malformed refs are refused by name; refs end with their page.
  const bad = await srv.call('snapshot', { scope: 'f1x3' });
  assert.equal(bad.structuredContent.error.code, 'invalid_argument');
  assert.match(bad.structuredContent.error.message, /"scope".*"f1x3"/);
  await srv.ok('open_url', { url: `http://127.0.0.1:${top.address().port}/other` });
  const stale = await srv.call('click', { ref: fieldRef });
  assert.equal(stale.structuredContent.error.code, 'not_found');
  assert.match(stale.structuredContent.error.message, /gone/);
  const staleText = await srv.call('read_text', { ref: fieldRef });
  assert.equal(staleText.structuredContent.error.code, 'not_found');
  const staleScope = await srv.call('snapshot', { scope: fieldRef });
  assert.equal(staleScope.structuredContent.error.code, 'not_found');
  assert.match((await srv.ok('snapshot', {})).content[0].text, /Another page/, 'the session goes on at the top of the new page');
  await srv.close();
});

test('cross-origin iframe on an endpoint glovebox did not start: entered with POST /frame, left with /frame/parent, refs act there', browserOpts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gb-remote-frames-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const inner = await listen((req, res) => res.end(INNER));
  const top = await listen((req, res) => res.end(TOP(`http://localhost:${inner.address().port}/`)));
  t.after(() => { inner.close(); top.close(); });

  // A chromedriver of the test's own, behind a proxy that logs each request.
  const { url: driverUrl, log } = await startLoggedChromedriver(t, dir);

  const srv = await connectClient(t, { bin: 'glovebox' });
  const call = async (name, args) => {
    const r = await srv.client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  const connected = await call('webdriver_connect', {
    url: driverUrl,
    capabilities: { browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1200,800', `--user-data-dir=${join(dir, 'profile')}`] } },
  });
  assert.equal(connected.owned, false);
  await call('open_url', { url: `http://127.0.0.1:${top.address().port}/` });
  let els = [];
  await until(async () => { els = (await call('snapshot', {})).elements; return byName(els, 'button', 'Press me'); }, ms(10000), 'the cross-origin iframe to load');
  assert.ok(log.some((l) => /^POST \/session\/[^/]+\/frame$/.test(l)), 'entered with POST /frame');
  assert.ok(log.some((l) => /^POST \/session\/[^/]+\/frame\/parent$/.test(l)), 'left with POST /frame/parent');
  const press = byName(els, 'button', 'Press me');
  assert.match(press.ref, /^f1e\d+$/);
  assert.deepEqual(press.bounds, { x: 322, y: 132, width: 120, height: 40 });
  await call('click', { ref: press.ref });
  await call('type_text', { ref: byName(els, 'textbox', 'Note').ref, text: 'remote' });
  const after = (await call('snapshot', {})).elements;
  assert.ok(byName(after, 'button', 'pressed localhost'), 'the click landed in the frame');
  assert.equal(byName(after, 'textbox', 'Note').value, 'remote');
  // Back at the top after each call: the page's own script sees the top.
  assert.match((await call('read_text', {})).text, /Top page/);
  await call('session_stop', { session: connected.id });
  await srv.close();
});

test('a cross-origin iframe inside a cross-origin iframe: frames numbered in order, bounds through both, a click lands in the inner one', browserOpts(), async (t) => {
  const innermost = await listen((req, res) => res.end(INNER));
  // The middle frame (another site) holds the innermost one (another origin again: 127.0.0.1 on a third port).
  const middle = await listen((req, res) => res.end(`<!doctype html><body style="margin:0"><p style="margin:0">Middle words</p><iframe src="http://127.0.0.1:${innermost.address().port}/" style="position:absolute; left:10px; top:40px; width:360px; height:170px; border:0; padding:5px"></iframe></body>`));
  const top = await listen((req, res) => res.end(TOP(`http://localhost:${middle.address().port}/`)));
  t.after(() => { innermost.close(); middle.close(); top.close(); });
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${top.address().port}/` });
  let els = [];
  await until(async () => { els = (await srv.ok('snapshot', {})).sc.elements; return byName(els, 'button', 'Press me'); }, ms(10000), 'the nested iframes to load');
  assert.deepEqual(els.map((e) => `${e.role} ${e.name} ${e.depth}`), ['heading Top page 0', 'region Panel 0', 'text Middle words 1', 'button Press me 1', 'textbox Note 1', 'button Remove me 1', 'text Inner words 1', 'text After the frame 0']);
  assert.match(byName(els, 'text', 'Middle words').ref, /^f1e\d+$/);
  const press = byName(els, 'button', 'Press me');
  assert.match(press.ref, /^f2e\d+$/);
  // 302,102 (the outer frame's page) + 10,40 + 5 of padding + 20,30.
  assert.deepEqual(press.bounds, { x: 337, y: 177, width: 120, height: 40 });
  await srv.ok('click', { ref: press.ref });
  assert.equal((await srv.ok('read_text', { ref: press.ref })).sc.text, 'pressed 127.0.0.1');
  const part = (await srv.ok('snapshot', { scope: press.ref })).sc.elements;
  assert.deepEqual(part.map((e) => [e.ref, e.bounds.x, e.bounds.y]), [[press.ref, 337, 177]]);
  await srv.close();
});

// Password fields inside frames: a bright field (a typed value in big
// magenta on green) in a same-origin iframe, a cross-origin one, and a
// cross-origin frame inside a cross-origin frame; one more field runs past
// its frame's right edge onto the blue page, which must stay blue. And one
// in an open shadow root of the page.
const REDACTED = [0x60, 0x60, 0x60];
const BLUE = [0, 0, 255];
const PASSWORD = (extra = '') => `<!doctype html><body style="margin:0; background:#fff">
<input type="password" value="hunter2hunter2" aria-label="Secret" style="position:absolute; left:20px; top:20px; width:200px; height:60px; border:0; padding:0; font-size:40px; color:#ff00ff; background:#00ff00">${extra}</body>`;
const SECRETS_TOP = (same, cross, nested) => `<!doctype html><title>Secrets</title><body style="margin:0; background:#0000ff">
<iframe src="${same}" style="position:absolute; left:20px; top:100px; width:300px; height:200px; border:0"></iframe>
<iframe src="${cross}" style="position:absolute; left:400px; top:100px; width:300px; height:200px; border:0"></iframe>
<iframe src="${nested}" style="position:absolute; left:20px; top:350px; width:500px; height:300px; border:0"></iframe>
<div id="host" style="position:absolute; left:800px; top:400px"></div>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<input type="password" value="hunter2" aria-label="Shadow secret" style="width:200px; height:60px; border:0; padding:0; display:block; font-size:40px; color:#ff00ff; background:#00ff00">';</script>
</body>`;
const OVERFLOW = `<input type="password" value="hunter2" style="position:absolute; left:200px; top:120px; width:200px; height:60px; border:0; padding:0; font-size:40px; color:#ff00ff; background:#00ff00">`;

// Every pixel of the rectangle (a pixel's margin in) is the redaction grey.
function assertPainted(png, x, y, width, height, what) {
  for (let py = y + 1; py < y + height - 1; py += 3)
    for (let px = x + 1; px < x + width - 1; px += 3) assert.deepEqual(pixel(png, px, py), REDACTED, `${what}: pixel ${px},${py}`);
}

async function secretsPages(t) {
  const innermost = await listen((req, res) => res.end(PASSWORD()));
  const cross = await listen((req, res) => res.end(PASSWORD(OVERFLOW)));
  const middle = await listen((req, res) => res.end(`<!doctype html><body style="margin:0; background:#fff"><iframe src="http://127.0.0.1:${innermost.address().port}/" style="position:absolute; left:50px; top:50px; width:300px; height:200px; border:0"></iframe></body>`));
  const top = await listen((req, res) => res.end(req.url === '/same' ? PASSWORD() : SECRETS_TOP('/same', `http://localhost:${cross.address().port}/`, `http://localhost:${middle.address().port}/`)));
  t.after(() => { innermost.close(); cross.close(); middle.close(); top.close(); });
  return `http://127.0.0.1:${top.address().port}/`;
}

// The screenshot once all four fields show; the three frames' fields and
// the part of the fourth inside its frame are grey, the page around blue.
async function checkSecrets(shoot, snapshot) {
  let els = [];
  const secretsOf = (list) => list.filter((e) => e.states.includes('password'));
  await until(async () => secretsOf(els = await snapshot()).length === 5, ms(10000), 'the frames to load');
  // Nor do snapshot and read_text say what the fields hold.
  const secrets = secretsOf(els);
  assert.ok(secrets.every((e) => e.value === undefined || e.value === ''), JSON.stringify(secrets));
  assert.ok(secrets.some((e) => /^f\d+e\d+$/.test(e.ref)));
  const shot = await shoot();
  assert.equal(shot.sc?.redacted ?? shot.structuredContent?.redacted, 5, 'the five fields painted over');
  const png = decodePng(imageOf(shot).data);
  assert.equal(png.width, 1200, 'the viewport at scale 1');
  assertPainted(png, 40, 120, 200, 60, 'same-origin frame');
  assertPainted(png, 420, 120, 200, 60, 'cross-origin frame');
  assertPainted(png, 600, 220, 100, 60, 'the field running past its cross-origin frame, inside it');
  assertPainted(png, 90, 420, 200, 60, 'cross-origin frame in a cross-origin frame');
  assertPainted(png, 800, 400, 200, 60, 'open shadow root');
  assert.deepEqual(pixel(png, 750, 250), BLUE, 'clipped to the frame: the page beside it is not painted');
  assert.deepEqual(pixel(png, 10, 10), BLUE);
  return secrets;
}

test('password fields in same-origin, cross-origin and nested frames are painted over in screenshots, clipped to their frame', browserOpts(), async (t) => {
  const url = await secretsPages(t);
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url });
  const secrets = await checkSecrets(() => srv.ok('screenshot', {}), async () => (await srv.ok('snapshot', {})).sc.elements);
  for (const s of secrets) {
    const text = await srv.ok('read_text', { ref: s.ref });
    assert.equal(text.sc.text, '', `read_text ${s.ref}`);
  }
  // Scaled and as JPEG through the same pipeline.
  const jpeg = await srv.ok('screenshot', { format: 'jpeg', max_width: 600 });
  assert.equal(jpeg.sc.redacted, 5);
  await srv.close();
});

test('password fields in frames on an endpoint glovebox did not start: found by frame switching, painted over', browserOpts(), async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gb-remote-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const url = await secretsPages(t);
  const { url: driverUrl, log } = await startLoggedChromedriver(t, dir);
  const srv = await connectClient(t, { bin: 'glovebox' });
  const call = async (name, args) => {
    const r = await srv.client.callTool({ name, arguments: args });
    assert.ok(!r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
  const connected = (await call('webdriver_connect', {
    url: driverUrl,
    capabilities: { browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1200,800', `--user-data-dir=${join(dir, 'profile')}`] } },
  })).structuredContent;
  assert.equal(connected.owned, false);
  await call('open_url', { url });
  const before = log.length;
  await checkSecrets(() => call('screenshot', {}), async () => (await call('snapshot', {})).structuredContent.elements);
  assert.ok(log.slice(before).some((l) => /^POST \/session\/[^/]+\/frame$/.test(l)), 'entered with POST /frame');
  await call('session_stop', { session: connected.id });
  await srv.close();
});

// upload_file by a ref in a cross-origin frame: the frame's own script sees
// the file's name and size; on glovebox's browser and on an endpoint it did
// not start (the file sent with POST /se/file, then typed in the frame).
const UPLOAD = `<!doctype html><body style="margin:0"><input type="file" aria-label="Report" onchange="document.getElementById('out').textContent = 'chose ' + this.files[0].name + ' ' + this.files[0].size"><p id="out">nothing</p></body>`;

async function uploadSetup(t, name, { sameSite = false } = {}) {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), name));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const uploads = join(dir, 'uploads');
  mkdirSync(uploads);
  writeFileSync(join(uploads, 'report.txt'), 'quarterly figures\n');
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['webdriver_connect', 'open_url', 'snapshot', 'read_text', 'upload_file', 'session_stop'], rules: { upload_file: { paths: [`${uploads}/*`] } } }));
  const inner = await listen((req, res) => res.end(UPLOAD));
  // Another site (its own process, a DevTools session of its own), or the
  // same site on another port (cross-origin, but in the page's process).
  const top = await listen((req, res) => res.end(TOP(`http://${sameSite ? '127.0.0.1' : 'localhost'}:${inner.address().port}/`)));
  t.after(() => { inner.close(); top.close(); });
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config'), GLOVEBOX_LOG: 'debug' } });
  const call = async (tool, args) => {
    const r = await srv.client.callTool({ name: tool, arguments: args });
    assert.ok(!r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  return { dir, srv, call, file: join(uploads, 'report.txt'), url: `http://127.0.0.1:${top.address().port}/` };
}

async function uploadIntoFrame(call, url) {
  await call('open_url', { url });
  let els = [];
  await until(async () => { els = (await call('snapshot', {})).elements; return byName(els, 'text', 'nothing'); }, ms(10000), 'the cross-origin iframe to load');
  const input = els.find((e) => /^f1e\d+$/.test(e.ref) && e.name === 'Report');
  assert.ok(input, JSON.stringify(els));
  return { input, out: byName(els, 'text', 'nothing') };
}

for (const sameSite of [false, true]) {
  const how = sameSite ? 'by frame switching (a frame of the same site, on another port)' : 'in the frame\'s DevTools session (another site)';
  test(`upload_file into a file input in a cross-origin iframe, ${how}: the frame sees the file`, browserOpts(), async (t) => {
    const { srv, call, file, url } = await uploadSetup(t, 'gb-frame-upload-', { sameSite });
    await call('webdriver_connect', {});
    const { input, out } = await uploadIntoFrame(call, url);
    const up = await call('upload_file', { ref: input.ref, path: file });
    assert.equal(up.ref, input.ref);
    assert.equal(up.bytes, 18);
    assert.equal((await call('read_text', { ref: out.ref })).text, 'chose report.txt 18');
    assert.match(srv.stderr(), sameSite ? /upload into frame f1 by frame switching/ : /upload into frame f1 over DevTools/);
    // Back at the top: the page's own script runs there.
    assert.match((await call('read_text', {})).text, /Top page/);
    // A ref that is no file input, and a frame ref no snapshot numbered.
    const notInput = await srv.client.callTool({ name: 'upload_file', arguments: { ref: out.ref, path: file } });
    assert.equal(notInput.structuredContent.error.code, 'invalid_argument');
    assert.match(notInput.content[0].text, /not a file input/);
    const unknown = await srv.client.callTool({ name: 'upload_file', arguments: { ref: 'f9e1', path: file } });
    assert.equal(unknown.structuredContent.error.code, 'not_found');
    assert.match(unknown.content[0].text, /f9e1/);
    assert.match((await call('read_text', {})).text, /Top page/);
    await srv.close();
  });
}

test('upload_file into a cross-origin iframe on an endpoint glovebox did not start: sent, then typed in the frame', browserOpts(), async (t) => {
  const { dir, srv, call, file, url } = await uploadSetup(t, 'gb-remote-frame-upload-');
  const { url: driverUrl, log } = await startLoggedChromedriver(t, dir);
  const connected = await call('webdriver_connect', {
    url: driverUrl,
    capabilities: { browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${join(dir, 'profile')}`] } },
  });
  assert.equal(connected.owned, false);
  const { input, out } = await uploadIntoFrame(call, url);
  const up = await call('upload_file', { ref: input.ref, path: file });
  assert.match(up.remote_path ?? '', /report\.txt$/);
  assert.ok(log.some((l) => /^POST \/session\/[^/]+\/(se\/)?file$/.test(l)), log.join('\n'));
  assert.equal((await call('read_text', { ref: out.ref })).text, 'chose report.txt 18');
  assert.match((await call('read_text', {})).text, /Top page/);
  await call('session_stop', { session: connected.id });
  await srv.close();
});

test('a cross-origin frame nested deeper than glovebox looks is painted over whole: its password field cannot show', browserOpts(), async (t) => {
  // Nine cross-origin frames, each in the one before (sites alternating),
  // each 5 px in and 10 px smaller; the ninth is green with a password field.
  const servers = [];
  const deepest = await listen((req, res) => res.end(`<!doctype html><body style="margin:0; background:#00ff00">${PASSWORD().replace(/<!doctype html><body[^>]*>/, '')}`));
  servers.push(deepest);
  let inner = deepest;
  for (let level = 8; level >= 1; level--) {
    const child = inner;
    const childHost = (level + 1) % 2 ? 'localhost' : '127.0.0.1';
    const size = (n) => `width:${600 - 10 * n}px; height:${400 - 10 * n}px`;
    const s = await listen((req, res) => res.end(`<!doctype html><body style="margin:0; background:#fff"><iframe src="http://${childHost}:${child.address().port}/" style="position:absolute; left:5px; top:5px; ${size(level)}; border:0"></iframe></body>`));
    servers.push(s);
    inner = s;
  }
  const top = await listen((req, res) => res.end(`<!doctype html><title>Deep</title><body style="margin:0; background:#0000ff"><iframe src="http://localhost:${inner.address().port}/" style="position:absolute; left:100px; top:100px; width:600px; height:400px; border:0"></iframe></body>`));
  servers.push(top);
  t.after(() => servers.forEach((s) => s.close()));
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${top.address().port}/` });
  // The eighth frame shows (its white around the ninth); a moment for the
  // ninth, which is painted over whether it has loaded or not.
  await until(async () => {
    const png = decodePng(imageOf(await srv.ok('screenshot', {})).data);
    return pixel(png, 139, 139).join() === '255,255,255';
  }, ms(15000), 'the nested frames to load');
  await new Promise((r) => setTimeout(r, 500));
  const shot = await srv.ok('screenshot', {});
  const png = decodePng(imageOf(shot).data);
  // The ninth frame's page starts at 100 + 8 × 5 = 140 and is 520 × 320.
  assertPainted(png, 140, 140, 520, 320, 'the frame too deep to look into');
  assert.deepEqual(pixel(png, 137, 137), [255, 255, 255], 'the eighth frame around it is not painted');
  assert.deepEqual(pixel(png, 50, 50), BLUE);
  await srv.close();
});
