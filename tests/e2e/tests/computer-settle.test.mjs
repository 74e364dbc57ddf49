// The computer tool's wait for the screen after an action: the screenshot
// comes with the first frame that follows the action (X DAMAGE on desktops,
// output on terminals), bounded by settle_ms, and the result says how long
// it waited and whether anything changed. The effects here come late on
// purpose (a program that answers a key 80 ms later, without echo), so a
// screenshot taken too early shows nothing of them.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { test } from 'node:test';

import { startDesktop } from '../lib/desktop.mjs';
import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, startServer, topts, until } from '../lib/terminal.mjs';
import { startXvnc } from '../lib/vnc.mjs';

async function act(srv, session, args) {
  const r = await srv.ok('computer', { session, ...args });
  return { sc: r.sc, png: decodePng(imageOf(r).data), data: imageOf(r).data };
}

const XTERM = ['xterm', '-geometry', '60x10+0+0', '-bg', 'white', '-fg', 'black', '-fa', 'DejaVu Sans Mono', '-fs', '14', '-e', 'bash', '--norc', '--noprofile'];

/** Pixels in x0..x1, y0..y1 that differ between two screenshots. */
function differing(a, b, [x0, y0, x1, y1]) {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * a.width + x) * 4;
      if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) n++;
    }
  }
  return n;
}

/** Makes the shell read one line without echo, then print after 80 ms. */
const LATE = "stty -echo; read -r x; sleep 0.08; printf 'settled-%s\\n' ok";

test('on a desktop a key whose effect comes 80 ms later answers with a screenshot showing it, and says it changed', needs('desktop', topts({ timeout: ms(120000) })), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 1280, height: 800 });
  await srv.ok('launch_app', { session, command: XTERM });
  await until(async () => (await srv.ok('window_list', { session })).sc.windows.some((w) => /xterm/i.test(`${w.app} ${w.title}`)), ms(15000), 'the xterm window');
  const area = [0, 0, 500, 200];
  // Typing into xterm: its echo is the change, seen and waited for.
  await until(async () => {
    const a = await act(srv, session, { action: 'screenshot' });
    const typed = await act(srv, session, { action: 'type', text: 'x', settle_ms: 3000 });
    return typed.sc.changed === true && differing(a.png, typed.png, area) > 0 ? typed : null;
  }, ms(15000), 'xterm to echo what is typed');
  await act(srv, session, { action: 'key', text: 'BackSpace', settle_ms: 3000 });
  await act(srv, session, { action: 'type', text: LATE, settle_ms: 3000 });
  const reading = await act(srv, session, { action: 'key', text: 'Return', settle_ms: 3000 });
  assert.equal(reading.sc.changed, true, 'Return ran the command line');
  const quiet = await act(srv, session, { action: 'type', text: 'abc', settle_ms: 120 });
  assert.equal(quiet.sc.changed, false, 'no echo: typing changed nothing, and the wait took all of settle_ms');
  assert.ok(quiet.sc.settled_ms >= 118, `${quiet.sc.settled_ms} ms`);
  // Nothing is drawn when read takes the line (no echo); the output comes later.
  const before = await act(srv, session, { action: 'screenshot' });
  const after = await act(srv, session, { action: 'key', text: 'Return', settle_ms: 3000 });
  assert.equal(after.sc.changed, true, JSON.stringify(after.sc));
  assert.ok(after.sc.settled_ms < 3000, `the wait ended at the change, not at settle_ms: ${after.sc.settled_ms} ms`);
  assert.ok(differing(before.png, after.png, area) > 50, 'the screenshot shows the late output');
  const text = (await srv.ok('read_text', { session, region: { x: 0, y: 0, width: 500, height: 200 }, ocr: true })).sc.text;
  assert.match(text, /settled-ok/, `OCR finds the output the screenshot showed: ${text}`);
});

test('on a desktop settle_ms bounds the wait: 0 waits not at all, a click that changes nothing waits all of it, a move that changes nothing none', needs('desktop', topts({ timeout: ms(90000) })), async (t) => {
  const srv = await startServer(t);
  const session = await startDesktop(srv, { width: 640, height: 480 });
  const none = await act(srv, session, { action: 'left_click', coordinate: [300, 300], settle_ms: 0 });
  assert.equal(none.sc.settled_ms, 0);
  assert.equal(none.sc.changed, null, 'no wait, so nothing was watched');
  // The empty root window: nothing reacts to a click or a move.
  const click = await act(srv, session, { action: 'left_click', coordinate: [310, 300], settle_ms: 200 });
  assert.equal(click.sc.changed, false, JSON.stringify(click.sc));
  assert.ok(click.sc.settled_ms >= 198, `a click that changed nothing waited settle_ms: ${click.sc.settled_ms} ms`);
  const move = await act(srv, session, { action: 'mouse_move', coordinate: [100, 100] });
  assert.equal(move.sc.changed, false, JSON.stringify(move.sc));
  assert.equal(move.sc.settled_ms, 0, 'pointer motion that changed nothing does not wait');
  // Asked to, a move waits for a change up to settle_ms.
  const asked = await act(srv, session, { action: 'mouse_move', coordinate: [120, 100], settle_ms: 150 });
  assert.equal(asked.sc.changed, false);
  assert.ok(asked.sc.settled_ms >= 148, `${asked.sc.settled_ms} ms`);
  // Actions that answer with the screen as it is do not settle.
  const shot = await act(srv, session, { action: 'screenshot' });
  assert.equal(shot.sc.settled_ms, 0);
  assert.equal(shot.sc.changed, null);
});

