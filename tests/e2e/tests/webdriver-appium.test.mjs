// Native apps through a real Appium 3 server and its fake driver (npm):
// the page source read as elements with refs, and the pointer as a finger —
// taps, double taps, long presses, swipes — proven by the actions the
// driver was sent. Buttons and app launches the driver lacks say so.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { haveAppium, SHOP_APP, startAppium } from '../lib/appium.mjs';
import { needs } from '../lib/server.mjs';
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
