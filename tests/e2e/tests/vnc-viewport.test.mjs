// vnc sessions on a real Xvnc: find by OCR (matches with bounds to click),
// and a viewport — a region of the remote screen that becomes the session's
// whole screen: its size, screenshots, OCR bounds, input points and
// recordings are all relative to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { assertColour, decodeGif, decodePng, imageOf, ms, pixel, startServer, textOf, topts, until } from '../lib/terminal.mjs';
import { startXvnc, xclient, xrun } from '../lib/vnc.mjs';

const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(120000), ...extra }));
const errorOf = (r) => r.structuredContent.error;

async function shot(srv, args = {}) {
  const r = await srv.ok('screenshot', { format: 'png', ...args });
  return decodePng(imageOf(r).data);
}

/** Where the remote X pointer is, as the X server says. */
function pointerOf(xvnc) {
  const r = spawnSync('xdotool', ['getmouselocation', '--shell'], { env: xvnc.env, encoding: 'utf8' });
  const x = Number(/X=(\d+)/.exec(r.stdout)[1]);
  const y = Number(/Y=(\d+)/.exec(r.stdout)[1]);
  return [x, y];
}

test('find by OCR on a vnc session, and a viewport that makes a region the whole screen', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 640, height: 480 });
  xrun(xvnc, 'xsetroot', ['-solid', '#20c040']);
  // An xterm at a known place (Xvnc has no window manager to move it).
  xclient(t, xvnc, 'xterm', ['-geometry', '24x4+300+200', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-bg', 'white', '-fg', 'black', '-e', 'sh', '-c', 'printf "FINDME here\\n"; sleep 600']);
  const srv = await startServer(t);
  const whole = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, name: 'whole' })).sc;
  const ready = await srv.ok('wait_for', { session: whole.id, text: 'FINDME', timeout_ms: 20000 });
  assert.equal(ready.sc.matched, true, 'the xterm shows its text');

  // find: where the text is, with bounds on the remote screen.
  const found = await srv.ok('find', { session: whole.id, text: 'findme' });
  assert.equal(found.sc.source, 'ocr');
  assert.equal(found.sc.count, 1);
  const m = found.sc.matches[0];
  assert.equal(m.text, 'FINDME');
  assert.equal(m.source, 'ocr');
  const b = m.bounds;
  assert.ok(b.x >= 300 && b.x < 360 && b.y >= 200 && b.y < 240, `bounds ${JSON.stringify(b)} lie in the xterm's top left`);
  assert.ok(b.width > 30 && b.width < 200 && b.height > 5 && b.height < 40, `bounds ${JSON.stringify(b)} fit the word`);
  assert.match(textOf(found), /1 match \(ocr\)\n"FINDME" at \d+,\d+ \d+x\d+/);
  const exact = await srv.ok('find', { session: whole.id, text: 'findme', exact: true });
  assert.equal(exact.sc.count, 0, 'exact: case matters');
  const none = await srv.ok('find', { session: whole.id, text: 'NOT-ON-SCREEN-QQ' });
  assert.equal(none.sc.count, 0);
  assert.deepEqual(none.sc.matches, []);
  let r = await srv.call('find', { session: whole.id, role: 'push button' });
  assert.equal(errorOf(r).code, 'not_supported');
  assert.match(errorOf(r).message, /"role" is not supported on vnc sessions/);

  // A viewport over the xterm: a 320x120 screen of its own.
  const vp = { x: 290, y: 190, width: 320, height: 120 };
  const part = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: vp, name: 'part' })).sc;
  assert.equal(part.width, 320);
  assert.equal(part.height, 120);
  assert.deepEqual(part.viewport, { ...vp, screen_width: 640, screen_height: 480 });
  const png = await shot(srv, { session: part.id });
  assert.deepEqual([png.width, png.height], [320, 120]);
  assertColour(pixel(png, 2, 2), [0x20, 0xc0, 0x40], 8, 'the root left and above the xterm');
  assertColour(pixel(png, 100, 60), [0xff, 0xff, 0xff], 8, 'the xterm inside the viewport');
  // OCR bounds are the viewport's.
  const inPart = await srv.ok('find', { session: part.id, text: 'FINDME' });
  assert.equal(inPart.sc.count, 1);
  const pb = inPart.sc.matches[0].bounds;
  assert.ok(Math.abs(pb.x - (b.x - vp.x)) <= 3 && Math.abs(pb.y - (b.y - vp.y)) <= 3, `viewport bounds ${JSON.stringify(pb)} vs screen ${JSON.stringify(b)}`);
  const text = await srv.ok('read_text', { session: part.id });
  assert.match(text.sc.text, /FINDME/);
  // Input points are the viewport's: the remote pointer lands at corner + point.
  await srv.ok('click', { session: part.id, x: 10, y: 20 });
  await until(async () => String(pointerOf(xvnc)) === '300,210', ms(5000), 'the pointer at 300,210');
  await srv.ok('computer', { session: part.id, action: 'mouse_move', coordinate: [319, 119] });
  await until(async () => String(pointerOf(xvnc)) === '609,309', ms(5000), 'the pointer at 609,309');
  r = await srv.call('click', { session: part.id, x: 320, y: 10 });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /320,10 is outside the 320x120 screen/);
  // Recordings are the viewport too.
  await srv.ok('record_start', { session: part.id, format: 'gif', fps: 10 });
  await new Promise((res) => setTimeout(res, 400));
  const rec = await srv.ok('record_stop', { session: part.id });
  const gif = decodeGif(readFileSync(rec.sc.path));
  assert.deepEqual([gif.width, gif.height], [320, 120]);
  const listed = (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === part.id);
  assert.equal(listed.width, 320);

  // A viewport off the screen: a clear error naming it; the server keeps serving.
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { x: 600, y: 0, width: 100, height: 100 } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /argument "viewport": 600,0 100x100 does not lie within the server's 640x480 screen/);
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { x: 0, y: 0, width: 0, height: 10 } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /viewport/);
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { x: -5, y: 0, width: 10, height: 10 } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /viewport/);
  await srv.ok('screenshot', { session: whole.id });
  await srv.close();
});
