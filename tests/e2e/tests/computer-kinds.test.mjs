// The computer tool beyond desktops: every pointer action on a real VNC
// server (Xvnc, the pointer read back through X with xdotool) and in a
// headless Chromium over WebDriver (a page that logs the mouse and key
// events it receives). The same actions, the same answers, on each kind.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, startServer, textOf, topts, until } from '../lib/terminal.mjs';
import { startXvnc } from '../lib/vnc.mjs';

function pointerOf(display) {
  const out = execFileSync('xdotool', ['getmouselocation', '--shell'], { env: { ...process.env, DISPLAY: `:${display}` } }).toString();
  return { x: Number(/X=(\d+)/.exec(out)[1]), y: Number(/Y=(\d+)/.exec(out)[1]) };
}

async function act(srv, session, args) {
  const r = await srv.ok('computer', { session, ...args });
  return { sc: r.sc, text: textOf(r), png: decodePng(imageOf(r).data) };
}

const toScreen = (v, screen, model) => Math.min(screen - 1, Math.floor(((v + 0.5) * screen) / model));

test('computer on a vnc session: every pointer action lands where X says, holds and lets go, and reports the cursor', needs('vnc', topts({ timeout: ms(120000) })), async (t) => {
  const xvnc = await startXvnc(t, { width: 1280, height: 800 });
  const srv = await startServer(t);
  const { sc } = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const at = (x, y) => until(() => {
    const p = pointerOf(xvnc.display);
    return p.x === x && p.y === y;
  }, ms(5000), `the pointer at ${x},${y}`);

  // xev's window under the pointer's path logs what X delivers: buttons,
  // motion with the buttons' state, keys.
  const xev = spawn('xev', ['-geometry', '600x500+0+0', '-event', 'button', '-event', 'mouse', '-event', 'keyboard'], { env: { ...process.env, DISPLAY: `:${xvnc.display}` } });
  t.after(() => xev.kill('SIGKILL'));
  let events = '';
  xev.stdout.on('data', (d) => (events += d));
  await new Promise((r) => setTimeout(r, ms(700)));

  // Before glovebox moved it, over RFB the position is a guess, and says so.
  const before = await act(srv, sc.id, { action: 'cursor_position' });
  assert.match(before.text, /X=\d+,Y=\d+/);

  const steps = [
    [{ action: 'mouse_move', coordinate: [100, 120] }, [100, 120]],
    [{ action: 'left_click', coordinate: [110, 125] }, [110, 125]],
    [{ action: 'right_click', coordinate: [120, 130] }, [120, 130]],
    [{ action: 'double_click', coordinate: [140, 150] }, [140, 150]],
    [{ action: 'left_click', coordinate: [150, 155], text: 'shift' }, [150, 155]],
    [{ action: 'left_click_drag', start_coordinate: [200, 200], coordinate: [260, 230] }, [260, 230]],
    [{ action: 'left_mouse_down', coordinate: [300, 300] }, [300, 300]],
    [{ action: 'mouse_move', coordinate: [320, 310] }, [320, 310]],
    [{ action: 'left_mouse_up' }, [320, 310]],
    [{ action: 'scroll', coordinate: [400, 400], scroll_direction: 'down', scroll_amount: 2 }, [400, 400]],
    [{ action: 'hold_key', text: 'shift', duration: 0.1 }],
    [{ action: 'key', text: 'ctrl+a' }],
    [{ action: 'type', text: 'hi' }],
    [{ type: 'move', x: 70, y: 80 }, [70, 80]],
  ];
  for (const [args, where] of steps) {
    const r = await act(srv, sc.id, args);
    const name = args.action ?? args.type;
    assert.equal(r.png.width, 1280, name);
    assert.equal(r.sc.scale, 1, name);
    if (where) {
      await at(...where);
      assert.deepEqual(r.sc.cursor, { x: where[0], y: where[1] }, `${name}: the cursor in the result`);
    }
  }
  const pos = await act(srv, sc.id, { action: 'cursor_position' });
  assert.deepEqual(pos.sc.position, pointerOf(xvnc.display));
  // left_mouse_down held button 1 through the next call's move (state
  // 0x100 is Button1Mask), and left_mouse_up let it go there.
  await until(() => /ButtonRelease[^]*?\(320,310\)[^]*?button 1/.test(events), ms(5000), 'xev to see the release');
  assert.match(events, /ButtonPress[^]*?\(300,300\)[^]*?button 1/);
  assert.match(events, /MotionNotify[^]*?\(320,310\)[^]*?state 0x100/);
  assert.match(events, /ButtonPress[^]*?\(120,130\)[^]*?button 3/);
  assert.match(events, /KeyPress[^]*?Shift_L/);
  assert.match(events, /KeyRelease[^]*?Shift_L/);
});

