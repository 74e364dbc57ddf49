// The VNC server's own cursor in the live viewer, in a real browser against
// a real Xvnc: the server sends the pointer's shape apart from the
// framebuffer (RichCursor); the page draws it as an image above the canvas
// at the pointer's point less the hotspot, and moves it when the agent
// moves the pointer; the canvas itself never shows the pointer.
// screenshot cursor: true draws the same shape into the image.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { ms, needs } from '../lib/server.mjs';
import { decodePng, imageOf, pixel } from '../lib/terminal.mjs';
import { browserOpts, launchBrowser, makeLink, startViewerServer, waitInPage } from '../lib/viewer.mjs';
import { startXvnc } from '../lib/vnc.mjs';

const vopts = () => needs('vnc', browserOpts({ timeout: ms(120000) }));
const ROOT = [0x40, 0x40, 0x40];
const near = (p, rgb, tol = 12) => rgb.every((c, i) => Math.abs(p[i] - c) <= tol);
const isRed = (p) => p[0] > 200 && p[1] < 60 && p[2] < 60;

/** Where the page draws the cursor: {href, x, y, w, h, hot} or null. */
const drawn = (page) => page.evaluate(() => {
  const img = document.getElementById('gb-cursor');
  if (!img || !img.isConnected) return null;
  return { href: img.getAttribute('href'), x: Number(img.getAttribute('x')), y: Number(img.getAttribute('y')), w: Number(img.getAttribute('width')), h: Number(img.getAttribute('height')), hot: window.gbView.cursor.hot };
});

/** The cursor image's pixels, decoded in the page: [[r, g, b, a], …] by row. */
const cursorPixels = (page) => page.evaluate(async () => {
  const img = new Image();
  img.src = document.getElementById('gb-cursor').getAttribute('href');
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width;
  c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  const rows = [];
  for (let y = 0; y < c.height; y++) {
    const row = [];
    for (let x = 0; x < c.width; x++) row.push([...d.slice((y * c.width + x) * 4, (y * c.width + x) * 4 + 4)]);
    rows.push(row);
  }
  return rows;
});

test('viewer: the VNC server\'s cursor is drawn above the canvas where the agent put the pointer', vopts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 320, height: 240 });
  // A red arrow with a white edge over a grey root window: the X core
  // cursor font's (no Xcursor theme, whose arrows ignore the colours).
  const r = spawnSync('xsetroot', ['-solid', '#404040', '-cursor_name', 'left_ptr', '-fg', 'red', '-bg', 'white'], { env: { ...xvnc.env, XCURSOR_PATH: '/nonexistent' }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { srv } = await startViewerServer(t);
  const id = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display })).sc.id;
  await srv.ok('computer', { session: id, action: 'mouse_move', coordinate: [100, 80] });

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.goto((await makeLink(srv, ['--role', 'watch', '--session', id])).link);
  await waitInPage(page, () => window.gbView.view?.frames > 0, null, 'the first frame');
  await waitInPage(page, () => !!document.getElementById('gb-cursor')?.isConnected, null, 'the server\'s cursor on the page');
  let c = await drawn(page);
  assert.match(c.href, /^data:image\/png;base64,[A-Za-z0-9+/]{40,}/);
  assert.ok(c.w > 4 && c.w <= 64 && c.h > 4 && c.h <= 64, `a pointer-sized image (${c.w}x${c.h})`);
  assert.deepEqual([c.x, c.y], [100 - c.hot[0], 80 - c.hot[1]], 'at the pointer less the hotspot');
  // The shape is the server's: red pixels (the foreground) and transparent ones.
  const px = (await cursorPixels(page)).flat();
  assert.ok(px.some((p) => isRed(p) && p[3] === 255), 'red, opaque pixels in the cursor');
  assert.ok(px.some((p) => p[3] === 0), 'transparent pixels around the arrow');

  // The agent moves the pointer: the image follows.
  t.diagnostic(`cursor ${c.w}x${c.h}, hotspot ${c.hot}, PNG data URL ${c.href.length} bytes`);
  const clicked = Date.now();
  await srv.ok('click', { session: id, x: 200, y: 150 });
  await waitInPage(page, () => document.getElementById('gb-cursor')?.dataset.x === '200' && document.getElementById('gb-cursor')?.dataset.y === '150', null, 'the cursor at the new point');
  t.diagnostic(`the cursor moved on the page ${Date.now() - clicked} ms after the click was sent`);
  c = await drawn(page);
  assert.deepEqual([c.x, c.y], [200 - c.hot[0], 150 - c.hot[1]]);
  // The canvas (the frame's tiles) never holds the pointer: under the
  // cursor's red pixels it shows the root window.
  const rows = await cursorPixels(page);
  const [rx, ry] = (() => {
    for (let y = 0; y < rows.length; y++) for (let x = 0; x < rows[y].length; x++) if (isRed(rows[y][x])) return [x, y];
    return [0, 0];
  })();
  const under = await page.evaluate(([x, y]) => window.gbView.view.pixel(x, y), [c.x + rx, c.y + ry]);
  assert.ok(near(under, ROOT), `the canvas under the cursor shows the root window (${under})`);

  // Screenshots: the pointer only when asked for, the same shape.
  const plain = decodePng(imageOf(await srv.ok('screenshot', { session: id, format: 'png' })).data);
  assert.ok(near(pixel(plain, c.x + rx, c.y + ry), ROOT), 'no pointer in a plain screenshot');
  const withCursor = decodePng(imageOf(await srv.ok('screenshot', { session: id, format: 'png', cursor: true })).data);
  assert.ok(isRed(pixel(withCursor, c.x + rx, c.y + ry)), `the red pointer in a screenshot with cursor: true (${pixel(withCursor, c.x + rx, c.y + ry)})`);

  // A page that joins later gets the cursor at once.
  const late = await browser.newPage();
  await late.goto((await makeLink(srv, ['--role', 'watch', '--session', id])).link);
  await waitInPage(late, () => document.getElementById('gb-cursor')?.dataset.x === '200', null, 'the cursor on a page that joined later');
  await srv.ok('session_stop', { session: id });
});
