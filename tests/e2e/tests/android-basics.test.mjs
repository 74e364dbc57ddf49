// Android sessions through glovebox's own adb client, against the fake adb
// server (tests/e2e/lib/fake-adb): the device list and its states, choosing
// a device, screenshots, element refs from uiautomator, logging in through
// the fake app, text typed literally whatever the device's sh would make of
// it, a device that drops mid-call, and no adb server at all.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, test } from 'node:test';

import { startFakeAdb } from '../lib/fake-adb/index.mjs';
import { ms, needs } from '../lib/server.mjs';
import { decodePng, imageOf, startServer, topts, until } from '../lib/terminal.mjs';

const W = 360;
const H = 800;

/** A fake adb server with devices, closed after the test. */
async function fake(t, devices = [{ serial: 'emulator-5554', width: W, height: H, density: 320 }]) {
  const adb = await startFakeAdb({ devices });
  t.after(() => adb.close());
  return adb;
}

/** A loopback port nothing listens on. */
async function closedPort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** The structured error of a failed call. */
function errorOf(r) {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 400));
  return r.structuredContent.error;
}

/** A session whose device went away, once it has ended: it is stopping
 * when the failed call answers (its screen stream and kept shell close
 * after), and ends once they have. */
async function endedSession(srv, id) {
  return until(async () => {
    const x = (await srv.ok('session_list', { include_ended: true })).sc.sessions.find((e) => e.id === id);
    assert.ok(x && ['stopping', 'ended'].includes(x.state), JSON.stringify(x));
    return x.state === 'ended' && x;
  }, ms(10000), `session ${id} to end`);
}

/** The element of a snapshot whose resource id ends with id. */
function byId(sc, id) {
  const e = sc.elements.find((x) => x.resource_id?.endsWith(`:id/${id}`));
  assert.ok(e, `element ${id} in ${sc.outline}`);
  return e;
}

