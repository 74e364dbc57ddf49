// Pages as elements: snapshot and find with refs in a headless Chromium that
// glovebox owns, and click and type_text by ref or text — into iframes,
// off-screen list items scrolled into view, password fields whose value
// never leaves the page. Refs end with the page they were taken on.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';

import { startLoggedChromedriver } from '../lib/chromedriver.mjs';
import { needs } from '../lib/server.mjs';
import { ms, startServer, topts, until } from '../lib/terminal.mjs';

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));
const browserOpts = () =>
  needs('webdriver', topts({ timeout: ms(120000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed' }) }));

const PAGE = `<!doctype html><html><head><title>Shop</title></head><body>
<h1>Shop <span>today</span></h1>
<p>Plain words of a paragraph.</p>
<label for="who">Your name</label><input id="who" value="Ann">
<input id="secret" type="password" aria-label="Password" value="hunter2-never-shown">
<button id="buy" onclick="document.getElementById('out').textContent='bought ' + document.getElementById('who').value">Buy now</button>
<button disabled>Sold out</button>
<input type="checkbox" id="gift" checked><label for="gift">Gift wrap</label>
<div style="display:none"><button>Invisible</button></div>
<div id="out">nothing yet</div>
<a href="/other">Other page</a>
<iframe src="/frame" style="position:absolute; left:600px; top:40px; width:300px; height:120px; border:0"></iframe>
<ul>${Array.from({ length: 200 }, (_, i) => `<li onclick="document.getElementById('out').textContent='picked ${i + 1}'">Row ${i + 1}</li>`).join('')}</ul>
</body></html>`;
const FRAME = `<!doctype html><body style="margin:0"><button style="position:absolute; left:20px; top:30px; width:120px; height:40px" onclick="this.textContent='pressed inside'">Inside frame</button></body>`;

async function site(t) {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/frame') return res.end(FRAME);
    if (req.url === '/other') return res.end('<!doctype html><title>Other</title><p>Another page</p>');
    res.end(PAGE);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  return `http://127.0.0.1:${server.address().port}`;
}

const byName = (els, role, name) => els.find((e) => e.role === role && e.name === name);

test('snapshot and find on a page; click and type_text by ref and by text, iframes and off-screen rows included', browserOpts(), async (t) => {
  const url = await site(t);
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url: `${url}/` });
  await until(async () => /Inside frame/.test(JSON.stringify((await srv.ok('snapshot', {})).sc)), ms(10000), 'the iframe to load');

  const snap = await srv.ok('snapshot', {});
  const els = snap.sc.elements;
  assert.equal(snap.sc.kind, 'webdriver');
  assert.equal(snap.sc.count, els.length);
  assert.ok(byName(els, 'heading', 'Shop today'), 'the heading, named by its text');
  assert.ok(els.some((e) => e.role === 'text' && e.name === 'Plain words of a paragraph.'), 'text of its own');
  const who = byName(els, 'textbox', 'Your name');
  assert.equal(who.value, 'Ann', 'a field named by its label, with its value');
  assert.ok(who.states.includes('editable'));
  const secret = byName(els, 'textbox', 'Password');
  assert.ok(secret.states.includes('password'));
  assert.equal(secret.value, '', 'a password field never shows its value');
  assert.doesNotMatch(JSON.stringify(snap), /hunter2/);
  assert.ok(byName(els, 'button', 'Sold out').states.includes('disabled'));
  assert.ok(byName(els, 'checkbox', 'Gift wrap').states.includes('checked'));
  assert.ok(!els.some((e) => e.name === 'Invisible'), 'display:none is left out');
  assert.ok(byName(els, 'link', 'Other page'));
  const inside = byName(els, 'button', 'Inside frame');
  assert.deepEqual(inside.bounds, { x: 620, y: 70, width: 120, height: 40 }, 'iframe elements in page coordinates');
  assert.ok(byName(els, 'listitem', 'Row 200').states.includes('offscreen'));
  assert.match(snap.content[0].text, /heading "Shop today"/);
  assert.match(snap.content[0].text, /textbox "Your name" = "Ann" \[editable\]/);

  // A budget: the rest is cut, and says so.
  const small = await srv.ok('snapshot', { max_nodes: 5 });
  assert.equal(small.sc.count, 5);
  assert.equal(small.sc.truncated, true);
  assert.match(small.sc.truncation, /5 of \d+ elements/);

  // Refs act: type into the field (focused by ref), click the button.
  const again = (await srv.ok('snapshot', {})).sc.elements;
  await srv.ok('click', { ref: byName(again, 'textbox', 'Your name').ref, count: 3 });
  await srv.ok('type_text', { ref: byName(again, 'textbox', 'Your name').ref, text: 'Zoë' });
  const bought = await srv.ok('click', { ref: byName(again, 'button', 'Buy now').ref });
  assert.equal(bought.sc.ref, byName(again, 'button', 'Buy now').ref);
  assert.match((await srv.ok('read_text', {})).sc.text, /bought Zoë/);
  // In the iframe, by ref.
  await srv.ok('click', { ref: byName(again, 'button', 'Inside frame').ref });
  await until(async () => /pressed inside/.test(JSON.stringify((await srv.ok('snapshot', {})).sc)), ms(5000), 'the frame button to be pressed');

  // find, then a row far below the fold, scrolled into view and clicked.
  const found = await srv.ok('find', { text: 'Row 187', exact: true });
  assert.equal(found.sc.count, 1);
  assert.equal(found.sc.matches[0].role, 'listitem');
  await srv.ok('click', { ref: found.sc.matches[0].ref });
  assert.match((await srv.ok('read_text', {})).sc.text, /picked 187/);
  const buttons = await srv.ok('find', { role: 'button' });
  assert.deepEqual(buttons.sc.matches.map((m) => m.name).sort(), ['Buy now', 'Sold out', 'pressed inside'].sort(), 'find looks into iframes too');

  // By text alone.
  await srv.ok('click', { text: 'Row 3', exact: true });
  assert.match((await srv.ok('read_text', {})).sc.text, /picked 3/);
  const none = await srv.call('click', { text: 'No such words' });
  assert.equal(none.structuredContent.error.code, 'not_found');
  assert.match(none.structuredContent.error.message, /No such words/);

  // Typing into the password field by ref: the audit keeps no text.
  const pw = (await srv.ok('find', { text: 'Password' })).sc.matches[0];
  await srv.ok('type_text', { ref: pw.ref, text: 'typed-secret' });
  let rows = '';
  await until(() => {
    try {
      rows = execFileSync('sqlite3', ['-readonly', join(srv.dataDir, 'audit.db'), "SELECT arguments FROM calls WHERE tool = 'type_text'"]).toString();
    } catch { return false; }
    return (rows.match(/redacted/g) ?? []).length === 1;
  }, ms(5000), 'the typing into the password field to be audited, redacted');
  assert.match(rows, /Zoë/, 'typing into an ordinary field is kept');
  assert.doesNotMatch(rows, /typed-secret/);

  // Refs end with their page.
  const stale = (await srv.ok('find', { text: 'Other page' })).sc.matches[0].ref;
  await srv.ok('open_url', { url: `${url}/other` });
  const gone = await srv.call('click', { ref: stale });
  assert.equal(gone.structuredContent.error.code, 'not_found');
  assert.match(gone.structuredContent.error.message, /gone/);
  const bad = await srv.call('snapshot', { window: 'x' });
  assert.equal(bad.structuredContent.error.code, 'not_supported');
  await srv.close();
});

const LATER = `<!doctype html><title>Later</title><body>
<button id="go" onclick="setTimeout(function () { var p = document.createElement('p'); p.textContent = 'Order 42 is ready'; document.body.appendChild(p); document.getElementById('spin').remove(); }, 400)">Start</button>
<div id="spin">Working…</div><a href="/other">Other page</a></body>`;

test('wait_for on a page: text and regex that appear, an element that goes, a timeout, across a navigation, cancelled', browserOpts(), async (t) => {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/other') return res.end('<!doctype html><title>Other</title><p>Another page</p>');
    res.end(LATER);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${server.address().port}`;
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `${url}/` });

  const spin = (await srv.ok('find', { text: 'Working' })).sc.matches[0].ref;
  await srv.ok('click', { text: 'Start' });
  const seen = await srv.ok('wait_for', { regex: 'Order [0-9]+ is ready', timeout_ms: 10000 });
  assert.equal(seen.sc.matched, true);
  assert.equal(seen.sc.line, 'Order 42 is ready');
  assert.ok(Number.isInteger(seen.sc.elapsed_ms));
  const goneRef = await srv.ok('wait_for', { ref: spin, gone: true, timeout_ms: 5000 });
  assert.equal(goneRef.sc.matched, true);
  const goneText = await srv.ok('wait_for', { text: 'Working', gone: true, timeout_ms: 5000 });
  assert.equal(goneText.sc.matched, true);

  const late = await srv.ok('wait_for', { text: 'never on this page', timeout_ms: 600 });
  assert.equal(late.sc.matched, false);
  assert.equal(late.sc.reason, 'timed out');
  assert.ok(late.sc.elapsed_ms >= 600, `elapsed ${late.sc.elapsed_ms}`);

  // A wait that outlives its page: the next page is watched.
  const waiting = srv.ok('wait_for', { text: 'Another page', timeout_ms: 15000 });
  await srv.ok('click', { text: 'Other page' });
  assert.equal((await waiting).sc.matched, true);

  // A cancelled wait ends at once; the server keeps serving.
  const ac = new AbortController();
  const long = srv.client.callTool({ name: 'wait_for', arguments: { text: 'not coming', timeout_ms: 60000 } }, undefined, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 300));
  ac.abort();
  await assert.rejects(long, /abort/i);
  assert.match((await srv.ok('read_text', {})).sc.text, /Another page/);

  // The browser's own buttons.
  await srv.ok('press_button', { button: 'back' });
  assert.equal((await srv.ok('wait_for', { text: 'Start', timeout_ms: 5000 })).sc.matched, true);
  await srv.ok('press_button', { button: 'forward' });
  assert.equal((await srv.ok('wait_for', { text: 'Another page', timeout_ms: 5000 })).sc.matched, true);
  const home = await srv.call('press_button', { button: 'home' });
  assert.equal(home.structuredContent.error.code, 'not_supported');
  assert.match(home.structuredContent.error.message, /back, forward and enter/);

  const bad = await srv.call('wait_for', { stable_ms: 100 });
  assert.equal(bad.structuredContent.error.code, 'not_supported');
  const both = await srv.call('wait_for', { text: 'a', ref: 'e1' });
  assert.equal(both.structuredContent.error.code, 'invalid_argument');

  // The session stopped under a wait: the wait hears at once.
  const session = (await srv.ok('session_list', {})).sc.sessions.find((s) => s.kind === 'webdriver').id;
  const orphan = srv.call('wait_for', { text: 'not coming', timeout_ms: 60000 });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = Date.now();
  await srv.ok('session_stop', { session });
  const ended = await orphan;
  assert.equal(ended.isError, true);
  assert.ok(['session_expired', 'device_unavailable'].includes(ended.structuredContent.error.code), JSON.stringify(ended.structuredContent));
  assert.ok(Date.now() - t0 < ms(10000));
  await srv.close();
});

test('tabs: window_list shows every window with title and URL, window_manage focuses and closes them', browserOpts(), async (t) => {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/two') return res.end('<!doctype html><title>Second tab</title><p>Page two</p>');
    res.end(`<!doctype html><title>First tab</title><a href="/two" target="_blank">Open two</a>`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${server.address().port}`;
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `${url}/` });
  await srv.ok('click', { text: 'Open two' });
  const list = await until(async () => {
    const l = await srv.ok('window_list', {});
    return l.sc.count === 2 && l.sc.windows.every((w) => w.title) && l;
  }, ms(10000), 'the second tab to open');
  const first = list.sc.windows.find((w) => w.title === 'First tab');
  const second = list.sc.windows.find((w) => w.title === 'Second tab');
  assert.equal(first.focused, true, 'commands still go to the first tab');
  assert.equal(second.url, `${url}/two`);
  assert.match(list.content[0].text, /\* \S+ "First tab"/);

  // Focus the second by a part of its title: commands go there.
  const f = await srv.ok('window_manage', { window: 'Second', action: 'focus' });
  assert.equal(f.sc.window.id, second.id);
  assert.match((await srv.ok('read_text', {})).sc.text, /Page two/);
  assert.equal((await srv.ok('window_list', {})).sc.windows.find((w) => w.focused).id, second.id);

  // Close it by id: commands go back to the first.
  await srv.ok('window_manage', { window: second.id, action: 'close' });
  const after = await srv.ok('window_list', {});
  assert.equal(after.sc.count, 1);
  assert.equal(after.sc.windows[0].title, 'First tab');
  assert.match((await srv.ok('read_text', {})).sc.text, /Open two/);

  const none = await srv.call('window_manage', { window: 'No such tab', action: 'focus' });
  assert.equal(none.structuredContent.error.code, 'not_found');
  await srv.close();
});

