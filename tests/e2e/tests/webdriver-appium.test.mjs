// Native apps through a real Appium 3 server and its fake driver (npm):
// the page source read as elements with refs, and the pointer as a finger —
// taps, double taps, long presses, swipes — proven by the actions the
// driver was sent. Buttons and app launches the driver lacks say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { haveAppium, SHOP_APP, startAppium } from '../lib/appium.mjs';
import { needs, sleep } from '../lib/server.mjs';
import { decodePng, imageOf, ms, startServer, topts } from '../lib/terminal.mjs';

const appiumOpts = () => needs('webdriver', topts({ timeout: ms(120000), ...(haveAppium ? {} : { skip: 'npm ci in tests/e2e installs appium and @appium/fake-driver' }) }));

const CAPS = { platformName: 'Fake', 'appium:automationName': 'Fake', 'appium:deviceName': 'Fake', 'appium:app': SHOP_APP };

/** The pointer actions of the last performActions call. */
const lastPointer = async (appium, remote) => {
  const all = await appium.actions(remote);
  return all[all.length - 1].find((s) => s.type === 'pointer');
};

test('an app through Appium: elements from the page source, taps and swipes as touch actions', appiumOpts(), async (t) => {
  const appium = await startAppium(t);
  const srv = await startServer(t);
  const c = await srv.ok('webdriver_connect', { url: appium.url, capabilities: CAPS });
  const remote = c.sc.remote_session;
  const described = (await srv.ok('session_list', {})).sc.sessions.find((s) => s.id === c.sc.id);
  assert.equal(described.native_app, true);

  const snap = await srv.ok('snapshot', {});
  const els = snap.sc.elements;
  const by = (role, name) => els.find((e) => e.role === role && e.name === name);
  assert.ok(by('label', 'Welcome to the shop & café'), 'entities decoded');
  const search = by('text', 'Search');
  assert.ok(search.states.includes('editable'));
  assert.equal(search.resource_id, 'com.example.shop:id/search');
  const pin = by('text', 'PIN');
  assert.ok(pin.states.includes('password'));
  assert.doesNotMatch(JSON.stringify(snap), /hunter2/, 'a password field shows no text');
  const buy = by('push button', 'Buy now');
  assert.deepEqual(buy.bounds, { x: 40, y: 400, width: 500, height: 120 });
  assert.ok(by('check box', 'Gift wrap').states.includes('checked'));
  assert.equal(els.length, 5, 'empty layouts are left out');
  assert.match(snap.content[0].text, /push button "Buy now"/);

  // A tap on a ref: the middle of its bounds, as a finger.
  const tap = await srv.ok('click', { ref: buy.ref });
  assert.equal(tap.sc.button, 'touch');
  let p = await lastPointer(appium, remote);
  assert.equal(p.parameters.pointerType, 'touch');
  assert.deepEqual(p.actions[0], { type: 'pointerMove', duration: 0, x: 290, y: 460, origin: 'viewport' });
  assert.deepEqual(p.actions.map((a) => a.type), ['pointerMove', 'pointerDown', 'pause', 'pointerUp']);

  // By text; a double tap; a long press.
  await srv.ok('click', { text: 'Gift wrap', count: 2 });
  p = await lastPointer(appium, remote);
  assert.equal(p.actions.filter((a) => a.type === 'pointerDown').length, 2);
  assert.equal(p.actions[0].x, 290);
  assert.equal(p.actions[0].y, 650);
  await srv.ok('click', { x: 500, y: 1000, hold_ms: 800 });
  p = await lastPointer(appium, remote);
  assert.equal(p.actions.find((a) => a.type === 'pause').duration, 800);

  // Scrolling down is a swipe up; drag is a swipe.
  await srv.ok('scroll', { direction: 'down', amount: 2 });
  p = await lastPointer(appium, remote);
  const moves = p.actions.filter((a) => a.type === 'pointerMove');
  assert.equal(moves.length, 4, 'two swipes');
  assert.ok(moves[1].y < moves[0].y, `the finger moves up: ${moves[0].y} -> ${moves[1].y}`);
  await srv.ok('drag', { from: { x: 100, y: 1500 }, to: { x: 900, y: 1500 } });
  p = await lastPointer(appium, remote);
  assert.deepEqual([p.actions[0].x, p.actions[2].x], [100, 900]);

  // Typing into a field by ref taps it first.
  await srv.ok('type_text', { ref: search.ref, text: 'apples' });
  const all = await appium.actions(remote);
  const [tapIt, keys] = all.slice(-2);
  assert.equal(tapIt[0].parameters.pointerType, 'touch');
  assert.equal(keys[0].type, 'key');
  assert.equal(keys[0].actions.filter((a) => a.type === 'keyDown').map((a) => a.value).join(''), 'apples');

  // read_text and find from the same source; the fake's screenshot.
  assert.match((await srv.ok('read_text', {})).sc.text, /Welcome to the shop & café\nSearch/);
  assert.equal((await srv.ok('find', { text: 'buy' })).sc.matches[0].role, 'push button');
  assert.ok(decodePng(imageOf(await srv.ok('screenshot', {})).data).width > 0);

  // What this driver cannot do is not_supported; a stale ref is not_found.
  const back = await srv.call('press_button', { button: 'back' });
  assert.equal(back.structuredContent.error.code, 'not_supported', JSON.stringify(back.structuredContent));
  const launch = await srv.call('launch_app', { app: 'com.example.shop' });
  assert.equal(launch.structuredContent.error.code, 'not_supported', JSON.stringify(launch.structuredContent));
  const stale = await srv.call('click', { ref: 'e99' });
  assert.equal(stale.structuredContent.error.code, 'not_found');
  await srv.close();
});

