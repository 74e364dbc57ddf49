// vnc_connect's viewport {window: "<title>"}: the window is found on the
// remote screen by OCR of its title, as a real window manager (openbox)
// draws it, and its content becomes the session's screen — checked against
// the geometry the X server itself reports for the window.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc, xclient, xrun } from '../lib/vnc.mjs';

const vncOpts = (extra = {}) => needs('vnc', topts({ timeout: ms(180000), ...extra }));
const errorOf = (r) => r.structuredContent.error;

/** openbox on the server's display with the given theme, title font 11 pt. */
function openbox(t, xvnc, theme) {
  const dir = mkdtempSync(join(tmpdir(), 'glovebox-ob-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const rc = join(dir, 'rc.xml');
  const font = (place) => `<font place="${place}"><name>DejaVu Sans</name><size>11</size><weight>bold</weight></font>`;
  writeFileSync(
    rc,
    `<?xml version="1.0"?><openbox_config xmlns="http://openbox.org/3.4/rc">` +
      `<theme><name>${theme}</name><titleLayout>NLIMC</titleLayout>${font('ActiveWindow')}${font('InactiveWindow')}</theme>` +
      `<desktops><number>1</number></desktops><focus><focusNew>yes</focusNew></focus></openbox_config>`,
  );
  xclient(t, xvnc, 'openbox', ['--config-file', rc]);
}

/** Where X says the window titled name is: its content's absolute corner and size (xwininfo), and its id. */
function geometryOf(xvnc, name) {
  const r = spawnSync('xwininfo', ['-name', name], { env: xvnc.env, encoding: 'utf8' });
  if (r.status !== 0) return null;
  const num = (re) => Number(re.exec(r.stdout)[1]);
  return {
    id: num(/Window id: (0x[0-9a-f]+)/),
    x: num(/Absolute upper-left X:\s+(-?\d+)/),
    y: num(/Absolute upper-left Y:\s+(-?\d+)/),
    width: num(/Width:\s+(\d+)/),
    height: num(/Height:\s+(\d+)/),
  };
}

/** An xterm titled title at +x+y, framed by the window manager (its content moved below the title bar). */
async function xterm(t, xvnc, title, geometry) {
  xclient(t, xvnc, 'xterm', ['-T', title, '-geometry', geometry, '-fa', 'DejaVu Sans Mono', '-fs', '11', '-bg', 'white', '-fg', 'black', '-e', 'sleep', '600']);
  let g;
  await until(async () => (g = geometryOf(xvnc, title)) && g.y > Number(/\+(\d+)$/.exec(geometry)[1]), ms(15000), `${title} framed`);
  return g;
}

function near(found, want, what) {
  for (const k of ['x', 'y', 'width', 'height'])
    assert.ok(Math.abs(found[k] - want[k]) <= 3, `${what}: ${k} ${found[k]} vs X's ${want[k]} (${JSON.stringify(found)} vs ${JSON.stringify(want)})`);
}

for (const theme of ['Clearlooks', 'Onyx']) {
  test(`viewport {window}: an openbox (${theme}) window found by its title becomes the session's screen`, vncOpts(), async (t) => {
    const xvnc = await startXvnc(t, { width: 900, height: 600 });
    xrun(xvnc, 'xsetroot', ['-solid', '#305070']);
    openbox(t, xvnc, theme);
    // Openbox runs when it owns the WM selection; give it a moment to.
    await until(async () => spawnSync('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env: xvnc.env, encoding: 'utf8' }).stdout.includes('window id'), ms(10000), 'openbox running');
    const other = await xterm(t, xvnc, 'Other Terminal', '30x6+560+400');
    const win = await xterm(t, xvnc, 'Glovebox Window Test', '60x14+60+70');
    const srv = await startServer(t);

    const s = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Window Test' } })).sc;
    near(s.viewport, win, 'the found region');
    assert.equal(s.viewport.window, 'Window Test');
    assert.equal(s.viewport.screen_width, 900);
    assert.deepEqual([s.width, s.height], [s.viewport.width, s.viewport.height]);
    const png = decodePng(imageOf(await srv.ok('screenshot', { session: s.id, format: 'png' })).data);
    assert.deepEqual([png.width, png.height], [s.viewport.width, s.viewport.height], 'a screenshot is the region');
    // A click at the viewport's 10,10 lands inside the window.
    await srv.ok('click', { session: s.id, x: 10, y: 10 });
    const want = `${s.viewport.x + 10},${s.viewport.y + 10}`;
    let loc;
    await until(async () => {
      loc = spawnSync('xdotool', ['getmouselocation', '--shell'], { env: xvnc.env, encoding: 'utf8' }).stdout;
      return `${/X=(\d+)/.exec(loc)[1]},${/Y=(\d+)/.exec(loc)[1]}` === want;
    }, ms(5000), `the pointer at ${want}`);
    const [px, py] = want.split(',').map(Number);
    assert.ok(px >= win.x && px < win.x + win.width && py >= win.y && py < win.y + win.height, `the pointer ${want} lies in the xterm ${JSON.stringify(win)}`);

    // The other window, by a part of its title in another case.
    const o = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'other terminal' } })).sc;
    near(o.viewport, other, 'the other window');
    await srv.close();
  });
}