test('computer on a vnc session maps the model space back to a 1920x1200 screen', needs('vnc', topts({ timeout: ms(90000) })), async (t) => {
  const xvnc = await startXvnc(t, { width: 1920, height: 1200 });
  const srv = await startServer(t);
  const { sc } = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const shot = await act(srv, sc.id, { action: 'screenshot' });
  const { width: mw, height: mh } = shot.sc.display;
  assert.ok(mw <= 1568 && mw < 1920, `model width ${mw}`);
  assert.equal(shot.png.width, mw);
  for (const [x, y] of [[0, 0], [mw - 1, mh - 1], [Math.floor(mw / 2), Math.floor(mh / 3)]]) {
    await act(srv, sc.id, { action: 'mouse_move', coordinate: [x, y] });
    const want = { x: toScreen(x, 1920, mw), y: toScreen(y, 1200, mh) };
    await until(() => {
      const p = pointerOf(xvnc.display);
      return p.x === want.x && p.y === want.y;
    }, ms(5000), `model ${x},${y} at screen ${want.x},${want.y}`);
  }
  const off = await srv.call('computer', { session: sc.id, action: 'mouse_move', coordinate: [mw, 10] });
  assert.equal(off.isError, true);
  assert.equal(off.structuredContent.error.code, 'invalid_argument');
});

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));
const browserOpts = () =>
  needs('webdriver', topts({ timeout: ms(120000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed' }) }));

// Every mouse and key event the page receives, in order, as text.
const EVENTS_PAGE = `<!doctype html><html><head><title>Events</title><style>
body { margin: 0; height: 3000px; } #log { position: fixed; left: 700px; top: 10px; font: 14px monospace; white-space: pre; }
</style></head><body><div id="log"></div><script>
const log = [];
const show = () => { document.getElementById('log').textContent = log.slice(-30).join('\\n'); };
for (const type of ['mousedown', 'mouseup', 'click', 'dblclick'])
  window.addEventListener(type, (e) => { log.push(type + ' ' + e.button + ' ' + e.clientX + ',' + e.clientY + (e.shiftKey ? ' shift' : '')); show(); });
// Moves only while a button is held: a drag's path, not every hover.
window.addEventListener('mousemove', (e) => { if (e.buttons) { log.push('move buttons=' + e.buttons + ' ' + e.clientX + ',' + e.clientY); show(); } });
window.addEventListener('keydown', (e) => { log.push('keydown ' + e.key); show(); });
window.addEventListener('keyup', (e) => { log.push('keyup ' + e.key); show(); });
</script></body></html>`;

test('computer in a browser: mouse down, move with the button held, up; hold_key around a click; drag; cursor_position', browserOpts(), async (t) => {
  const site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(EVENTS_PAGE);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  t.after(() => site.close());
  const srv = await startServer(t);
  const c = await srv.ok('webdriver_connect', { width: 1280, height: 800 });
  await srv.ok('open_url', { url: `http://127.0.0.1:${site.address().port}/` });
  const session = c.sc.id;
  const text = async () => (await srv.ok('read_text', {})).sc.text;

  const fresh = await act(srv, session, { action: 'cursor_position' });
  assert.match(fresh.text, /X=0,Y=0/);

  await act(srv, session, { action: 'left_mouse_down', coordinate: [100, 100] });
  await act(srv, session, { action: 'mouse_move', coordinate: [150, 120] });
  // The button stays held between the two calls: the move carries it.
  await until(async () => /move buttons=1 150,120/.test(await text()), ms(5000), 'a move with the left button held');
  const up = await act(srv, session, { action: 'left_mouse_up' });
  assert.deepEqual(up.sc.cursor, { x: 150, y: 120 });
  let log = await text();
  assert.match(log, /mousedown 0 100,100/);
  assert.match(log, /mouseup 0 150,120/);

  // Shift held (hold_key's keys go down, then up after the duration).
  await act(srv, session, { action: 'hold_key', text: 'shift', duration: 0.1 });
  log = await text();
  assert.match(log, /keydown Shift/);
  assert.match(log, /keyup Shift/);
  // Modifiers named in text are held during the click.
  await act(srv, session, { action: 'left_click', coordinate: [200, 210], text: 'shift' });
  assert.match(await text(), /click 0 200,210 shift/);

  await act(srv, session, { action: 'left_click_drag', start_coordinate: [300, 300], coordinate: [360, 330] });
  log = await text();
  assert.match(log, /mousedown 0 300,300/);
  assert.match(log, /mouseup 0 360,330/);

  await act(srv, session, { action: 'right_click', coordinate: [50, 60] });
  assert.match(await text(), /mousedown 2 50,60/);

  const pos = await act(srv, session, { action: 'cursor_position' });
  assert.deepEqual(pos.sc.position, { x: 50, y: 60 });
  assert.equal(pos.sc.scale, 1);

  // A point outside the viewport is the model's error, not a clamp.
  const off = await srv.call('computer', { session, action: 'mouse_move', coordinate: [5000, 10] });
  assert.equal(off.isError, true);
  assert.equal(off.structuredContent.error.code, 'invalid_argument');
  await srv.close();
});
