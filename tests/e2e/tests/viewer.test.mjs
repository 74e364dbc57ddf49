// The live viewer in a real browser: links from `glovebox view` (roles,
// expiry, revocation, once), refused secrets, the page's headers, live
// terminals and desktops, and bad input on its WebSocket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

import { ms, needs, runCli, sleep } from '../lib/server.mjs';
import { tempDir, until } from '../lib/terminal.mjs';
import { browserOpts, launchBrowser, makeLink, screenLines, startViewerServer, waitInPage } from '../lib/viewer.mjs';

const topts = (extra = {}) => browserOpts({ timeout: ms(90000), ...extra });

async function exchange(base, link) {
  const r = await fetch(`${base}/view/auth`, { method: 'POST', body: JSON.stringify({ link: link.split('#')[1] }) });
  return { status: r.status, cookie: r.headers.get('set-cookie'), json: await r.json() };
}

test('viewer: a link opens the page, the secret leaves the address bar, a live terminal shows its text', needs('terminal', topts()), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const term = await srv.start({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'gb$ ' } });
  await srv.ok('type_text', { session: term.id, text: 'echo before-viewer\n' });
  await srv.ok('wait_for', { session: term.id, text: 'before-viewer\ngb$', timeout_ms: ms(10000) });
  const { link } = await makeLink(srv, ['--role', 'watch']);
  assert.ok(link.startsWith(`${base}/view#`), link);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(link);
  await waitInPage(page, () => document.body.dataset.state === 'connected', null, 'the page to connect');
  assert.equal(new URL(page.url()).hash, '', 'the secret is gone from the address bar');
  await page.click(`li[data-session="${term.id}"]`);
  // A late joiner sees what was on the screen before it came.
  await waitInPage(page, () => window.gbView.view?.lines?.().some((l) => l.includes('before-viewer')), null, 'the earlier output');
  // And what comes next, live.
  await srv.ok('type_text', { session: term.id, text: 'echo after-$((6*7))\n' });
  await waitInPage(page, () => window.gbView.view?.lines?.().some((l) => l === 'after-42'), null, 'live output').catch(async (e) => {
    throw new Error(`${e.message}; the page shows:\n${(await screenLines(page)).join('\n')}`);
  });
  const lines = await screenLines(page);
  assert.ok(lines.some((l) => l.startsWith('gb$ echo after-')), lines.join('\n'));
  assert.equal(await page.textContent('#role'), 'watch');
  const cookies = await page.context().cookies();
  const c = cookies.find((x) => x.name === 'glovebox_view');
  assert.ok(c && c.httpOnly && c.sameSite === 'Strict', JSON.stringify(cookies));
});

test('viewer: without a valid secret nothing is shown and the WebSocket is refused', topts(), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(`${base}/view`);
  await waitInPage(page, () => document.body.dataset.state === 'refused', null, 'the page to be refused');
  assert.match(await page.textContent('#message'), /glovebox view/);
  assert.equal(await page.locator('#sessions li').count(), 0);
  const { link } = await makeLink(srv);
  const bad = link.slice(0, -4) + (link.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  await page.goto('about:blank');
  await page.goto(bad);
  await waitInPage(page, () => document.body.dataset.state === 'refused', null, 'the bad secret to be refused');
  assert.match(await page.textContent('#message'), /not valid/);
  // The WebSocket without a cookie, or with a made-up one: 401, no upgrade.
  for (const cookie of ['', `glovebox_view=${'ab'.repeat(32)}`]) {
    const ws = await rawWs(base, cookie);
    await ws.closed;
    assert.match(ws.head(), /^HTTP\/1.1 401/);
  }
});