test('viewport {window}: a GTK dialog (zenity) under openbox', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 800, height: 600 });
  xrun(xvnc, 'xsetroot', ['-solid', '#305070']);
  openbox(t, xvnc, 'Clearlooks');
  await until(async () => spawnSync('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env: xvnc.env, encoding: 'utf8' }).stdout.includes('window id'), ms(10000), 'openbox running');
  xclient(t, xvnc, 'zenity', ['--info', '--title', 'Zenity Dialog Test', '--text', 'Hello from zenity', '--width', '300']);
  let win;
  await until(async () => (win = geometryOf(xvnc, 'Zenity Dialog Test')) && win.y > 20, ms(20000), 'the dialog framed');
  const srv = await startServer(t);
  const s = (await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Zenity Dialog' } })).sc;
  near(s.viewport, win, 'the dialog');
  const found = await srv.ok('find', { session: s.id, text: 'Hello from zenity' });
  assert.equal(found.sc.count, 1, 'OCR in the viewport reads the dialog');
  const b = found.sc.matches[0].bounds;
  assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.width <= s.width && b.y + b.height <= s.height, `bounds ${JSON.stringify(b)} within the viewport`);
  await srv.close();
});

test('viewport {window}: a window drawn after connecting is waited for; a missing one is not_found naming the titles seen', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 800, height: 600 });
  xrun(xvnc, 'xsetroot', ['-solid', '#305070']);
  openbox(t, xvnc, 'Clearlooks');
  await until(async () => spawnSync('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env: xvnc.env, encoding: 'utf8' }).stdout.includes('window id'), ms(10000), 'openbox running');
  await xterm(t, xvnc, 'Present Window', '50x8+40+40');
  const srv = await startServer(t);

  // Missing: not_found within about timeout_ms, naming the title and what OCR saw on title bars.
  const t0 = Date.now();
  let r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Nowhere Seen QQ' }, timeout_ms: 1500 });
  const took = Date.now() - t0;
  assert.equal(errorOf(r).code, 'not_found');
  assert.match(errorOf(r).message, /no window titled "Nowhere Seen QQ" on the server's 800x600 screen within 1500 ms \(title bars OCR read: "[^"]*Present Window/);
  assert.ok(took < ms(15000), `not_found after ${took} ms`);
  assert.equal((await srv.ok('session_list', {})).sc.sessions.length, 0, 'no session is left');

  // Late: the window appears a second after the connect began.
  const late = srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Late Arrival' }, timeout_ms: ms(30000) });
  await new Promise((res) => setTimeout(res, 1000));
  const lateWin = await xterm(t, xvnc, 'Late Arrival', '40x6+300+250');
  r = await late;
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  near(r.structuredContent.viewport, lateWin, 'the late window');

  // Bad shapes.
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Late Arrival', x: 1 } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /argument "viewport": give \{x, y, width, height\} or \{window: "<title>"\}, not both/);
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { x: 1, y: 1 } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /argument "viewport": give all of x, y, width and height/);
  r = await srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: '' } });
  assert.equal(errorOf(r).code, 'invalid_argument');
  assert.match(errorOf(r).message, /window/);
  await srv.ok('screenshot', { session: (await srv.ok('session_list', {})).sc.sessions[0].id });
  await srv.close();
});

test('viewport {window}: session_stop or the server going away during the search ends the connect at once, not at its timeout', vncOpts(), async (t) => {
  const xvnc = await startXvnc(t, { width: 640, height: 480 });
  xrun(xvnc, 'xsetroot', ['-solid', '#305070']);
  const srv = await startServer(t);
  let t0 = Date.now();
  const stopped = srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Never Drawn QQ' }, timeout_ms: 60000 });
  let id;
  await until(async () => (id = (await srv.ok('session_list', {})).sc.sessions[0]?.id), ms(10000), 'the session starting');
  await new Promise((res) => setTimeout(res, 500));
  await srv.ok('session_stop', { session: id });
  let r = await stopped;
  assert.equal(errorOf(r).code, 'session_expired', JSON.stringify(r.structuredContent));
  assert.match(errorOf(r).message, /stopped before it was ready/);
  assert.ok(Date.now() - t0 < ms(30000), `answered after ${Date.now() - t0} ms`);
  await until(async () => (await srv.ok('session_list', {})).sc.sessions.length === 0, ms(10000), 'no session left');

  t0 = Date.now();
  const pending = srv.call('vnc_connect', { host: '127.0.0.1', display: xvnc.display, viewport: { window: 'Never Drawn QQ' }, timeout_ms: 60000 });
  // The search is under way once the handshake is done: the session is listed, not yet live.
  await until(async () => (await srv.ok('session_list', {})).sc.sessions.length === 1, ms(10000), 'the session starting');
  await new Promise((res) => setTimeout(res, 500));
  xvnc.kill();
  r = await pending;
  assert.equal(errorOf(r).code, 'device_unavailable', JSON.stringify(r.structuredContent));
  assert.ok(Date.now() - t0 < ms(30000), `answered after ${Date.now() - t0} ms`);
  await until(async () => (await srv.ok('session_list', {})).sc.sessions.length === 0, ms(10000), 'no session left');
  await srv.close();
});