test('browser_logs: console messages, page errors and failed requests since the last call', browserOpts(), async (t) => {
  const server = createServer((req, res) => {
    if (req.url === '/missing.js') {
      res.statusCode = 404;
      return res.end('no');
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>Logs</title><script src="/missing.js"></script><script>
console.log('hello from the page'); console.warn('careful now'); console.error('it broke: code 7');
setTimeout(function () { throw new Error('uncaught in a timer'); }, 10);
</script><button onclick="console.info('clicked later')">Again</button>`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `http://127.0.0.1:${server.address().port}/` });
  let logs;
  await until(async () => {
    const r = await srv.ok('browser_logs', {});
    logs = [...(logs ?? []), ...r.sc.entries];
    return logs.some((e) => /uncaught in a timer/.test(e.message));
  }, ms(10000), 'the page error to be logged');
  const text = logs.map((e) => `${e.level} ${e.source} ${e.message}`).join('\n');
  assert.match(text, /info console-api .*hello from the page/);
  assert.match(text, /warning console-api .*careful now/);
  assert.match(text, /error console-api .*it broke: code 7/);
  assert.match(text, /error javascript .*uncaught in a timer/);
  assert.match(text, /error network .*missing\.js.*404/);
  assert.ok(logs.every((e) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(e.time)), 'ISO times');

  // Each entry once: the next call has only what came since.
  await srv.ok('click', { text: 'Again' });
  const next = await srv.ok('browser_logs', { level: 'all' });
  assert.ok(next.sc.entries.some((e) => /clicked later/.test(e.message)));
  assert.ok(!next.sc.entries.some((e) => /hello from the page/.test(e.message)));
  const quiet = await srv.ok('browser_logs', { level: 'error' });
  assert.equal(quiet.sc.count, 0);
  await srv.close();
});

test('storage_save and storage_load: a login survives into a new browser session', browserOpts(), async (t) => {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/login') {
      res.setHeader('set-cookie', ['sid=abc123-secret; Path=/; HttpOnly', 'theme=dark; Path=/']);
      return res.end('<!doctype html><title>In</title><script>localStorage.setItem("cart", "3 apples")</script><p>logged in</p>');
    }
    const sid = /sid=([^;]+)/.exec(req.headers.cookie ?? '');
    res.end(`<!doctype html><title>Home</title><p>${sid ? 'Welcome back ' + sid[1] : 'Please log in'}</p><p id="cart"></p><script>document.getElementById('cart').textContent = 'cart: ' + (localStorage.getItem('cart') || 'empty')</script>`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${server.address().port}`;
  const srv = await startServer(t);
  const first = await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `${url}/login` });
  const saved = await srv.ok('storage_save', { name: 'shop-login' });
  assert.equal(saved.sc.cookies, 2);
  assert.equal(saved.sc.local_storage, 1);
  assert.equal(saved.sc.origin, url);
  assert.doesNotMatch(JSON.stringify(saved), /abc123-secret/, 'values stay out of the result');
  const { statSync } = await import('node:fs');
  assert.equal(statSync(saved.sc.path).mode & 0o777, 0o600);
  await srv.ok('session_stop', { session: first.sc.id });

  // A new browser: logged out, until the storage is loaded on the site.
  await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `${url}/` });
  assert.match((await srv.ok('read_text', {})).sc.text, /Please log in/);
  const loaded = await srv.ok('storage_load', { name: 'shop-login' });
  assert.equal(loaded.sc.cookies, 2);
  assert.equal(loaded.sc.local_storage, 1);
  await srv.ok('open_url', { url: `${url}/` });
  const text = (await srv.ok('read_text', {})).sc.text;
  assert.match(text, /Welcome back abc123-secret/);
  assert.match(text, /cart: 3 apples/);

  // Another site, an unknown name, a bad name: clear errors.
  await srv.ok('open_url', { url: `http://localhost:${server.address().port}/` });
  const wrong = await srv.call('storage_load', { name: 'shop-login' });
  assert.equal(wrong.structuredContent.error.code, 'invalid_argument');
  assert.match(wrong.structuredContent.error.message, /saved from http:\/\/127\.0\.0\.1:\d+, and the page is on http:\/\/localhost/);
  const none = await srv.call('storage_load', { name: 'nothing-here' });
  assert.equal(none.structuredContent.error.code, 'not_found');
  const bad = await srv.call('storage_save', { name: '../etc' });
  assert.equal(bad.isError, true);
  await srv.close();
});

test('upload_file puts a file the policy lists into a file input; other files (links and .. too) and a ref that is no file input are refused', browserOpts(), async (t) => {
  const { mkdtempSync, rmSync, writeFileSync, symlinkSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { connectClient } = await import('../lib/server.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'gb-upload-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const uploads = join(dir, 'uploads');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(uploads);
  writeFileSync(join(uploads, 'report.txt'), 'quarterly figures\n');
  writeFileSync(join(dir, 'secret.txt'), 'not for pages\n');
  symlinkSync(join(dir, 'secret.txt'), join(uploads, 'sneaky.txt'));
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>Upload</title><input type="file" id="f" onchange="document.getElementById('out').textContent = 'chose ' + this.files[0].name + ' ' + this.files[0].size"><input id="t"><div id="out">nothing</div>`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['webdriver_connect', 'open_url', 'snapshot', 'find', 'read_text', 'upload_file', 'session_stop'], rules: { upload_file: { paths: [`${uploads}/*`] } } }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') } });
  const call = async (name, args) => srv.client.callTool({ name, arguments: args });
  assert.ok(!(await call('webdriver_connect', {})).isError);
  await call('open_url', { url: `http://127.0.0.1:${server.address().port}/` });
  const els = (await call('snapshot', {})).structuredContent.elements;
  const fileRef = els[0].ref; // the file input comes first on the page
  const up = await call('upload_file', { ref: fileRef, path: join(uploads, 'report.txt') });
  assert.ok(!up.isError, JSON.stringify(up.structuredContent));
  assert.equal(up.structuredContent.bytes, 18);
  assert.match((await call('read_text', {})).structuredContent.text, /chose report\.txt 18/);
  // Outside the listed folder, also through a symbolic link inside it.
  for (const path of [join(dir, 'secret.txt'), join(uploads, 'sneaky.txt'), join(uploads, '..', 'secret.txt')]) {
    const r = await call('upload_file', { ref: fileRef, path });
    assert.equal(r.structuredContent.error.code, 'denied', path);
    assert.match(r.content[0].text, /rules\.upload_file\.paths/);
  }
  const notInput = await call('upload_file', { ref: els[1].ref, path: join(uploads, 'report.txt') });
  assert.equal(notInput.structuredContent.error.code, 'invalid_argument');
  assert.match(notInput.structuredContent.error.message, /not a file input/);
  // Refs the schema's pattern lets through but no snapshot makes (no frame
  // 0, none past the most frames): a malformed ref, as for other tools.
  for (const ref of ['f0e1', 'f65e1']) {
    const r = await call('upload_file', { ref, path: join(uploads, 'report.txt') });
    assert.equal(r.structuredContent.error.code, 'invalid_argument', `${ref}: ${JSON.stringify(r.structuredContent)}`);
    assert.match(r.structuredContent.error.message, /argument "ref" must be a ref from snapshot or find/);
  }
  await srv.close();
});

const SCOPED = `<!doctype html><title>Scoped</title><body>
<h1>Account</h1>
<nav id="menu" role="navigation" aria-label="Menu"><a href="/a">Home</a><a href="/b">Orders</a><a href="/c">Help</a></nav>
<form id="login" role="form" aria-label="Login"><label for="u">User</label><input id="u"><button type="button">Sign in</button></form>
<iframe src="/frame" style="position:absolute; left:500px; top:60px; width:300px; height:150px; border:0"></iframe>
<ul>${Array.from({ length: 50 }, (_, i) => `<li>Item ${i + 1}</li>`).join('')}</ul>
<button id="swap" onclick="document.getElementById('login').remove()">Remove form</button>
</body>`;
const SCOPED_FRAME = `<!doctype html><body style="margin:0"><div role="group" aria-label="Panel" style="position:absolute; left:10px; top:20px; width:200px; height:100px"><button style="width:80px; height:30px">In panel</button></div></body>`;

test('snapshot and find with scope: one part of the page, refs shared with the full snapshot, max_elements; a stale or malformed scope is refused', browserOpts(), async (t) => {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(req.url === '/frame' ? SCOPED_FRAME : SCOPED);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { width: 1200, height: 700 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${server.address().port}/` });
  await until(async () => /In panel/.test(JSON.stringify((await srv.ok('snapshot', {})).sc)), ms(10000), 'the iframe to load');

  const full = (await srv.ok('snapshot', {})).sc.elements;
  const form = full.find((e) => e.name === 'Login');
  const user = byName(full, 'textbox', 'User');
  const signIn = byName(full, 'button', 'Sign in');
  const part = await srv.ok('snapshot', { scope: form.ref });
  const at = full.indexOf(form);
  assert.deepEqual(part.sc.elements.map((e) => `${e.ref} ${e.role} ${e.name}`), full.slice(at, at + 4).map((e) => `${e.ref} ${e.role} ${e.name}`), 'the form and what is inside it, with the refs of the full snapshot');
  assert.deepEqual(part.sc.elements.slice(1).map((e) => e.name), ['User', 'User', 'Sign in'], 'its label, field and button');
  assert.equal(part.sc.elements[3].ref, signIn.ref);
  assert.equal(part.sc.elements[0].depth, 0);
  assert.ok(part.sc.elements.every((e, i) => i === 0 || e.depth === 1));
  assert.deepEqual(part.sc.elements[2].bounds, user.bounds);
  assert.doesNotMatch(part.content[0].text, /Home|Item 1|In panel/, 'nothing outside the scope');
  // Refs of the full snapshot still act after a scoped one.
  await srv.ok('type_text', { ref: user.ref, text: 'ann' });
  assert.equal((await srv.ok('snapshot', { scope: form.ref })).sc.elements[2].value, 'ann');

  // find inside one part only.
  const menu = full.find((e) => e.name === 'Menu');
  const links = await srv.ok('find', { role: 'link', scope: menu.ref });
  assert.deepEqual(links.sc.matches.map((m) => m.name), ['Home', 'Orders', 'Help']);
  assert.equal((await srv.ok('find', { text: 'Sign in', scope: menu.ref })).sc.count, 0);

  // A scope inside an iframe: bounds in the top page's coordinates.
  const panel = full.find((e) => e.name === 'Panel');
  const inPanel = (await srv.ok('snapshot', { scope: panel.ref })).sc.elements;
  assert.deepEqual(inPanel.map((e) => e.name), ['Panel', 'In panel']);
  assert.deepEqual(inPanel[1].bounds, byName(full, 'button', 'In panel').bounds);
  assert.deepEqual(inPanel[0].bounds, { x: 510, y: 80, width: 200, height: 100 });

  // The budget, under either name; both at once is an error.
  const cut = await srv.ok('snapshot', { max_elements: 4 });
  assert.equal(cut.sc.count, 4);
  assert.equal(cut.sc.truncated, true);
  assert.match(cut.sc.truncation, /4 of \d+ elements \(max_elements\)/);
  const both = await srv.call('snapshot', { max_elements: 4, max_nodes: 4 });
  assert.equal(both.structuredContent.error.code, 'invalid_argument');
  assert.match(both.structuredContent.error.message, /max_elements.*max_nodes/);

  // A scoped snapshot after a new full one: new numbering, scope by the new refs.
  const fresh = (await srv.ok('snapshot', {})).sc.elements;
  const form2 = fresh.find((e) => e.name === 'Login').ref;
  // Bad scopes: malformed, unknown, and gone from the page.
  const malformed = await srv.call('snapshot', { scope: 'login' });
  assert.equal(malformed.structuredContent.error.code, 'invalid_argument');
  assert.match(malformed.structuredContent.error.message, /"scope".*"login"/);
  const unknown = await srv.call('find', { role: 'link', scope: 'e9999' });
  assert.equal(unknown.structuredContent.error.code, 'not_found');
  assert.match(unknown.structuredContent.error.message, /"scope": ref e9999 is gone/);
  await srv.ok('click', { text: 'Remove form' });
  const gone = await srv.call('snapshot', { scope: form2 });
  assert.equal(gone.structuredContent.error.code, 'not_found');
  assert.match(gone.structuredContent.error.message, new RegExp(`"scope": ref ${form2} is gone`));
  await srv.close();
});

test('downloads: a file a page downloads is saved in the data folder, listed, and read as a glovebox://download/ resource; gone with the server', browserOpts(), async (t) => {
  const { existsSync: exists, readFileSync } = await import('node:fs');
  const body = 'id,total\n1,42\n2,7\n'.repeat(200);
  const server = createServer((req, res) => {
    if (req.url === '/report') {
      res.setHeader('content-type', 'text/csv');
      res.setHeader('content-disposition', 'attachment; filename="report 1.csv"');
      return res.end(body);
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>Files</title><a href="/report">Get the report</a>');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const srv = await startServer(t);
  const session = (await srv.ok('webdriver_connect', {})).sc.id;
  await srv.ok('open_url', { url: `http://127.0.0.1:${server.address().port}/` });
  assert.equal((await srv.ok('downloads', {})).sc.count, 0, 'nothing yet');
  await srv.ok('click', { ref: (await srv.ok('find', { text: 'Get the report' })).sc.matches[0].ref });

  let list;
  await until(async () => {
    list = await srv.ok('downloads', {});
    return list.sc.downloads.some((d) => d.complete);
  }, ms(15000), 'the download to complete');
  const file = list.sc.downloads[0];
  assert.equal(file.name, 'report 1.csv');
  assert.equal(file.size, body.length);
  assert.equal(file.uri, `glovebox://download/${session}/report%201.csv`);
  assert.equal(file.mime_type, 'text/csv');
  const folder = join(srv.dataDir, 'downloads', session);
  assert.equal(file.path, join(folder, 'report 1.csv'));
  assert.equal(readFileSync(file.path, 'utf8'), body);
  const link = list.content.find((c) => c.type === 'resource_link');
  assert.equal(link?.uri, file.uri, 'a link to read it by');
  assert.match(list.content[0].text, /report 1\.csv \(\d+ bytes\) glovebox:\/\/download\//);

  // Read through resources/read; listed by resources/list.
  const read = await srv.client.readResource({ uri: file.uri });
  assert.equal(read.contents[0].mimeType, 'text/csv');
  assert.equal(Buffer.from(read.contents[0].blob, 'base64').toString(), body);
  const listed = await srv.client.listResources();
  assert.ok(listed.resources.some((r) => r.uri === file.uri));
  for (const uri of [`glovebox://download/${session}/..%2Fx`, `glovebox://download/${session}/nothing.csv`, 'glovebox://download/webdriver-99/report%201.csv', `glovebox://download/${session}/%2e%2e`]) {
    await assert.rejects(srv.client.readResource({ uri }), /not found/i, uri);
  }

  // Sessions that save none: a terminal.
  await srv.ok('terminal_start', { command: ['sh'] });
  const term = await srv.call('downloads', {});
  assert.equal(term.structuredContent.error.code, 'not_supported');
  assert.ok(exists(folder));
  await srv.close();
  assert.ok(!exists(folder), 'the folder goes with the server');
});

test('upload_file on an endpoint glovebox did not start: the file is sent (POST /se/file, chromedriver\'s /file) and the endpoint\'s path is typed', browserOpts(), async (t) => {
  const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { connectClient } = await import('../lib/server.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'gb-remote-upload-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const uploads = join(dir, 'uploads');
  mkdirSync(uploads);
  writeFileSync(join(uploads, 'report.txt'), 'quarterly figures\n');

  // A chromedriver of the test's own, behind a proxy that logs each request.
  const { url: driverUrl, log } = await startLoggedChromedriver(t, dir);

  const page = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>Upload</title><input type="file" id="f" onchange="document.getElementById('out').textContent = 'chose ' + this.files[0].name + ' ' + this.files[0].size"><div id="out">nothing</div>`);
  });
  await new Promise((r) => page.listen(0, '127.0.0.1', r));
  t.after(() => page.close());
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ allow: ['webdriver_connect', 'open_url', 'snapshot', 'read_text', 'upload_file', 'session_stop'], rules: { upload_file: { paths: [`${uploads}/*`] } } }));
  const srv = await connectClient(t, { bin: 'glovebox', args: ['--policy', policy], env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') } });
  const call = async (name, args) => srv.client.callTool({ name, arguments: args });
  const connected = await call('webdriver_connect', {
    url: driverUrl,
    capabilities: { browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', `--user-data-dir=${join(dir, 'profile')}`] } },
  });
  assert.ok(!connected.isError, JSON.stringify(connected.structuredContent));
  assert.equal(connected.structuredContent.owned, false);
  await call('open_url', { url: `http://127.0.0.1:${page.address().port}/` });
  const ref = (await call('snapshot', {})).structuredContent.elements[0].ref;
  const up = await call('upload_file', { ref, path: join(uploads, 'report.txt') });
  assert.ok(!up.isError, JSON.stringify(up.structuredContent));
  assert.equal(up.structuredContent.bytes, 18);
  assert.match(up.structuredContent.remote_path ?? '', /report\.txt$/, JSON.stringify(up.structuredContent) + log.join('\n'));
  assert.notEqual(up.structuredContent.remote_path, join(uploads, 'report.txt'), 'the endpoint\'s own copy');
  assert.ok(log.some((l) => /^POST \/session\/[^/]+\/se\/file$/.test(l)), log.join('\n'));
  assert.ok(log.some((l) => /^POST \/session\/[^/]+\/file$/.test(l)), 'chromedriver takes the file under its older name');
  assert.match((await call('read_text', {})).structuredContent.text, /chose report\.txt 18/);
  const stopped = await call('session_stop', { session: connected.structuredContent.id });
  assert.ok(!stopped.isError, JSON.stringify(stopped));
  assert.ok(log.some((l) => /^DELETE \/session\/[^/]+$/.test(l)), 'the remote session deleted: its browser closed');
  await srv.close();
});
