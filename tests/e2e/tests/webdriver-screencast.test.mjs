// Screenshots of the browser glovebox owns: the last capture again when the
// page has not changed since (no command that may change it, no change the
// browser's screencast reported), else a new capture on the browser's own
// DevTools socket. Either way a screenshot shows the page as it is after
// the previous action: right after it, a while after it (the background
// capture), after the page changed by itself, with a password field painted
// over, on the tab the commands go to, after navigations.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { needs } from '../lib/server.mjs';
import { decodePng, imageOf, ms, pixel, startServer, topts, until } from '../lib/terminal.mjs';

const haveBrowser = ['/usr/bin/chromium', '/usr/bin/chromedriver'].every((p) => existsSync(p));
const browserOpts = () =>
  needs('webdriver', topts({ timeout: ms(90000), ...(haveBrowser ? {} : { skip: 'chromium and chromedriver are not installed (apt-get install chromium chromium-driver)' }) }));

const PAGE = `<!doctype html><html><head><title>Colours</title><style>
body { margin: 0; font: 16px sans-serif; }
#box { position: absolute; left: 0; top: 0; width: 400px; height: 200px; background: rgb(255,0,0); }
#later { position: absolute; left: 0; top: 300px; width: 200px; height: 40px; }
#reveal { position: absolute; left: 300px; top: 300px; width: 200px; height: 40px; }
#pw { position: absolute; left: 500px; top: 10px; width: 200px; height: 30px; }
#other { position: absolute; left: 0; top: 400px; }
</style></head><body>
<div id="box" onclick="this.style.background='rgb(0,255,0)'"></div>
<button id="later" onclick="setTimeout(function () { document.getElementById('box').style.background = 'rgb(0,0,255)'; }, 150)">Later</button>
<button id="reveal" onclick="var i = document.createElement('input'); i.type = 'password'; i.id = 'pw'; i.value = 'hunter2'; document.body.appendChild(i)">Reveal</button>
<a id="other" href="/other" target="_blank">Other tab</a>
</body></html>`;
const OTHER = '<!doctype html><title>Other</title><body style="margin:0;background:rgb(255,255,0)"><p>Other page</p></body>';

const sleep = (n) => new Promise((r) => setTimeout(r, n));

test('screenshots of the owned browser show the page as it is now: after actions, after the page changed by itself, redacted, on the focused tab', browserOpts(), async (t) => {
  const site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(req.url === '/other' ? OTHER : PAGE);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  t.after(() => site.close());
  const url = `http://127.0.0.1:${site.address().port}`;
  // Debug logs say where each screenshot came from.
  const srv = await startServer(t, { env: { GLOVEBOX_LOG: 'debug' } });
  await srv.ok('webdriver_connect', {});
  await srv.ok('open_url', { url: `${url}/` });

  const shoot = async () => {
    const s = await srv.ok('screenshot', {});
    return { sc: s.sc, png: decodePng(imageOf(s).data) };
  };
  const first = await shoot();
  assert.deepEqual(pixel(first.png, 100, 100), [255, 0, 0]);
  const size = [first.png.width, first.png.height];
  assert.equal(size[0], 1280);
  // A while later (the screencast runs now): the same picture, same size.
  await sleep(500);
  const again = await shoot();
  assert.deepEqual(pixel(again.png, 100, 100), [255, 0, 0]);
  assert.deepEqual([again.png.width, again.png.height], size);
  assert.deepEqual([again.sc.width, again.sc.height], size);

  // Right after a click, and a while after it: the click's colour.
  await srv.ok('click', { x: 100, y: 100 });
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 255, 0]);
  await sleep(500);
  for (let i = 0; i < 3; i++) assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 255, 0], `shot ${i}`);

  // The page changes by itself (a timer): the change shows without an action.
  await srv.ok('click', { x: 100, y: 320 });
  await until(async () => {
    const p = pixel((await shoot()).png, 100, 100);
    return p[2] === 255 && p[1] === 0;
  }, ms(5000), 'the box to turn blue');
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 0, 255]);

  // A password field that appears is painted over, also a while later.
  await srv.ok('click', { x: 400, y: 320 });
  await sleep(500);
  const secret = await shoot();
  assert.equal(secret.sc.redacted, 1);
  assert.deepEqual(pixel(secret.png, 600, 25), [0x60, 0x60, 0x60]);
  // The snapshot sees it, without its value.
  const snap = await srv.ok('snapshot', {});
  const pw = snap.sc.elements.find((e) => e.states.includes('password'));
  assert.ok(pw, snap.sc.outline);
  assert.equal(pw.value, '');
  assert.doesNotMatch(JSON.stringify(snap.sc), /hunter2/);

  // Another tab: its page, not the first tab's frames; then back.
  await srv.ok('click', { text: 'Other tab' });
  await until(async () => (await srv.ok('window_list', {})).sc.count === 2, ms(10000), 'the second tab to open');
  await srv.ok('window_manage', { window: 'Other', action: 'focus' });
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 255, 0]);
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 255, 0]);
  assert.match((await srv.ok('snapshot', {})).sc.outline, /Other page/);
  await srv.ok('window_manage', { window: 'Other', action: 'close' });
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 0, 255]);
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 0, 255]);
  assert.match((await srv.ok('snapshot', {})).sc.outline, /Reveal/);

  // Another page in the same tab.
  await srv.ok('open_url', { url: `${url}/other` });
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 255, 0]);
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 255, 0]);
  // Another site (localhost, not 127.0.0.1: another renderer process).
  await srv.ok('open_url', { url: `http://localhost:${site.address().port}/` });
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 0, 0]);
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [255, 0, 0]);
  assert.match((await srv.ok('snapshot', {})).sc.outline, /Reveal/);
  await srv.ok('click', { x: 100, y: 100 });
  await sleep(500);
  assert.deepEqual(pixel((await shoot()).png, 100, 100), [0, 255, 0]);
  // Some were the last capture again (the page had not changed), some new.
  const from = srv.stderr().match(/screenshot from (the last capture|a new capture)/g) ?? [];
  assert.ok(from.includes('screenshot from the last capture'), from.join('\n'));
  assert.ok(from.includes('screenshot from a new capture'), from.join('\n'));
  await srv.close();
});