test('viewer: page headers forbid framing and inline scripts; /mcp never takes the viewer cookie', topts(), async (t) => {
  const dir = tempDir(t, 'glovebox-viewer-');
  writeFileSync(join(dir, 'token'), 'tok-0123456789abcdef\n');
  const { srv, base } = await startViewerServer(t, { args: ['--token-file', join(dir, 'token')] });
  const page = await fetch(`${base}/view`);
  assert.equal(page.status, 200, 'the page needs no bearer token');
  const csp = page.headers.get('content-security-policy');
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  const { link } = await makeLink(srv, ['--role', 'control']);
  const ex = await exchange(base, link);
  assert.equal(ex.status, 200);
  assert.match(ex.cookie, /HttpOnly/);
  assert.match(ex.cookie, /SameSite=Strict/);
  assert.match(ex.cookie, /Path=\/view/);
  const cookie = ex.cookie.split(';')[0];
  const mcp = await fetch(`${base}/mcp`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
  assert.equal(mcp.status, 401, '/mcp wants the bearer token, whatever the cookie');
});

test('viewer: links expire, are revoked (pages close), and --once opens one page', topts(), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const once = await makeLink(srv, ['--once']);
  assert.equal((await exchange(base, once.link)).status, 200);
  const again = await exchange(base, once.link);
  assert.equal(again.status, 403);
  assert.match(again.json.error, /once/);

  const short = await makeLink(srv, ['--ttl', '1s']);
  await sleep(2100);
  const late = await exchange(base, short.link);
  assert.equal(late.status, 403);
  assert.match(late.json.error, /expired/);

  const bad = await runCli(['view', '--data-dir', srv.dataDir, '--role', 'boss']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--role expects watch, approve or control/);

  const { link, id } = await makeLink(srv);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(link);
  await waitInPage(page, () => document.body.dataset.state === 'connected', null, 'the page to connect');
  const r = await runCli(['view', '--data-dir', srv.dataDir, '--revoke', id]);
  assert.equal(r.code, 0, r.stderr);
  await waitInPage(page, () => document.body.dataset.state === 'closed', null, 'the revoked page to close');
  assert.match(await page.textContent('#message'), /revoked/);
});

/** A raw WebSocket client: resolves { sock, frames: [], closed: Promise<{code, reason}> }. */
async function rawWs(base, cookie, behind = Buffer.alloc(0)) {
  const { port } = new URL(base);
  const sock = connect(Number(port), '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  // behind: bytes sent in the same write as the upgrade request.
  sock.write(Buffer.concat([Buffer.from(`GET /view/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: glovebox.view.v1\r\nCookie: ${cookie}\r\n\r\n`), behind]));
  let buf = Buffer.alloc(0);
  let head = null;
  const frames = [];
  let onClose;
  const closed = new Promise((r) => (onClose = r));
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    if (!head) {
      const i = buf.indexOf('\r\n\r\n');
      if (i < 0) return;
      head = buf.subarray(0, i).toString();
      buf = buf.subarray(i + 4);
      if (!head.startsWith('HTTP/1.1 101')) {
        onClose({ code: 0, reason: head });
        sock.destroy();
        return;
      }
    }
    while (buf.length >= 2) {
      let len = buf[1] & 0x7f, off = 2;
      if (len === 126) { len = buf.readUInt16BE(2); off = 4; } else if (len === 127) { len = Number(buf.readBigUInt64BE(2)); off = 10; }
      if (buf.length < off + len) break;
      const op = buf[0] & 0x0f, payload = buf.subarray(off, off + len);
      frames.push({ op, payload });
      if (op === 8) onClose({ code: payload.readUInt16BE(0), reason: payload.subarray(2).toString() });
      buf = buf.subarray(off + len);
    }
  });
  sock.on('close', () => onClose({ code: 1006, reason: 'socket closed' }));
  return { sock, frames, closed, head: () => head };
}

function frame(op, payload, { mask = true, lengthOverride } = {}) {
  const len = lengthOverride ?? payload.length;
  const parts = [];
  let head;
  if (len < 126) head = Buffer.from([0x80 | op, (mask ? 0x80 : 0) | len]);
  else if (len < 65536) { head = Buffer.alloc(4); head[0] = 0x80 | op; head[1] = (mask ? 0x80 : 0) | 126; head.writeUInt16BE(len, 2); }
  else { head = Buffer.alloc(10); head[0] = 0x80 | op; head[1] = (mask ? 0x80 : 0) | 127; head.writeBigUInt64BE(BigInt(len), 2); }
  parts.push(head);
  if (mask) {
    const key = Buffer.from([1, 2, 3, 4]);
    parts.push(key, Buffer.from(payload.map((b, i) => b ^ key[i & 3])));
  } else parts.push(payload);
  return Buffer.concat(parts);
}

