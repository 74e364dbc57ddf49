// The live viewer's overlays and views in a real browser on real Xvfb
// desktops: overlays anchored to an element ref (its bounds, followed when
// it moves, a stale ref refused), shapes shown one at a time, the crop
// parameters of the address (vx, vy, vw, vh, scale) and bad ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { element, settledSnapshot } from '../lib/desktop.mjs';
import { ms, needs } from '../lib/server.mjs';
import { tempDir } from '../lib/terminal.mjs';
import { browserOpts, launchBrowser, makeLink, startViewerServer, waitInPage } from '../lib/viewer.mjs';

const topts = (extra = {}) => browserOpts({ timeout: ms(120000), ...extra });

/** A page watching desk (a --session link), once the first frame is drawn. */
async function openDesk(t, srv, desk, query = '') {
  const { link } = await makeLink(srv, ['--session', desk, '--role', 'control']);
  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const u = new URL(link);
  await page.goto(`${u.origin}${u.pathname}${query}${u.hash}`);
  await waitInPage(page, () => window.gbView.view?.frames > 0, null, 'the first desktop frame');
  return page;
}

/** {x, y, width, height} of the shape drawn for overlay id, or null. */
function shapeBox(page, id) {
  return page.evaluate((id) => {
    const e = document.querySelector(`#overlay g[data-overlay="${id}"] > :first-child`);
    if (!e) return null;
    const n = (k) => Number(e.getAttribute(k));
    return { x: n('x'), y: n('y'), width: n('width'), height: n('height') };
  }, id);
}

test('viewer: an overlay anchored to a ref has the element\'s bounds and follows it; a stale ref is refused', needs('desktop', topts()), async (t) => {
  const { srv } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 800, height: 600 })).sc.id;
  await srv.ok('launch_app', { session: desk, command: ['zenity', '--question', '--title', 'Anchor', '--text', 'Delete the draft?'] });
  await srv.ok('wait_for', { session: desk, text: 'Delete the draft?', timeout_ms: ms(20000) });
  const snap = await settledSnapshot(srv, desk);
  const yes = element(snap.sc, 'push button', 'Yes');
  const page = await openDesk(t, srv, desk);

  const drawn = await srv.ok('overlay_draw', { session: desk, shapes: [{ kind: 'box', ref: yes.ref }], ttl_ms: 120000 });
  const id = drawn.sc.ids[0];
  await waitInPage(page, (id) => !!document.querySelector(`#overlay g[data-overlay="${id}"]`), id, 'the anchored box');
  assert.deepEqual(await shapeBox(page, id), yes.bounds, 'the box lies over the button');

  // The dialog moves: the box goes with it.
  await srv.ok('window_manage', { session: desk, window: 'Anchor', action: 'move', x: 400, y: 300 });
  let now = null;
  for (let i = 0; i < 100; i++) {
    now = (await srv.ok('inspect', { session: desk, ref: yes.ref })).sc.bounds;
    if (now.x !== yes.bounds.x) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.notEqual(now.x, yes.bounds.x, 'the button moved');
  await waitInPage(page, ([id, x, y]) => {
    const e = document.querySelector(`#overlay g[data-overlay="${id}"] > :first-child`);
    return e && Number(e.getAttribute('x')) === x && Number(e.getAttribute('y')) === y;
  }, [id, now.x, now.y], 'the box to follow the button');
  assert.deepEqual(await shapeBox(page, id), now);

  // A point goes to the element's centre.
  const pt = await srv.ok('overlay_draw', { session: desk, shapes: [{ kind: 'point', ref: yes.ref }] });
  await waitInPage(page, (id) => !!document.querySelector(`#overlay g[data-overlay="${id}"] circle`), pt.sc.ids[0], 'the point');
  const c = await page.evaluate((id) => { const e = document.querySelector(`#overlay g[data-overlay="${id}"] circle`); return [Number(e.getAttribute('cx')), Number(e.getAttribute('cy'))]; }, pt.sc.ids[0]);
  assert.deepEqual(c, [now.x + Math.trunc(now.width / 2), now.y + Math.trunc(now.height / 2)]);

  // find takes a new look: the snapshot's refs stop working, and a shape
  // naming one is refused with its index; nothing of the call is drawn.
  await srv.ok('find', { session: desk, text: 'Yes', role: 'push button' });
  const before = await page.evaluate(() => window.gbView.overlays.ids().length);
  const r = await srv.call('overlay_draw', { session: desk, shapes: [{ kind: 'point', x: 5, y: 5 }, { kind: 'box', ref: yes.ref }] });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, 'not_found');
  assert.match(r.content[0].text, /shapes\[1\]\.ref: ref e\d+ is from an older snapshot/);
  assert.equal(await page.evaluate(() => window.gbView.overlays.ids().length), before);

  // Terminals have no refs.
  const term = await srv.start({ command: ['sleep', '60'] });
  const tr = await srv.call('overlay_draw', { session: term.id, shapes: [{ kind: 'box', ref: 'e1' }] });
  assert.equal(tr.structuredContent.error.code, 'not_supported');
  assert.match(tr.content[0].text, /shapes\[0\]\.ref: .*terminal sessions have none/);
});

