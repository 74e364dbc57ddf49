// Waiting for elements and reading pixels on the fake phone
// (tests/e2e/lib/fake-adb): wait_for {ref} across screen changes, and
// find / wait_for text that only the pixels show (a game) by OCR.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { startFakeAdb } from '../lib/fake-adb/index.mjs';
import { needs } from '../lib/server.mjs';
import { ms, startServer, topts, until } from '../lib/terminal.mjs';

const LOGIN = 'com.example.login';
const GAME = 'com.example.game';

async function phone(t, opts = {}) {
  const adb = await startFakeAdb({ devices: [{ serial: 'emulator-5554', width: 360, height: 800, density: 320, ...opts }] });
  t.after(() => adb.close());
  const srv = await startServer(t);
  const s = (await srv.ok('android_connect', { adb_server: `127.0.0.1:${adb.port}` })).sc;
  return { adb, dev: adb.device(), srv, s };
}

function errorOf(r) {
  assert.equal(r.isError, true, JSON.stringify(r).slice(0, 400));
  return r.structuredContent.error;
}

const byId = (sc, id) => sc.elements.find((e) => e.resource_id === `${LOGIN}:id/${id}`);
const byName = (sc, name) => sc.elements.find((e) => e.name === name);

/** Resolves once the device has been asked for n more dumps (or screencaps) than now. */
function looks(dev, kind, n = 2) {
  const before = dev.entries(kind).length;
  return until(async () => dev.entries(kind).length >= before + n, ms(15000), `${n} ${kind} more`);
}