test('viewer: garbage, huge frames and floods close that viewer only', topts(), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const { link } = await makeLink(srv, ['--ttl', '5m']);
  const cookie = (await exchange(base, link)).cookie.split(';')[0];
  const good = await rawWs(base, cookie);
  await sleep(200);
  assert.match(good.head(), /^HTTP\/1.1 101/);
  assert.match(good.head(), /sec-websocket-protocol: glovebox.view.v1/i);
  const hello = JSON.parse(good.frames[0].payload.toString());
  assert.equal(hello.type, 'hello');

  const garbage = await rawWs(base, cookie);
  garbage.sock.write(frame(1, Buffer.from('this is not json')));
  assert.equal((await garbage.closed).code, 1007);
  // A message in the same packet as the upgrade request is read too (it
  // used to wait for a read that never came).
  const early = await rawWs(base, cookie, frame(1, Buffer.from('not json either')));
  assert.equal((await early.closed).code, 1007);

  const unmasked = await rawWs(base, cookie);
  unmasked.sock.write(frame(1, Buffer.from('{"type":"ack"}'), { mask: false }));
  assert.equal((await unmasked.closed).code, 1002);

  const huge = await rawWs(base, cookie);
  huge.sock.write(frame(1, Buffer.alloc(10), { lengthOverride: 10 * 1024 * 1024 }).subarray(0, 14));
  assert.equal((await huge.closed).code, 1009);

  const flood = await rawWs(base, cookie);
  const one = frame(1, Buffer.from('{"type":"ack","seq":1}'));
  flood.sock.write(Buffer.concat(Array.from({ length: 1000 }, () => one)));
  const fc = await flood.closed;
  assert.equal(fc.code, 1008);
  assert.match(fc.reason, /too many messages/);

  // The first viewer is still served, and so is MCP.
  good.sock.write(frame(1, Buffer.from('{"type":"watch","session":"nope-1"}')));
  await sleep(300);
  const last = JSON.parse(good.frames[good.frames.length - 1].payload.toString());
  assert.equal(last.type, 'error');
  assert.match(last.message, /no such session/);
  await srv.ok('session_list', {});
  good.sock.end();
});

test('viewer: a desktop is drawn on the canvas and follows changes; a still screen sends nothing', needs('desktop', topts()), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 640, height: 480 })).sc.id;
  const { link } = await makeLink(srv, ['--session', desk]);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(link);
  await waitInPage(page, () => window.gbView.view?.frames > 0, null, 'the first desktop frame');
  const size = await page.evaluate(() => [document.getElementById('desk').width, document.getElementById('desk').height]);
  assert.deepEqual(size, [640, 480]);
  // A window painted red in the middle of the screen reaches the canvas.
  await srv.ok('launch_app', { session: desk, command: ['xsetroot', '-solid', '#ff0000'] });
  await waitInPage(page, () => { const p = window.gbView.view.pixel(320, 240); return p[0] > 200 && p[1] < 50 && p[2] < 50; }, null, 'the red screen in the canvas');
  // Still: no more updates.
  await sleep(1500);
  const before = await page.evaluate(() => window.gbView.view.bytes);
  await sleep(2000);
  const after = await page.evaluate(() => window.gbView.view.bytes);
  assert.equal(after, before, 'a still screen sends 0 bytes');
});