test('viewer: one_at_a_time shows the shapes in sequence', needs('desktop', topts()), async (t) => {
  const { srv } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 320, height: 240 })).sc.id;
  const page = await openDesk(t, srv, desk);
  const drawn = await srv.ok('overlay_draw', { session: desk, one_at_a_time: true, ttl_ms: 1500, shapes: [
    { kind: 'box', x: 10, y: 10, width: 20, height: 20 },
    { kind: 'box', x: 50, y: 50, width: 20, height: 20 },
    { kind: 'box', x: 90, y: 90, width: 20, height: 20 },
  ] });
  const [a, b, c] = drawn.sc.ids;
  // What the page shows, sampled until the last is gone: each alone, in order.
  const seen = await page.evaluate(async () => {
    const out = [];
    const end = performance.now() + 10000;
    while (performance.now() < end) {
      const ids = window.gbView.overlays.ids().join(',');
      if (out[out.length - 1] !== ids) out.push(ids);
      if (out.length > 1 && ids === '') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return out;
  });
  assert.deepEqual(seen.filter((s) => s !== ''), [a, b, c], `shown: ${JSON.stringify(seen)}`);
});

test('viewer: vx, vy, vw, vh and scale show one region of the desktop; bad values are said on the page', needs('desktop', topts()), async (t) => {
  const { srv } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 640, height: 480 })).sc.id;
  await srv.ok('launch_app', { session: desk, command: ['xsetroot', '-solid', '#0000ff'] });
  const page = await openDesk(t, srv, desk, '?vx=320&vy=0&vw=320&vh=240&scale=2');
  const box = await page.evaluate(() => {
    const r = document.getElementById('screen').getBoundingClientRect();
    return { w: r.width, h: r.height, crop: document.getElementById('screen').dataset.crop };
  });
  assert.deepEqual(box, { w: 640, h: 480, crop: '320,0,320,240,2' }, 'the region, twice as large');
  // The canvas pixel at the region's top left is drawn at the window's top left.
  const at = await page.evaluate(() => {
    const s = document.getElementById('screen').getBoundingClientRect();
    const c = document.getElementById('desk').getBoundingClientRect();
    const o = document.getElementById('overlay').getBoundingClientRect();
    return { dx: s.left - c.left, dy: s.top - c.top, cw: c.width, ow: o.width, ox: s.left - o.left };
  });
  assert.deepEqual(at, { dx: 640, dy: 0, cw: 1280, ow: 1280, ox: 640 }, 'canvas and overlays moved and scaled alike');
  // What lies outside the region is hidden: left of the region (where the
  // canvas's left part would be) is not the canvas.
  const outside = await page.evaluate(() => {
    const s = document.getElementById('screen').getBoundingClientRect();
    const e = document.elementFromPoint(s.left - 5, s.top + 10);
    return e && e.id;
  });
  assert.notEqual(outside, 'desk');

  for (const [q, re] of [
    ['?vx=abc&vy=0&vw=10&vh=10', /vx must be a whole number/],
    ['?vx=0&vy=0&vw=0&vh=10', /vw and vh must be 1 or more/],
    ['?vx=10&vy=10', /vw and vh/],
    ['?scale=100', /scale must be a number from 0.1 to 8/],
    ['?vx=600&vy=0&vw=100&vh=100', /does not fit the 640×480 screen/],
    ['?monitor=3', /monitor=3 is not one/],
  ]) {
    const bad = await openDesk(t, srv, desk, q);
    await waitInPage(bad, () => !document.getElementById('viewnote')?.hidden && document.getElementById('viewnote')?.textContent, null, `the note for ${q}`);
    assert.match(await bad.textContent('#viewnote'), re, q);
    assert.match(await bad.textContent('#viewnote'), /Showing the whole screen/);
    // The whole screen, still live.
    const w = await bad.evaluate(() => document.getElementById('desk').getBoundingClientRect().width);
    assert.equal(w, 640, q);
    await bad.close();
  }
});

