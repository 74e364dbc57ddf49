// Browser sessions through WebDriver: glovebox starts chromedriver and a
// headless Chromium of its own, drives a local test page (a login form with
// a password field, a long list, a second page) with W3C actions, and leaves
// nothing behind at session_stop. One browser for most of the file.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, pixel, processes, startServer, topts, until } from '../lib/terminal.mjs';

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));
const browserOpts = (extra = {}) =>
  needs('webdriver', topts({ timeout: ms(90000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed (apt-get install chromium chromium-driver)' }), ...extra }));

const LOGIN = `<!doctype html><html><head><title>Login page</title><style>
body { margin: 0; font: 16px sans-serif; }
#show { position: absolute; left: 10px; top: 10px; width: 200px; height: 60px; background: rgb(255,0,0); border: 0; }
#user { position: absolute; left: 10px; top: 100px; width: 200px; height: 30px; }
#pw { position: absolute; left: 10px; top: 150px; width: 200px; height: 30px; }
#echo { position: absolute; left: 300px; top: 100px; }
#pos { position: fixed; left: 300px; top: 10px; }
#list { position: absolute; top: 300px; left: 10px; }
</style></head><body>
<button id="show" onclick="document.getElementById('status').textContent='Clicked ' + (++window.n || (window.n = 1))">Show</button>
<form action="/welcome" method="get"><input id="user" name="user" oninput="document.getElementById('echo').textContent='echo:' + this.value">
<input id="pw" name="pw" type="password"><input type="submit" value="Log in" style="position: absolute; left: 10px; top: 200px"></form>
<div id="echo">echo:</div><div id="status">Not clicked</div><div id="pos">scrolled:0</div>
<ol id="list">${Array.from({ length: 300 }, (_, i) => `<li>Item ${i + 1}</li>`).join('')}</ol>
<a href="/second">Second page</a>
<script>window.addEventListener('scroll', function () { document.getElementById('pos').textContent = 'scrolled:' + Math.round(window.scrollY); });</script>
</body></html>`;

/** The test site on 127.0.0.1: the login page, where the form lands, a second page. */
async function startSite(t) {
  const site = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/') return res.end(LOGIN);
    if (url.pathname === '/welcome') return res.end(`<!doctype html><title>Welcome</title><p>Welcome ${url.searchParams.get('user').replace(/[<&]/g, '')}</p>`);
    if (url.pathname === '/second') return res.end('<!doctype html><title>Second</title><p>The second page</p>');
    res.statusCode = 404;
    res.end('no');
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  t.after(() => site.close());
  return `http://127.0.0.1:${site.address().port}`;
}

/** Processes descended from pid. */
function descendants(pid) {
  const all = processes();
  const out = [];
  const want = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all)
      if (want.has(p.ppid) && !want.has(p.pid)) {
        want.add(p.pid);
        out.push(p);
        grew = true;
      }
  }
  return out;
}
const browserProcs = (pid) => descendants(pid).filter((p) => /chrom/i.test(p.comm) && p.state !== 'Z');

test('a headless Chromium glovebox owns: open, screenshot, click, type, keys, scroll, read text, stop leaves nothing', browserOpts(), async (t) => {
  const site = await startSite(t);
  const tmp = mkdtempSync(join(tmpdir(), 'glovebox-wd-tmp-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const srv = await startServer(t, { env: { TMPDIR: tmp } });

  const c = await srv.ok('webdriver_connect', { name: 'web' });
  const session = c.sc.id;
  assert.match(session, /^webdriver-\d+$/);
  assert.equal(c.sc.kind, 'webdriver');
  assert.match(c.sc.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(c.sc.browser, /chrom/i);
  assert.ok(c.sc.remote_session.length > 8, c.sc.remote_session);
  assert.equal(readdirSync(tmp).length, 1, 'one private folder for the browser');
  assert.ok(browserProcs(srv.pid).some((p) => p.comm === 'chromedriver'), 'chromedriver runs under glovebox');

  const opened = await srv.ok('open_url', { url: `${site}/` });
  assert.equal(opened.sc.title, 'Login page');
  assert.equal(opened.sc.url, `${site}/`);

  // The viewport as PNG: the red button where the page puts it.
  const shot = await srv.ok('screenshot', {});
  const png = decodePng(imageOf(shot).data);
  assert.equal(png.width, 1280);
  assert.equal(shot.sc.width, 1280);
  assert.equal(shot.sc.format, 'png');
  assert.ok(png.height > 500 && png.height <= 800, `height ${png.height}`);
  assert.deepEqual(pixel(png, 100, 40), [255, 0, 0]);
  // The password field is painted over even while empty.
  assert.equal(shot.sc.redacted, 1);
  assert.deepEqual(pixel(png, 100, 165), [0x60, 0x60, 0x60]);

  // JPEG, scaled, a region.
  const small = await srv.ok('screenshot', { format: 'jpeg', max_width: 100, region: { x: 0, y: 0, width: 400, height: 200 } });
  const jpeg = Buffer.from(imageOf(small).data, 'base64');
  assert.equal(imageOf(small).mimeType, 'image/jpeg');
  assert.deepEqual([...jpeg.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.equal(small.sc.width, 100);
  assert.equal(small.sc.height, 50);
  assert.equal(small.sc.scale, 0.25);

  // A click by coordinates changes the page; count 2 clicks twice.
  await srv.ok('click', { x: 100, y: 40 });
  assert.match((await srv.ok('read_text', {})).sc.text, /Clicked 1/);
  const twice = await srv.ok('click', { x: 100, y: 40, count: 2 });
  assert.equal(twice.sc.count, 2);
  assert.match((await srv.ok('read_text', {})).sc.text, /Clicked 3/);
  // Coordinates read from a scaled screenshot.
  await srv.ok('click', { x: 25, y: 10, scale: 0.25 });
  assert.match((await srv.ok('read_text', {})).sc.text, /Clicked 4/);

  // Typing any Unicode into the focused field.
  await srv.ok('click', { x: 100, y: 115 });
  const typed = await srv.ok('type_text', { text: 'Zoë ✓ 日本' });
  assert.equal(typed.sc.characters, 8);
  assert.match((await srv.ok('read_text', {})).sc.text, /echo:Zoë ✓ 日本/);

  // Scrolling the long list.
  const sc = await srv.ok('scroll', { direction: 'down', amount: 3 });
  assert.equal(sc.sc.amount, 3);
  await until(async () => /scrolled:[1-9]/.test((await srv.ok('read_text', {})).sc.text), ms(5000), 'the page to scroll');

  await srv.ok('scroll', { direction: 'up', amount: 10 });
  await until(async () => /scrolled:0/.test((await srv.ok('read_text', {})).sc.text), ms(5000), 'the page to scroll back');

  // Enter submits the form: the second page of the site.
  await srv.ok('click', { x: 100, y: 115 });
  await srv.ok('press_key', { key: 'End' });
  await srv.ok('press_key', { key: 'Enter' });
  let last;
  await until(async () => /Welcome Zoë ✓ 日本/.test((last = (await srv.ok('read_text', {})).sc.text)), ms(10000), 'the form to be submitted').catch((e) => {
    e.message += `; the page reads: ${last.slice(0, 300)}`;
    throw e;
  });

  // A page without password fields: Chromium's PNG is passed on as it is
  // (nothing to paint, crop or scale), described like any other.
  const plain = await srv.ok('screenshot', {});
  const plainBytes = Buffer.from(imageOf(plain).data, 'base64');
  const plainPng = decodePng(imageOf(plain).data);
  assert.equal(imageOf(plain).mimeType, 'image/png');
  assert.equal(plain.sc.redacted, undefined);
  assert.deepEqual([plain.sc.width, plain.sc.height, plain.sc.scale, plain.sc.bytes], [plainPng.width, plainPng.height, 1, plainBytes.length]);
  assert.equal(plainPng.width, 1280);
  assert.deepEqual(pixel(plainPng, 600, plainPng.height - 20), [255, 255, 255]);
  // Asked to be shaped, it goes through the pipeline still.
  const half = await srv.ok('screenshot', { max_width: 640 });
  assert.equal(half.sc.width, 640);
  assert.equal(decodePng(imageOf(half).data).width, 640);
  assert.equal(half.sc.scale, 0.5);

  // Bad keys and what webdriver sessions cannot do say so by name.
  const bad = await srv.call('press_key', { key: 'F20' });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent.error.code, 'invalid_argument');
  assert.match(bad.structuredContent.error.message, /"key"/);
  // A ref with no snapshot on this page (the form navigated away).
  const byRef = await srv.call('click', { ref: 'e1' });
  assert.equal(byRef.structuredContent.error.code, 'not_found');
  assert.match(byRef.structuredContent.error.message, /ref e1 is gone.*snapshot/);

  // Schemes other than http and https are refused, naming the field.
  for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'chrome://settings', 'data:text/html,hi']) {
    const r = await srv.call('open_url', { url });
    assert.equal(r.isError, true, url);
    assert.equal(r.structuredContent.error.code, 'denied', url);
    assert.match(r.structuredContent.error.message, /argument "url".*scheme/, url);
  }

  // The screen and text resources of the session.
  const screen = await srv.client.readResource({ uri: `glovebox://session/${session}/screen` });
  assert.equal(screen.contents[0].mimeType, 'image/png');
  assert.equal(decodePng(screen.contents[0].blob).width, 1280);
  const text = await srv.client.readResource({ uri: `glovebox://session/${session}/text` });
  assert.match(text.contents[0].text, /Welcome/);

  // session_list describes it.
  const list = await srv.ok('session_list', {});
  const mine = list.sc.sessions.find((s) => s.id === session);
  assert.equal(mine.kind, 'webdriver');
  assert.equal(mine.owned, true);
  assert.equal(mine.remote_session, c.sc.remote_session);

  // Stop: chromedriver and every Chromium process end, the folder goes.
  await srv.ok('session_stop', { session });
  await until(() => browserProcs(srv.pid).length === 0, ms(10000), 'chromedriver and chromium to end');
  assert.deepEqual(readdirSync(tmp), [], 'the private profile folder is removed');
  const after = await srv.call('screenshot', { session });
  assert.equal(after.structuredContent.error.code, 'session_expired');
  await srv.close();
});

test('a browser that dies is device_unavailable at once, and the session ends', browserOpts(), async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'glovebox-wd-tmp-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const srv = await startServer(t, { env: { TMPDIR: tmp } });
  await srv.ok('webdriver_connect', {});
  const driver = browserProcs(srv.pid).find((p) => p.comm === 'chromedriver');
  assert.ok(driver);
  process.kill(driver.pid, 'SIGKILL');
  await until(async () => {
    const r = await srv.call('read_text', {});
    return r.isError && ['device_unavailable', 'session_expired'].includes(r.structuredContent.error.code);
  }, ms(10000), 'the session to notice');
  const s = await until(async () => {
    const list = await srv.ok('session_list', { include_ended: true });
    return list.sc.sessions.find((x) => x.kind === 'webdriver' && x.state === 'ended');
  }, ms(10000), 'the session to end');
  assert.match(s.end_reason, /chromedriver was killed/);
  await until(() => browserProcs(srv.pid).length === 0, ms(10000), 'chromium to end');
  assert.deepEqual(readdirSync(tmp), []);
  await srv.close();
});

test('at exit glovebox ends its browser: nothing left running, no profile left', browserOpts(), async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'glovebox-wd-tmp-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const srv = await startServer(t, { env: { TMPDIR: tmp } });
  await srv.ok('webdriver_connect', {});
  const procs = browserProcs(srv.pid).map((p) => p.pid);
  assert.ok(procs.length >= 2, 'chromedriver and chromium run');
  await srv.close({ timeoutMs: ms(15000) });
  assert.deepEqual(procs.filter((pid) => processes().some((p) => p.pid === pid && p.state !== 'Z')), [], 'every browser process ended');
  assert.deepEqual(readdirSync(tmp), []);
});