test('viewer: overlays appear in the page above the desktop, never in screenshots; removed, cleared, limited', needs('desktop', topts()), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 640, height: 480 })).sc.id;
  await srv.ok('launch_app', { session: desk, command: ['xsetroot', '-solid', '#0000ff'] });
  const { link } = await makeLink(srv, ['--session', desk]);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(link);
  await waitInPage(page, () => { const v = window.gbView.view; if (!v || !v.frames) return false; const p = v.pixel(320, 240); return p[2] > 200 && p[0] < 50; }, null, 'the blue desktop');
  const drawn = await srv.ok('overlay_draw', { session: desk, shapes: [
    { kind: 'highlight', x: 100, y: 100, width: 200, height: 100, color: '#ff0000', opacity: 1 },
    { kind: 'label', x: 20, y: 20, text: 'click here' },
  ], ttl_ms: 60000 });
  assert.equal(drawn.sc.ids.length, 2);
  await waitInPage(page, (n) => window.gbView.overlays.ids().length === n, 2, 'both overlays in the page');
  assert.equal(await page.textContent('#overlay text'), 'click here');
  // The agent's own screenshot has no overlay: the screen is still blue there.
  const shot = await srv.ok('screenshot', { session: desk });
  const { decodePng, pixel } = await import('../lib/terminal.mjs');
  const png = decodePng(shot.content.find((c) => c.type === 'image').data);
  const [r, , b] = pixel(png, 150, 150);
  assert.ok(b > 200 && r < 50, `screenshot pixel under the overlay is the screen's blue, got ${r},${b}`);
  // Nor is it in the canvas (the page's copy of the screen).
  const cp = await page.evaluate(() => window.gbView.view.pixel(150, 150));
  assert.ok(cp[2] > 200 && cp[0] < 50, `canvas pixel ${cp}`);

  await srv.ok('overlay_remove', { session: desk, ids: [drawn.sc.ids[0]] });
  await waitInPage(page, (id) => !window.gbView.overlays.ids().includes(id), drawn.sc.ids[0], 'the removed overlay to go');
  await srv.ok('overlay_clear', { session: desk });
  await waitInPage(page, () => window.gbView.overlays.ids().length === 0, null, 'cleared');

  // A short ttl ends by itself.
  await srv.ok('overlay_draw', { session: desk, shapes: [{ kind: 'point', x: 5, y: 5 }], ttl_ms: 300 });
  await waitInPage(page, () => window.gbView.overlays.ids().length === 0, null, 'the expired overlay to go');

  // Limits, with errors naming them.
  const many = Array.from({ length: 65 }, () => ({ kind: 'point', x: 1, y: 1 }));
  await srv.err('overlay_draw', { session: desk, shapes: many }, /maxItems|at most 64/);
  const burst = await Promise.all(Array.from({ length: 60 }, () => srv.call('overlay_clear', { session: desk })));
  const limited = burst.filter((r) => r.isError);
  assert.ok(limited.length > 0, 'a burst of 60 changes is limited');
  assert.match(limited[0].content[0].text, /at most 20 a second/);
});

test('viewer: a page that does not acknowledge gets at most two desktop updates, then catches up', needs('desktop', topts()), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 320, height: 240 })).sc.id;
  // The screen keeps changing.
  await srv.ok('launch_app', { session: desk, command: ['sh', '-c', 'while :; do xsetroot -solid "#ff0000"; sleep 0.05; xsetroot -solid "#00ff00"; sleep 0.05; done'] });
  const { link } = await makeLink(srv, ['--session', desk]);
  const cookie = (await exchange(base, link)).cookie.split(';')[0];
  const ws = await rawWs(base, cookie);
  await sleep(200);
  ws.sock.write(frame(1, Buffer.from(JSON.stringify({ type: 'watch', session: desk }))));
  const updates = () => ws.frames.filter((f) => f.op === 2 && f.payload[0] === 1);
  const end = Date.now() + ms(10000);
  while (updates().length < 2 && Date.now() < end) await sleep(50);
  assert.equal(updates().length, 2, 'two updates before any acknowledgement');
  await sleep(1000); // many changes meanwhile
  assert.equal(updates().length, 2, 'no more until acknowledged');
  const seq = updates()[1].payload.readUInt32BE(1);
  ws.sock.write(frame(1, Buffer.from(JSON.stringify({ type: 'ack', seq }))));
  const end2 = Date.now() + ms(10000);
  while (updates().length < 3 && Date.now() < end2) await sleep(50);
  assert.equal(updates().length, 3, 'one more after one acknowledgement');
  ws.sock.end();
});

