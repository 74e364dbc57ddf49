// Taps without a Java process on the device: android sessions write touch
// events straight to the touchscreen's /dev/input node through one kept adb
// stream (`cat > /dev/input/event1`), found by `getevent -p` at connect. The
// fake phone's panel has axes of 0..4095 (not the screen's size), decodes
// the events by the device's struct size (24 bytes on x86_64, 16 on a
// 32-bit ABI) and turns each lifted finger into the tap or swipe the app
// sees. A device whose panel cannot take them falls back to `input`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { startFakeAdb } from '../lib/fake-adb/index.mjs';
import { needs } from '../lib/server.mjs';
import { startServer, topts, until } from '../lib/terminal.mjs';

const W = 360;
const H = 800;

async function phone(t, opts = {}, connect = {}) {
  const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: W, height: H, density: 320, touchscreen: true, ...opts }] });
  t.after(() => adb.close());
  const srv = await startServer(t);
  const r = await srv.call('android_connect', { adb_server: `127.0.0.1:${adb.port}`, ...connect });
  return { adb, dev: adb.device(), srv, r, s: r.structuredContent };
}

function errorOf(r) {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 400));
  return r.structuredContent.error;
}

function byId(sc, id) {
  const e = sc.elements.find((x) => x.resource_id?.endsWith(`:id/${id}`));
  assert.ok(e, `element ${id} in ${sc.outline}`);
  return e;
}

/** `input` commands that touched the screen (keys and text are not touches). */
const inputTouches = (dev) => dev.entries('shell').filter((e) => /\binput (tap|swipe|motionevent)/.test(e.line));