describe('wait_for and find on the fake phone', () => {
  test('wait_for ref: the element of a snapshot known again after the screen changed, until there or gone', needs('android', topts()), async (t) => {
    const { dev, srv } = await phone(t);
    dev.apps.launch(LOGIN);
    let snap = (await srv.ok('snapshot', {})).sc;
    const signIn = byId(snap, 'sign_in');
    let r = (await srv.ok('wait_for', { ref: signIn.ref })).sc;
    assert.deepEqual([r.matched, r.line, r.source], [true, 'Sign in', 'accessibility']);

    // Gone: the button leaves when Sign in leads to the welcome screen.
    const gone = srv.ok('wait_for', { ref: signIn.ref, gone: true, timeout_ms: 20000 });
    await looks(dev, 'uiautomator');
    dev.login.username = 'ada';
    dev.apps.signIn();
    r = (await gone).sc;
    assert.deepEqual([r.matched, r.line, r.reason], [true, null, undefined]);

    // A ref of the welcome screen is that element by its resource id: after
    // Back it is not there; signed in as someone else, its text differs, and
    // it is the same element.
    snap = (await srv.ok('snapshot', {})).sc;
    const welcome = byId(snap, 'welcome');
    assert.equal(welcome.name, 'Welcome, ada');
    await srv.ok('press_button', { button: 'back' });
    r = (await srv.ok('wait_for', { ref: welcome.ref, timeout_ms: 300 })).sc;
    assert.deepEqual([r.matched, r.reason], [false, 'timeout']);
    const back = srv.ok('wait_for', { ref: welcome.ref, timeout_ms: 20000 });
    await looks(dev, 'uiautomator');
    // A snapshot meanwhile renews the refs; the wait keeps its element.
    await srv.ok('snapshot', {});
    dev.login.username = 'bob';
    dev.apps.signIn();
    r = (await back).sc;
    assert.deepEqual([r.matched, r.line], [true, 'Welcome, bob']);

    // Without a resource id the name says which element: the launcher's icons.
    await srv.ok('press_button', { button: 'home' });
    snap = (await srv.ok('snapshot', {})).sc;
    const icon = byName(snap, 'Login');
    assert.equal(icon.resource_id, undefined);
    assert.equal((await srv.ok('wait_for', { ref: icon.ref })).sc.matched, true);
    const left = srv.ok('wait_for', { ref: icon.ref, gone: true, timeout_ms: 20000 });
    await srv.ok('click', { ref: icon.ref });
    assert.equal((await left).sc.matched, true);
    assert.equal(dev.foreground, LOGIN);

    for (const [args, code] of [[{ ref: 'e999' }, 'not_found'], [{ ref: 'e1', text: 'a' }, 'invalid_argument'], [{ ref: 'e1', stable_ms: 100 }, 'invalid_argument']]) {
      const e = errorOf(await srv.call('wait_for', args));
      assert.equal(e.code, code, JSON.stringify(args));
    }
    assert.match(errorOf(await srv.call('wait_for', { ref: 'e999' })).message, /ref: e999 is not an element of the latest snapshot/);
  });

  test('text only in the pixels (a game): find, wait_for and click {text} read it by OCR; the tree first', needs('android', needs('ocr', topts())), async (t) => {
    const { dev, srv } = await phone(t, { game: true });
    dev.apps.launch(GAME);
    assert.ok(!dev.uiXml().includes('PRESS START'), 'the words are not in the tree');
    let f = (await srv.ok('find', { text: 'press start' })).sc;
    assert.equal(f.source, 'ocr');
    assert.equal(f.count, 1, JSON.stringify(f));
    const m = f.matches[0];
    assert.equal(m.text, 'PRESS START');
    assert.ok(m.bounds.width > 50 && m.bounds.y > 100 && m.bounds.y < 700, JSON.stringify(m.bounds));

    // The game starts when tapped where find saw the words.
    const ready = srv.ok('wait_for', { text: 'GET READY', timeout_ms: 60000 });
    await looks(dev, 'screencap', 1);
    await srv.ok('click', { x: m.bounds.x + Math.floor(m.bounds.width / 2), y: m.bounds.y + Math.floor(m.bounds.height / 2) });
    let r = (await ready).sc;
    assert.deepEqual([r.matched, r.source, r.line], [true, 'ocr', 'GET READY']);
    r = (await srv.ok('wait_for', { text: 'PRESS START', gone: true, timeout_ms: 60000 })).sc;
    assert.deepEqual([r.matched, r.source], [true, 'ocr']);
    // Gone waits while the pixels still show it.
    let answered = false;
    const over = srv.ok('wait_for', { text: 'GET READY', gone: true, timeout_ms: 60000 }).finally(() => { answered = true; });
    await looks(dev, 'screencap', 2);
    assert.equal(answered, false, 'not gone while the pixels show it');
    // click {text} taps where OCR read it when no element has it.
    const tapped = (await srv.ok('click', { text: 'get ready' })).sc;
    assert.deepEqual([tapped.target.source, tapped.target.text], ['ocr', 'GET READY']);
    const tap = dev.entries('tap').at(-1);
    assert.deepEqual([tap.x, tap.y], [tapped.x, tapped.y]);
    assert.ok(tap.y > 200 && tap.y < 600, JSON.stringify(tap));
    r = (await over).sc;
    assert.deepEqual([r.matched, r.source], [true, 'ocr']);
    r = (await srv.ok('wait_for', { regex: 'HIGH \\w+', timeout_ms: 60000 })).sc;
    assert.deepEqual([r.matched, r.line], [true, 'HIGH SCORE']);

    // No hierarchy at all (uiautomator on an animating screen): the pixels alone.
    dev.setUiXml('ERROR: could not get idle state.');
    const f2 = (await srv.ok('find', { text: 'game over' })).sc;
    assert.deepEqual([f2.source, f2.count], ['ocr', 1]);
    r = (await srv.ok('wait_for', { text: 'HIGH SCORE', timeout_ms: 60000 })).sc;
    assert.deepEqual([r.matched, r.source], [true, 'ocr']);
    r = (await srv.ok('wait_for', { text: 'HIGH SCORE', gone: true, timeout_ms: 1500 })).sc;
    assert.deepEqual([r.matched, r.reason], [false, 'timeout'], 'still in the pixels');
    dev.setUiXml(null);

    // Nothing anywhere: an empty answer read from the pixels; with a role
    // only the tree is asked (pixels have no roles).
    f = (await srv.ok('find', { text: 'no such words' })).sc;
    assert.deepEqual([f.source, f.count], ['ocr', 0]);
    f = (await srv.ok('find', { text: 'GAME OVER', role: 'push button' })).sc;
    assert.deepEqual([f.source, f.count], ['accessibility', 0]);
    const taps = dev.entries('tap').length;
    let e = errorOf(await srv.call('click', { text: 'no such words' }));
    assert.equal(e.code, 'not_found');
    assert.match(e.message, /no element on the screen has the text "no such words", and OCR did not read it in the pixels/);
    e = errorOf(await srv.call('click', { text: 'GAME OVER', role: 'push button' }));
    assert.equal(e.code, 'not_found');
    assert.doesNotMatch(e.message, /OCR/);
    assert.equal(dev.entries('tap').length, taps, 'nothing tapped');

    // Text the tree has is found there, with a ref, without a screencap.
    dev.apps.launch(LOGIN);
    const caps = dev.entries('screencap').length;
    f = (await srv.ok('find', { text: 'Sign in' })).sc;
    assert.equal(f.source, 'accessibility');
    assert.ok(f.matches[0].ref);
    r = (await srv.ok('wait_for', { text: 'Sign in to Example' })).sc;
    assert.deepEqual([r.matched, r.source], [true, 'accessibility']);
    assert.equal(dev.entries('screencap').length, caps);

    assert.equal(errorOf(await srv.call('wait_for', { text: 'x', lang: 'no such lang' })).code, 'invalid_argument');
  });
});