describe('android sessions on the fake adb server', () => {
  test('device_list shows every device with its state, and explains offline and unauthorized', needs('android', topts()), async (t) => {
    const adb = await fake(t, [
      { serial: 'emulator-5554' },
      { serial: 'R58M123', state: 'offline' },
      { serial: 'HT7A1B', state: 'unauthorized' },
    ]);
    const srv = await startServer(t);
    const { sc } = await srv.ok('device_list', { adb_server: `127.0.0.1:${adb.port}` });
    assert.equal(sc.adb_server, `127.0.0.1:${adb.port}`);
    assert.equal(sc.count, 3);
    const by = Object.fromEntries(sc.devices.map((d) => [d.serial, d]));
    assert.equal(by['emulator-5554'].state, 'device');
    assert.equal(by['emulator-5554'].model, 'Pixel_7');
    assert.equal(by['emulator-5554'].product, 'panther');
    assert.equal(by['emulator-5554'].explanation, undefined);
    assert.equal(by.R58M123.state, 'offline');
    assert.match(by.R58M123.explanation, /does not answer adb.*replug/);
    assert.equal(by.HT7A1B.state, 'unauthorized');
    assert.match(by.HT7A1B.explanation, /Allow USB debugging/);
    // The module was loaded by this first call, and nothing heavy with it.
    const maps = readFileSync(`/proc/${srv.pid}/maps`, 'utf8');
    assert.match(maps, /\/glovebox-android\.so/);
    assert.doesNotMatch(maps, /\/lib(X11|xcb|gio-2\.0|glib-2\.0|tesseract|curl)[^/]*\.so/);
    // The environment works too, as for the adb program.
    const env = await startServer(t, { env: { ADB_SERVER_SOCKET: `tcp:127.0.0.1:${adb.port}` } });
    assert.equal((await env.ok('device_list', {})).sc.count, 3);
  });

  test('android_connect picks the only device, refuses to guess among several, and names unusable ones', needs('android', topts()), async (t) => {
    const one = await fake(t);
    const srv = await startServer(t, { env: { ANDROID_ADB_SERVER_PORT: String(one.port) } });
    const { sc } = await srv.ok('android_connect', {});
    assert.equal(sc.kind, 'android');
    assert.equal(sc.serial, 'emulator-5554');
    assert.equal(sc.model, 'Pixel 7');
    assert.deepEqual([sc.width, sc.height, sc.density, sc.version], [W, H, 320, '13']);
    assert.match(sc.id, /^android-/);

    const many = await fake(t, [{ serial: 'emulator-5554' }, { serial: 'emulator-5556' }, { serial: 'HT7A1B', state: 'unauthorized' }]);
    const server = `127.0.0.1:${many.port}`;
    let r = await srv.call('android_connect', { adb_server: server });
    assert.equal(errorOf(r).code, 'invalid_argument');
    assert.match(errorOf(r).message, /3 devices are connected, say which: emulator-5554 \(device\), emulator-5556 \(device\), HT7A1B \(unauthorized\)/);
    r = await srv.call('android_connect', { adb_server: server, serial: 'HT7A1B' });
    assert.equal(errorOf(r).code, 'device_unavailable');
    assert.match(errorOf(r).message, /HT7A1B is unauthorized: .*Allow USB debugging/);
    r = await srv.call('android_connect', { adb_server: server, serial: 'nope' });
    assert.equal(errorOf(r).code, 'not_found');
    const second = (await srv.ok('android_connect', { adb_server: server, serial: 'emulator-5556', name: 'phone2' })).sc;
    assert.equal(second.serial, 'emulator-5556');
    assert.equal(second.name, 'phone2');
    r = await srv.call('android_connect', { adb_server: '192.0.2.1:5037' });
    assert.equal(errorOf(r).code, 'invalid_argument');
    assert.match(errorOf(r).message, /adb_server: "192\.0\.2\.1" is not a loopback address/);
  });

  test('no adb server: a clear error saying how to start one, and the server keeps serving', needs('android', topts()), async (t) => {
    const port = await closedPort();
    const srv = await startServer(t);
    for (const tool of ['device_list', 'android_connect']) {
      const r = await srv.call(tool, { adb_server: `127.0.0.1:${port}` });
      assert.equal(errorOf(r).code, 'device_unavailable');
      assert.match(errorOf(r).message, new RegExp(`no adb server at 127\\.0\\.0\\.1:${port} .*adb start-server.*glovebox does not start it`));
    }
    const adb = await fake(t);
    assert.equal((await srv.ok('device_list', { adb_server: `127.0.0.1:${adb.port}` })).sc.count, 1);
  });

  test('screenshot: the screen as a PNG of the device size, scaled and cropped on request', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    let r = await srv.ok('screenshot', {});
    assert.deepEqual([r.sc.width, r.sc.height], [W, H]);
    const png = decodePng(imageOf(r).data);
    assert.deepEqual([png.width, png.height], [W, H]);
    assert.ok(adb.device().entries('service').some((e) => e.service === 'exec:screencap'), 'raw screencap through exec:');
    r = await srv.ok('screenshot', { max_width: 180, region: { x: 0, y: 0, width: 360, height: 400 } });
    assert.deepEqual([r.sc.width, r.sc.height, r.sc.scale], [180, 200, 0.5]);
    // Android 8 and older write a 12-byte header.
    const old = await fake(t, [{ serial: 'old', width: 200, height: 300, rawHeader: 12 }]);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${old.port}` })).sc;
    r = await srv.ok('screenshot', { session: s.id, format: 'jpeg' });
    assert.deepEqual([r.sc.width, r.sc.height, r.sc.format], [200, 300, 'jpeg']);
  });

  test('log in through the fake app: snapshot refs with states, click by ref and text, type_text, read_text', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    await srv.ok('click', { text: 'Login', role: 'label' });
    let snap = (await srv.ok('snapshot', {})).sc;
    assert.equal(snap.kind, 'android');
    const user = byId(snap, 'username');
    const pass = byId(snap, 'password');
    const signIn = byId(snap, 'sign_in');
    assert.equal(user.role, 'text');
    assert.equal(user.name, 'Username');
    assert.ok(pass.states.includes('password'), JSON.stringify(pass));
    assert.ok(!user.states.includes('password'));
    assert.ok(pass.states.includes('enabled'));
    assert.equal(signIn.role, 'push button');
    assert.equal(signIn.name, 'Sign in');
    assert.deepEqual(Object.keys(signIn.bounds).sort(), ['height', 'width', 'x', 'y']);

    await srv.ok('click', { ref: user.ref });
    snap = (await srv.ok('snapshot', {})).sc;
    assert.ok(byId(snap, 'username').states.includes('focused'), 'the tapped field has the focus');
    await srv.ok('type_text', { text: 'ada lovelace' });
    await srv.ok('type_text', { ref: byId(snap, 'password').ref, text: 's3cret pass', secret: true });
    assert.deepEqual([dev.login.username, dev.login.password], ['ada lovelace', 's3cret pass']);
    const found = (await srv.ok('find', { text: 'sign in', role: 'push button' })).sc;
    assert.equal(found.count, 1);
    await srv.ok('click', { ref: found.matches[0].ref });
    const text = (await srv.ok('read_text', {})).sc;
    assert.ok(text.lines.includes('Welcome, ada lovelace'), text.text);
    assert.equal(text.source, 'accessibility');
  });

  test('text with shell metacharacters is typed literally; nothing runs on the device', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    dev.apps.launch('com.example.login');
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    const snap = (await srv.ok('snapshot', {})).sc;
    await srv.ok('click', { ref: byId(snap, 'username').ref });
    const nasty = `a $(reboot) \`id\` 'q' "dq" ; rm -rf / && x | y > z %s 100% $HOME \\n\ttab\nline2`;
    await srv.ok('type_text', { text: nasty });
    // What `input text` received, after Android's own %s rewrite, is the text.
    assert.equal(dev.entries('text').map((e) => e.text).join(''), nasty);
    // The app takes the newline as Enter: the rest goes to the password field.
    assert.equal(dev.login.username, nasty.slice(0, nasty.indexOf('\n')));
    assert.equal(dev.login.password, 'line2');
    const shells = dev.entries('shell');
    assert.ok(shells.length > 0);
    // The one expansion: the status glovebox's input shell echoes after each command.
    const ours = (e) => (e.line.endsWith('; echo "@@glovebox-done:$?@@"') ? ['$?'] : []);
    for (const e of shells) assert.deepEqual(e.expansions ?? [], ours(e), `the device's sh expanded something in ${e.line}`);
    assert.ok(!dev.log.some((e) => e.kind === 'shell' && e.argv?.some((a) => a[0] === 'reboot' || a[0] === 'id' || a[0] === 'rm')),
      'no command of the text ran');
    // Only printable ASCII, tab and newline can be typed through `input text`.
    const r = await srv.call('type_text', { text: 'café' });
    assert.equal(errorOf(r).code, 'not_supported');
    assert.match(errorOf(r).message, /character 4 \(U\+00E9\).*ADBKeyBoard/);
  });

  test('input goes through one shell kept open on the device; a failing command, a device that leaves mid-tap', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    const shells = () => dev.entries('service').filter((e) => e.service === 'shell,v2,raw:').length;
    const calls = [];
    for (let i = 0; i < 5; i++) calls.push(srv.ok('click', { x: 10 + i, y: 20 }));
    await Promise.all(calls); // sent together: answered in order by one shell
    await srv.ok('press_key', { key: 'Tab' });
    await srv.ok('press_button', { button: 'home' });
    await srv.ok('scroll', { direction: 'down' });
    assert.deepEqual(dev.entries('tap').map((e) => e.x), [10, 11, 12, 13, 14]);
    assert.equal(dev.entries('key').length, 2);
    assert.equal(shells(), 1, 'one shell for every input');
    assert.ok(!dev.entries('service').some((e) => /raw:input/.test(e.service)), 'no step of its own');

    // A command that fails in the kept shell: its status and words, and the shell goes on.
    dev.failNextCommand({ match: /^input tap/, stderr: 'java.lang.SecurityException: Injecting input events requires INJECT_EVENTS\n', status: 255 });
    let r = await srv.call('click', { x: 5, y: 5 });
    assert.equal(errorOf(r).code, 'tool_failed');
    assert.match(errorOf(r).message, /exited with status 255: java\.lang\.SecurityException: Injecting input events/);
    await srv.ok('click', { x: 6, y: 6 });
    assert.equal(dev.entries('tap').at(-1).x, 6);
    assert.equal(shells(), 1);

    // The device leaves while a tap is in the shell: device_unavailable, the session ends.
    dev.dropNextCall({ match: /^input tap 7 7/ });
    r = await srv.call('click', { x: 7, y: 7 });
    assert.equal(errorOf(r).code, 'device_unavailable');
    assert.match(errorOf(r).message, /emulator-5554 went away/);
    await endedSession(srv, s.id);
    assert.equal(errorOf(await srv.call('click', { session: s.id, x: 1, y: 1 })).code, 'session_expired');
  });

  test('a device that refuses to keep a shell open: one step per input, nothing run twice', needs('android', topts()), async (t) => {
    const adb = await fake(t, [{ serial: 'emulator-5554', width: W, height: H, keptShell: false }]);
    const dev = adb.device();
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    await Promise.all([srv.ok('click', { x: 1, y: 1 }), srv.ok('click', { x: 2, y: 2 })]);
    await srv.ok('click', { x: 3, y: 3 });
    assert.deepEqual(dev.entries('tap').map((e) => e.x).sort(), [1, 2, 3]);
    const services = dev.entries('service').map((e) => e.service);
    assert.equal(services.filter((x) => x === 'shell,v2,raw:').length, 1, 'asked once');
    assert.equal(services.filter((x) => /^shell,v2,raw:input tap/.test(x)).length, 3);
  });

  test('a session stopped or a server shut down with its input shell open ends cleanly', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
    await srv.ok('click', { x: 1, y: 2 });
    await srv.ok('session_stop', { session: s.id });
    // A new session opens its own shell; the server shuts down with it open.
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    const tapping = srv.call('click', { x: 3, y: 4 }).catch((e) => e);
    await srv.ok('click', { x: 5, y: 6 });
    await tapping;
    assert.equal(dev.entries('service').filter((e) => e.service === 'shell,v2,raw:').length, 2);
    await srv.close(); // asserts a clean exit (no sanitizer report)
  });

  test('press_key, double tap, long press and scroll become input commands', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    await srv.ok('press_key', { key: 'Enter', repeat: 2 });
    assert.deepEqual(dev.entries('key').map((e) => e.code), [66, 66]);
    let r = await srv.call('press_key', { key: 'ctrl+c' });
    assert.equal(errorOf(r).code, 'not_supported');
    await srv.ok('click', { x: 10, y: 700, count: 2 });
    assert.equal(dev.entries('tap').length, 2);
    await srv.ok('click', { x: 20, y: 600, hold_ms: 800 });
    assert.equal(dev.entries('longpress').length, 1);
    await srv.ok('scroll', { direction: 'down', amount: 3 });
    const swipe = dev.entries('swipe').at(-1);
    assert.ok(swipe, JSON.stringify(dev.log.slice(-3)));
    r = await srv.call('click', { x: 5000, y: 1 });
    assert.equal(errorOf(r).code, 'invalid_argument');
    r = await srv.call('click', { ref: 'e999' });
    assert.equal(errorOf(r).code, 'not_found');
  });

  test('malformed uiautomator XML is a clear error and the session keeps working', needs('android', topts()), async (t) => {
    const adb = await fake(t);
    const dev = adb.device();
    const srv = await startServer(t);
    await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` });
    for (const xml of ['<?xml version="1.0"?><hierarchy rotation="0"><node text="a', '<hierarchy><node text="&bogus;"/></hierarchy>',
      '<hierarchy><node></hierarchy>', 'ERROR: could not get idle state.']) {
      dev.setUiXml(xml);
      const r = await srv.call('snapshot', {});
      assert.equal(errorOf(r).code, 'tool_failed');
      assert.match(errorOf(r).message, /malformed uiautomator XML at byte \d+|no window hierarchy: "ERROR: could not get idle state/);
    }
    dev.setUiXml(null);
    assert.ok((await srv.ok('snapshot', {})).sc.count > 0);
  });

  test('a device that drops mid-call: device_unavailable, the session ends, the server keeps serving', needs('android', topts()), async (t) => {
    const adb = await fake(t, [{ serial: 'emulator-5554', width: W, height: H }, { serial: 'emulator-5556', width: W, height: H }]);
    const srv = await startServer(t);
    const server = `127.0.0.1:${adb.port}`;
    const s = (await srv.ok('android_connect', { adb_server: server, serial: 'emulator-5554' })).sc;
    adb.device('emulator-5554').dropNextCall({ match: /uiautomator/, after: '<hierarchy>' });
    let r = await srv.call('snapshot', { session: s.id });
    assert.equal(errorOf(r).code, 'device_unavailable');
    assert.match(errorOf(r).message, /emulator-5554 went away/);
    const ended = await endedSession(srv, s.id);
    assert.match(ended.end_reason, /went away/);
    r = await srv.call('click', { session: s.id, x: 1, y: 1 });
    assert.equal(errorOf(r).code, 'session_expired');
    // A drop during a screenshot too, on another device.
    const s2 = (await srv.ok('android_connect', { adb_server: server, serial: 'emulator-5556' })).sc;
    adb.device('emulator-5556').dropNextCall({ match: /screencap/, after: 'xx', then: 'gone' });
    r = await srv.call('screenshot', { session: s2.id });
    assert.equal(errorOf(r).code, 'device_unavailable');
    assert.equal((await srv.ok('device_list', { adb_server: server })).sc.count, 1);
  });
});