test('viewer: the page shows the mode and paused state; Stop pauses input (approve), watch links have no Stop', topts(), async (t) => {
  const { srv } = await startViewerServer(t);
  const browser = await launchBrowser(t);
  const watcher = await browser.newPage();
  await watcher.goto((await makeLink(srv, ['--role', 'watch'])).link);
  await waitInPage(watcher, () => document.body.dataset.state === 'connected', null, 'the watch page');
  assert.equal(await watcher.isVisible('#stop'), false, 'a watch link has no Stop');
  const approver = await browser.newPage();
  await approver.goto((await makeLink(srv, ['--role', 'approve'])).link);
  await waitInPage(approver, () => !document.getElementById('stop').hidden, null, 'the Stop button');
  assert.match(await approver.textContent('#mode'), /^(passive|assist|autopilot)$/);
  await approver.click('#stop');
  await waitInPage(watcher, () => !document.getElementById('paused').hidden, null, 'every page to show paused');
  const st = await srv.ok('status', {});
  assert.equal(JSON.stringify(st.sc).includes('"paused":true'), true, JSON.stringify(st.sc).slice(0, 300));
  assert.equal(await approver.isVisible('#resume'), false, 'only control links resume');
  const controller = await browser.newPage();
  await controller.goto((await makeLink(srv, ['--role', 'control'])).link);
  await waitInPage(controller, () => !document.getElementById('resume').hidden, null, 'the Resume button');
  await controller.click('#resume');
  await waitInPage(watcher, () => document.getElementById('paused').hidden, null, 'every page to show resumed');
});

test('viewer: approval cards answer confirmations for a client without elicitation: approve, decline, timeout; watch pages have no buttons', needs('terminal', topts()), async (t) => {
  const dir = tempDir(t, 'glovebox-viewer-');
  const policy = join(dir, 'assist.json');
  writeFileSync(policy, JSON.stringify({ mode: 'assist', allow: ['*'], confirm_timeout_s: 3 }));
  const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') };
  const { srv } = await startViewerServer(t, { args: ['--policy', policy], env });
  const browser = await launchBrowser(t);
  const approver = await browser.newPage();
  await approver.goto((await makeLink(srv, ['--role', 'approve'])).link);
  await waitInPage(approver, () => document.body.dataset.state === 'connected', null, 'the approve page');
  const watcher = await browser.newPage();
  await watcher.goto((await makeLink(srv, ['--role', 'watch'])).link);
  await waitInPage(watcher, () => document.body.dataset.state === 'connected', null, 'the watch page');
  assert.match(await approver.textContent('#mode'), /assist/);

  // Approve: the call runs.
  const first = srv.call('terminal_start', { command: ['bash', '--norc', '--noprofile'] });
  await approver.waitForSelector('.card button.approve', { timeout: ms(15000) });
  assert.match(await approver.textContent('.card .q'), /^Allow the agent to start a terminal running "bash" "--norc" "--noprofile"\?/);
  await watcher.waitForSelector('.card', { timeout: ms(15000) });
  assert.equal(await watcher.locator('.card button').count(), 0, 'a watch page sees the card without buttons');
  await approver.click('.card button.approve');
  const started = await first;
  assert.ok(!started.isError, JSON.stringify(started).slice(0, 300));
  await waitInPage(watcher, () => document.querySelectorAll('.card').length === 0, null, 'the card to go from every page');

  // Decline: it does not run.
  const second = srv.call('session_stop', { session: started.structuredContent.id });
  await approver.waitForSelector('.card button.decline', { timeout: ms(15000) });
  await approver.click('.card button.decline');
  const declined = await second;
  assert.equal(declined.isError, true);
  assert.match(declined.content[0].text, /Declined: the person said no/);

  // No answer: declined when the policy's confirm_timeout_s runs out.
  const third = await srv.call('session_stop', { session: started.structuredContent.id });
  assert.equal(third.isError, true);
  assert.match(third.content[0].text, /did not answer within 3 s/);
  await waitInPage(approver, () => document.querySelectorAll('.card').length === 0, null, 'the timed-out card to go');

  // The audit log says who approved.
  const audit = await runCli(['audit', '--data-dir', srv.dataDir, '--json']);
  assert.match(audit.stdout, /viewer link [0-9a-f]{16} \(approve\)/);
});