test('wait_for on an app: the page source looked at until a text, a regex or a ref shows or goes; timeouts and cancelling', appiumOpts(), async (t) => {
  const { readFileSync } = await import('node:fs');
  const { createServer, request } = await import('node:http');
  const appium = await startAppium(t);
  // The fake driver's app never changes: a proxy in front of Appium plays
  // the app moving on by answering the page source with a later screen.
  let later = null;
  const target = new URL(appium.url);
  const proxy = createServer((req, res) => {
    if (later && req.method === 'GET' && /^\/session\/[^/]+\/source$/.test(req.url)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ value: later }));
    }
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  t.after(() => proxy.close());
  const srv = await startServer(t);
  await srv.ok('webdriver_connect', { url: `http://127.0.0.1:${proxy.address().port}`, capabilities: CAPS });

  const els = (await srv.ok('snapshot', {})).sc.elements;
  const buy = els.find((e) => e.name === 'Buy now').ref;
  const gift = els.find((e) => e.name === 'Gift wrap').ref;
  // Already there: at once.
  const shown = await srv.ok('wait_for', { ref: gift, timeout_ms: 5000 });
  assert.equal(shown.sc.matched, true);
  assert.equal(shown.sc.source, 'page source');
  assert.equal((await srv.ok('wait_for', { text: 'shop & caf', timeout_ms: 5000 })).sc.line, 'Welcome to the shop & café');

  // The app moves on while glovebox waits: the button goes, a text comes.
  const goneWait = srv.ok('wait_for', { ref: buy, gone: true, timeout_ms: 15000 });
  const textWait = srv.ok('wait_for', { regex: 'Order [0-9]+ placed', timeout_ms: 15000 });
  await sleep(700);
  later = readFileSync(SHOP_APP, 'utf8')
    .replace('<app ', '<AppiumAUT><app ').replace('</app>', '</app></AppiumAUT>')
    .replace(/<android\.widget\.Button text="Buy now"[^>]*\/>/, '<android.widget.TextView text="Order 42 placed" bounds="[40,400][1040,520]" class="android.widget.TextView"/>');
  const [g, m] = await Promise.all([goneWait, textWait]);
  assert.equal(g.sc.matched, true);
  assert.ok(g.sc.elapsed_ms >= 500, `the wait saw the change: ${g.sc.elapsed_ms} ms`);
  assert.equal(m.sc.matched, true);
  assert.equal(m.sc.line, 'Order 42 placed');
  // The wait took no snapshot: the refs are those of the last one.
  const tap = await srv.ok('click', { ref: gift });
  assert.equal(tap.sc.button, 'touch');

  const late = await srv.ok('wait_for', { text: 'never on this screen', timeout_ms: 700 });
  assert.equal(late.sc.matched, false);
  assert.equal(late.sc.reason, 'timed out');
  assert.ok(late.sc.elapsed_ms >= 700, `elapsed ${late.sc.elapsed_ms}`);

  const ac = new AbortController();
  const long = srv.client.callTool({ name: 'wait_for', arguments: { text: 'not coming', timeout_ms: 60000 } }, undefined, { signal: ac.signal });
  await sleep(400);
  ac.abort();
  await assert.rejects(long, /abort/i);

  const stale = await srv.call('wait_for', { ref: 'e99' });
  assert.equal(stale.structuredContent.error.code, 'not_found');
  const scoped = await srv.call('snapshot', { scope: gift });
  assert.equal(scoped.structuredContent.error.code, 'not_supported');
  assert.match(scoped.structuredContent.error.message, /"scope"/);
  assert.equal((await srv.ok('read_text', {})).sc.text.includes('Order 42 placed'), true, 'the server keeps serving');
  await srv.close();
});