test('on a terminal the wait ends at the first output after the action', needs('terminal', topts({ timeout: ms(60000) })), async (t) => {
  const srv = await startServer(t);
  const s = await srv.bash();
  await act(srv, s.id, { action: 'type', text: LATE });
  await act(srv, s.id, { action: 'key', text: 'Return', settle_ms: 3000 });
  const quiet = await act(srv, s.id, { action: 'type', text: 'abc', settle_ms: 120 });
  assert.equal(quiet.sc.changed, false, 'no echo: typing changed nothing, and the wait took all of settle_ms');
  assert.ok(quiet.sc.settled_ms >= 118, `${quiet.sc.settled_ms} ms`);
  const before = await act(srv, s.id, { action: 'screenshot' });
  const after = await act(srv, s.id, { action: 'key', text: 'Return', settle_ms: 3000 });
  assert.equal(after.sc.changed, true);
  assert.ok(after.sc.settled_ms < 3000, `${after.sc.settled_ms} ms`);
  assert.ok(differing(before.png, after.png, [0, 0, before.png.width, before.png.height]) > 20, 'the screenshot shows the late output');
});

test('a still screen answers the same screenshot again; a change made outside glovebox shows in the next one', needs('desktop', topts({ timeout: ms(90000) })), async (t) => {
  const srv = await startServer(t);
  const { sc: desk } = await srv.ok('desktop_start', { width: 800, height: 600 });
  const session = desk.id;
  await srv.ok('launch_app', { session, command: XTERM });
  await until(async () => (await srv.ok('window_list', { session })).sc.windows.some((w) => /xterm/i.test(`${w.app} ${w.title}`)), ms(15000), 'the xterm window');
  const area = [0, 0, 500, 200];
  // Once the prompt is drawn and the screen still, two looks are the same bytes.
  const still = await until(async () => {
    const a = await act(srv, session, { action: 'screenshot' });
    const b = await act(srv, session, { action: 'mouse_move', coordinate: [700, 500] });
    return a.data === b.data && differing(a.png, decodePng((await srv.ok('screenshot', { session })).content[0].data), area) === 0 ? b : null;
  }, ms(15000), 'a still screen');
  // Keys sent by another X client, not by glovebox: the echo must show.
  execFileSync('xdotool', ['type', '--window', execFileSync('xdotool', ['search', '--class', 'xterm'], { env: { ...process.env, DISPLAY: desk.display } }).toString().trim().split('\n')[0], 'zzzz'], { env: { ...process.env, DISPLAY: desk.display } });
  await until(async () => {
    const next = await act(srv, session, { action: 'screenshot' });
    return differing(still.png, next.png, area) > 20 ? next : null;
  }, ms(10000), 'the outside change in a computer screenshot');
});

test('on a vnc session the wait ends at the first framebuffer update after the action, which shows the late effect', needs('vnc', topts({ timeout: ms(120000) })), async (t) => {
  const xvnc = await startXvnc(t, { width: 800, height: 600 });
  const env = { ...process.env, DISPLAY: `:${xvnc.display}` };
  const xterm = spawn(XTERM[0], XTERM.slice(1), { env, stdio: 'ignore' });
  t.after(() => xterm.kill('SIGKILL'));
  const srv = await startServer(t);
  const { sc } = await srv.ok('vnc_connect', { host: '127.0.0.1', display: xvnc.display });
  const area = [0, 0, 500, 200];
  // xterm takes keys where the pointer is (no window manager here).
  await until(async () => {
    await act(srv, sc.id, { action: 'mouse_move', coordinate: [100, 50] });
    const a = await act(srv, sc.id, { action: 'screenshot' });
    const typed = await act(srv, sc.id, { action: 'type', text: 'x', settle_ms: 3000 });
    await act(srv, sc.id, { action: 'key', text: 'BackSpace', settle_ms: 3000 });
    return typed.sc.changed === true && differing(a.png, typed.png, area) > 0;
  }, ms(20000), 'xterm to echo what is typed');
  await act(srv, sc.id, { action: 'type', text: LATE, settle_ms: 3000 });
  await act(srv, sc.id, { action: 'key', text: 'Return', settle_ms: 3000 });
  const quiet = await act(srv, sc.id, { action: 'type', text: 'abc', settle_ms: 150 });
  assert.equal(quiet.sc.changed, false, 'no echo: no update came');
  const before = await act(srv, sc.id, { action: 'screenshot' });
  const after = await act(srv, sc.id, { action: 'key', text: 'Return', settle_ms: 3000 });
  assert.equal(after.sc.changed, true, JSON.stringify(after.sc));
  assert.ok(after.sc.settled_ms < 3000, `${after.sc.settled_ms} ms`);
  assert.ok(differing(before.png, after.png, area) > 50, 'the screenshot shows the late output');
});