describe('touch events written to the touchscreen node', () => {
  for (const abi of ['x86_64', 'armeabi-v7a']) {
    test(`log in through events on a ${abi} phone: click by ref, double tap, long press, drag, scroll, computer touches`, needs('android', topts()), async (t) => {
      const { dev, srv, s } = await phone(t, { abi });
      assert.equal(s.input, 'events', JSON.stringify(s));
      assert.equal(s.touch_node, '/dev/input/event1');
      await srv.ok('click', { text: 'Login', role: 'label' });
      await until(() => dev.foreground === 'com.example.login', 5000, 'the login app');
      let snap = (await srv.ok('snapshot', {})).sc;
      await srv.ok('click', { ref: byId(snap, 'username').ref });
      await until(() => dev.login.focus === 'username', 5000, 'the username field focused by a tap');
      await srv.ok('type_text', { text: 'ada' });
      await srv.ok('click', { ref: byId(snap, 'password').ref, count: 2 });
      await until(() => dev.login.focus === 'password', 5000, 'the password field focused');
      await srv.ok('type_text', { text: 'pw' });
      await srv.ok('click', { ref: byId(snap, 'sign_in').ref });
      const seen = (await srv.ok('wait_for', { text: 'Welcome, ada', timeout_ms: 10000 })).sc;
      assert.equal(seen.matched, true, JSON.stringify(seen));
      snap = (await srv.ok('snapshot', {})).sc;
      assert.ok(snap.elements.some((e) => e.name === 'Welcome, ada'), snap.outline);

      const taps = dev.entries('tap');
      assert.ok(taps.length >= 5, JSON.stringify(taps));
      assert.ok(taps.every((e) => e.via === 'events'));
      assert.equal(taps.filter((e) => e.hit?.endsWith(':id/password')).length, 2, 'the double tap was two taps');

      await srv.ok('click', { x: 20, y: 600, hold_ms: 600 });
      await until(() => dev.entries('longpress').length === 1, 5000, 'a long press');
      assert.ok(dev.entries('longpress')[0].ms >= 500);
      await srv.ok('drag', { from: { x: 50, y: 700 }, to: { x: 300, y: 100 }, duration_ms: 100 });
      await until(() => dev.entries('swipe').length === 1, 5000, 'the drag');
      const drag = dev.entries('swipe')[0];
      assert.deepEqual([drag.x1, drag.y1, drag.x2, drag.y2], [50, 700, 300, 100], 'scaled to 0..4095 and back exactly');
      await srv.ok('scroll', { direction: 'down', amount: 3 });
      await until(() => dev.entries('swipe').length === 2, 5000, 'the scroll');
      const scroll = dev.entries('swipe')[1];
      assert.ok(scroll.y1 > scroll.y2, 'scrolling down moves the finger up');

      const act = (args) => srv.ok('computer', { session: s.id, ...args });
      await act({ action: 'mouse_move', coordinate: [40, 300] });
      await act({ action: 'left_mouse_down' });
      await act({ action: 'mouse_move', coordinate: [200, 320] });
      await act({ action: 'left_mouse_up' });
      await until(() => dev.entries('swipe').length === 3, 5000, 'the computer drag');
      const c = dev.entries('swipe')[2];
      assert.deepEqual([c.x1, c.y1, c.x2, c.y2], [40, 300, 200, 320]);
      assert.deepEqual(inputTouches(dev), [], 'no `input` command touched the screen');
      assert.ok(dev.entries('shell').some((e) => /^getevent -p/.test(e.line)), 'found by getevent -p');
    });
  }

  test('rotation: a ref tapped in landscape hits its element', needs('android', topts()), async (t) => {
    const { dev, srv, s } = await phone(t);
    assert.equal(s.input, 'events');
    await srv.ok('click', { text: 'Login', role: 'label' });
    await until(() => dev.foreground === 'com.example.login', 5000, 'the login app');
    for (const set of ['landscape', 'reverse_portrait', 'reverse_landscape']) {
      await srv.ok('orientation', { set });
      const snap = (await srv.ok('snapshot', {})).sc;
      const field = set === 'reverse_portrait' ? 'password' : 'username';
      dev.login.focus = null;
      await srv.ok('click', { ref: byId(snap, field).ref });
      await until(() => dev.login.focus === field, 5000, `${field} focused in ${set}`);
      assert.ok(dev.entries('tap').at(-1).hit.endsWith(`:id/${field}`));
    }
    assert.deepEqual(inputTouches(dev), []);
  });

  test('a panel the shell user may not write, or none: taps go through `input`, and the answer says why', needs('android', topts()), async (t) => {
    const ro = await phone(t, { touchscreen: 'readonly' });
    assert.equal(ro.s.input, 'commands');
    assert.match(ro.s.input_note, /\/dev\/input\/event1 is not writable by the shell user/);
    await ro.srv.ok('click', { x: 10, y: 20 });
    assert.equal(ro.dev.entries('tap').at(-1).via, undefined, 'by `input tap`');
    assert.equal(inputTouches(ro.dev).length, 1);

    const none = await phone(t, { touchscreen: false });
    assert.equal(none.s.input, 'commands');
    assert.match(none.s.input_note, /no touchscreen/);
    await none.srv.ok('click', { x: 5, y: 6 });
    assert.equal(inputTouches(none.dev).length, 1);

    // Asked for commands: no probe at all.
    const cmd = await phone(t, {}, { input: 'commands' });
    assert.equal(cmd.s.input, 'commands');
    assert.equal(cmd.s.input_note, undefined);
    assert.ok(!cmd.dev.entries('shell').some((e) => /getevent/.test(e.line)));
    await cmd.srv.ok('click', { x: 7, y: 8 });
    assert.equal(inputTouches(cmd.dev).length, 1);
  });

  test('input "events" on a device that cannot take them: a clear error, and the server keeps serving', needs('android', topts()), async (t) => {
    const { r, srv, adb } = await phone(t, { touchscreen: 'readonly' }, { input: 'events' });
    const e = errorOf(r);
    assert.equal(e.code, 'not_supported');
    assert.match(e.message, /input: "events" cannot be used on emulator-5554: \/dev\/input\/event1 is not writable/);
    const bad = await srv.call('android_connect', { adb_server: `127.0.0.1:${adb.port}`, input: 'fast' });
    assert.equal(errorOf(bad).code, 'invalid_argument');
    const ok = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    assert.equal(ok.input, 'commands');
    assert.equal((await srv.ok('session_list', {})).sc.sessions.length, 1, 'the refused one left no session');
  });

  test('the stream dies mid-session: later taps go through `input`; a stopped session leaves no writer on the device', needs('android', topts()), async (t) => {
    const { dev, srv, s } = await phone(t);
    await srv.ok('click', { x: 10, y: 10 });
    await until(() => dev.entries('tap').length === 1, 5000, 'the first tap');
    assert.equal(dev.touchStreams(), 1);
    dev.killTouchStreams();
    const listed = await until(async () => {
      const me = (await srv.ok('session_list', {})).sc.sessions.find((x) => x.id === s.id);
      return me.input === 'commands' ? me : null;
    }, 10000, 'the session to fall back to commands');
    assert.match(listed.input_note, /event stream to \/dev\/input\/event1 ended \(exit status 137\).*`input`/);
    await srv.ok('click', { x: 11, y: 12 });
    assert.equal(dev.entries('tap').length, 2);
    assert.equal(inputTouches(dev).length, 1, 'the tap after went by `input`, once');
    assert.equal(listed.state, 'live');

    // A new session writes events again; stopping it ends its writer.
    const s2 = (await srv.ok('android_connect', { adb_server: s.adb_server })).sc;
    assert.equal(s2.input, 'events');
    await srv.ok('click', { session: s2.id, x: 30, y: 40 });
    await srv.ok('computer', { session: s2.id, action: 'left_mouse_down', coordinate: [50, 50] });
    assert.equal(dev.touchStreams(), 1);
    await srv.ok('session_stop', { session: s2.id });
    await until(() => dev.touchStreams() === 0, 5000, 'no writer left');
    // The finger held down by computer was lifted at the stop.
    const last = dev.entries('evdev').filter((e) => e.type === 3 && e.code === 0x39).at(-1);
    assert.equal(last.value, -1);
    await srv.close(); // a clean exit (no sanitizer report)
  });
});