test('viewer: a REST call the policy wants confirmed waits for an approve page: approved it runs, declined it is refused', needs('terminal', topts()), async (t) => {
  const dir = tempDir(t, 'glovebox-viewer-');
  const policy = join(dir, 'confirm-typing.json');
  writeFileSync(policy, JSON.stringify({ allow: ['terminal_start', 'read_text', 'type_text', 'session_stop'], confirm: ['type_text'], confirm_timeout_s: 30 }));
  const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') };
  const { srv, base } = await startViewerServer(t, { args: ['--policy', policy], env });
  const origin = new URL(base).origin;
  const rest = async (method, path, body) => {
    const r = await fetch(`${origin}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return { status: r.status, json: r.status === 204 ? null : await r.json() };
  };
  const made = await rest('POST', '/v1/sessions', { kind: 'terminal', arguments: { command: ['cat'] } });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const id = made.json.id;
  const typeText = (text) => rest('POST', `/v1/sessions/${id}/tools/type_text`, { arguments: { text } });

  // No page that can approve: refused at once, saying how to get one.
  const refused = await typeText('nobody\n');
  assert.equal(refused.status, 403);
  assert.match(refused.json.error.message, /^Confirmation required: .*glovebox view --role approve/);

  const browser = await launchBrowser(t);
  const approver = await browser.newPage();
  await approver.goto((await makeLink(srv, ['--role', 'approve'])).link);
  await waitInPage(approver, () => document.body.dataset.state === 'connected', null, 'the approve page');

  // Approved in the page: the REST call runs and answers.
  const first = typeText('approved-by-a-person\n');
  await approver.waitForSelector('.card button.approve', { timeout: ms(15000) });
  assert.match(await approver.textContent('.card .q'), /approved-by-a-person/);
  await approver.click('.card button.approve');
  const ran = await first;
  assert.equal(ran.status, 200, JSON.stringify(ran.json));
  assert.equal(ran.json.status, 'succeeded');
  await until(async () => /approved-by-a-person/.test((await rest('POST', `/v1/sessions/${id}/tools/read_text`, {})).json.result.text), ms(5000), 'the typed text on the screen');

  // Declined in the page: 403 denied, nothing typed.
  const second = typeText('declined-by-a-person\n');
  await approver.waitForSelector('.card button.decline', { timeout: ms(15000) });
  await approver.click('.card button.decline');
  const no = await second;
  assert.equal(no.status, 403);
  assert.equal(no.json.error.code, 'denied');
  assert.match(no.json.error.message, /Declined: the person said no/);
  assert.doesNotMatch((await rest('POST', `/v1/sessions/${id}/tools/read_text`, {})).json.result.text, /declined-by-a-person/);
  assert.equal((await rest('DELETE', `/v1/sessions/${id}`)).status, 204);
});

test('viewer: the first answer wins: a page approves while the client is still being asked (its question is withdrawn)', needs('terminal', topts()), async (t) => {
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const { connectClient } = await import('../lib/server.mjs');
  const { mkdtempSync, existsSync: ex, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = tempDir(t, 'glovebox-viewer-');
  const dataDir = mkdtempSync(join(tmpdir(), 'glovebox-data-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const policy = join(dir, 'assist.json');
  writeFileSync(policy, JSON.stringify({ mode: 'assist', allow: ['*'] }));
  const { freePort } = await import('../lib/http.mjs');
  const port = await freePort();
  const srv = await connectClient(t, {
    bin: 'glovebox',
    args: ['--policy', policy, '--stdio', '--http', `127.0.0.1:${port}`, '--data-dir', dataDir],
    env: { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') },
    capabilities: { elicitation: {} },
  });
  let asked = 0;
  let aborted = false;
  srv.client.setRequestHandler(ElicitRequestSchema, (req, extra) => {
    asked++;
    // The person never answers in the client: it waits until withdrawn.
    return new Promise((resolve, reject) => extra.signal.addEventListener('abort', () => { aborted = true; reject(new Error('withdrawn')); }));
  });
  const urlFile = join(dataDir, 'viewer', `serve-${srv.child.pid}.url`);
  const end = Date.now() + ms(10000);
  while (!ex(urlFile) && Date.now() < end) await sleep(20);
  const r = await runCli(['view', '--data-dir', dataDir, '--role', 'control']);
  assert.equal(r.code, 0, r.stderr);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto(r.stdout.trim());
  await waitInPage(page, () => document.body.dataset.state === 'connected', null, 'the control page');
  const call = srv.client.callTool({ name: 'terminal_start', arguments: { command: ['bash', '--norc', '--noprofile'] } });
  await page.waitForSelector('.card button.approve', { timeout: ms(15000) });
  assert.equal(asked, 1, 'the client was asked too');
  await page.click('.card button.approve');
  const res = await call;
  assert.ok(!res.isError, JSON.stringify(res).slice(0, 300));
  await waitInPage(page, () => document.querySelectorAll('.card').length === 0, null, 'the card to go');
  const endAbort = Date.now() + ms(5000);
  while (!aborted && Date.now() < endAbort) await sleep(20);
  assert.ok(aborted, "the client's question was withdrawn (notifications/cancelled)");
  await srv.close();
});

test('viewer: a control page takes a terminal over: agent input is refused, the person types, hand back with a note', needs('terminal', topts()), async (t) => {
  const { srv, base } = await startViewerServer(t);
  const term = await srv.start({ command: ['bash', '--norc', '--noprofile'], env: { PS1: 'gb$ ' }, shared: true });
  // An orchestrator follows the session over the REST API's event stream.
  const stream = await fetch(`${new URL(base).origin}/v1/sessions/${term.id}/events`, { headers: { accept: 'text/event-stream' } });
  assert.equal(stream.status, 200);
  let streamed = '';
  const reader = stream.body.getReader();
  (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) break;
      streamed += Buffer.from(value).toString();
    }
  })();
  t.after(() => reader.cancel().catch(() => {}));
  const browser = await launchBrowser(t);
  const watcher = await browser.newPage();
  await watcher.goto((await makeLink(srv, ['--role', 'watch', '--session', term.id])).link);
  await waitInPage(watcher, () => window.gbView.view?.lines, null, 'the watch page');
  assert.equal(await watcher.isVisible('#take'), false, 'a watch link cannot take control');
  const page = await browser.newPage();
  await page.goto((await makeLink(srv, ['--role', 'control', '--session', term.id])).link);
  await waitInPage(page, () => !document.getElementById('take').hidden, null, 'the Take control button');
  await page.click('#take');
  await waitInPage(page, () => !document.getElementById('handback').hidden, null, 'control taken');
  await waitInPage(watcher, () => document.getElementById('control').textContent === 'a person has control', null, 'other pages to see it');
  await srv.err('type_text', { session: term.id, text: 'echo agent\n' }, /a person has control of session/);
  // The person types in the page's terminal.
  await page.click('#term');
  await page.keyboard.type('echo person-$((6*7))');
  await page.keyboard.press('Enter');
  await srv.ok('wait_for', { session: term.id, text: 'person-42\ngb$', timeout_ms: ms(10000) });
  await page.fill('#note', 'fixed the prompt');
  await page.click('#handback');
  await waitInPage(watcher, () => document.getElementById('control').textContent === 'agent has control', null, 'handed back');
  assert.match(await watcher.textContent('#message'), /fixed the prompt/);
  await srv.ok('type_text', { session: term.id, text: 'echo agent-again\n' });
  await srv.ok('wait_for', { session: term.id, text: 'agent-again\ngb$', timeout_ms: ms(10000) });
  // The agent reads both in the session's events, the note included.
  const events = JSON.parse((await srv.client.readResource({ uri: `glovebox://session/${term.id}/events` })).contents[0].text);
  const list = events.events ?? events;
  const types = list.map((e) => e.type);
  assert.ok(types.includes('person_took_control'), types.join(' '));
  assert.equal(list.find((e) => e.type === 'person_handed_back_control').note, 'fixed the prompt');
  await until(() => /event: handed_back/.test(streamed), ms(5000), 'the REST event stream to hear the hand-back');
  assert.match(streamed, /event: taken_over\ndata: \{"stage":"taken_over"/);
  assert.match(streamed, /"note":"fixed the prompt"/);
});