test('viewer: an approval card marks where the call would act: the point, or the ref\'s bounds', needs('desktop', topts()), async (t) => {
  const dir = tempDir(t, 'glovebox-viewer-');
  const policy = join(dir, 'confirm.json');
  writeFileSync(policy, JSON.stringify({ mode: 'autopilot', allow: ['*'], confirm: ['click'], confirm_timeout_s: 60 }));
  const env = { GLOVEBOX_ALLOW_ALL: '0', XDG_CONFIG_HOME: join(dir, 'config') };
  const { srv } = await startViewerServer(t, { args: ['--policy', policy], env });
  const desk = (await srv.ok('desktop_start', { width: 800, height: 600 })).sc.id;
  await srv.ok('launch_app', { session: desk, command: ['zenity', '--question', '--title', 'Marker', '--text', 'Send the report?'] });
  await srv.ok('wait_for', { session: desk, text: 'Send the report?', timeout_ms: ms(20000) });
  const yes = element((await settledSnapshot(srv, desk)).sc, 'push button', 'Yes');
  const page = await openDesk(t, srv, desk);
  const { link } = await makeLink(srv, ['--session', desk, '--role', 'watch']);
  const watcher = await page.context().browser().newPage();
  await watcher.goto(link);
  await waitInPage(watcher, () => window.gbView.view?.frames > 0, null, 'the watch page\'s frame');

  // A point.
  const atPoint = srv.call('click', { session: desk, x: 100, y: 120 });
  await page.waitForSelector('.card .target', { timeout: ms(15000) });
  assert.equal(await page.textContent('.card .target'), `at 100,120 in ${desk}`);
  const ring = await waitInPage(page, () => {
    const c = document.querySelector('#overlay g[data-card-marker] circle');
    return c && [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];
  }, null, 'the marker on the point');
  assert.deepEqual(ring, [100, 120]);
  // A watch page reads where, but gets no marker (it cannot answer).
  await watcher.waitForSelector('.card .target', { timeout: ms(15000) });
  assert.equal(await watcher.textContent('.card .target'), `at 100,120 in ${desk}`);
  assert.equal(await watcher.locator('#overlay g[data-card-marker]').count(), 0);
  await page.click('.card button.decline');
  assert.equal((await atPoint).isError, true);
  await waitInPage(page, () => !document.querySelector('#overlay g[data-card-marker]'), null, 'the marker to go with its card');

  // A ref: its bounds, looked up when the card shows.
  const atRef = srv.call('click', { session: desk, ref: yes.ref });
  const box = await waitInPage(page, () => {
    const r = document.querySelector('#overlay g[data-card-marker] rect');
    return r && ['x', 'y', 'width', 'height'].map((k) => Number(r.getAttribute(k)));
  }, null, 'the marker on the element');
  assert.deepEqual(box, [yes.bounds.x, yes.bounds.y, yes.bounds.width, yes.bounds.height]);
  assert.equal(await page.textContent('.card .target'), `on ${yes.ref} in ${desk}, at ${yes.bounds.x},${yes.bounds.y} (${yes.bounds.width}×${yes.bounds.height})`);
  await page.click('.card button.decline');
  const declined = await atRef;
  assert.match(declined.content[0].text, /Declined/);
});

test('viewer: monitors from RandR reach the page; monitor=N shows one; overlays carry the monitor they fall on', needs('desktop', topts()), async (t) => {
  const { srv } = await startViewerServer(t);
  const desk = (await srv.ok('desktop_start', { width: 640, height: 480 })).sc.id;
  // Two monitors side by side on one screen, as a desk of two would have.
  await srv.ok('launch_app', { session: desk, command: ['sh', '-c', 'xrandr --setmonitor L 320/0x480/0+0+0 none && xrandr --setmonitor R 320/0x480/0+320+0 none'] });
  const page = await openDesk(t, srv, desk);
  const mons = await waitInPage(page, () => {
    const m = window.gbView.monitors;
    return m && m.some((x) => x.name === 'R') && m.some((x) => x.name === 'L') && m;
  }, null, 'the monitors in the page (they are looked at every 2 s)');
  const right = mons.findIndex((m) => m.name === 'R');
  assert.deepEqual((({ x, y, width, height }) => ({ x, y, width, height }))(mons[right]), { x: 320, y: 0, width: 320, height: 480 });

  const drawn = await srv.ok('overlay_draw', { session: desk, shapes: [
    { kind: 'box', x: 400, y: 100, width: 50, height: 50 },
    { kind: 'box', x: 10, y: 10, width: 20, height: 20, monitor_index: 7 },
  ] });
  const idx = await waitInPage(page, (ids) => {
    const g = ids.map((id) => document.querySelector(`#overlay g[data-overlay="${id}"]`));
    return g.every(Boolean) && g.map((e) => Number(e.dataset.monitor));
  }, drawn.sc.ids, 'the overlays');
  assert.deepEqual(idx, [right, 7], 'the monitor it falls on; one given is kept');

  // An anchored overlay that moves to the other monitor says so.
  await srv.ok('launch_app', { session: desk, command: ['zenity', '--info', '--title', 'Mon', '--text', 'Two screens'] });
  await srv.ok('wait_for', { session: desk, text: 'Two screens', timeout_ms: ms(20000) });
  await srv.ok('window_manage', { session: desk, window: 'Mon', action: 'move', x: 10, y: 10 });
  const left = mons.findIndex((m) => m.name === 'L');
  let label = null;
  for (let i = 0; i < 50 && !(label && label.bounds.x < 300); i++) {
    label = element((await srv.ok('snapshot', { session: desk, app: 'zenity' })).sc, 'label', 'Two screens');
    await new Promise((r) => setTimeout(r, 100));
  }
  const anchored = (await srv.ok('overlay_draw', { session: desk, shapes: [{ kind: 'box', ref: label.ref }], ttl_ms: 60000 })).sc.ids[0];
  const monitorOf = (id) => page.evaluate((id) => Number(document.querySelector(`#overlay g[data-overlay="${id}"]`)?.dataset.monitor), id);
  await waitInPage(page, (id) => !!document.querySelector(`#overlay g[data-overlay="${id}"]`), anchored, 'the anchored box');
  assert.equal(await monitorOf(anchored), left);
  await srv.ok('window_manage', { session: desk, window: 'Mon', action: 'move', x: 400, y: 10 });
  await waitInPage(page, ([id, m]) => Number(document.querySelector(`#overlay g[data-overlay="${id}"]`)?.dataset.monitor) === m, [anchored, right], 'the box to say it is on the right monitor now');

  const one = await openDesk(t, srv, desk, `?monitor=${right}`);
  await waitInPage(one, () => document.getElementById('screen').dataset.crop, null, 'the crop to the monitor');
  assert.equal(await one.evaluate(() => document.getElementById('screen').dataset.crop), '320,0,320,480,1');
  assert.equal(await one.evaluate(() => document.getElementById('viewnote')?.hidden ?? true), true, 'no complaint');
});
